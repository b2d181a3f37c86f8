"""Vetoes: pairs that score well on words but that the printed numbers or evidence refuse.

A weighted score lets strong fields outvote a field that disagrees. Three disagreements
are not outvoted, because each is the signature of a wrong link seen on the benchmark
data (``bench/match.py``) rather than of noise:

* ``pages`` — the string prints a first page and neither end of the candidate's page range
  appears anywhere in it: another article of the same journal volume, or another chapter
  of the same book. Both ends are looked for so that one damaged digit ("2Z1–214") does not
  refuse the right work.
* ``unexplained_locator`` — the string points *inside* a work (a volume, a page, a page
  range, or the Elsevier-style trailing locator "(2010) 139.") and the candidate has no
  volume, issue or pages at all: a book or a journal record where a chapter or an article
  was meant.
* ``no_title_evidence`` — the candidate's title is not printed, and volume and first page
  do not stand in for it: author, venue and year alone fit every paper an author
  published in that venue that year.
"""

from __future__ import annotations

import logging
import re

from citecheck.match.refparse import normalize_text

logger = logging.getLogger(__name__)

# "(2010) 139." / "(n.d.) xiii." at the end of an Elsevier-style string without a title.
_TRAILING_LOCATOR = re.compile(
    r"\((?:1[5-9]\d\d|20\d\d)[a-z]?\)|\(n\.\s?d\.\)", re.I
)
_LOCATOR_AFTER = re.compile(r"^\s*,?\s*(?:\d{1,6}|[ivxlc]{1,7})\s*\.?\s*$", re.I)


def _page_ends(pages: str | None) -> list[str]:
    if not pages:
        return []
    parts = re.split(r"[-–—]", pages, maxsplit=1)
    return [p for p in (normalize_text(part).replace(" ", "") for part in parts) if p]


def prints_locator(printed_text: str, volume: str | None, pages: str | None) -> bool:
    """True when the printed string points inside a work: a volume, pages or a trailing page."""
    if volume or pages:
        return True
    for match in _TRAILING_LOCATOR.finditer(printed_text):
        if _LOCATOR_AFTER.match(printed_text[match.end() :]):
            return True
    return False


def pages_disagree(
    printed_first_page: str | None, printed_numbers: frozenset[str], candidate_pages: str | None
) -> bool:
    """The string prints a first page and neither end of the candidate's range is printed."""
    if not printed_first_page:
        return False
    ends = _page_ends(candidate_pages)
    if not ends:
        return False
    return not any(end in printed_numbers for end in ends)


def locator_unexplained(
    prints_a_locator: bool, volume: str | None, issue: str | None, pages: str | None
) -> bool:
    """The string points inside a work and the candidate has nothing to point at."""
    return prints_a_locator and not (volume or issue or pages)


def lacks_title_evidence(
    title: float | None, title_free: bool, has_title: bool, title_floor: float
) -> bool:
    """A titled candidate whose title is not printed, with no title-free evidence either."""
    return has_title and not title_free and (title is None or title < title_floor)
