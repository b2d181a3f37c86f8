"""Open full texts of the cited works, so outgoing claims can be checked against them.

For linked references whose OpenAlex record names an open PDF, up to
``max_cited_fulltexts`` PDFs are fetched under the same guard and parsed in the same
sandbox as the paper itself; each becomes an artifact of the report.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

from ..context import Context, StageResult
from ..errors import ReplayMissError, SourceError
from ..report import Artifact
from ..sources.pdfs import pdf_candidates

logger = logging.getLogger(__name__)


class CitedTexts:
    name: ClassVar[str] = "cited_texts"

    def run(self, ctx: Context) -> StageResult:
        extraction = ctx.data.get("extraction")
        if extraction is None:
            return StageResult("skipped", "no_full_text")
        works = ctx.data.get("reference_works_by_doi") or {}
        linked = [i for i in ctx.data.get("printed_refs_linked") or [] if i.doi and i.doi in works]
        wanted = [(item, pdf_candidates(works[item.doi])) for item in linked]
        wanted = [(item, urls) for item, urls in wanted if urls][: ctx.settings.max_cited_fulltexts]
        if not wanted:
            return StageResult("skipped", "no_open_cited_full_text")
        from ..judge import CitedText
        from ..text import extract_pdf

        texts, failures = {}, 0
        for item, urls in wanted:
            for url in urls:
                try:
                    fetched = ctx.services["pdfs"].fetch(url)
                except (ReplayMissError, SourceError):
                    continue
                cited = extract_pdf(fetched.body, timeout_s=ctx.settings.parse_timeout_s,
                                    memory_mb=ctx.settings.parse_memory_mb)
                if cited.status == "failed":
                    continue
                ctx.report.artifacts.append(Artifact(
                    kind="pdf", url=fetched.final_url, sha256=fetched.sha256,
                    bytes=len(fetched.body), pages=cited.artifact.pages,
                    retrieved_at=fetched.retrieved_at,
                    hidden_text_chars=cited.artifact.hidden_text_chars))
                if ctx.options.keep_artifacts:
                    folder = Path(ctx.options.keep_artifacts)
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / f"{fetched.sha256}.pdf").write_bytes(fetched.body)
                texts[item.id] = CitedText.from_extraction(cited, doi=item.doi, url=fetched.final_url)
                break
            else:
                failures += 1
        ctx.data["cited_texts"] = texts
        if not texts:
            return StageResult("failed" if failures else "skipped", "cited_pdfs_unavailable")
        return StageResult("partial" if failures else "ok",
                           f"{failures}_cited_pdfs_unavailable" if failures else None)
