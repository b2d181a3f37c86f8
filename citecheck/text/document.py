"""Worker output to clean pages: normalised lines, running headers/footers and page numbers removed.

The worker returns raw lines with geometry; this module decides what belongs to the body
text. A line near the top or bottom edge whose shape (digits masked) repeats on several
pages is a running header or footer; a lone number, "Page 3" or "3 of 18" near an edge is a
page number. What is removed is not hidden text: it is printed, only repetitive.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from citecheck.text.normalize import dehyphenate_join, fold_compatibility, join_split_ligatures

logger = logging.getLogger(__name__)

EDGE_SHARE = 0.1
_PAGE_NUMBER = re.compile(
    r"^(?:[-\u2013\u2014 ]*\d{1,4}[-\u2013\u2014 ]*|page \d+(?: of \d+)?|\d+ ?(?:/|of) ?\d+|[ivxlc]{1,6})$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w\u00C0-\u024F]+(?:-[\w\u00C0-\u024F]+)*")


@dataclass(slots=True)
class TextLine:
    """A normalised line with geometry and superscript spans (indexes into ``text``)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    superscripts: list[tuple[int, int]] = field(default_factory=list)


@dataclass(slots=True)
class PageLines:
    number: int
    width: float
    height: float
    lines: list[TextLine]


def _normalize_segments(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """Normalise a line piece by piece so that superscript spans keep pointing at their text."""
    pieces: list[tuple[str, bool]] = []
    cursor = 0
    for start, end in spans:
        if start > cursor:
            pieces.append((text[cursor:start], False))
        pieces.append((text[start:end], True))
        cursor = end
    if cursor < len(text):
        pieces.append((text[cursor:], False))
    out = ""
    new_spans: list[tuple[int, int]] = []
    for piece, is_sup in pieces:
        piece = fold_compatibility(piece)
        piece = re.sub(r"\s+", " ", piece)
        if out.endswith(" ") and piece.startswith(" "):
            piece = piece[1:]
        if not is_sup:
            piece = join_split_ligatures(piece)
        elif piece.strip():
            lead = len(piece) - len(piece.lstrip())
            new_spans.append((len(out) + lead, len(out) + len(piece.rstrip())))
        out += piece
    stripped = out.lstrip()
    shift = len(out) - len(stripped)
    stripped = stripped.rstrip()
    spans_out = [(s - shift, min(e - shift, len(stripped))) for s, e in new_spans if e - shift > 0]
    return stripped, spans_out


def _signature(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower()).strip()


def _is_edge(line: TextLine, height: float) -> bool:
    return line.top < EDGE_SHARE * height or line.bottom > (1 - EDGE_SHARE) * height


def remove_running_lines(pages: list[PageLines]) -> list[PageLines]:
    """Drop running headers, footers and page numbers (see the module docstring)."""
    counts: Counter[str] = Counter()
    for page in pages:
        signatures = {_signature(line.text) for line in page.lines if _is_edge(line, page.height)}
        counts.update(signatures)
    threshold = 2 if len(pages) <= 4 else max(3, round(0.25 * len(pages)))
    repeated = {sig for sig, n in counts.items() if n >= threshold and sig}
    cleaned: list[PageLines] = []
    for page in pages:
        kept = []
        for line in page.lines:
            if _is_edge(line, page.height) and (
                _signature(line.text) in repeated or _PAGE_NUMBER.match(line.text.strip())
            ):
                continue
            kept.append(line)
        cleaned.append(PageLines(page.number, page.width, page.height, kept))
    return cleaned


def pages_from_worker(raw_pages: list[dict[str, Any]]) -> list[PageLines]:
    """Normalised, de-duplicated pages from the worker's JSON pages."""
    pages = []
    for raw in raw_pages:
        lines = []
        for item in raw["lines"]:
            text, spans = _normalize_segments(item["text"], [tuple(s) for s in item.get("sup", [])])
            if text:
                lines.append(
                    TextLine(text, item["x0"], item["top"], item["x1"], item["bottom"], item["size"], spans)
                )
        pages.append(PageLines(raw["number"], raw["width"], raw["height"], lines))
    return remove_running_lines(pages)


def vocabulary(pages: list[PageLines]) -> set[str]:
    """Lower-cased words of the document, hyphenated compounds included, for dehyphenation."""
    words: set[str] = set()
    for page in pages:
        for line in page.lines:
            words.update(w.lower() for w in _WORD.findall(line.text))
    return words


def page_text(page: PageLines, known_words: set[str]) -> str:
    """The page as text: one line per printed line, line-end hyphenation resolved."""
    out: list[str] = []
    for line in page.lines:
        if out and out[-1].endswith("-") and line.text[:1].islower():
            # Move the completed word to the previous line; keep the rest on its own line.
            prefix, _, last = out[-1].rpartition(" ")
            first_word, _, remainder = line.text.partition(" ")
            completed = dehyphenate_join(last, first_word, known_words)
            out[-1] = f"{prefix} {completed}".strip()
            if remainder:
                out.append(remainder)
            continue
        out.append(line.text)
    return "\n".join(out)
