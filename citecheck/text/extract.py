"""``extract_pdf``: PDF bytes to pages, hidden text, printed references and citation contexts.

Parsing runs in a separate worker process (:mod:`citecheck.text.worker`, forked by
:mod:`citecheck.text.forkserver`) with a wall-clock deadline and an address-space limit,
so a hostile or huge PDF costs only that process.
Everything after parsing (header removal, references, contexts) runs here on the worker's
JSON. Failures are results, not exceptions: ``status`` is ``ok``, ``partial`` or
``failed`` with a machine-readable ``reason``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import os
import re
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from citecheck.identifiers import (
    find_arxiv,
    find_dois,
    find_pmcid,
    find_pmid,
    find_urls,
    find_year,
)
from citecheck.text.contexts import RefKey, find_contexts, fold
from citecheck.text.document import PageLines, page_text, pages_from_worker, vocabulary
from citecheck.text.forkserver import ServerGone, run_in_fork_server
from citecheck.text.protocol import EXIT_OOM
from citecheck.text.references import PrintedReference, find_references

logger = logging.getLogger(__name__)

__all__ = ["Extraction", "extract_pdf"]

Status = Literal["ok", "partial", "failed"]
Reason = Literal[
    "parse_timeout", "parse_oom", "parse_error", "encrypted", "no_text_layer",
    "unmapped_glyphs", "not_pdf", "empty_file",
]
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_UNMAPPED_SHARE = 0.3
# How running out of the address-space limit shows up: Python, C++ and the dynamic loader.
# The parser sees no credentials or contact address (it reads hostile files).
_SECRET_ENV = re.compile(r"^(CITECHECK_.*|ANTHROPIC_.*|OPENALEX_.*|.*_API_KEY|.*TOKEN.*|.*SECRET.*)$", re.I)
_OOM_MESSAGE = re.compile(r"MemoryError|bad_alloc|out of memory|cannot allocate memory|failed to map segment", re.I)


class Artifact(BaseModel):
    kind: Literal["pdf"] = "pdf"
    sha256: str
    bytes: int
    pages: int | None = None
    hidden_text_chars: int = 0


class Page(BaseModel):
    number: int
    text: str


class Reference(BaseModel):
    id: str
    printed: str
    page: int
    label: str | None = Field(default=None, description="The printed number, e.g. '12' for [12].")
    doi: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    url: str | None = None
    year: int | None = None


class Context(BaseModel):
    sentence: str
    page: int
    markers: list[str]
    ref_ids: list[str]


class HiddenSample(BaseModel):
    page: int
    text: str
    reason: str


class HiddenText(BaseModel):
    chars: int = 0
    by_reason: dict[str, int] = Field(default_factory=dict)
    samples: list[HiddenSample] = Field(default_factory=list)


class Extraction(BaseModel):
    """The ``citecheck extract`` JSON, plus ``status``/``reason``/``detail``."""

    status: Status
    reason: Reason | None = None
    detail: str | None = None
    artifact: Artifact
    pages: list[Page] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    contexts: list[Context] = Field(default_factory=list)
    hidden_text: HiddenText = Field(default_factory=HiddenText)


def _failed(artifact: Artifact, reason: Reason, detail: str) -> Extraction:
    logger.info("extraction failed: %s (%s)", reason, detail)
    return Extraction(status="failed", reason=reason, detail=detail, artifact=artifact)


def _looks_like_pdf(data: bytes) -> bool:
    # The PDF reference lets the header start within the first 1024 bytes.
    return b"%PDF-" in data[:1024]


@functools.cache
def _worker_import_roots() -> tuple[str, ...]:
    """Directories the worker imports from: this package and pypdfium2 (with its raw bindings).

    The worker starts with ``-S`` (no ``site``): processing site-packages and its ``.pth``
    files (an editable install's import finder among them) took about a third of the
    worker's start-up, paid once per PDF.
    """
    roots = [str(_PACKAGE_ROOT)]
    for module in ("pypdfium2", "pypdfium2_raw"):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin:
            root = str(Path(spec.origin).resolve().parents[1])
            if root not in roots:
                roots.append(root)
    return tuple(roots)


def _worker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not _SECRET_ENV.match(k)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*_worker_import_roots(), env.get("PYTHONPATH")]))
    return env


def worker_command(path: Path, memory_mb: int) -> tuple[list[str], dict[str, str]]:
    """A stand-alone worker's command line and environment (secrets removed) for ``path``."""
    return [sys.executable, "-S", "-m", "citecheck.text.worker", str(path), str(memory_mb)], _worker_env()


def fork_server_command() -> tuple[list[str], dict[str, str]]:
    """The fork server's command line and environment (secrets removed); its children read PDFs."""
    return [sys.executable, "-S", "-m", "citecheck.text.forkserver"], _worker_env()


def run_worker(path: Path, *, timeout_s: float, memory_mb: int) -> dict[str, Any]:
    """Run the worker on ``path``; its JSON, or ``{"ok": False, "reason": …}`` on any failure.

    The worker is a child of this thread's fork server (:mod:`citecheck.text.forkserver`),
    which has pdfium loaded already; output files go to a private temporary directory.
    """
    command, env = fork_server_command()
    with tempfile.TemporaryDirectory(prefix="citecheck-worker-") as directory:
        try:
            outcome = run_in_fork_server(
                path, memory_mb=memory_mb, timeout_s=timeout_s, directory=Path(directory),
                command=command, env=env,
            )
        except ServerGone as error:
            return {"ok": False, "reason": "parse_error", "detail": str(error)}
    if outcome.returncode is None:
        return {"ok": False, "reason": "parse_timeout", "detail": f"worker exceeded {timeout_s:g} s"}
    stderr = outcome.stderr
    if outcome.returncode == EXIT_OOM or _OOM_MESSAGE.search(stderr):
        return {"ok": False, "reason": "parse_oom", "detail": f"worker exceeded {memory_mb} MB"}
    if outcome.returncode == -signal.SIGABRT:
        # pdfium aborts instead of raising when an allocation fails; under our address-space
        # cap that is memory exhaustion (inferred: the abort carries no message).
        return {"ok": False, "reason": "parse_oom",
                "detail": f"worker aborted (SIGABRT) under the {memory_mb} MB address-space cap"}
    if outcome.returncode != 0:
        code = outcome.returncode
        detail = f"worker killed by {signal.Signals(-code).name}" if code < 0 else stderr.strip()[-300:]
        return {"ok": False, "reason": "parse_error", "detail": detail or f"worker exit {code}"}
    try:
        return json.loads(outcome.stdout)
    except json.JSONDecodeError as error:
        return {"ok": False, "reason": "parse_error", "detail": f"worker output unreadable: {error}"}


def _reference_model(index: int, entry: PrintedReference) -> Reference:
    def first(values: list[str]) -> str | None:
        return values[0] if values else None

    urls = [u for u in find_urls(entry.printed) if "doi.org/" not in u.lower()]
    return Reference(
        id=f"ref-{index:03d}",
        printed=entry.printed,
        page=entry.page,
        label=entry.label,
        doi=first(find_dois(entry.printed)),
        arxiv=first(find_arxiv(entry.printed)),
        pmid=first(find_pmid(entry.printed)),
        pmcid=first(find_pmcid(entry.printed)),
        url=first(urls),
        year=find_year(entry.printed),
    )


def _ref_key(reference: Reference) -> RefKey:
    name = re.search(r"[A-Z\u00C0-\u00DE][\w'’\-\u00C0-\u024F]+", reference.printed)
    year = re.search(r"\b((?:1[6-9]|20)\d{2}[a-z]?)\b", reference.printed)
    return RefKey(
        ref_id=reference.id,
        label=reference.label,
        surname=fold(name.group(0)) if name else None,
        year=year.group(1) if year else None,
    )


def _text_status(raw_pages: list[dict[str, Any]]) -> tuple[Status, Reason | None, str | None]:
    glyphs = sum(p["glyphs"] for p in raw_pages)
    unmapped = sum(p["unmapped"] for p in raw_pages)
    # A page with no glyphs but an image is a scan; one with neither is just blank.
    empty = [p["number"] for p in raw_pages if p["glyphs"] == 0 and p["has_image"]]
    if glyphs == 0:
        return "failed", "no_text_layer", "no page has a text layer"
    if unmapped > _UNMAPPED_SHARE * glyphs:
        return "failed", "unmapped_glyphs", f"{unmapped} of {glyphs} glyphs have no Unicode mapping"
    if empty:
        return "partial", "no_text_layer", f"pages without text: {empty}"
    return "ok", None, None


def build_extraction(artifact: Artifact, raw_pages: list[dict[str, Any]]) -> Extraction:
    """Everything after parsing: clean pages, references, contexts, hidden text."""
    artifact.pages = len(raw_pages)
    samples = [
        HiddenSample(page=p["number"], text=s["text"], reason=s["reason"])
        for p in raw_pages
        for s in p["hidden"]["samples"]
    ]
    by_reason: dict[str, int] = {}
    for page in raw_pages:
        for reason, count in page["hidden"]["by_reason"].items():
            by_reason[reason] = by_reason.get(reason, 0) + count
    hidden = HiddenText(chars=sum(by_reason.values()), by_reason=by_reason, samples=samples[:50])
    artifact.hidden_text_chars = hidden.chars
    status, reason, detail = _text_status(raw_pages)
    if status == "failed":
        assert reason is not None and detail is not None
        extraction = _failed(artifact, reason, detail)
        extraction.hidden_text = hidden
        return extraction
    pages: list[PageLines] = pages_from_worker(raw_pages)
    known = vocabulary(pages)
    section = find_references(pages, known)
    references = [_reference_model(i, entry) for i, entry in enumerate(section.entries, start=1)]
    contexts = find_contexts(pages, [_ref_key(r) for r in references], section.line_ids)
    return Extraction(
        status=status,
        reason=reason,
        detail=detail,
        artifact=artifact,
        pages=[Page(number=p.number, text=page_text(p, known)) for p in pages],
        references=references,
        contexts=[Context(sentence=c.sentence, page=c.page, markers=c.markers, ref_ids=c.ref_ids) for c in contexts],
        hidden_text=hidden,
    )


def extract_pdf(source: bytes | Path, *, timeout_s: float = 120, memory_mb: int = 1024) -> Extraction:
    """Extract a PDF given as bytes or a path (a missing path raises ``FileNotFoundError``)."""
    data = Path(source).read_bytes() if isinstance(source, (str, Path)) else bytes(source)
    artifact = Artifact(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    if not data:
        return _failed(artifact, "empty_file", "the file has zero bytes")
    if not _looks_like_pdf(data):
        return _failed(artifact, "not_pdf", "no %PDF- header in the first 1024 bytes")
    with tempfile.TemporaryDirectory(prefix="citecheck-") as directory:
        path = Path(directory) / "input.pdf"
        path.write_bytes(data)
        result = run_worker(path, timeout_s=timeout_s, memory_mb=memory_mb)
    if not result.get("ok"):
        return _failed(artifact, result["reason"], result.get("detail", ""))
    return build_extraction(artifact, result["pages"])
