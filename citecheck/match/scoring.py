"""How well a candidate work fits a printed reference, validated the way Crossref validates.

Crossref's search-based matching with validation looks for the *candidate's* fields inside
the printed string rather than parsing the string first; parsing errors then cost little.
We do the same with rapidfuzz: title (token coverage, or character alignment for noisy
text), author family names, year (±1), volume, first page, issue and venue. Numbers must
agree: a year outside the tolerance, or printed pages the candidate does not have, veto the
pair (:mod:`citecheck.match.validate`). A title-free path accepts strings that print no
title (Elsevier style) only when first author, year, volume and first page all agree.
"""

from __future__ import annotations

import logging

from pydantic import BaseModel, Field
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from citecheck.match.profiles import (
    CandidateProfile,
    PrintedProfile,
    cached_profile,
    number_token,
    profile_candidate,
    profile_printed,
)
from citecheck.match.refparse import normalize_text
from citecheck.match.settings import MatchThresholds
from citecheck.match.validate import (
    lacks_title_evidence,
    locator_unexplained,
    pages_disagree,
)

logger = logging.getLogger(__name__)

__all__ = [
    "CandidateProfile",
    "PairScore",
    "PrintedProfile",
    "cached_profile",
    "profile_candidate",
    "profile_printed",
    "score_pair",
    "title_similarity",
]

# Credit for a name printed with one letter damaged: less than a clean name, so that a
# damaged name alone never decides between two candidates.
_DAMAGED_NAME = 0.75


class PairScore(BaseModel):
    """The score of one (printed, candidate) pair and the evidence behind it."""

    score: float
    title: float | None = None
    authors: float | None = None
    year: float | None = None
    volume: float | None = None
    first_page: float | None = None
    venue: float | None = None
    veto: str | None = None
    title_free: bool = False
    weak: bool = Field(
        default=False,
        description="Neither the title nor agreeing numbers back the pair (author, venue, "
        "year alone): refused from a search; in a registry accepted only when no other "
        "entry comes close.",
    )
    fields: int = 0


def title_similarity(
    title_norm: str, title_tokens: tuple[str, ...], printed: PrintedProfile
) -> float:
    """How much of a candidate title appears in the printed string (0–1).

    Token coverage (weighted by word length) survives scrambled word order; character
    alignment (``partial_ratio``) survives OCR-like noise that splits or glues words.
    """
    if not title_tokens:
        return 0.0
    total = sum(len(t) for t in title_tokens)
    covered = sum(len(t) for t in title_tokens if t in printed.tokens) / total
    if covered >= 0.9:
        return covered
    aligned = fuzz.partial_ratio(title_norm, printed.norm) / 100.0
    return max(covered, aligned)


def _name_found(name: str, printed: PrintedProfile) -> float:
    """1 for a name printed as is, 0.75 for one OCR-damaged letter ("GDrdon"), else 0."""
    if name in printed.tokens:
        return 1.0
    if len(name) >= 5 and (
        # Noise splits names ("Compto n"): look in the string without spaces as well.
        name in printed.compact or fuzz.partial_ratio(name, printed.norm) >= 88
    ):
        return 1.0
    if len(name) >= 4:
        allowed = 1 if len(name) < 8 else 2
        for token in printed.tokens:
            if (
                abs(len(token) - len(name)) <= allowed
                and token[0].isalpha()
                and Levenshtein.distance(name, token, score_cutoff=allowed) <= allowed
            ):
                return _DAMAGED_NAME
    return 0.0


def author_similarity(profile: CandidateProfile, printed: PrintedProfile) -> float:
    """First author counts most; up to four further names share the rest."""
    names = profile.authors_norm
    first = _name_found(names[0], printed)
    others = names[1:5]
    if not others:
        return first
    found = sum(_name_found(n, printed) for n in others) / len(others)
    return 0.6 * first + 0.4 * found


def venue_similarity(words: tuple[str, ...], printed: PrintedProfile) -> float:
    """Share of venue words printed in full or abbreviated ("Phys. Rev." for "Physical Review")."""
    long_tokens = [t for t in printed.tokens if len(t) >= 2 and not t.isdigit()]
    found = 0
    for word in words:
        if (
            word == "journal"
            and "j" in printed.tokens
            or word in printed.tokens
            or any(
                word.startswith(t) or (len(word) >= 3 and t.startswith(word))
                for t in long_tokens
            )
        ):
            found += 1
    return found / len(words)


def _year_score(
    year: int | None, printed: PrintedProfile, tolerance: int
) -> tuple[float | None, str | None]:
    if year is None or not printed.years:
        return None, None
    if year in printed.years:
        return 1.0, None
    if any(abs(year - y) <= tolerance for y in printed.years):
        return 0.5, None
    if printed.parsed.year is None:
        return 0.0, None
    return 0.0, "year"


def _prints_no_other_title(printed: PrintedProfile, profile: CandidateProfile) -> bool:
    """True when the string shows no title, or its "title" is really the venue."""
    guess = printed.parsed.title
    if not guess or len(guess.split()) < 3:
        return True
    venue = profile.candidate.venue
    return (
        bool(venue)
        and fuzz.token_set_ratio(normalize_text(guess), normalize_text(venue)) >= 80
    )


def _veto(printed: PrintedProfile, profile: CandidateProfile) -> str | None:
    """The first number rule of :mod:`citecheck.match.validate` that refuses the pair."""
    candidate = profile.candidate
    if pages_disagree(
        printed.first_page, printed.numbers | printed.tokens, candidate.pages
    ):
        return "pages"
    if locator_unexplained(printed.locators, candidate, profile.title_tokens):
        return "unexplained_locator"
    return None


def _weak(
    printed: PrintedProfile,
    profile: CandidateProfile,
    title: float | None,
    title_free: bool,
    numbers: tuple[float | None, ...],
    thresholds: MatchThresholds,
) -> bool:
    """True when the pair rests on neither the title nor agreeing numbers."""
    volume, first_page, authors, venue, year = numbers
    # A chapter prints no volume: its book (the venue) stands in for it.
    container = volume == 1.0 or (volume is None and (venue or 0) >= 0.5)
    people = authors is None or authors >= 0.6
    # The first page must be printed as such, not pieced together from OCR-split digits.
    page_printed = profile.first_page in printed.tokens
    numbers_agree = (
        first_page == 1.0 and page_printed and container and people and year != 0.0
    )
    return lacks_title_evidence(
        title,
        title_free or numbers_agree,
        bool(profile.title_tokens),
        thresholds.title_evidence,
    )


def score_pair(
    printed: PrintedProfile, profile: CandidateProfile, thresholds: MatchThresholds
) -> PairScore:
    """Weighted agreement of the candidate's fields with the printed string (0–1)."""
    weights: dict[str, float] = {}
    values: dict[str, float] = {}
    title = None
    if profile.title_tokens:
        title = title_similarity(profile.title_norm, profile.title_tokens, printed)
        weights["title"] = 3.0 * min(1.0, len(profile.title_tokens) / 4)
        values["title"] = title
    elif profile.unstructured_norm:
        title = fuzz.token_set_ratio(profile.unstructured_norm, printed.norm) / 100.0
        weights["title"], values["title"] = 4.0, title
    authors = author_similarity(profile, printed) if profile.authors_norm else None
    if authors is not None:
        weights["authors"], values["authors"] = 2.0, authors
    year, veto = _year_score(profile.candidate.year, printed, thresholds.year_tolerance)
    if year is not None:
        weights["year"], values["year"] = 1.0, year
    numbers_printed = printed.has_page_numbers
    volume = first_page = None
    if profile.volume and numbers_printed:
        volume = 1.0 if profile.volume in printed.numbers else 0.0
        weights["volume"], values["volume"] = 1.0, volume
    if profile.first_page and numbers_printed:
        printed_first = printed.parsed.first_page
        if printed_first and "-" in (printed.parsed.pages or ""):
            # A printed range decides: its last page must not pass for a first page.
            first_page = (
                1.0 if number_token(printed_first) == profile.first_page else 0.0
            )
        else:
            first_page = 1.0 if profile.first_page in printed.numbers else 0.0
        weights["first_page"], values["first_page"] = 1.0, first_page
    if profile.issue and numbers_printed:
        weights["issue"] = 0.5
        values["issue"] = 1.0 if profile.issue in printed.numbers else 0.0
    venue = (
        venue_similarity(profile.venue_words, printed) if profile.venue_words else None
    )
    if venue is not None:
        weights["venue"], values["venue"] = 1.0, venue
    if not weights:
        return PairScore(score=0.0, veto="no_comparable_fields")
    total = sum(weights.values())
    score = sum(weights[k] * values[k] for k in weights) / total
    title_free = False
    if (
        "title" in weights
        and volume == 1.0
        and first_page == 1.0
        and (authors or (authors is None and not printed.parsed.authors and venue))
        and year
        and (title >= 0.5 or _prints_no_other_title(printed, profile))
    ):
        # Strings printed without a title: author (or, for an authorless record printed
        # without one, the venue), year, volume and first page must agree.
        rest = {k: w for k, w in weights.items() if k != "title"}
        without_title = sum(w * values[k] for k, w in rest.items()) / sum(rest.values())
        if (
            values.get("authors", 1.0) >= 0.6
            and (venue is None or venue >= 0.5)
            and without_title > score
        ):
            score, title_free = without_title, True
    veto = veto or _veto(printed, profile)
    weak = _weak(
        printed,
        profile,
        title,
        title_free,
        (volume, first_page, authors, venue, year),
        thresholds,
    )
    return PairScore(
        score=round(score, 4),
        title=title,
        authors=authors,
        year=year,
        volume=volume,
        first_page=first_page,
        venue=venue,
        veto=veto,
        title_free=title_free,
        weak=weak,
        fields=len(weights),
    )
