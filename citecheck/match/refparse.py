"""A printed reference string → the fields matching needs, by light heuristics.

This is not a full citation parser (GROBID or AnyStyle do better): it finds author family
names, the year, a title guess, the venue and the numbers (volume, issue, pages) well enough
to block candidates, to validate numbers and to say what differs. Scoring does not depend on
the title guess being right: it looks for each candidate field *inside* the printed string.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

from pydantic import BaseModel, Field

from citecheck.identifiers import find_arxiv, find_dois, find_pmid, find_year

logger = logging.getLogger(__name__)

_LIGATURES = str.maketrans(
    {"ﬁ": "fi", "ﬂ": "fl", "ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ß": "ss"}
)
# Letters of every script are kept: Cyrillic or Arabic titles must not fold to nothing.
_NON_WORD = re.compile(r"[\W_]+")
_LIST_MARKER = re.compile(r"^\s*(?:\[\s*\d{1,4}\s*\]|\(\d{1,4}\)|\d{1,4}\s*[.)]\s)\s*")
_PARTICLES = {
    "van",
    "von",
    "der",
    "den",
    "de",
    "del",
    "della",
    "di",
    "da",
    "du",
    "la",
    "le",
    "dos",
    "das",
    "ter",
    "ten",
    "bin",
    "al",
    "el",
    "mc",
}
# "J.", "J.-P.", "Th.", or a bare run of up to three capitals in Vancouver style ("JP").
_INITIALS = re.compile(r"^(?:(?:[A-Z][a-z]?\.\s?-?)+|[A-Z]{1,3})$")
_AUTHOR_SPLIT = re.compile(r"\s*(?:;|,|&|\band\b|\bet al\.?)\s*")
_PAGE_RANGE = re.compile(r"\b([A-Za-z]?\d{1,7})\s*[-–—]+\s*([A-Za-z]?\d{1,7})\b")
_VOLUME_ISSUE = re.compile(r"\b(\d{1,5})\s*\(\s*([\w\-–/ ]{1,12}?)\s*\)")
_VOLUME_LABEL = re.compile(r"\b(?:vol\.?|volume)\s*(\d{1,5})", re.I)
_ISSUE_LABEL = re.compile(r"\b(?:no\.?|issue|nr\.?)\s*(\d{1,5})", re.I)
_PAGES_LABEL = re.compile(
    r"\b(?:pp?\.?|pages?)\s*([A-Za-z]?\d{1,7})(?:\s*[-–—]+\s*([A-Za-z]?\d{1,7}))?", re.I
)
_COLON_PAGES = re.compile(
    r"\b(\d{1,5})\s*(?:\(([\w\-–]{1,8})\))?\s*:\s*([A-Za-z]?\d{1,7})"
)
_VOLUME_YEAR_PAGE = re.compile(
    r"\b(\d{1,5})\s*\((?:1[5-9]|20)\d\d[a-z]?\)\s*,?\s*([A-Za-z]?\d{1,7})\b"
)


def fold(text: str) -> str:
    """Lower-case ASCII folding: ligatures split, accents dropped, dashes unified."""
    text = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.casefold()


@lru_cache(maxsize=65536)
def normalize_text(text: str) -> str:
    """Folded text with every run of non-alphanumerics replaced by one space."""
    return _NON_WORD.sub(" ", fold(text)).strip()


def strip_list_marker(text: str) -> str:
    """The string without a leading list number ("[1]", "(12)", "3."), which is no locator."""
    return _LIST_MARKER.sub("", text)


def expand_pages(pages: str | None) -> str | None:
    """``"1425-37"`` → ``"1425-1437"``; other page strings are returned cleaned, unchanged."""
    if not pages:
        return None
    match = re.fullmatch(r"\s*([A-Za-z]?)(\d+)\s*[-–—]+\s*([A-Za-z]?)(\d+)\s*", pages)
    if not match:
        return pages.strip() or None
    prefix, first, last_prefix, last = match.groups()
    if len(last) < len(first) and int(first[-len(last) :]) <= int(last):
        last = first[: len(first) - len(last)] + last
    return f"{prefix}{first}-{last_prefix or prefix}{last}"


def family_name(name: str) -> str | None:
    """The family name in ``"Smith J"``, ``"Smith, J."``, ``"J. Smith"`` or ``"Jane Smith"``."""
    name = re.sub(r"\s+", " ", name.replace("*", "")).strip(" ,.;")
    if not name:
        return None
    if "," in name:
        head = name.split(",", 1)[0].strip()
        if head and not _INITIALS.match(head):
            return head
    words = [w for w in re.split(r"[\s]+", name) if w]
    content = [w for w in words if not _INITIALS.match(w.strip(","))]
    if not content:
        return None
    if _INITIALS.match(words[-1].strip(",")) and len(words) > 1:
        # "Smith J" / "Smith JA": family name first, initials last.
        return content[0].strip(",.")
    last = content[-1].strip(",.")
    # Keep particles: "van der Waals", "de la Cruz".
    index = len(content) - 1
    while index > 0 and content[index - 1].lower() in _PARTICLES:
        index -= 1
        last = f"{content[index]} {last}"
    return last


class ParsedReference(BaseModel):
    """Fields found in one printed reference; anything not found is ``None``/empty."""

    printed: str
    authors: list[str] = Field(
        default_factory=list, description="Family names, in order."
    )
    year: int | None = None
    title: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    dois: list[str] = Field(default_factory=list)
    arxiv: list[str] = Field(default_factory=list)
    pmid: list[str] = Field(default_factory=list)

    @property
    def first_page(self) -> str | None:
        return self.pages.split("-", 1)[0] if self.pages else None


def _authors_segment(text: str, year: int | None) -> tuple[str, str]:
    """Split the leading author list from the rest of the string."""
    if year is not None:
        year_at = re.search(rf"\(?\b{year}[a-z]?\b\)?", text)
        if year_at and year_at.start() < max(200, len(text) // 2):
            head = text[: year_at.start()]
            names, leftover = _walk_name_chunks(head)
            if names and not leftover.strip(" .,;:([&"):
                return head, text[year_at.end() :]
    return _walk_name_chunks(text)


def _name_like(chunk: str) -> bool:
    """A comma-separated piece that reads as a person's name (or "et al.", or initials)."""
    words = chunk.replace("&", " ").split()
    words = [w for w in words if w.lower() not in ("and", "et", "al", "al.")]
    if not words or len(words) > 4:
        return False
    return all(w[0].isupper() or w.lower() in _PARTICLES for w in words)


def _walk_name_chunks(text: str) -> tuple[str, str]:
    """Vancouver / Elsevier styles: consume name-like comma pieces from the start.

    The piece that ends the list often carries the title after a period ("Doe K. A study…",
    "et al.Short-term…"): its part before the first period is taken when it is a name.
    """
    position = 0
    for match in re.finditer(r"[^,;]+[,;]?", text):
        chunk = match.group(0).rstrip(",;")
        if _name_like(chunk) and not re.search(r"\.\s+[A-Z][a-z]+\s+[a-z]", chunk):
            position = match.end()
            continue
        head = re.match(r"\s*([^.]*(?:\b[A-Z]\.)*)\.\s*", chunk)
        if head and _name_like(head.group(1)):
            position = match.start() + head.end()
        break
    if position == 0:
        return "", text
    return text[:position], text[position:]


def _family_names(segment: str) -> list[str]:
    names = []
    for chunk in _AUTHOR_SPLIT.split(segment):
        chunk = chunk.strip(" .()[]")
        if not chunk or _INITIALS.match(chunk.replace(" ", "")):
            continue
        if len(chunk.split()) > 5:
            continue
        if (family := family_name(chunk)) and re.search(r"[^\W\d_]{2,}", family):
            names.append(family)
    return names[:12]


def _numbers(rest: str) -> tuple[str | None, str | None, str | None]:
    """Volume, issue and page range from the part after the title."""
    volume = issue = pages = None
    if match := _PAGES_LABEL.search(rest):
        pages = (
            f"{match.group(1)}-{match.group(2)}" if match.group(2) else match.group(1)
        )
    if match := _VOLUME_LABEL.search(rest):
        volume = match.group(1)
    if match := _ISSUE_LABEL.search(rest):
        issue = match.group(1)
    if volume is None and (match := _VOLUME_YEAR_PAGE.search(rest)):
        volume, pages = match.group(1), pages or match.group(2)
    if volume is None and (match := _VOLUME_ISSUE.search(rest)):
        volume, issue = match.group(1), issue or match.group(2).strip()
    if match := _COLON_PAGES.search(rest):
        volume = volume or match.group(1)
        issue = issue or match.group(2)
        pages = pages or match.group(3)
    if pages is None or "-" not in pages:
        ranges = [
            m
            for m in _PAGE_RANGE.finditer(rest)
            if not re.fullmatch(r"(19|20)\d\d", m.group(2))
        ]
        if ranges:
            pages = f"{ranges[-1].group(1)}-{ranges[-1].group(2)}"
    return volume, issue, expand_pages(pages)


def _title_and_venue(rest: str) -> tuple[str | None, str | None]:
    """The longest sentence-like segment is the title guess; the next one the venue."""
    rest = re.sub(
        r"https?://\S+|doi\s*:?\s*10\.\S+|\b10\.\d{4,9}/\S+", " ", rest, flags=re.I
    )
    segments = [
        s.strip(" ,;:()[]\"'“”") for s in re.split(r"(?<=[.?!])\s+|[“”\"]", rest)
    ]
    segments = [s for s in segments if len(re.findall(r"[^\W\d_]{2,}", s)) >= 1]
    if not segments:
        return None, None
    words = [len(re.findall(r"[^\W\d_]{2,}", s)) for s in segments]
    best = max(range(len(segments)), key=lambda i: words[i])
    title = segments[best].rstrip(".") if words[best] >= 2 else None
    venue = None
    if best + 1 < len(segments):
        venue = (
            re.split(r"[,;]?\s*\d", segments[best + 1], maxsplit=1)[0].strip(" ,.;")
            or None
        )
    return title, venue


def parse_reference(printed: str) -> ParsedReference:
    """Heuristic fields of one printed reference (never raises on odd input)."""
    text = re.sub(r"\s+", " ", printed).strip()
    text = strip_list_marker(text)
    year = find_year(text)
    head, rest = _authors_segment(text, year)
    volume, issue, pages = _numbers(rest if len(rest) > 20 else text)
    title, venue = _title_and_venue(rest)
    return ParsedReference(
        printed=printed,
        authors=_family_names(head),
        year=year,
        title=title,
        venue=venue,
        volume=volume,
        issue=issue,
        pages=pages,
        dois=find_dois(printed),
        arxiv=find_arxiv(printed),
        pmid=find_pmid(printed),
    )
