"""The paper's full text: a given PDF (path or URL) or the open-access copy, downloaded
under the guard, parsed in the sandboxed worker; visible text only from here on."""
from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import ClassVar

from ..context import Context, StageResult
from ..errors import BlockedDestinationError, ReplayMissError, SourceError
from ..report import Artifact
from ..sources.pdfs import pdf_candidates

logger = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class FullText:
    name: ClassVar[str] = "fulltext"

    def run(self, ctx: Context) -> StageResult:
        body, url, retrieved_at, problems = None, None, None, []
        if ctx.pdf and not ctx.pdf.startswith(("http://", "https://")):
            body, url, retrieved_at = Path(ctx.pdf).read_bytes(), None, _now()
        else:
            urls = [ctx.pdf] if ctx.pdf else []
            if not urls:
                unpaywall_record = None
                unpaywall = ctx.services.get("unpaywall")
                if ctx.doi and unpaywall is not None and unpaywall.available:
                    try:
                        unpaywall_record = unpaywall.record(ctx.doi)
                    except ReplayMissError:
                        unpaywall_record = None
                    except SourceError as error:
                        problems.append(f"unpaywall_{error.reason}")
                urls = pdf_candidates(ctx.data.get("openalex_work"), unpaywall_record,
                                      ctx.data.get("crossref_work"))
            if not urls:
                ctx.data["fulltext_reason"] = "no_open_access_copy"
                return StageResult("skipped", "no_open_access_copy")
            fetcher = ctx.services["pdfs"]
            for candidate in urls:
                try:
                    fetched = fetcher.fetch(candidate)
                except ReplayMissError:
                    problems.append("pdf_not_recorded")
                    continue
                except BlockedDestinationError as error:
                    problems.append(error.reason)
                    if ctx.pdf:
                        raise
                    continue
                except SourceError as error:
                    problems.append(error.reason)
                    continue
                body, url, retrieved_at = fetched.body, fetched.final_url, fetched.retrieved_at
                break
            if body is None:
                reason = problems[-1] if problems else "no_pdf"
                ctx.data["fulltext_reason"] = reason
                return StageResult("skipped" if reason == "pdf_not_recorded" else "failed",
                                   ";".join(dict.fromkeys(problems)))
        from ..text import extract_pdf

        extraction = extract_pdf(body, timeout_s=ctx.settings.parse_timeout_s,
                                 memory_mb=ctx.settings.parse_memory_mb)
        sha = hashlib.sha256(body).hexdigest()
        ctx.report.artifacts.append(Artifact(
            kind="pdf", url=url, sha256=sha, bytes=len(body), pages=extraction.artifact.pages,
            retrieved_at=retrieved_at, hidden_text_chars=extraction.artifact.hidden_text_chars))
        if ctx.options.keep_artifacts:
            folder = Path(ctx.options.keep_artifacts)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{sha}.pdf").write_bytes(body)
        if extraction.status == "failed":
            ctx.data["fulltext_reason"] = extraction.reason
            return StageResult("failed", extraction.reason)
        ctx.data["extraction"] = extraction
        ctx.data["pdf_sha256"] = sha
        return StageResult("partial" if extraction.status == "partial" else "ok", extraction.reason)
