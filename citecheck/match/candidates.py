"""Candidate works a printed reference may be: built from OpenAlex and Crossref JSON.

Crossref deposited ``reference`` entries are uneven: many carry only a DOI, some only an
``unstructured`` string, others article-title/author/year/journal-title. A candidate keeps
whatever is known and nothing is invented; scoring uses only the fields present.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from citecheck.doi import try_normalize_doi
from citecheck.plaintext import to_plain_text
from citecheck.match.refparse import expand_pages, family_name

logger = logging.getLogger(__name__)

CandidateSource = Literal[
    "crossref-reference",
    "openalex",
    "crossref-search",
    "openalex-search",
    "candidates-file",
]

_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:v\d+)?(?:\.pdf)?$", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)


class Candidate(BaseModel):
    """One work a printed reference may refer to; absent fields are ``None``/empty."""

    doi: str | None = None
    openalex_id: str | None = None
    title: str | None = None
    authors: list[str] = Field(
        default_factory=list, description="Family names, in order."
    )
    year: int | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    is_retracted: bool | None = None
    cited_by_count: int | None = None
    source: CandidateSource = "candidates-file"
    unstructured: str | None = Field(
        default=None,
        description="A deposited reference string, when that is all there is.",
    )
    registry_key: str | None = Field(
        default=None, description="Crossref deposit `key`."
    )

    @property
    def first_page(self) -> str | None:
        if not self.pages:
            return None
        return re.split(r"[-–—]", self.pages, maxsplit=1)[0].strip() or None

    def has_text(self) -> bool:
        """True when the candidate can be matched by its text, not only by an identifier."""
        return bool(self.title or self.unstructured or (self.authors and self.year))


def _plain(text: Any) -> str | None:
    """Plain text from a metadata string that may carry HTML/JATS markup or entities."""
    if not text or not isinstance(text, str):
        return None
    return to_plain_text(text) or None


def _first(value: Any) -> Any:
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _year(value: Any) -> int | None:
    match = (
        re.search(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)", str(value)) if value else None
    )
    return int(match.group(1)) if match else None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _openalex_short_id(url: Any) -> str | None:
    if not url:
        return None
    return str(url).rstrip("/").rsplit("/", 1)[-1] or None


def _openalex_arxiv(work: dict) -> str | None:
    doi = try_normalize_doi(work.get("doi"))
    if doi and (match := _ARXIV_DOI.match(doi)):
        return match.group(1)
    for location in work.get("locations") or []:
        url = (location or {}).get("landing_page_url") or ""
        if match := _ARXIV_URL.search(url):
            return match.group(1)
    return None


def candidate_from_openalex(
    work: dict, *, source: CandidateSource = "openalex"
) -> Candidate:
    """A candidate from an OpenAlex work object (full or ``select=``-trimmed)."""
    authors = []
    for authorship in work.get("authorships") or []:
        name = ((authorship or {}).get("author") or {}).get(
            "display_name"
        ) or authorship.get("raw_author_name")
        if family := family_name(name or ""):
            authors.append(family)
    location = work.get("primary_location") or {}
    venue_source = location.get("source") or (work.get("host_venue") or {})
    biblio = work.get("biblio") or {}
    first, last = biblio.get("first_page"), biblio.get("last_page")
    pages = f"{first}-{last}" if first and last and first != last else first
    pmid_url = (work.get("ids") or {}).get("pmid")
    return Candidate(
        doi=try_normalize_doi(work.get("doi")),
        openalex_id=_openalex_short_id(work.get("id")),
        title=_plain(work.get("title") or work.get("display_name")),
        authors=authors,
        year=_year(work.get("publication_year")),
        venue=_plain(venue_source.get("display_name")),
        volume=_text(biblio.get("volume")),
        issue=_text(biblio.get("issue")),
        pages=_text(pages),
        arxiv=_openalex_arxiv(work),
        pmid=_openalex_short_id(pmid_url),
        is_retracted=work.get("is_retracted"),
        cited_by_count=work.get("cited_by_count"),
        source=source,
    )


def _crossref_year(message: dict) -> int | None:
    for key in (
        "issued",
        "published-print",
        "published-online",
        "published",
        "created",
    ):
        parts = (message.get(key) or {}).get("date-parts") or [[None]]
        if parts and parts[0] and parts[0][0]:
            return int(parts[0][0])
    return None


def candidate_from_crossref_work(
    message: dict, *, source: CandidateSource = "crossref-search"
) -> Candidate:
    """A candidate from a Crossref ``/works`` message (a work record or a search item)."""
    authors = []
    for person in message.get("author") or []:
        family = person.get("family") or (person.get("name") or "").strip()
        if family:
            authors.append(family)
    updated_by = message.get("updated-by") or []
    retracted = any((u or {}).get("type") == "retraction" for u in updated_by) or None
    return Candidate(
        doi=try_normalize_doi(message.get("DOI")),
        title=_plain(_first(message.get("title"))),
        authors=authors,
        year=_crossref_year(message),
        venue=_plain(_first(message.get("container-title"))),
        volume=_text(message.get("volume")),
        issue=_text(message.get("issue")),
        pages=expand_pages(_text(message.get("page"))),
        is_retracted=retracted,
        cited_by_count=message.get("is-referenced-by-count"),
        source=source,
    )


def candidate_from_crossref_reference(ref: dict) -> Candidate:
    """A candidate from one entry of a Crossref work's deposited ``reference`` list."""
    author = _text(ref.get("author"))
    first_page = _text(ref.get("first-page"))
    return Candidate(
        doi=try_normalize_doi(ref.get("DOI")),
        title=_plain(ref.get("article-title") or ref.get("volume-title")),
        authors=[family] if author and (family := family_name(author)) else [],
        year=_year(ref.get("year")),
        venue=_plain(ref.get("journal-title") or ref.get("series-title")),
        volume=_text(ref.get("volume")),
        issue=_text(ref.get("issue")),
        pages=first_page,
        source="crossref-reference",
        unstructured=_plain(ref.get("unstructured")),
        registry_key=_text(ref.get("key")),
    )
