"""Batch runs over a DOI list: streaming input, a shared HTTP client (one rate limiter per
service for all workers), one report per paper, an append-only fsynced journal, resume.

The journal ``results.jsonl`` is the source of truth: a paper is done when its line is
there with the current configuration fingerprint (failed papers included: a re-run does not
retry them unless asked to). A torn last line (a kill during a write) is cut off before
appending. Reports are written to a temporary file, fsynced and renamed, before their journal
line, so a journal line always points at a whole report. Only the driver writes: workers (threads
here, Ray tasks in ``batch_ray``) return the report text and the journal fields.

A paper that takes the whole process down (a hang the user kills, a crash) would otherwise be
retried on every resume: ``started.log`` records each paper as it starts and is removed at the
end of a run that was not killed, so a paper found there ``MAX_INTERRUPTED`` times is journaled
as failed (``interrupted_repeatedly``) instead of being started again.
"""
from __future__ import annotations

import hashlib
import logging
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    ALL_COMPLETED,
    FIRST_COMPLETED,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from . import __version__
from .config import Settings
from .context import Options
from .doi import doi_slug, parse_doi
from .errors import CircuitOpenError, CitecheckError, InvalidDOIError
from .http import HttpClient
from .journal import JOURNAL, Journal, load_done, repair_journal, write_atomic, write_summary
from .store import Store

logger = logging.getLogger(__name__)
STARTED = "started.log"
MAX_INTERRUPTED = 3


class OutputError(CitecheckError):
    """The output folder cannot be written (read-only, disk full): the batch stops cleanly."""

    reason = "output_unwritable"


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


@dataclass
class PaperOutcome:
    """What a worker hands the driver: journal fields and the report text (None if failed)."""

    fields: dict
    report_json: str | None = None


def check_paper(doi: str, *, settings: Settings, options: Options, replay: Path | None,
                store: Store | None, http: HttpClient) -> PaperOutcome:
    """Run one paper; every failure becomes a status and a reason, never an exception."""
    from .api import check

    try:
        report = check(doi, settings=settings, options=options, replay=replay, store=store,
                       http=http)
    except CircuitOpenError as error:
        return PaperOutcome({"status": "stopped", "reason": error.reason, "message": str(error)})
    except CitecheckError as error:
        return PaperOutcome({"status": "failed", "reason": error.reason})
    except Exception as error:  # one bad paper never stops the batch
        logger.exception("paper %s crashed", doi)
        return PaperOutcome({"status": "failed",
                             "reason": f"internal_error:{type(error).__name__}"})
    problems = [f"{s.name}:{s.reason}" if s.reason else s.name for s in report.stages
                if s.status == "failed" or _transient(s.reason)]
    counts = report.references.counts
    return PaperOutcome({
        "status": "ok" if not problems else "partial", "reason": ",".join(problems) or None,
        "registry": report.registry.status, "printed": counts.printed,
        "registry_refs": counts.registry,
        "found": counts.linked + counts.found + counts.found_with_differences,
        "not_found": counts.not_found, "cited_by": report.cited_by.count,
    }, report.model_dump_json(indent=2))


TRANSIENT_REASONS = ("upstream_error", "timeout", "rate_limited", "daily_limit", "html_body",
                     "bad_json", "empty_body", "dns_error")


def _transient(reason: str | None) -> bool:
    """A stage degraded by a service's passing trouble: the paper is worth re-running."""
    return bool(reason) and any(t in reason for t in TRANSIENT_REASONS)


class Engine(Protocol):
    """Where papers run. ``submit`` returns a handle; ``collect`` returns (doi, outcome) pairs
    of finished handles and the handles still running."""

    def submit(self, doi: str) -> object: ...

    def collect(self, pending: set, *, all_of_them: bool) -> tuple[list[tuple[str, PaperOutcome]], set]: ...

    def cancel(self, pending: set) -> None: ...

    def close(self) -> None: ...


class LocalEngine:
    """Threads in this process sharing one HttpClient (so one rate limiter per service)."""

    def __init__(self, runner: BatchRunner):
        self._runner = runner
        self._pool = ThreadPoolExecutor(max_workers=runner.jobs)
        self._dois: dict[Future, str] = {}

    def submit(self, doi: str) -> Future:
        future = self._pool.submit(self._run, doi)
        self._dois[future] = doi
        return future

    def _run(self, doi: str) -> PaperOutcome:
        runner = self._runner
        runner.mark_started(doi)
        return check_paper(doi, settings=runner.settings, options=runner.options,
                           replay=runner.replay, store=runner.store, http=runner.http)

    def collect(self, pending: set, *, all_of_them: bool):
        finished, rest = wait(pending, return_when=ALL_COMPLETED if all_of_them else FIRST_COMPLETED)
        dois = {future: self._dois.pop(future) for future in finished}
        return [(dois[f], f.result()) for f in finished if not f.cancelled()], rest

    def cancel(self, pending: set) -> None:
        for future in pending:
            future.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


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
    """The driver: reads the list, skips what is done, hands papers to an engine, and is the
    only writer of reports, the journal and summary.csv."""

    def __init__(self, out_dir: Path, *, settings: Settings, options: Options, jobs: int = 2,
                 replay: Path | None = None, store: Store | None = None,
                 progress: Callable[[BatchResult], None] | None = None,
                 retry_failed: bool = False,
                 engine: Callable[[BatchRunner], Engine] = LocalEngine):
        self.out_dir = Path(out_dir)
        self.settings, self.options = settings, options
        self.jobs = max(1, jobs)
        self.replay = replay
        self.store = store if store is not None or replay else Store(settings.db_path)
        self.http = HttpClient(settings, store=None if replay else self.store, replay_dir=replay)
        self.fingerprint = fingerprint(settings, options)
        self.progress = progress
        self.retry_failed = retry_failed
        self._engine_factory = engine
        self._started = None
        self._started_lock = threading.Lock()
        self._unwritable = False

    def run(self, lines: Iterable[str]) -> BatchResult:
        """Run the batch; an unwritable output folder raises :class:`OutputError` before any
        work, running out of space later sets ``BatchResult.stopped``."""
        journal_path = self.out_dir / JOURNAL
        try:
            (self.out_dir / "reports").mkdir(parents=True, exist_ok=True)
            repair_journal(journal_path)
            journal = Journal(journal_path)
            self._started = (self.out_dir / STARTED).open("a", encoding="utf-8")
        except OSError as error:
            raise OutputError(f"cannot write to {self.out_dir}: {error.strerror or error}") from None
        done = load_done(journal_path, self.fingerprint, retry_failed=self.retry_failed)
        interrupted = self._interrupted_counts(done)
        result = BatchResult()
        engine = None
        try:
            engine = self._engine_factory(self)
            self._loop(lines, done, interrupted, journal, engine, result)
        finally:
            if engine is not None:
                engine.close()
            journal.close()
            self._started.close()
        self._finish(journal_path, result)
        return result

    def _loop(self, lines, done, interrupted, journal: Journal, engine: Engine,
              result: BatchResult) -> None:
        seen: set[str] = set()
        pending: set = set()
        try:
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
                    self._record(journal, key, {"doi": None, "input": raw[:300],
                                                "status": "invalid", "reason": reason}, None, result)
                    continue
                if interrupted.get(doi, 0) >= MAX_INTERRUPTED:
                    self._record(journal, key, {"doi": doi, "report": None, "status": "failed",
                                                "reason": "interrupted_repeatedly"}, None, result)
                    continue
                if result.stopped:
                    break
                pending.add(engine.submit(doi))
                if len(pending) >= self.jobs * 2:  # bounded: memory flat in the list size
                    finished, pending = engine.collect(pending, all_of_them=False)
                    self._collect(finished, journal, result)
            if result.stopped:
                engine.cancel(pending)
            finished, pending = engine.collect(pending, all_of_them=True)
            self._collect(finished, journal, result)
        except OutputError as error:
            result.stopped = str(error)
            self._unwritable = True
            engine.cancel(pending)
            engine.collect(pending, all_of_them=True)

    def _collect(self, finished: list[tuple[str, PaperOutcome]], journal: Journal,
                 result: BatchResult) -> None:
        for doi, outcome in finished:
            if outcome.fields["status"] == "stopped":
                result.stopped = outcome.fields.get("message") or outcome.fields["reason"]
                continue
            self._record(journal, doi, {"doi": doi, "report": None, **outcome.fields},
                         outcome.report_json, result)

    def _record(self, journal: Journal, key: str, fields: dict, report_json: str | None,
                result: BatchResult) -> None:
        """Report file first, then its journal line; any write failure raises OutputError."""
        entry = {"key": key, **fields}
        try:
            if report_json is not None:
                report_path = self.out_dir / "reports" / f"{doi_slug(fields['doi'])}.json"
                write_atomic(report_path, report_json)
                entry["report"] = str(report_path.relative_to(self.out_dir))
            journal.append({**entry, "fingerprint": self.fingerprint})
        except OSError as error:
            raise OutputError(f"cannot write to {self.out_dir}: {error.strerror or error}") from None
        status = fields["status"]
        if status == "invalid":
            result.invalid += 1
        elif status == "failed":
            result.failed += 1
        else:
            result.done += 1
        self._tick(result)

    def mark_started(self, doi: str) -> None:
        """Note that ``doi`` starts (flushed: it must survive a kill -9 of this process)."""
        with self._started_lock:
            try:
                self._started.write(doi + "\n")
                self._started.flush()
            except OSError as error:
                logger.warning("cannot note the start of %s: %s", doi, error)

    def _interrupted_counts(self, done: dict[str, dict]) -> Counter:
        path = self.out_dir / STARTED
        counts = Counter(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
        return Counter({key: n for key, n in counts.items() if key and key not in done})

    def _finish(self, journal_path: Path, result: BatchResult) -> None:
        """Forget the starts of a run that was not killed; write summary.csv if there is room."""
        try:
            (self.out_dir / STARTED).unlink(missing_ok=True)
            if not self._unwritable:
                write_summary(journal_path, self.out_dir / "summary.csv")
        except OSError as error:
            result.stopped = f"cannot write to {self.out_dir}: {error.strerror or error}"

    def _tick(self, result: BatchResult) -> None:
        if self.progress is not None:
            self.progress(result)


def open_input(source: str) -> Iterable[str]:
    if source == "-":
        return sys.stdin
    return Path(source).open(encoding="utf-8", errors="replace")
