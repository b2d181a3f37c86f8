"""The batch journal and its derived files: ``results.jsonl`` (append-only, fsynced, one JSON
line per paper, torn last lines repaired), ``summary.csv``, and atomic report writes."""
from __future__ import annotations

import csv
import json
import logging
import os
import threading
from pathlib import Path

logger = logging.getLogger(__name__)
JOURNAL = "results.jsonl"


def repair_journal(path: Path) -> None:
    """Cut a torn last line (no trailing newline, or not valid JSON) off the journal."""
    if not path.exists():
        return
    data = path.read_bytes()
    if not data:
        return
    keep = data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]
    lines = keep.splitlines(keepends=True)
    while lines:
        try:
            json.loads(lines[-1])
            break
        except ValueError:
            lines.pop()
    repaired = b"".join(lines)
    if repaired != data:
        logger.warning("journal %s: removed a torn last line", path)
        with path.open("r+b") as handle:
            handle.truncate(len(repaired))
            handle.flush()
            os.fsync(handle.fileno())


def load_done(path: Path, current: str, *, retry_failed: bool = False) -> dict[str, dict]:
    """Latest journal entry per key made with the ``current`` fingerprint; with
    ``retry_failed``, papers whose latest entry failed, or was degraded by a passing service
    problem (``partial``), count as not done."""
    done: dict[str, dict] = {}
    if not path.exists():
        return done
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("fingerprint") == current:
                done[entry["key"]] = entry
    if retry_failed:
        done = {key: entry for key, entry in done.items()
                if entry.get("status") not in ("failed", "partial")}
    return done


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


class Journal:
    """``results.jsonl`` opened for appending, unbuffered: a line is whole or absent, even
    when the disk fills in the middle of it (the partial bytes are truncated away)."""

    def __init__(self, path: Path):
        self.path = path
        self._handle = path.open("ab", buffering=0)
        self._lock = threading.Lock()

    def append(self, entry: dict) -> None:
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode()
        with self._lock:
            size = self._handle.seek(0, os.SEEK_END)
            try:
                self._write(line)
                os.fsync(self._handle.fileno())
            except OSError:
                self._undo(size)
                raise

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._handle.write(view):]

    def _undo(self, size: int) -> None:
        try:
            self._handle.truncate(size)
            os.fsync(self._handle.fileno())
        except OSError:  # repair_journal cuts the torn line on the next run
            logger.warning("journal %s: could not remove a partial line", self.path)

    def close(self) -> None:
        self._handle.close()


SUMMARY_FIELDS = ("doi", "status", "reason", "registry", "printed", "registry_refs", "found",
                  "not_found", "cited_by", "report")


def write_summary(journal_path: Path, csv_path: Path) -> None:
    """summary.csv: the latest journal entry per paper, in first-seen order."""
    latest: dict[str, dict] = {}
    if journal_path.exists():
        with journal_path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                latest[entry["key"]] = entry
    tmp = csv_path.with_name(csv_path.name + ".part")
    try:
        with tmp.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=SUMMARY_FIELDS, extrasaction="ignore")
            writer.writeheader()
            for key, entry in latest.items():
                writer.writerow({**entry, "doi": entry.get("doi") or entry.get("input") or key})
        tmp.replace(csv_path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
