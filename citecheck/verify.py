"""Re-check a report from the files it read, without trusting the run that wrote it.

``verify_report(report.json, artifacts_dir)`` recomputes, independently of the pipeline:

- **artifacts**: each artifact's SHA-256 and size from its file. Files in ``artifacts_dir`` are
  named by their SHA-256 (lower-case hex) plus an optional extension: ``<sha256>.pdf``,
  ``<sha256>.json`` or just ``<sha256>`` (what ``check --keep-artifacts DIR`` writes). A PDF's
  page count is compared too.
- **evidence**: every claim's evidence quote must appear verbatim in its artifact's text on the
  page it names, after the whitespace/ligature normalisation used when the quote was accepted
  (``citecheck.text.normalize.normalize_text``). PDF text is extracted here with pdfplumber
  directly, not with citecheck's extraction pipeline: first in pdfplumber's layout order, then,
  if the quote is not found, in the content stream's order (``use_text_flow``), which keeps
  the columns of a multi-column page apart, and last with pypdfium2's own text layer, which
  maps glyphs of fonts with a legacy encoding that pdfminer misreads (a "fi" ligature read as
  "Þ"), the reader citecheck's extraction uses.
- **counts**: ``references.counts`` against the items' statuses and flags, the printed total,
  ``cited_by.listed`` against its items and their descending order, claim references to items.

Each check passes or fails with a message and, on failure, a machine-readable ``reason``.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ValidationError, computed_field

from .errors import BadInputError
from .report import Artifact, Evidence, Report

logger = logging.getLogger(__name__)

COUNTED_STATUSES = ("linked", "found", "found_with_differences", "not_found", "unchecked",
                    "registry_only")
PRINTED_STATUSES = ("linked", "found", "found_with_differences", "not_found", "unchecked")
TEXT_READERS = ("layout", "text_flow", "pdfium")  # tried in this order, each only if needed
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_COMPACT = re.compile(r"[\s\-\u00ad\u2010-\u2015]+")


class VerifyCheck(BaseModel):
    name: str
    passed: bool
    message: str
    reason: str | None = None

    @computed_field
    @property
    def status(self) -> str:
        return "pass" if self.passed else "fail"


class VerifyResult(BaseModel):
    report: str
    artifacts_dir: str
    checks: list[VerifyCheck]

    @computed_field
    @property
    def ok(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[VerifyCheck]:
        return [c for c in self.checks if not c.passed]


def format_verify_result(result: VerifyResult) -> str:
    """One line per check (``PASS``/``FAIL name: message``) and a closing tally."""
    lines = [f"{'PASS' if c.passed else 'FAIL'} {c.name}: {c.message}" for c in result.checks]
    lines.append(f"{len(result.checks) - len(result.failed)} passed, {len(result.failed)} failed")
    return "\n".join(lines) + "\n"


def verify_report(report_path: Path | str, artifacts_dir: Path | str) -> VerifyResult:
    """All checks of one report (see the module docstring); raises BadInputError on bad input."""
    report_path, artifacts_dir = Path(report_path), Path(artifacts_dir)
    report = load_report(report_path)
    if not artifacts_dir.is_dir():
        raise BadInputError(f"artifacts folder not found: {artifacts_dir}")
    with ArtifactFiles(artifacts_dir) as files:
        checks = [check_artifact(a, files) for a in report.artifacts]
        verified = {a.sha256.lower(): a for a, c in zip(report.artifacts, checks) if c.passed}
        checks += [check_page_count(a, files) for a in verified.values()
                   if a.kind == "pdf" and a.pages is not None]
        normalize = quote_normalizer()
        for claim in report.claims.outgoing + report.claims.incoming:
            for number, evidence in enumerate(claim.evidence, start=1):
                checks.append(check_evidence(f"evidence[{claim.id}#{number}]", evidence, files,
                                             verified, normalize))
    checks += count_checks(report)
    return VerifyResult(report=str(report_path), artifacts_dir=str(artifacts_dir), checks=checks)


def load_report(path: Path) -> Report:
    try:
        return Report.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise BadInputError(f"report not found: {path}") from None
    except (ValidationError, ValueError) as error:
        raise BadInputError(f"not a citecheck report: {path} ({error.__class__.__name__})",
                            reason="invalid_report") from None


class ArtifactFiles:
    """The files of an artifacts folder, found by SHA-256 name; open PDFs and page texts cached.

    A context manager: the PDFs opened while checking are closed on exit.
    """

    def __init__(self, folder: Path):
        self.by_sha: dict[str, Path] = {}
        for path in sorted(folder.iterdir()):
            stem = path.name.split(".", 1)[0].lower()
            if path.is_file() and _SHA256.match(stem):
                self.by_sha.setdefault(stem, path)
        self._pdfs: dict[str, object] = {}
        self._pdfium: dict[str, object] = {}
        self._texts: dict[tuple[str, int, str], str] = {}

    def __enter__(self) -> ArtifactFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for pdf in [*self._pdfs.values(), *self._pdfium.values()]:
            pdf.close()
        self._pdfs.clear()
        self._pdfium.clear()

    def path(self, sha256: str) -> Path | None:
        return self.by_sha.get(sha256.lower())

    def _pdf(self, sha256: str):
        if sha256 not in self._pdfs:
            import pdfplumber

            self._pdfs[sha256] = pdfplumber.open(self.by_sha[sha256])
        return self._pdfs[sha256]

    def page_count(self, sha256: str) -> int:
        """Pages of a PDF artifact; raises on an unreadable PDF."""
        return len(self._pdf(sha256).pages)

    def page_text(self, sha256: str, number: int, reader: str) -> str:
        """Text of page ``number`` (1-based) as one of ``TEXT_READERS`` reads it."""
        key = (sha256, number, reader)
        if key not in self._texts:
            if reader == "pdfium":
                self._texts[key] = self._pdfium_text(sha256, number)
            else:
                page = self._pdf(sha256).pages[number - 1]
                self._texts[key] = page.extract_text(use_text_flow=reader == "text_flow") or ""
        return self._texts[key]

    def _pdfium_text(self, sha256: str, number: int) -> str:
        import pypdfium2

        if sha256 not in self._pdfium:
            self._pdfium[sha256] = pypdfium2.PdfDocument(self.by_sha[sha256])
        page = self._pdfium[sha256][number - 1]
        textpage = page.get_textpage()
        try:
            return textpage.get_text_range()
        finally:
            textpage.close()
            page.close()


def sha256_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def check_artifact(artifact: Artifact, files: ArtifactFiles) -> VerifyCheck:
    name = f"artifact[{artifact.sha256}]"
    path = files.path(artifact.sha256)
    if path is None:
        return VerifyCheck(name=name, passed=False, reason="missing_file",
                           message=f"no file named {artifact.sha256}[.ext] in the folder")
    actual, size = sha256_file(path)
    if actual != artifact.sha256.lower():
        return VerifyCheck(name=name, passed=False, reason="hash_mismatch",
                           message=f"{path.name} hashes to {actual}")
    if size != artifact.bytes:
        return VerifyCheck(name=name, passed=False, reason="size_mismatch",
                           message=f"{path.name} has {size} bytes, the report says {artifact.bytes}")
    return VerifyCheck(name=name, passed=True, message=f"{path.name}: sha256 and size match")


def check_page_count(artifact: Artifact, files: ArtifactFiles) -> VerifyCheck:
    """The PDF's page count against the report's (for an artifact whose hash matched)."""
    name = f"artifact_pages[{artifact.sha256}]"
    try:
        pages = files.page_count(artifact.sha256.lower())
    except Exception as error:  # pdfminer raises many unrelated types on a broken file
        return VerifyCheck(name=name, passed=False, reason="unreadable_pdf",
                           message=f"pdfplumber could not read it: {error.__class__.__name__}")
    return VerifyCheck(name=name, passed=pages == artifact.pages,
                       reason=None if pages == artifact.pages else "count_mismatch",
                       message=f"{pages} pages, the report says {artifact.pages}")


def quote_normalizer() -> Callable[[str], str]:
    """citecheck's own quote normalisation, or a whitespace/NFKC stand-in if it is unavailable."""
    try:
        from .text.normalize import normalize_text
    except ImportError:
        logger.warning("citecheck.text.normalize unavailable; using NFKC/whitespace normalisation")
        return fallback_normalize
    return normalize_text


def fallback_normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def check_evidence(name: str, evidence: Evidence, files: ArtifactFiles,
                   verified: dict[str, Artifact], normalize: Callable[[str], str]) -> VerifyCheck:
    sha = (evidence.artifact_sha256 or "").lower()
    if not sha:
        return VerifyCheck(name=name, passed=False, reason="no_artifact",
                           message="the evidence names no artifact, so it cannot be re-checked")
    if sha not in verified:
        return VerifyCheck(name=name, passed=False, reason="artifact_unverified",
                           message=f"artifact {sha} is not in the report or failed its hash check")
    path, is_json = files.path(sha), verified[sha].kind == "json"
    try:
        if is_json:
            where, renderings = "the whole artifact", [("json", lambda: json_text(path))]
        else:
            count = files.page_count(sha)
            numbers = [evidence.page] if evidence.page is not None else range(1, count + 1)
            if not all(1 <= n <= count for n in numbers):
                return VerifyCheck(name=name, passed=False, reason="page_out_of_range",
                                   message=f"page {evidence.page} of a {count}-page artifact")
            where = f"page {evidence.page}" if evidence.page is not None else "the whole artifact"
            renderings = [(reader, lambda reader=reader: "\n".join(
                files.page_text(sha, n, reader) for n in numbers)) for reader in TEXT_READERS]
        how = next(filter(None, (_with_reader(quote_match(evidence.quote, render(), normalize),
                                              reader) for reader, render in renderings)), None)
    except Exception as error:  # a broken PDF or JSON file: the quote cannot be found
        return VerifyCheck(name=name, passed=False, reason="unreadable_artifact",
                           message=f"{path.name} could not be read: {error.__class__.__name__}")
    if how is None:
        return VerifyCheck(name=name, passed=False, reason="quote_not_found",
                           message=f"quote not found on {where}: {evidence.quote[:80]!r}")
    return VerifyCheck(name=name, passed=True, message=f"quote found on {where} ({how})")


def _with_reader(how: str | None, reader: str) -> str | None:
    return f"{how}, {reader} text" if how else None


def quote_match(quote: str, text: str, normalize: Callable[[str], str]) -> str | None:
    """How the quote was found in the text, or None.

    Normalised substring first. Failing that, the same characters with spaces and hyphens
    removed: PDF text keeps a line-end hyphen ("self-\\nreport") that the normaliser removes
    while the passage a quote was taken from may have kept it, and vice versa.
    """
    wanted = normalize(quote)
    if not wanted:
        return None
    haystack = normalize(text)
    if wanted in haystack:
        return "verbatim after normalisation"
    compact = _COMPACT.sub("", wanted)
    if len(compact) >= 12 and compact in _COMPACT.sub("", haystack):
        return "verbatim ignoring spaces and hyphens"
    return None


def json_text(path: Path) -> str:
    """All string values of a JSON artifact, in document order."""
    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json.loads(path.read_bytes()))
    return "\n".join(strings)


def _equal(name: str, stated: int, recomputed: int, what: str) -> VerifyCheck:
    passed = stated == recomputed
    return VerifyCheck(name=name, passed=passed, reason=None if passed else "count_mismatch",
                       message=f"report says {stated}, {what} gives {recomputed}")


def count_checks(report: Report) -> list[VerifyCheck]:
    refs, counts = report.references.items, report.references.counts
    checks = [_equal(f"count[references.{status}]", getattr(counts, status),
                     sum(1 for r in refs if r.status == status), f"items with status {status}")
              for status in COUNTED_STATUSES]
    checks.append(_equal("count[references.retracted]", counts.retracted,
                         sum(1 for r in refs if r.retracted), "items marked retracted"))
    checks.append(_equal("count[references.self_citations]", counts.self_citations,
                         sum(1 for r in refs if r.self_citation), "items marked self_citation"))
    if counts.printed > 0:
        total = sum(getattr(counts, s) for s in PRINTED_STATUSES)
        checks.append(_equal("count[references.printed]", counts.printed, total,
                             "linked+found+found_with_differences+not_found+unchecked"))
    cited_by = report.cited_by
    checks.append(_equal("count[cited_by.listed]", cited_by.listed, len(cited_by.items),
                         "the number of items"))
    order = [w.cited_by_count or 0 for w in cited_by.items]
    descending = order == sorted(order, reverse=True)
    checks.append(VerifyCheck(name="order[cited_by.items]", passed=descending,
                              reason=None if descending else "not_sorted",
                              message="sorted by cited_by_count, descending" if descending
                              else "items are not sorted by cited_by_count, descending"))
    known = {r.id for r in refs}
    dangling = sorted({i for c in report.claims.outgoing + report.claims.incoming
                       for i in c.cited_ref_ids if i not in known})
    checks.append(VerifyCheck(name="refs[claims.cited_ref_ids]", passed=not dangling,
                              reason="unknown_reference" if dangling else None,
                              message=f"unknown reference ids: {', '.join(dangling)}" if dangling
                              else "every cited_ref_id names a reference item"))
    return checks
