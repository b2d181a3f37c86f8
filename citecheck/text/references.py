"""Printed references: find the reference section and split it into entries.

The section starts at the last heading that names it (in several languages) and ends at a
heading that plainly starts something else (appendix, supplementary material, tables…).
Without a heading, the trailing block of sequentially numbered lines is taken.

Entries are split by the strongest signal the section offers, in this order:
1. a sequential label at line start: ``[12]``, ``12.``, ``(12)``, ``12`` or a superscript 12;
2. indentation: hanging indent (entry starts flush, continuation lines indented) or
   first-line indent;
3. vertical space between entries;
4. text shape: a line that ends an entry (full stop, short line) followed by one that
   starts like an author list.
Entries run across lines, columns and pages because lines arrive in reading order.
"""

from __future__ import annotations

import logging
import re
import statistics
from dataclasses import dataclass

from citecheck.text.document import PageLines, TextLine
from citecheck.text.normalize import dehyphenate_join

logger = logging.getLogger(__name__)

__all__ = ["PrintedReference", "ReferenceSection", "find_references"]

_HEADING = re.compile(
    r"^(?:[\dIVX]+\.?\s*)?(?:\d+\s+)?(?:(?:selected|cited|bibliographical|literature|list of)\s+)?(?:"
    r"references?(?: and notes| cited| list)?|notes and references|bibliography|"
    r"literature(?: cited)?|works cited|cited literature|literaturverzeichnis|literatur|"
    r"références(?: bibliographiques)?|bibliographie|referencias(?: bibliográficas)?|"
    r"bibliografía|bibliografia|riferimenti bibliografici|referências(?: bibliográficas)?|"
    r"literatuur|litteratur|referenser|kaynaklar|参考文献|список литературы|литература"
    r")\s*:?$",
    re.IGNORECASE,
)
_END_HEADING = re.compile(
    r"^(?:(?:\d+|[IVX]+|[A-Z])\.?\s+)?(?:"
    r"(?:appendix|appendices|annex|supplementary\s+\w+|supporting information)\b.{0,40}|"
    r"(?:tables?|figures?|figure legends|figure captions|about the authou?rs?|"
    r"authors?'? (?:biograph\w*|information|contributions?|notes?)|authors?|contact|citation|"
    r"correspondence|corresponding authors?|funding|conflicts? of interest|competing interests|"
    r"declarations?|data availability|additional information|biographical notes?|"
    r"notes on contributors|acknowledge?ments?|abbreviations|index|endnotes)\s*:?)$",
    re.IGNORECASE,
)
_LABELS = {
    "bracket": re.compile(r"^\[(\d{1,4})\]\s*"),
    "paren": re.compile(r"^\((\d{1,4})\)\s*"),
    "dot": re.compile(r"^(\d{1,4})\.\s+(?=\S)"),
    "bare": re.compile(r"^(\d{1,4})\s+(?=[A-Z\u00C0-\u024F'\"(])"),
}
_AUTHOR_START = re.compile(
    r"^(?:[A-Z\u00C0-\u024F][\w\u00C0-\u024F'’\-]*(?:\s(?:van|von|de|der|den|la|le|du|da|di|dos))?"
    r"(?:[,\s]|$)|[a-z]{1,3}\s[A-Z]|[A-Z]\.|_{2,}|-{2,}|—|\(|“|\")"
)
# "JANE DOE is a sociologist at…": contributor notes set after the references.
_BIOGRAPHY = re.compile(r"^[A-Z][A-Z.'\-]+(?: [A-Z][A-Z.'\-]+)+ (?:is|was|has|holds|teaches)\b")
# Stronger evidence, for a full line that happens to end with a full stop: "Lyons, B. R.",
# "Key Note Market Review", "SMITH John" (not a lone initial continuing an author list).
_AUTHOR_LIST_START = re.compile(
    r"^[A-Z\u00C0-\u00DE][\w'’\-\u00C0-\u024F]+(?:\s(?:van|von|de|der|den|la|le|du|da|di))?"
    r",?\s+(?:[A-Z]\.|[A-Z][\w'’\-\u00C0-\u024F]+|[A-Z]{1,3}\b|\(?(?:1[6-9]|20)\d{2})"
)
_YEAR = re.compile(r"\b(?:1[6-9]|20)\d{2}\b")


@dataclass(slots=True)
class PrintedReference:
    """One printed entry: normalised text without its label, the label, and its first page."""

    printed: str
    page: int
    label: str | None = None


@dataclass(slots=True)
class ReferenceSection:
    """The entries, and the identity of the lines they came from (kept out of contexts)."""

    entries: list[PrintedReference]
    line_ids: set[int]


@dataclass(slots=True)
class _Located:
    page: int
    line: TextLine


def _section_lines(pages: list[PageLines]) -> list[_Located]:
    """Lines after the last reference heading, up to the next unrelated heading."""
    located = [_Located(p.number, line) for p in pages for line in p.lines if line.size > 0]
    start = None
    for index in range(len(located) - 1, -1, -1):
        text = located[index].line.text.strip()
        if len(text) <= 60 and _HEADING.match(text) and index < len(located) - 1:
            start = index + 1
            break
    if start is None:
        return _trailing_numbered_block(located)
    section = []
    for item in located[start:]:
        text = item.line.text.strip()
        if section and len(text) <= 60 and _END_HEADING.match(text) and not text.endswith("."):
            break
        if section and _BIOGRAPHY.match(text):
            break
        section.append(item)
    return _cut_at_size_change(section)


def _cut_at_size_change(section: list[_Located]) -> list[_Located]:
    """End the section where three lines in a row leave the list's font size.

    Back matter without a recognisable heading (order forms, series lists, author notes)
    is usually set in another size than the reference list.
    """
    if len(section) < 6:
        return section
    body = statistics.median(item.line.size for item in section[:8])
    lefts: set[float] = set()
    foreign = 0
    for index, item in enumerate(section):
        if index and item.page != section[index - 1].page and lefts:
            following = [i.line for i in section[index : index + 6] if i.page == item.page]
            size = statistics.median(line.size for line in following)
            new_left = min(line.x0 for line in following)
            if abs(size - body) > 0.05 * body and all(abs(new_left - x) > 5 for x in lefts):
                return section[:index]
        lefts.add(round(item.line.x0))
        if body and abs(item.line.size - body) > 0.15 * body:
            foreign += 1
            if foreign == 3 and index >= 3:
                return section[: index - 2]
        else:
            foreign = 0
    return section


def _trailing_numbered_block(located: list[_Located]) -> list[_Located]:
    """The last run of lines labelled 1, 2, 3… when the section has no heading."""
    for style in ("bracket", "paren", "dot"):
        pattern = _LABELS[style]
        ones = [i for i, item in enumerate(located) if (m := pattern.match(item.line.text)) and m.group(1) == "1"]
        for first in reversed(ones):
            if first < 0.5 * len(located):
                break
            labels = _sequence(located[first:], pattern)
            with_year = sum(
                1
                for index in labels
                if _YEAR.search(" ".join(item.line.text for item in located[first + index : first + index + 3]))
            )
            if len(labels) >= 5 and with_year >= 0.7 * len(labels):
                return located[first:]
    return []


def _sequence(lines: list[_Located], pattern: re.Pattern[str]) -> dict[int, str]:
    """Indexes of lines whose label continues the sequence 1, 2, 3… (small gaps allowed)."""
    starts: dict[int, str] = {}
    expected = 1
    for index, item in enumerate(lines):
        match = pattern.match(item.line.text)
        if not match:
            continue
        number = int(match.group(1))
        if expected <= number <= expected + 2:
            starts[index] = match.group(1)
            expected = number + 1
    return starts


def _superscript_sequence(lines: list[_Located]) -> dict[int, str]:
    starts: dict[int, str] = {}
    expected = 1
    for index, item in enumerate(lines):
        spans = item.line.superscripts
        if spans and spans[0][0] == 0:
            label = item.line.text[: spans[0][1]].strip()
            if label.isdigit() and expected <= int(label) <= expected + 2:
                starts[index] = label
                expected = int(label) + 1
    return starts


def _numbered_starts(lines: list[_Located]) -> tuple[dict[int, str], re.Pattern[str] | None]:
    """The best-supported label sequence, when it covers a real share of the section."""
    best: tuple[dict[int, str], re.Pattern[str] | None] = ({}, None)
    for pattern in _LABELS.values():
        starts = _sequence(lines, pattern)
        if len(starts) > len(best[0]):
            best = (starts, pattern)
    superscripts = _superscript_sequence(lines)
    if len(superscripts) > len(best[0]):
        best = (superscripts, None)
    if len(best[0]) >= 3 and len(best[0]) >= 0.15 * len(lines):
        return best
    bracketed = _sequence(lines, _LABELS["bracket"])
    if bracketed and lines and 0 in bracketed:
        return bracketed, _LABELS["bracket"]  # "[1]" labels are unambiguous even in short lists
    return {}, None


def _column_lefts(lines: list[_Located]) -> list[float]:
    """Left edge of the text column of each line (x0 clusters per page)."""
    lefts = [0.0] * len(lines)
    by_page: dict[int, list[int]] = {}
    for index, item in enumerate(lines):
        by_page.setdefault(item.page, []).append(index)
    for indexes in by_page.values():
        xs = sorted({round(lines[i].line.x0, 1) for i in indexes})
        clusters: list[list[float]] = []
        for x in xs:
            if clusters and x - clusters[-1][-1] <= 40:
                clusters[-1].append(x)
            else:
                clusters.append([x])
        for i in indexes:
            x = lines[i].line.x0
            lefts[i] = next(c[0] for c in reversed(clusters) if c[0] <= x + 0.5)
    return lefts


def _indent_starts(lines: list[_Located]) -> set[int] | None:
    """Entry starts from hanging or first-line indentation, or None if there is none.

    Both readings are scored on what entry starts look like (an author-like first word,
    a previous line that ended the entry) and the better one wins.
    """
    lefts = _column_lefts(lines)
    flush = [abs(item.line.x0 - left) < 2.5 for item, left in zip(lines, lefts, strict=True)]
    indented = len(flush) - sum(flush)
    if indented < 0.15 * len(lines) or sum(flush) < 2:
        return None
    hanging = {i for i, is_flush in enumerate(flush) if is_flush}
    first_line = {i for i, is_flush in enumerate(flush) if not is_flush} | {0}
    return max((hanging, first_line), key=lambda starts: _start_score(lines, starts))


def _start_score(lines: list[_Located], starts: set[int]) -> float:
    """How much a set of entry starts looks like one: author-like starts, ended entries."""
    if not starts:
        return 0.0
    right = statistics.median(item.line.x1 for item in lines)
    score = 0.0
    for index in starts:
        text = lines[index].line.text
        score += 1.0 if _AUTHOR_START.match(text) else -1.0
        if index:
            previous = lines[index - 1].line
            score += 0.5 if previous.x1 < right - 30 or previous.text.rstrip().endswith(".") else -0.5
    continuation = [i for i in range(len(lines)) if i not in starts]
    score += sum(0.5 for i in continuation if lines[i].line.text[:1].islower())
    return score / len(lines)


def _gap_starts(lines: list[_Located]) -> set[int] | None:
    """Entry starts after a vertical gap clearly larger than the line spacing."""
    gaps: list[tuple[int, float]] = []
    for index in range(1, len(lines)):
        previous, current = lines[index - 1], lines[index]
        if previous.page == current.page and current.line.top > previous.line.top:
            gaps.append((index, current.line.top - previous.line.top))
    if len(gaps) < 4:
        return None
    spacing = statistics.median(g for _, g in gaps)
    wide = {index for index, gap in gaps if gap > 1.35 * spacing}
    if not wide or len(wide) > 0.7 * len(gaps):
        return None
    starts = {0} | wide
    # Across a page or column change the gap says nothing; fall back to text shape there.
    starts |= {i for i in range(1, len(lines)) if lines[i].page != lines[i - 1].page or
               lines[i].line.top <= lines[i - 1].line.top} & _shape_starts(lines)
    return starts


def _shape_starts(lines: list[_Located]) -> set[int]:
    """Entry starts from text shape alone: previous line ended short or with a full stop."""
    starts = {0}
    widths = [item.line.x1 for item in lines]
    right = statistics.median(widths) if widths else 0
    for index in range(1, len(lines)):
        previous, current = lines[index - 1].line, lines[index].line
        if previous.text.rstrip().endswith(","):
            continue
        if (previous.x1 < right - 40 and _AUTHOR_START.match(current.text)) or (previous.text.rstrip().endswith((".", ")")) and _AUTHOR_LIST_START.match(current.text)):
            starts.add(index)
    return starts


def _strip_label(text: str, pattern: re.Pattern[str] | None, superscript_end: int) -> str:
    if pattern is None:
        return text[superscript_end:].lstrip(" .")
    return pattern.sub("", text, count=1)


# A URL or DOI cut at a line end after one of its separators: "https://cran.r-project." + "org/".
_OPEN_IDENTIFIER = re.compile(r"(?:https?://|www\.|\b10\.\d{4,9}/)\S*[./\-_=?&#]$", re.IGNORECASE)


def _join(lines: list[TextLine], vocabulary: set[str]) -> str:
    text = ""
    for line in lines:
        following = line.text.strip()
        if following[:1].isalnum() and not following[:1].isupper() and _OPEN_IDENTIFIER.search(text):
            text += following
        else:
            text = dehyphenate_join(text, following, vocabulary)
    return re.sub(r"\s+", " ", text).strip()


def _looks_like_reference(text: str) -> bool:
    return len(text) >= 12 and bool(re.search(r"[A-Za-z]{2,}", text))


def find_references(pages: list[PageLines], vocabulary: set[str] | None = None) -> ReferenceSection:
    """The printed reference list of a document, in printed order."""
    lines = _section_lines(pages)
    if not lines:
        return ReferenceSection([], set())
    known = vocabulary or set()
    numbered, pattern = _numbered_starts(lines)
    if numbered:
        starts = set(numbered)
        first = min(starts)
    else:
        starts = _indent_starts(lines) or _gap_starts(lines) or _shape_starts(lines)
        first = 0
    references: list[PrintedReference] = []
    current: list[TextLine] = []
    current_page = lines[first].page
    current_label: str | None = None
    for index in range(first, len(lines)):
        item = lines[index]
        if index in starts and current:
            references.append(PrintedReference(_join(current, known), current_page, current_label))
            current = []
        if index in starts:
            current_page = item.page
            current_label = numbered.get(index)
            line = item.line
            if current_label is not None:
                sup_end = line.superscripts[0][1] if line.superscripts else 0
                stripped = _strip_label(line.text, pattern, sup_end)
                line = TextLine(stripped, line.x0, line.top, line.x1, line.bottom, line.size)
            current.append(line)
        else:
            current.append(item.line)
    if current:
        references.append(PrintedReference(_join(current, known), current_page, current_label))
    entries = [ref for ref in references if _looks_like_reference(ref.printed)]
    return ReferenceSection(entries, {id(item.line) for item in lines})
