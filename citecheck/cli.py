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
    """Check one paper and print its integrity report."""
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
