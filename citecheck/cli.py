"""The command line: thin typer wrappers over the Python API.

Results go to stdout (or ``--out``), messages to stderr. Exit codes: 0 done (findings are
data, not errors), 2 bad usage or bad input (one line, no traceback), 1 unexpected failure.
"""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import BadInputError, CitecheckError, ReplayMissError
from .redaction import install_log_redaction, redact

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Citation-integrity reports for scholarly papers (DOI or PDF).")
logger = logging.getLogger("citecheck")


def _fail(message: str, code: int) -> None:
    typer.echo(f"citecheck: {redact(message)}", err=True)
    raise typer.Exit(code)


def _write(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)


def _guarded(func):
    """Map citecheck's errors to exit codes and one-line messages."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except ReplayMissError as error:
            _fail(f"{error} (the recording is incomplete)", 2)
        except BadInputError as error:
            _fail(str(error), 2)
        except CitecheckError as error:
            _fail(f"{error.reason}: {error}", 1)
        except OSError as error:
            _fail(f"{type(error).__name__}: {error.strerror or error}", 2 if isinstance(
                error, (FileNotFoundError, PermissionError, IsADirectoryError)) else 1)
        except Exception as error:  # noqa: BLE001 - last resort: one line, no locals
            logger.debug("unexpected failure", exc_info=True)
            _fail(f"internal error: {type(error).__name__}: {error}", 1)
    return wrapper


@app.callback()
def main_options(
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True,
                                         help="More messages on stderr (-vv for debug).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors on stderr.")] = False,
) -> None:
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()


@app.command()
@_guarded
def check(
    doi: Annotated[Optional[str], typer.Argument(help="The paper's DOI (any common spelling).")] = None,
    pdf: Annotated[Optional[str], typer.Option(help="A manuscript PDF: a path or an http(s) URL.")] = None,
    replay: Annotated[Optional[Path], typer.Option(help="Serve every request from this recording folder (offline).")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write the report here instead of stdout.")] = None,
    format: Annotated[str, typer.Option("--format", help="json, text or html.")] = "json",
    keep_artifacts: Annotated[Optional[Path], typer.Option(help="Save the files read (PDFs) here.")] = None,
    allow_private_urls: Annotated[bool, typer.Option(help="Allow --pdf URLs on private/loopback addresses (your own server).")] = False,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Never call a model; claims are listed as not checkable.")] = False,
    max_cited_by: Annotated[Optional[int], typer.Option(help="How many citing works to list (the total is always kept).")] = None,
) -> None:
    """Check one paper and print its integrity report.

    Examples: `citecheck check 10.1177/10943420231201154`;
    `citecheck check --pdf manuscript.pdf --format text`;
    `citecheck check DOI --replay fixtures/genslms` (offline, from a recording).
    Live runs use Crossref, OpenAlex (OPENALEX_API_KEY), Unpaywall (CITECHECK_MAILTO) and,
    with ANTHROPIC_API_KEY, a model for claims; a stage that cannot run says why in the report.
    """
    from .api import check as run_check
    from .context import Options

    if format not in ("json", "text", "html"):
        raise BadInputError(f"unknown format {format!r} (json, text or html)")
    report = run_check(doi, pdf=pdf, replay=replay, options=Options(
        no_llm=no_llm, allow_private_urls=allow_private_urls, keep_artifacts=keep_artifacts,
        max_cited_by=max_cited_by))
    _write(render(report, format), out)


def render(report, format: str) -> str:
    if format == "text":
        from .textreport import render_text

        return render_text(report)
    if format == "html":
        from .htmlreport import render_html

        return render_html(report)
    return report.model_dump_json(indent=2)


@app.command()
@_guarded
def record(
    doi: Annotated[str, typer.Argument(help="The paper's DOI.")],
    to: Annotated[Path, typer.Option("--to", help="Folder to write the recording into.")],
) -> None:
    """Run a live check and record every response into a folder for offline replay."""
    from .api import check as run_check
    from .recording import write_readme

    to.mkdir(parents=True, exist_ok=True)
    report = run_check(doi, record=to)
    write_readme(to, report.input.doi or doi)
    (to / "report.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
    typer.echo(f"recorded {sum(1 for _ in to.rglob('*.json')) - 1} responses into {to}", err=True)


@app.command()
@_guarded
def extract(
    pdf: Annotated[Path, typer.Argument(help="A PDF file.")],
    out: Annotated[Optional[Path], typer.Option(help="Write the JSON here instead of stdout.")] = None,
) -> None:
    """Extract a PDF: visible pages, printed references, citation contexts, hidden text."""
    from .api import _check_local_pdf
    from .config import get_settings
    from .text import extract_pdf

    _check_local_pdf(str(pdf))
    settings = get_settings()
    extraction = extract_pdf(pdf, timeout_s=settings.parse_timeout_s, memory_mb=settings.parse_memory_mb)
    if extraction.status == "failed":
        raise BadInputError(f"cannot extract {pdf}: {extraction.reason}"
                            + (f" ({extraction.detail})" if extraction.detail else ""))
    _write(extraction.model_dump_json(indent=2), out)


def _pages_of(path: Path) -> list[tuple[int, str]]:
    """(page, text) of a PDF, or of a text file as page 1."""
    from .api import _check_local_pdf
    from .config import get_settings

    if not path.is_file():
        raise BadInputError(f"no such file: {path}")
    with path.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" in head:
        from .text import extract_pdf

        _check_local_pdf(str(path))
        settings = get_settings()
        extraction = extract_pdf(path, timeout_s=settings.parse_timeout_s,
                                 memory_mb=settings.parse_memory_mb)
        if extraction.status == "failed":
            raise BadInputError(f"cannot extract {path}: {extraction.reason}")
        return [(p.number, p.text) for p in extraction.pages]
    if not head:
        raise BadInputError(f"empty file: {path}")
    return [(1, path.read_text(encoding="utf-8", errors="replace"))]


@app.command()
@_guarded
def stats(
    file: Annotated[Path, typer.Argument(help="A PDF or a text file.")],
    out: Annotated[Optional[Path], typer.Option(help="Write the JSON here instead of stdout.")] = None,
) -> None:
    """Statistics self-check: recompute p-values, percentages, sums, differences and GRIM."""
    from .stats import check_pages

    result = check_pages(_pages_of(file))
    _write(result.model_dump_json(indent=2), out)


@app.command()
@_guarded
def refs(
    file: Annotated[Path, typer.Argument(help="A PDF, or a text file with one printed reference per line.")],
    candidates: Annotated[Optional[Path], typer.Option(help="JSON array of OpenAlex works to match against (offline, no search).")] = None,
    format: Annotated[str, typer.Option("--format", help="json or text.")] = "json",
    replay: Annotated[Optional[Path], typer.Option(help="Serve searches from this recording folder.")] = None,
) -> None:
    """Check a bibliography: link each printed reference to a registry record."""
    from .match import link_references
    from .match.candidates import candidate_from_openalex
    from .match.output import format_refs_text, refs_output

    if format not in ("json", "text"):
        raise BadInputError(f"unknown format {format!r} (json or text)")
    printed = _printed_references(file)
    searcher, pool = None, []
    if candidates is not None:
        try:
            works = json.loads(candidates.read_text(encoding="utf-8"))
        except ValueError as error:
            raise BadInputError(f"{candidates}: not JSON ({error.msg})") from None
        if not isinstance(works, list) or not all(isinstance(w, dict) for w in works):
            raise BadInputError(f"{candidates}: expected a JSON array of OpenAlex work objects")
        pool = [candidate_from_openalex(w, source="candidates-file") for w in works]
    else:
        searcher = _live_searcher(replay)
    result = link_references(printed, pool, searcher=searcher)
    if format == "text":
        _write(format_refs_text(result), None)
    else:
        _write(json.dumps(refs_output(result), indent=2, ensure_ascii=False), None)


def _printed_references(file: Path) -> list[str]:
    if not file.is_file():
        raise BadInputError(f"no such file: {file}")
    with file.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" in head:
        from .config import get_settings
        from .text import extract_pdf

        settings = get_settings()
        extraction = extract_pdf(file, timeout_s=settings.parse_timeout_s,
                                 memory_mb=settings.parse_memory_mb)
        if extraction.status == "failed":
            raise BadInputError(f"cannot extract {file}: {extraction.reason}")
        return [r.printed for r in extraction.references]
    lines = [line.strip() for line in file.read_text(encoding="utf-8", errors="replace").splitlines()]
    printed = [line for line in lines if line]
    if not printed:
        raise BadInputError(f"{file}: no references (one printed reference per line)")
    return printed


def _live_searcher(replay: Path | None):
    from .config import get_settings
    from .http import HttpClient
    from .sources.crossref import CrossrefSource
    from .sources.openalex import OpenAlexSource
    from .sources.search import RegistrySearcher
    from .store import Store

    settings = get_settings()
    http = HttpClient(settings, store=None if replay else Store(settings.db_path), replay_dir=replay)
    return RegistrySearcher(CrossrefSource(http, settings), OpenAlexSource(http, settings))


@app.command()
@_guarded
def batch(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="A file with one DOI per line, or - for stdin.")],
    out_dir: Annotated[Path, typer.Option(help="Folder for reports/, results.jsonl and summary.csv.")],
    jobs: Annotated[int, typer.Option(help="Papers checked at once (they share one rate limiter per service).")] = 2,
    replay: Annotated[Optional[Path], typer.Option(help="Serve every request from this recording folder.")] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Never call a model.")] = False,
    max_cited_by: Annotated[Optional[int], typer.Option(help="Citing works listed per paper.")] = None,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Check again the papers that failed, or were degraded by a service problem (partial), in earlier runs.")] = False,
    engine: Annotated[str, typer.Option(help="local (threads) or ray (Ray tasks; needs the optional ray extra).")] = "local",
) -> None:
    """Check a list of DOIs; resumable: re-run the same command to continue."""
    from .batch import BatchRunner, LocalEngine, OutputError, open_input
    from .config import get_settings
    from .context import Options

    if jobs < 1 or jobs > 64:
        raise BadInputError("--jobs must be between 1 and 64")
    if engine not in ("local", "ray"):
        raise BadInputError(f"unknown engine {engine!r} (local or ray)")
    if source != "-" and not Path(source).is_file():
        raise BadInputError(f"no such file: {source}")
    if replay is not None and not replay.is_dir():
        raise BadInputError(f"replay folder not found: {replay}")
    engine_factory = LocalEngine
    if engine == "ray":
        from .batch_ray import RayEngine, ray_available

        if not ray_available():
            raise BadInputError("--engine ray needs Ray: pip install citecheck-integrity[ray]")
        engine_factory = RayEngine
    quiet = bool(ctx.find_root().params.get("quiet"))
    display, progress = _batch_progress(source, quiet)
    runner = BatchRunner(out_dir, settings=get_settings(), jobs=jobs, replay=replay,
                         options=Options(no_llm=no_llm, max_cited_by=max_cited_by), progress=progress,
                         retry_failed=retry_failed, engine=engine_factory)
    try:
        with display:
            result = runner.run(open_input(source))
    except OutputError as error:
        _fail(str(error), 2)
    if not quiet:
        typer.echo(f"{result.total} DOIs: {result.done} checked, {result.skipped} already done, "
                   f"{result.failed} failed, {result.invalid} invalid; see {out_dir / 'summary.csv'}", err=True)
    if result.stopped:
        _fail(f"batch stopped: {result.stopped}; re-run the same command to resume", 1)


def _batch_progress(source: str, quiet: bool):
    """(context manager, callback): a rich progress bar on stderr with done/failed counts and
    an ETA when stderr is a terminal and -q is off; otherwise nothing and None."""
    import contextlib

    if quiet or not sys.stderr.isatty():
        return contextlib.nullcontext(), None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    expected = _count_entries(source)
    bar = Progress(TextColumn("checked"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[failed]} failed, {task.fields[invalid]} invalid"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=Console(stderr=True))
    task = bar.add_task("batch", total=expected, failed=0, invalid=0)

    def show(result) -> None:
        finished = result.done + result.skipped + result.failed + result.invalid
        total = max(expected, result.total) if expected is not None else None
        bar.update(task, completed=finished, total=total, failed=result.failed,
                   invalid=result.invalid)
    return bar, show


def _count_entries(source: str) -> int | None:
    """Non-blank, non-comment lines of a DOI file (the bar's total); None for stdin."""
    if source == "-":
        return None
    with Path(source).open(encoding="utf-8", errors="replace") as handle:
        return sum(1 for line in handle if line.strip() and not line.lstrip().startswith("#"))


@app.command()
@_guarded
def serve(
    directory: Annotated[Path, typer.Argument(help="Folder of reports (*.json, *.html) to serve.")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8000,
) -> None:
    """Serve reports and the widget over HTTP with CORS, for sites that embed them."""
    from .serve import WIDGET_PATHS, make_server

    if not 0 <= port <= 65535:
        raise BadInputError("--port must be between 0 and 65535")
    server = make_server(directory, host=host, port=port)
    bound_host, bound_port = server.server_address[:2]
    typer.echo(f"serving {directory} at http://{bound_host}:{bound_port}/ "
               f"(widget: {WIDGET_PATHS[0]}); Ctrl-C stops", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command("report")
@_guarded
def report_command(
    report_file: Annotated[Path, typer.Argument(help="A report JSON written by check.")],
    format: Annotated[str, typer.Option("--format", help="html or text.")] = "html",
    out: Annotated[Optional[Path], typer.Option(help="Write here instead of stdout.")] = None,
) -> None:
    """Render a saved report as HTML or text."""
    from .report import Report

    if format not in ("html", "text"):
        raise BadInputError(f"unknown format {format!r} (html or text)")
    if not report_file.is_file():
        raise BadInputError(f"no such file: {report_file}")
    try:
        report = Report.model_validate_json(report_file.read_text(encoding="utf-8"))
    except ValueError as error:
        raise BadInputError(f"{report_file}: not a citecheck report ({str(error).splitlines()[0]})") from None
    _write(render(report, format), out)


@app.command()
def widget(
    out: Annotated[Optional[Path], typer.Option(help="Write the script here instead of stdout.")] = None,
) -> None:
    """Print the embeddable widget script (<citecheck-report src=...>)."""
    from .widget import widget_script

    _write(widget_script(), out)


@app.command()
@_guarded
def verify(
    report_file: Annotated[Path, typer.Argument(help="A report JSON written by check.")],
    artifacts: Annotated[Path, typer.Option(help="Folder with the files the report read (<sha256>.pdf).")],
) -> None:
    """Re-check a report from its artifacts: hashes, quotes, counts. Exit 1 if any check fails."""
    from .verify import format_verify_result, verify_report

    if not report_file.is_file():
        raise BadInputError(f"no such file: {report_file}")
    result = verify_report(report_file, artifacts)
    typer.echo(format_verify_result(result))
    if not result.ok:
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the report's JSON Schema."""
    from .report import report_json_schema

    typer.echo(json.dumps(report_json_schema(), indent=2))


@app.command()
def version() -> None:
    """Print citecheck's version."""
    typer.echo(__version__)


def main() -> None:
    app()
