"""Batch runs over a DOI list: streaming input, a shared HTTP client (one rate limiter per
service for all workers), one report per paper, an append-only fsynced journal, resume.

The journal ``results.jsonl`` is the source of truth: a paper is done when its line is
there with the current configuration fingerprint. A torn last line (a kill during a
write) is cut off before appending. Reports are written to a temporary file, fsynced and
renamed, before their journal line, so a journal line always points at a whole report.
"""
from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .config import Settings
from .context import Options
from .doi import doi_slug, parse_doi
from .errors import CircuitOpenError, CitecheckError, InvalidDOIError
from .http import HttpClient
from .store import Store

logger = logging.getLogger(__name__)
JOURNAL = "results.jsonl"


def fingerprint(settings: Settings, options: Options) -> str:
    """What a re-run must match to reuse a result: versions, model, prompt versions, flags."""
    try:
        from .judge import DEFAULT_PROMPT
    except ImportError:  # pragma: no cover - judge package always ships
        DEFAULT_PROMPT = "none"
    parts = [__version__, settings.judge_model, DEFAULT_PROMPT, str(options.no_llm),
             str(options.max_cited_by or settings.max_cited_by)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def read_dois(lines: Iterable[str]) -> Iterator[tuple[str, str | None, str | None]]:
    """(raw line, canonical DOI or None, reason) for each non-blank, non-comment line."""
    for raw in lines:
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            parsed = parse_doi(text)
        except InvalidDOIError:
            yield text, None, "invalid_doi"
            continue
        if parsed.is_suspicious:
            yield text, None, "suspicious_doi"
        else:
            yield text, parsed.doi, None


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


def load_done(path: Path, current: str) -> dict[str, dict]:
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
    return done


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


@dataclass
class BatchResult:
    total: int = 0
    done: int = 0
    skipped: int = 0
    failed: int = 0
    invalid: int = 0
    stopped: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


class BatchRunner:
    def __init__(self, out_dir: Path, *, settings: Settings, options: Options, jobs: int = 2,
                 replay: Path | None = None, store: Store | None = None, progress=None):
        self.out_dir = Path(out_dir)
        self.settings, self.options = settings, options
        self.jobs = max(1, jobs)
        self.replay = replay
        self.store = store if store is not None or replay else Store(settings.db_path)
        self.http = HttpClient(settings, store=None if replay else self.store, replay_dir=replay)
        self.fingerprint = fingerprint(settings, options)
        self.progress = progress
        self._lock = threading.Lock()

    def run(self, lines: Iterable[str]) -> BatchResult:
        (self.out_dir / "reports").mkdir(parents=True, exist_ok=True)
        journal_path = self.out_dir / JOURNAL
        repair_journal(journal_path)
        done = load_done(journal_path, self.fingerprint)
        result = BatchResult()
        seen: set[str] = set()
        with journal_path.open("a", encoding="utf-8") as journal, \
                ThreadPoolExecutor(max_workers=self.jobs) as pool:
            pending = set()
            for raw, doi, reason in read_dois(lines):
                key = doi or raw
                if key in seen:
                    continue
                seen.add(key)
                result.total += 1
                if key in done:
                    result.skipped += 1
                    self._tick(result)
                    continue
                if doi is None:
                    result.invalid += 1
                    self._journal(journal, {"key": key, "doi": None, "input": raw[:300],
                                            "status": "invalid", "reason": reason})
                    self._tick(result)
                    continue
                if result.stopped:
                    break
                pending.add(pool.submit(self._one, doi))
                if len(pending) >= self.jobs * 2:  # bounded: memory flat in the list size
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    self._collect(finished, journal, result)
            finished, _ = wait(pending)
            self._collect(finished, journal, result)
        write_summary(journal_path, self.out_dir / "summary.csv")
        return result

    def _one(self, doi: str) -> dict:
        from .api import check

        report_path = self.out_dir / "reports" / f"{doi_slug(doi)}.json"
        entry = {"key": doi, "doi": doi, "report": str(report_path.relative_to(self.out_dir))}
        try:
            report = check(doi, settings=self.settings, options=self.options, replay=self.replay,
                           store=self.store, http=self.http)
        except CircuitOpenError as error:
            return {**entry, "status": "stopped", "reason": error.reason, "message": str(error)}
        except CitecheckError as error:
            return {**entry, "status": "failed", "reason": error.reason, "report": None}
        except Exception as error:  # one bad paper never stops the batch
            logger.exception("paper %s crashed", doi)
            return {**entry, "status": "failed", "reason": f"internal_error:{type(error).__name__}",
                    "report": None}
        _write_atomic(report_path, report.model_dump_json(indent=2))
        failed = [s.name for s in report.stages if s.status == "failed"]
        counts = report.references.counts
        return {**entry, "status": "ok" if not failed else "partial",
                "reason": ",".join(failed) or None, "registry": report.registry.status,
                "printed": counts.printed, "registry_refs": counts.registry,
                "found": counts.linked + counts.found + counts.found_with_differences,
                "not_found": counts.not_found, "cited_by": report.cited_by.count}

    def _collect(self, finished, journal, result: BatchResult) -> None:
        for future in finished:
            entry = future.result()
            if entry["status"] == "stopped":
                result.stopped = entry.get("message") or entry["reason"]
                continue
            self._journal(journal, entry)
            if entry["status"] == "failed":
                result.failed += 1
            else:
                result.done += 1
            self._tick(result)

    def _journal(self, journal, entry: dict) -> None:
        entry = {**entry, "fingerprint": self.fingerprint}
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock:
            journal.write(line)
            journal.flush()
            os.fsync(journal.fileno())

    def _tick(self, result: BatchResult) -> None:
        if self.progress is not None:
            self.progress(result)


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
    with tmp.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=SUMMARY_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for key, entry in latest.items():
            writer.writerow({**entry, "doi": entry.get("doi") or entry.get("input") or key})
    tmp.replace(csv_path)


def open_input(source: str) -> Iterable[str]:
    if source == "-":
        return sys.stdin
    return Path(source).open(encoding="utf-8", errors="replace")
