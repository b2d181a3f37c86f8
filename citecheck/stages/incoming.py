"""Claims other papers make about this one: the top citing works with an open PDF are
read, their reference entry for this paper is found (by DOI, else by title), and each
sentence citing it is judged against this paper's own visible text."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

from rapidfuzz import fuzz

from ..context import Context, StageResult
from ..doi import try_normalize_doi
from ..errors import ReplayMissError, SourceError
from ..report import Artifact, Claim
from ..sources.pdfs import pdf_candidates

logger = logging.getLogger(__name__)
TITLE_MATCH = 90.0


def _fold(text: str | None) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in (text or "").casefold()).split())


def entry_for_paper(references, doi: str | None, title: str | None) -> str | None:
    """The id of the citing paper's reference entry that names this paper, or ``None``."""
    folded_title = _fold(title)
    for ref in references:
        if doi and try_normalize_doi(ref.doi) == doi:
            return ref.id
    if len(folded_title) < 20:
        return None
    best, best_score = None, 0.0
    for ref in references:
        score = fuzz.partial_ratio(folded_title, _fold(ref.printed))
        if score > best_score:
            best, best_score = ref.id, score
    return best if best_score >= TITLE_MATCH else None


class IncomingClaims:
    name: ClassVar[str] = "incoming_claims"

    def run(self, ctx: Context) -> StageResult:
        extraction = ctx.data.get("extraction")
        section = ctx.report.claims
        if extraction is None:
            return StageResult("skipped", "needs_full_text")
        citing = [w for w in ctx.data.get("citing_works") or [] if pdf_candidates(w)]
        citing = citing[: ctx.settings.max_incoming_papers]
        if not citing:
            self._note(section, "no_open_citing_full_text")
            return StageResult("skipped", "no_open_citing_full_text")
        from ..judge import CitedText, judge_claims
        from ..text import extract_pdf

        this_paper = CitedText.from_extraction(extraction, doi=ctx.doi)
        judge = ctx.data.get("judge")
        read, claims = 0, []
        for work in citing:
            fetched = self._fetch(ctx, work)
            if fetched is None:
                continue
            text = extract_pdf(fetched.body, timeout_s=ctx.settings.parse_timeout_s,
                               memory_mb=ctx.settings.parse_memory_mb)
            if text.status == "failed":
                continue
            read += 1
            ctx.report.artifacts.append(Artifact(
                kind="pdf", url=fetched.final_url, sha256=fetched.sha256, bytes=len(fetched.body),
                pages=text.artifact.pages, retrieved_at=fetched.retrieved_at,
                hidden_text_chars=text.artifact.hidden_text_chars))
            if ctx.options.keep_artifacts:
                folder = Path(ctx.options.keep_artifacts)
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{fetched.sha256}.pdf").write_bytes(fetched.body)
            ref_id = entry_for_paper(text.references, ctx.doi, ctx.report.work.title)
            if ref_id is None:
                continue
            contexts = [c.model_dump() for c in text.contexts if ref_id in c.ref_ids]
            for context in contexts:
                context["ref_ids"] = [ref_id]
            citing_refs = [{**r.model_dump(), "doi": ctx.doi if r.id == ref_id else r.doi}
                           for r in text.references]
            claims += judge_claims(
                contexts, citing_refs, {ref_id: this_paper}, judge,
                citing_doi=try_normalize_doi(work.get("doi")),
                citing_pages=[p.model_dump() for p in text.pages],
                first_id=len(section.outgoing) + len(claims) + 1)
        section.incoming = [Claim.model_validate(c.model_dump()) for c in claims]
        if read == 0:
            self._note(section, "citing_pdfs_unavailable")
            return StageResult("failed", "citing_pdfs_unavailable")
        return StageResult("ok" if judge is not None else "partial",
                           None if judge is not None else "no_model")

    @staticmethod
    def _note(section, reason: str) -> None:
        section.reason = ";".join(filter(None, [section.reason, f"incoming:{reason}"]))

    @staticmethod
    def _fetch(ctx: Context, work: dict):
        for url in pdf_candidates(work):
            try:
                return ctx.services["pdfs"].fetch(url)
            except (ReplayMissError, SourceError):
                continue
        return None
