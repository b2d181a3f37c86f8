"""The Python API: ``citecheck.check(doi) -> Report``; the CLI only wraps these functions."""
from __future__ import annotations

from pathlib import Path

from .config import Settings, get_settings
from .context import Context, Options
from .doi import normalize_doi
from .errors import BadInputError
from .http import HttpClient
from .pipeline import run_stages
from .report import InputSpec, Report
from .sources.crossref import CrossrefSource
from .sources.openalex import OpenAlexSource
from .sources.pdfs import PDFFetcher
from .sources.search import RegistrySearcher
from .sources.unpaywall import UnpaywallSource
from .store import Store


def build_context(*, doi: str | None, pdf: str | None, settings: Settings,
                  replay: str | Path | None, record: str | Path | None,
                  options: Options, store: Store | None, http: HttpClient | None) -> Context:
    if store is None and replay is None:
        store = Store(settings.db_path)
    if http is None:
        http = HttpClient(settings, store=None if replay else store, replay_dir=replay,
                          record_dir=record)
    report = Report(input=InputSpec(doi=doi, pdf=pdf))
    ctx = Context(settings=settings, http=http, report=report, doi=doi, pdf=pdf,
                  options=options, store=store)
    ctx.services["crossref"] = CrossrefSource(http, settings)
    ctx.services["openalex"] = OpenAlexSource(http, settings)
    ctx.services["unpaywall"] = UnpaywallSource(http, settings)
    replay_dir = replay or (http.replay.folder if http.replay is not None else None)
    ctx.services["pdfs"] = PDFFetcher(settings, allow_private=options.allow_private_urls,
                                      replay_dir=replay_dir, record_dir=record,
                                      store=None if replay_dir else store)
    ctx.services["searcher"] = RegistrySearcher(ctx.services["crossref"], ctx.services["openalex"])
    return ctx


def _check_local_pdf(pdf: str) -> None:
    """A user's own PDF must exist and look like a PDF (exit 2 otherwise, before any work)."""
    path = Path(pdf)
    if not path.is_file():
        raise BadInputError(f"no such file: {pdf}")
    with path.open("rb") as handle:
        head = handle.read(1024)
    if not head:
        raise BadInputError(f"empty file: {pdf}")
    if b"%PDF-" not in head:
        raise BadInputError(f"not a PDF: {pdf}")


def check(doi: str | None = None, *, pdf: str | None = None, replay: str | Path | None = None,
          record: str | Path | None = None, settings: Settings | None = None,
          options: Options | None = None, store: Store | None = None,
          http: HttpClient | None = None, judge=None) -> Report:
    """Build the integrity report of one paper (by DOI, by PDF, or both).

    ``judge`` may be any object with ``judge(JudgeRequest) -> JudgeOutcome`` (see
    ``citecheck.judge``); by default the Anthropic judge is used when a key is configured.
    """
    if doi is None and pdf is None:
        raise BadInputError("give a DOI or a PDF")
    canonical = normalize_doi(doi) if doi is not None else None
    if pdf is not None and not pdf.startswith(("http://", "https://")):
        _check_local_pdf(pdf)
    if replay is not None and not Path(replay).is_dir():
        raise BadInputError(f"replay folder not found: {replay}")
    ctx = build_context(doi=canonical, pdf=pdf, settings=settings or get_settings(), replay=replay,
                        record=record, options=options or Options(), store=store, http=http)
    if judge is not None:
        ctx.services["judge"] = judge
    run_stages(ctx)
    return ctx.report
