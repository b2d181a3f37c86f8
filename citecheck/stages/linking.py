"""Printed references ↔ registries: linked, found, found with differences, not found,
unchecked — and the registry references nobody printed. Counts always add up."""
from __future__ import annotations

from typing import ClassVar

from ..context import Context, StageResult
from ..match import link_references
from ..report import RefDifference, RefItem
from ..selfcite import author_keys, is_self_citation


def _classifier(ctx: Context):
    """The model that reads a still-unmatched entry once, when one is configured."""
    if ctx.services.get("reference_classifier") is not None:
        return ctx.services["reference_classifier"]
    if ctx.options.no_llm or ctx.settings.anthropic_api_key is None:
        return None
    from ..llm import AnthropicCaller
    from ..refkind import ModelReferenceClassifier

    return ModelReferenceClassifier(AnthropicCaller.from_settings(ctx.settings, ctx.store))


class LinkReferences:
    name: ClassVar[str] = "references"

    def run(self, ctx: Context) -> StageResult:
        extraction = ctx.data.get("extraction")
        section = ctx.report.references
        if extraction is None:
            if section.items:
                section.reason = ctx.data.get("fulltext_reason") or "no_full_text"
                section.status = "partial"
            return StageResult("skipped", ctx.data.get("fulltext_reason") or "no_full_text")
        printed = [ref.printed for ref in extraction.references]
        registry_refs = ctx.data.get("registry_refs") or []
        by_candidate = {id(r.candidate): r for r in registry_refs}
        result = link_references(printed, [r.candidate for r in registry_refs],
                                 searcher=ctx.services.get("searcher"),
                                 classifier=_classifier(ctx))
        paper_keys = author_keys(ctx.report.work.authors)
        authors_by_doi = {r.candidate.doi: r.authors for r in registry_refs if r.candidate.doi}
        items = []
        for printed_ref, item in zip(extraction.references, result.items):
            items.append(RefItem(
                id=printed_ref.id, printed=item.printed, page=printed_ref.page, status=item.status,
                reason=item.reason, doi=item.doi, openalex_id=item.openalex_id, title=item.title,
                authors=item.authors, year=item.year, venue=item.venue, score=item.score,
                differences=[RefDifference(field=d.field, printed=d.printed, registry=d.found)
                             for d in item.differences],
                self_citation=is_self_citation(paper_keys, authors_by_doi.get(item.doi) or []),
                retracted=item.retracted, cited_by_count=item.cited_by_count,
                sources=[item.matched_by] if item.matched_by else []))
        next_number = len(items) + 1
        for candidate in result.registry_only:
            ref = by_candidate.get(id(candidate))
            items.append(RefItem(
                id=f"ref-{next_number:03d}", status="registry_only", reason="not_printed",
                doi=candidate.doi, openalex_id=candidate.openalex_id,
                title=candidate.title or candidate.unstructured, authors=candidate.authors,
                year=candidate.year, venue=candidate.venue, retracted=candidate.is_retracted,
                cited_by_count=candidate.cited_by_count,
                self_citation=is_self_citation(paper_keys, ref.authors if ref else []),
                sources=ref.sources if ref else []))
            next_number += 1
        section.items = items
        counts = section.counts
        counts.printed = len(printed)
        counts.registry = len(registry_refs)
        for key in ("linked", "found", "found_with_differences", "not_found", "unchecked"):
            setattr(counts, key, result.counts.get(key, 0))
        counts.registry_only = len(result.registry_only)
        counts.retracted = sum(1 for i in items if i.retracted)
        counts.self_citations = sum(1 for i in items if i.self_citation)
        section.status, section.reason = "ok", None
        ctx.data["printed_refs_linked"] = items
        return StageResult("ok")
