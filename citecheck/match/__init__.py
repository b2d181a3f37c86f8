"""Reference linking and matching: printed references ↔ registry entries and indexes."""

from __future__ import annotations

from citecheck.match.candidates import (
    Candidate,
    candidate_from_crossref_reference,
    candidate_from_crossref_work,
    candidate_from_openalex,
)
from citecheck.match.link import best_search_hit, link_references
from citecheck.match.models import (
    Difference,
    LinkResult,
    ReferenceItem,
    ReferenceKindClassifier,
    ReferenceSearcher,
)
from citecheck.match.output import format_refs_text, refs_output
from citecheck.match.refparse import ParsedReference, expand_pages, parse_reference
from citecheck.match.settings import MatchThresholds

__all__ = [
    "Candidate",
    "Difference",
    "LinkResult",
    "MatchThresholds",
    "ParsedReference",
    "ReferenceItem",
    "ReferenceKindClassifier",
    "ReferenceSearcher",
    "best_search_hit",
    "candidate_from_crossref_reference",
    "candidate_from_crossref_work",
    "candidate_from_openalex",
    "expand_pages",
    "format_refs_text",
    "link_references",
    "parse_reference",
    "refs_output",
]
