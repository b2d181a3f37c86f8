"""Who cites the paper (OpenAlex), sorted by their own citations, with counts by year."""
from __future__ import annotations

from typing import ClassVar

from ..context import Context, StageResult
from ..doi import try_normalize_doi
from ..errors import ReplayMissError, SourceError
from ..metadata import openalex_authors
from ..report import CitingWork, YearCount
from ..selfcite import author_keys, is_self_citation


class CitedBy:
    name: ClassVar[str] = "cited_by"

    def run(self, ctx: Context) -> StageResult:
        work = ctx.data.get("openalex_work")
        section = ctx.report.cited_by
        if work is None:
            section.reason = "openalex_not_found" if ctx.doi else "no_doi"
            return StageResult("skipped", section.reason)
        section.counts_by_year = sorted(
            (YearCount(year=c["year"], cited_by_count=c.get("cited_by_count", 0))
             for c in work.get("counts_by_year") or [] if c.get("year")), key=lambda c: c.year)
        section.count = int(work.get("cited_by_count") or 0)
        if section.count == 0:
            section.status = "ok"
            return StageResult("ok")
        cap = ctx.options.max_cited_by if ctx.options.max_cited_by is not None else ctx.settings.max_cited_by
        try:
            total, citing = ctx.services["openalex"].citing_works(work["id"], cap)
        except ReplayMissError:
            raise
        except SourceError as error:
            section.status, section.reason = "failed", error.reason
            return StageResult("failed", error.reason)
        paper_keys = author_keys(ctx.report.work.authors)
        items = []
        for citing_work in citing:
            authors = openalex_authors(citing_work)
            source = (citing_work.get("primary_location") or {}).get("source") or {}
            items.append(CitingWork(
                doi=try_normalize_doi(citing_work.get("doi")),
                openalex_id=(citing_work.get("id") or "").rsplit("/", 1)[-1] or None,
                title=citing_work.get("title") or citing_work.get("display_name"),
                authors=[a.name for a in authors], year=citing_work.get("publication_year"),
                venue=source.get("display_name"), cited_by_count=citing_work.get("cited_by_count"),
                self_citation=is_self_citation(paper_keys, authors),
                retracted=citing_work.get("is_retracted")))
        items.sort(key=lambda c: -(c.cited_by_count or 0))
        section.items = items
        section.count = max(section.count, total)
        section.listed = len(items)
        section.self_citations = sum(1 for i in items if i.self_citation)
        ctx.data["citing_works"] = citing
        section.status = "ok" if len(items) >= section.count else "partial"
        section.reason = None if section.status == "ok" else f"listed_first_{len(items)}"
        return StageResult("ok")
