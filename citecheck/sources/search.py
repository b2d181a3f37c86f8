"""Bibliographic search for printed references no registry list holds: Crossref
``query.bibliographic`` (the whole string, a few rows), OpenAlex search, and the record of
any DOI printed in the string (so a real DOI attached to a wrong title is caught)."""
from __future__ import annotations

import logging

from ..errors import NotFoundError, SourceError
from ..match.candidates import Candidate, candidate_from_crossref_work, candidate_from_openalex

logger = logging.getLogger(__name__)


class RegistrySearcher:
    def __init__(self, crossref, openalex, rows: int = 3):
        self.crossref, self.openalex, self.rows = crossref, openalex, rows

    def search(self, printed: str, parsed) -> list[Candidate]:
        hits: list[Candidate] = []
        errors: list[SourceError] = []
        for doi in list(getattr(parsed, "dois", None) or [])[:2]:
            try:
                hits.append(candidate_from_crossref_work(self.crossref.work(doi),
                                                         source="crossref-search"))
            except NotFoundError:
                continue
            except SourceError as error:
                errors.append(error)
        try:
            hits.extend(candidate_from_crossref_work(item, source="crossref-search")
                        for item in self.crossref.search_bibliographic(printed, rows=self.rows))
        except SourceError as error:
            errors.append(error)
        try:
            hits.extend(candidate_from_openalex(work, source="openalex-search")
                        for work in self.openalex.search(printed, rows=self.rows))
        except SourceError as error:
            errors.append(error)
        if not hits and errors:
            raise errors[0]
        return hits
