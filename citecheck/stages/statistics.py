"""Statistics self-check of the paper's own numbers (computed, never judged)."""
from __future__ import annotations

from typing import ClassVar

from ..context import Context, StageResult
from ..report import StatItem


class Statistics:
    name: ClassVar[str] = "statistics"

    def run(self, ctx: Context) -> StageResult:
        extraction = ctx.data.get("extraction")
        section = ctx.report.statistics
        if extraction is None:
            section.status = "no_full_text"
            section.reason = ctx.data.get("fulltext_reason") or "no_full_text"
            return StageResult("skipped", section.reason)
        from ..stats import check_pages

        result = check_pages([(p.number, p.text) for p in extraction.pages])
        section.status = result.status
        section.items = [StatItem.model_validate(item.model_dump()) for item in result.items]
        return StageResult("ok")
