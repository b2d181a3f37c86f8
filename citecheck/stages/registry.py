"""Registry agreement (Crossref vs OpenAlex) and notices: retractions, corrections,
expressions of concern and withdrawals, each kept with its type and source."""
from __future__ import annotations

from typing import ClassVar

from ..context import Context, StageResult
from ..metadata import compare_registries
from ..report import Notice
from ..sources.crossref import notices_from_work


class RegistryCheck:
    name: ClassVar[str] = "registry"

    def run(self, ctx: Context) -> StageResult:
        crossref_work, openalex_work = ctx.data.get("crossref_work"), ctx.data.get("openalex_work")
        registry = ctx.report.registry
        if crossref_work is None and openalex_work is None:
            return StageResult("skipped", registry.reason or "not_resolved")
        notices = [Notice(**n) for n in notices_from_work(crossref_work or {})]
        if openalex_work and openalex_work.get("is_retracted") and not any(
                n.type == "retraction" and n.direction == "about_this_work" for n in notices):
            notices.append(Notice(type="retraction", source="openalex"))
        registry.notices = notices
        registry.retracted = any(n.type == "retraction" and n.direction == "about_this_work"
                                 for n in notices)
        if crossref_work is None:
            registry.status = "not_found"
            registry.reason = registry.reason or "crossref_not_found"
            return StageResult("partial", registry.reason)
        if openalex_work is None:
            registry.status = "matched"
            registry.reason = "openalex_not_found"
            return StageResult("partial", "openalex_not_found")
        registry.differences = compare_registries(crossref_work, openalex_work)
        registry.status = "mismatch" if registry.differences else "matched"
        return StageResult("ok")
