"""The references the registries list (before any PDF is read), with retraction and
self-citation flags. OpenAlex metadata is fetched in OR-filter batches, never one by one."""
from __future__ import annotations

from typing import ClassVar

from ..context import Context, StageResult
from ..doi import try_normalize_doi
from ..errors import ReplayMissError, SourceError
from ..registry_refs import merge_registry_references
from ..report import RefItem
from ..selfcite import author_keys, is_self_citation


def registry_item(index: int, ref, paper_keys, *, status: str, reason: str | None) -> RefItem:
    c = ref.candidate
    return RefItem(
        id=f"ref-{index:03d}", printed=ref.printed, status=status, reason=reason,
        doi=c.doi, openalex_id=c.openalex_id, title=c.title or c.unstructured, authors=c.authors,
        year=c.year, venue=c.venue, retracted=c.is_retracted, cited_by_count=c.cited_by_count,
        self_citation=is_self_citation(paper_keys, ref.authors), sources=ref.sources)


class RegistryReferences:
    name: ClassVar[str] = "registry_references"

    def run(self, ctx: Context) -> StageResult:
        crossref_work, openalex_work = ctx.data.get("crossref_work"), ctx.data.get("openalex_work")
        if crossref_work is None and openalex_work is None:
            return StageResult("skipped", "not_resolved")
        openalex = ctx.services["openalex"]
        crossref_refs = list((crossref_work or {}).get("reference") or [])
        referenced_ids = list((openalex_work or {}).get("referenced_works") or [])
        problems = []
        referenced, looked_up = [], []
        try:
            referenced = openalex.works_by_ids(referenced_ids) if referenced_ids else []
            known = {try_normalize_doi(w.get("doi")) for w in referenced}
            missing = [d for d in (try_normalize_doi(r.get("DOI")) for r in crossref_refs)
                       if d and d not in known]
            looked_up = openalex.works_by_dois(list(dict.fromkeys(missing))) if missing else []
        except ReplayMissError:
            raise
        except SourceError as error:
            problems.append(f"openalex_{error.reason}")
        returned = {(w.get("id") or "").rsplit("/", 1)[-1] for w in referenced}
        unresolved = [i for i in referenced_ids if i.rsplit("/", 1)[-1] not in returned]
        if unresolved and not problems:
            problems.append(f"openalex_ids_without_metadata:{len(unresolved)}")
        refs = merge_registry_references(crossref_refs, referenced, looked_up)
        ctx.data["reference_works_by_doi"] = {
            try_normalize_doi(w.get("doi")): w for w in referenced + looked_up if w.get("doi")}
        ctx.data["registry_refs"] = refs
        paper_keys = author_keys(ctx.report.work.authors)
        section = ctx.report.references
        section.items = [registry_item(i, ref, paper_keys, status="registry_only", reason="no_full_text")
                         for i, ref in enumerate(refs, 1)]
        section.counts.registry = len(refs)
        section.counts.registry_only = len(refs)
        section.counts.retracted = sum(1 for item in section.items if item.retracted)
        section.counts.self_citations = sum(1 for item in section.items if item.self_citation)
        section.status = "partial" if problems else "ok"
        section.reason = ";".join(problems) or None
        return StageResult("partial", section.reason) if problems else StageResult("ok")
