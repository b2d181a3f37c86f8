"""A printed reference and a candidate work, each prepared once for scoring many pairs.

Normalised text, tokens, digit runs (OCR noise splits and glues them) and where the string
points inside a work are computed once per printed string; normalised title, names, venue
words and numbers once per candidate (memoised by identity, since search hits repeat).
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import OrderedDict
from dataclasses import dataclass

from citecheck.match.candidates import Candidate
from citecheck.match.refparse import (
    ParsedReference,
    normalize_text,
    parse_reference,
    strip_list_marker,
)
from citecheck.match.validate import printed_locators, trailing_locator

logger = logging.getLogger(__name__)

_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "by",
        "de",
        "der",
        "des",
        "die",
        "du",
        "et",
        "for",
        "from",
        "in",
        "into",
        "is",
        "la",
        "le",
        "of",
        "on",
        "or",
        "the",
        "to",
        "und",
        "with",
    ]
)
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)[a-z]?$")


@dataclass(frozen=True)
class PrintedProfile:
    """A printed reference prepared once for scoring against many candidates."""

    parsed: ParsedReference
    norm: str
    compact: str
    tokens: frozenset[str]
    numbers: frozenset[str]
    years: frozenset[int]
    locators: frozenset[str]
    first_page: str | None

    @property
    def has_page_numbers(self) -> bool:
        """True when the string prints numbers other than years (volume, pages…)."""
        return any(not _YEAR.match(n) for n in self.numbers)


@dataclass(frozen=True)
class CandidateProfile:
    """A candidate prepared once: normalised title, names, venue words and numbers."""

    candidate: Candidate
    title_norm: str
    title_tokens: tuple[str, ...]
    authors_norm: tuple[str, ...]
    venue_words: tuple[str, ...]
    unstructured_norm: str
    volume: str | None
    issue: str | None
    first_page: str | None


def profile_printed(
    printed: str, parsed: ParsedReference | None = None
) -> PrintedProfile:
    parsed = parsed or parse_reference(printed)
    norm = normalize_text(strip_list_marker(printed))
    tokens = frozenset(norm.split())
    # Digit runs inside glued tokens count too: OCR noise prints "47(15)" as "47H15)".
    words = norm.split()
    glued = [a + b for a, b in itertools.pairwise(words) if a.isdigit() and b.isdigit()]
    numbers = frozenset(
        [t for t in tokens if re.fullmatch(r"[a-z]?\d+", t)]
        + re.findall(r"\d+", norm)
        + glued
    )
    years = frozenset(int(t[:4]) for t in tokens if _YEAR.match(t))
    return PrintedProfile(
        parsed=parsed,
        norm=norm,
        compact=norm.replace(" ", ""),
        tokens=tokens,
        numbers=numbers,
        years=years,
        locators=printed_locators(parsed.printed, parsed.volume, parsed.first_page),
        first_page=parsed.first_page or trailing_locator(parsed.printed),
    )


def number_token(value: str | None) -> str | None:
    """A volume, issue or page as one comparable token ("S 12" → "s12")."""
    if not value:
        return None
    norm = normalize_text(value)
    return norm.replace(" ", "") or None


def profile_candidate(candidate: Candidate) -> CandidateProfile:
    title_norm = normalize_text(candidate.title or "")
    names = []
    for name in candidate.authors:
        parts = normalize_text(name).split()
        if parts:
            names.append(parts[-1])
    venue_words = tuple(
        w for w in normalize_text(candidate.venue or "").split() if w not in _STOPWORDS
    )
    return CandidateProfile(
        candidate=candidate,
        title_norm=title_norm,
        title_tokens=tuple(title_norm.split()),
        authors_norm=tuple(names),
        venue_words=venue_words,
        unstructured_norm=normalize_text(candidate.unstructured or ""),
        volume=number_token(candidate.volume),
        issue=number_token(candidate.issue),
        first_page=number_token(candidate.first_page),
    )


_PROFILE_CACHE: OrderedDict[int, tuple[Candidate, CandidateProfile]] = OrderedDict()
_PROFILE_CACHE_SIZE = 50_000


def cached_profile(candidate: Candidate) -> CandidateProfile:
    """``profile_candidate`` memoised by object identity (search hits repeat across strings).

    The cache keeps a reference to the candidate, so an id cannot be reused while cached;
    candidates are treated as immutable once built.
    """
    key = id(candidate)
    hit = _PROFILE_CACHE.get(key)
    if hit is not None and hit[0] is candidate:
        _PROFILE_CACHE.move_to_end(key)
        return hit[1]
    profile = profile_candidate(candidate)
    _PROFILE_CACHE[key] = (candidate, profile)
    if len(_PROFILE_CACHE) > _PROFILE_CACHE_SIZE:
        _PROFILE_CACHE.popitem(last=False)
    return profile
