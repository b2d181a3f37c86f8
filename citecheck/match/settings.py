"""Thresholds of reference matching, kept in one validated model.

``search_accept`` and ``search_margin`` were chosen on data with ``bench/match.py``: on the
development half (even indexes) of the Crossref reference-matching evaluation (noisy,
title-scrambled and title-less variants searched in the pool of 7,498 works), trading recall
for precision because a wrong link is worse than none, and checked on the held-out half and
on the 2,000 real strings, none of whose targets is in the pool. Pool duplicates (one work
under two DOIs) are the main remaining error and the margin is what refuses them.
``title_evidence`` (0.6, the same bar as ``title_mismatch``) decides when a pair is ``weak``
(see :mod:`citecheck.match.validate`); it was not tuned.
``registry_accept`` is lower because a paper's own registry list is known to be cited; it
was checked, not tuned, on the registry-mode runs of the same bench.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MatchThresholds(BaseModel):
    """Score cut-offs and limits used by :func:`citecheck.match.link_references`."""

    model_config = ConfigDict(frozen=True)

    registry_accept: float = Field(
        default=0.62,
        ge=0.0,
        le=1.0,
        description="Lowest score that links a printed entry to one of the paper's own "
        "registry references (the list is known to be cited, so the bar is lower).",
    )
    search_accept: float = Field(
        default=0.74,
        ge=0.0,
        le=1.0,
        description="Lowest score that accepts a search hit as `found`.",
    )
    search_margin: float = Field(
        default=0.08,
        ge=0.0,
        le=1.0,
        description="A search hit must beat the best hit with another DOI by this much.",
    )
    year_tolerance: int = Field(
        default=1,
        ge=0,
        description="Printed and registry years may differ by this many years "
        "(online-first vs issue year).",
    )
    title_mismatch: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="Below this title similarity the titles are reported as different "
        "(and a printed DOI whose record has another title is `doi_title_mismatch`).",
    )
    title_evidence: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="A titled candidate whose title is printed with less similarity than "
        "this is refused unless volume, first page, first author and year all agree.",
    )
    title_difference: float = Field(
        default=0.85,
        ge=0.0,
        le=1.0,
        description="Below this title similarity an accepted match lists a `title` difference.",
    )
    retrieve_limit: int = Field(
        default=15,
        ge=1,
        description="Candidates per printed entry that are scored in detail after retrieval.",
    )
