"""Vetoes: pairs that score well on words but that the printed numbers refuse.

A weighted score lets strong fields outvote a field that disagrees. Two disagreements
are not outvoted, because each is the signature of a wrong link seen on the benchmark
data (``bench/match.py``) rather than of noise:

* ``pages`` — the string prints a first page and neither end of the candidate's page range
  appears anywhere in it: another article of the same journal volume, or another chapter
  of the same book. Both ends are looked for so that one damaged digit ("2Z1–214") does not
  refuse the right work.
* ``unexplained_locator`` — the string points *inside* a work (a volume, a first page, or
  the Elsevier-style trailing locator "(2010) 139.") and the candidate has no volume, issue
  or pages to point at: a book or a journal record where a chapter or an article was meant.
  Only records that list the pages a work has count (not deposited reference lists).
Weak evidence is not a veto but is marked (``PairScore.weak``): the candidate's title is not
printed, and first page with volume (or book) does not stand in for it. Author, venue and
year alone fit every paper an author published in that venue that year, so a search
refuses such a pair, and a registry accepts it only when no other entry comes close.
"""

from __future__ import annotations

import logging
import re

from citecheck.match.candidates import Candidate
from citecheck.match.refparse import normalize_text

logger = logging.getLogger(__name__)

# "(2010) 139." / "(n.d.) xiii." at the end of an Elsevier-style string without a title.
_TRAILING_LOCATOR = re.compile(
    r"\((?:1[5-9]\d\d|20\d\d)[a-z]?\)|\(n\.\s?d\.\)", re.IGNORECASE
)
# Front-matter pages "ix–x", "xiii–xv" (lower case: "CV–X" is not a page range).
_ROMAN_RANGE = re.compile(r"(?<![\w.])([ivxlc]{1,7})\s*[-–]\s*[ivxlc]{1,7}\b")
_YEAR_LIKE = re.compile(r"(?:1[5-9]|20)\d\d")
_LOCATOR_AFTER = re.compile(
    r"^\s*,?\s*(?:\d{1,6}|[ivxlc]{1,7})\s*\.?\s*$", re.IGNORECASE
)


def _page_ends(pages: str | None) -> list[str]:
    if not pages:
        return []
    parts = re.split(r"[-–—]", pages, maxsplit=1)
    return [p for p in (normalize_text(part).replace(" ", "") for part in parts) if p]


def trailing_locator(printed_text: str) -> str | None:
    """The page after the year in a string without a title: "(2010) 139." → ``"139"``."""
    for match in _TRAILING_LOCATOR.finditer(printed_text):
        if _LOCATOR_AFTER.match(tail := printed_text[match.end() :]):
            return normalize_text(tail).replace(" ", "") or None
    return None


def printed_locators(
    printed_text: str, volume: str | None, first_page: str | None
) -> frozenset[str]:
    """Where the string points inside a work: volume, first page, or a trailing page."""
    found = {normalize_text(v).replace(" ", "") for v in (volume, first_page) if v}
    found.add(trailing_locator(printed_text) or "")
    if match := _ROMAN_RANGE.search(printed_text):
        found.add(match.group(1))
    # "Geobaikal 2012 (2012)": a year inside a venue name points nowhere.
    return frozenset(v for v in found if v and not _YEAR_LIKE.fullmatch(v))


def pages_disagree(
    printed_first_page: str | None,
    printed_words: frozenset[str],
    candidate_pages: str | None,
) -> bool:
    """The string prints a first page and neither end of the candidate's range is printed.

    ``printed_words`` are the string's tokens and digit runs (roman pages are tokens).
    """
    if not printed_first_page:
        return False
    ends = _page_ends(candidate_pages)
    if not ends:
        return False
    return not any(end in printed_words for end in ends)


def locator_unexplained(
    locators: frozenset[str], candidate: Candidate, title_tokens: tuple[str, ...]
) -> bool:
    """The string points inside a work and the candidate has nothing to point at.

    Locators printed inside the candidate's own title ("Windham, Joseph (1739–1810)") are
    explained by it; every locator must be. A deposited reference (``crossref-reference``) often leaves out volume
    and pages that the work has, so there an absent field says nothing.
    """
    if not locators or candidate.volume or candidate.issue or candidate.pages:
        return False
    if candidate.source == "crossref-reference":
        return False
    return not locators.issubset(title_tokens)


def lacks_title_evidence(
    title: float | None, title_free: bool, has_title: bool, title_floor: float
) -> bool:
    """A titled candidate whose title is not printed, with no title-free evidence either."""
    return has_title and not title_free and (title is None or title < title_floor)
