"""Data shapes of the linking stage: items, result, and the two outside helpers it uses."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from citecheck.match.candidates import Candidate
from citecheck.match.refparse import ParsedReference

ItemStatus = Literal[
    "linked", "found", "found_with_differences", "not_found", "unchecked"
]
COUNT_KEYS = ("linked", "found", "found_with_differences", "not_found", "unchecked")


class Difference(BaseModel):
    """One field where the printed reference and the matched work disagree."""

    field: str = Field(
        description="year | title | authors | venue | volume | pages | doi | doi_title_mismatch"
    )
    printed: str | None = None
    found: str | None = None


class ReferenceItem(BaseModel):
    """One printed reference and what it was linked or matched to."""

    id: str
    printed: str
    status: ItemStatus
    reason: str | None = Field(
        default=None, description="Machine-readable; set unless linked."
    )
    note: str | None = Field(
        default=None, description="Free text, e.g. the model's reason."
    )
    matched_by: str | None = Field(
        default=None, description="doi | arxiv | pmid | text | title_free | search"
    )
    doi: str | None = None
    openalex_id: str | None = None
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    score: float | None = None
    differences: list[Difference] = Field(default_factory=list)
    retracted: bool | None = None
    cited_by_count: int | None = None
    registry_key: str | None = None


class LinkResult(BaseModel):
    """Items in input order, registry references nobody printed, and counts that add up."""

    items: list[ReferenceItem]
    registry_only: list[Candidate]
    counts: dict[str, int]


@runtime_checkable
class ReferenceSearcher(Protocol):
    """Searches indexes (Crossref ``query.bibliographic``, OpenAlex) for one printed string.

    Implementations should include among the hits the record of any DOI printed in the
    string (``parsed.dois``), so that a real DOI attached to the wrong title is caught.
    """

    def search(self, printed: str, parsed: ParsedReference) -> list[Candidate]: ...


@runtime_checkable
class ReferenceKindClassifier(Protocol):
    """One model read of a still-unmatched printed entry.

    Returns ``("not_indexed_kind", kind)`` with kind in software, web_page, report, standard,
    book_chapter, thesis, … or ``("scholarly", reason)``.
    """

    def classify(self, printed: str) -> tuple[str, str]: ...
