"""Claims: each citing sentence of the paper, with candidate evidence from the cited work's
open text and, when a model is configured, a checked verdict."""
from __future__ import annotations

import logging
from typing import ClassVar

from ..context import Context, StageResult
from ..errors import ConfigError
from ..report import Claim

logger = logging.getLogger(__name__)


def _judge_for(ctx: Context):
    if ctx.options.no_llm:
        return None, "no_model"
    if ctx.services.get("judge") is not None:
        return ctx.services["judge"], None
    if ctx.settings.anthropic_api_key is None:
        return None, "no_model"
    from ..judge import AnthropicJudge

    try:
        return AnthropicJudge.from_settings(ctx.settings, ctx.store), None
    except ConfigError:
        return None, "no_model"


class Claims:
    name: ClassVar[str] = "claims"

    def run(self, ctx: Context) -> StageResult:
        extraction = ctx.data.get("extraction")
        section = ctx.report.claims
        if extraction is None:
            section.reason = "needs_full_text:" + (ctx.data.get("fulltext_reason") or "no_full_text")
            return StageResult("skipped", section.reason)
        from ..judge import judge_claims

        judge, no_judge_reason = _judge_for(ctx)
        ctx.data["judge"] = judge
        linked = {item.id: item for item in ctx.data.get("printed_refs_linked") or []}
        references = []
        for ref in extraction.references:
            entry = ref.model_dump()
            if ref.id in linked and linked[ref.id].doi:
                entry["doi"] = linked[ref.id].doi
            references.append(entry)
        cited_texts = ctx.data.get("cited_texts") or {}
        claims = judge_claims([c.model_dump() for c in extraction.contexts], references,
                              cited_texts, judge, citing_doi=ctx.doi,
                              citing_pages=[p.model_dump() for p in extraction.pages])
        section.outgoing = [Claim.model_validate(c.model_dump()) for c in claims]
        reasons = []
        if no_judge_reason:
            reasons.append(no_judge_reason)
        if not cited_texts:
            reasons.append("no_open_cited_full_text")
        section.reason = ";".join(reasons) or None
        section.status = "partial" if reasons else "ok"
        return StageResult(section.status, section.reason)
