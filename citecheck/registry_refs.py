"""The paper's references as the registries list them: Crossref's deposited ``reference``
entries and OpenAlex's ``referenced_works``, merged on DOI into one list."""
from __future__ import annotations

from dataclasses import dataclass, field

from .doi import try_normalize_doi
from .match.candidates import Candidate, candidate_from_crossref_reference, candidate_from_openalex
from .metadata import openalex_authors
from .report import Author


@dataclass
class RegistryRef:
    candidate: Candidate
    sources: list[str] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    printed: str | None = None


def merge_registry_references(crossref_refs: list[dict], referenced_works: list[dict],
                              looked_up_works: list[dict] = ()) -> list[RegistryRef]:
    """Crossref entries in deposit order, enriched by the OpenAlex work with the same DOI;
    then the OpenAlex ``referenced_works`` no Crossref entry names. ``looked_up_works`` are
    OpenAlex works fetched for Crossref DOIs that ``referenced_works`` lacked: they enrich
    entries but are not references of their own."""
    by_doi = {}
    for work in list(referenced_works) + list(looked_up_works):
        doi = try_normalize_doi(work.get("doi"))
        if doi:
            by_doi.setdefault(doi, work)
    used: set[str] = set()
    merged: list[RegistryRef] = []
    for ref in crossref_refs:
        crossref_candidate = candidate_from_crossref_reference(ref)
        doi = crossref_candidate.doi
        work = by_doi.get(doi) if doi else None
        if work is not None:
            candidate = candidate_from_openalex(work)
            if not candidate.title and crossref_candidate.title:
                candidate = candidate.model_copy(update={"title": crossref_candidate.title})
            used.add(work.get("id", ""))
            merged.append(RegistryRef(candidate, ["crossref", "openalex"], openalex_authors(work),
                                      ref.get("unstructured")))
        else:
            merged.append(RegistryRef(crossref_candidate, ["crossref"], [], ref.get("unstructured")))
    for work in referenced_works:
        if work.get("id", "") in used:
            continue
        used.add(work.get("id", ""))
        merged.append(RegistryRef(candidate_from_openalex(work), ["openalex"], openalex_authors(work)))
    return merged
