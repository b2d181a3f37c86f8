"""Citation contexts: every body sentence that cites, with its markers resolved to entries.

Markers recognised:
- numeric in brackets, with lists and ranges: ``[3]``, ``[3, 5–7]``;
- numeric in parentheses ``(15–17)`` when the reference list is numbered and every number
  is a label of it (so equation numbers and list items are not taken);
- superscript numbers, known from the font (size and rise), when the list is numbered;
- author–year, parenthetical ``(Smith et al., 2020; Lee 2019a)`` and narrative
  ``Smith and Lee (2020)``, resolved by first author's surname and year.
A marker that resolves to no entry is still reported, with no id, so gaps stay visible.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass, field

from citecheck.text.document import PageLines
from citecheck.text.normalize import dehyphenate_join
from citecheck.text.sentences import sentence_spans

logger = logging.getLogger(__name__)

__all__ = ["CitationContext", "RefKey", "find_contexts"]

SUP_OPEN, SUP_CLOSE = "\x01", "\x02"
_MAX_RANGE = 200
_NUMBER_LIST = r"\d{1,4}(?:\s*[,\u2013\-–]\s*\d{1,4})*"
_BRACKET = re.compile(r"\[(" + _NUMBER_LIST + r")\]")
_PAREN_NUMBERS = re.compile(r"\((" + _NUMBER_LIST + r")\)")
_SUPERSCRIPT = re.compile(SUP_OPEN + r"([^" + SUP_CLOSE + r"]*)" + SUP_CLOSE)
_SUP_CONTENT = re.compile(r"^\s*" + _NUMBER_LIST + r"\s*$")
_NAME = r"[A-Z\u00C0-\u00DE][\w'’\-\u00C0-\u024F]+"
_PARENTHETICAL = re.compile(r"\(([^()]*?\b(?:1[6-9]|20)\d{2}[a-z]?\b[^()]*)\)")
_YEAR_LIST = r"((?:1[6-9]|20)\d{2}[a-z]?(?:\s*,\s*(?:1[6-9]|20)\d{2}[a-z]?)*)"
_ITEM = re.compile(r"(" + _NAME + r")[^\d;()]{0,80}?,?\s" + _YEAR_LIST)
_NARRATIVE = re.compile(
    r"(" + _NAME + r")(?:\s+et\s+al\.?|\s+(?:and|&)\s+" + _NAME + r")?\s+\(" + _YEAR_LIST + r"\)"
)
_NOT_NAMES = frozenset(["See", "Cf", "For", "In", "Also", "And", "The", "From", "Table", "Figure", "Fig", "Eq", "Section", "Chapter", "Note"])


@dataclass(slots=True)
class RefKey:
    """What a citation marker can be resolved against: id, label, surname, year."""

    ref_id: str
    label: str | None
    surname: str | None
    year: str | None


@dataclass(slots=True)
class CitationContext:
    sentence: str
    page: int
    markers: list[str] = field(default_factory=list)
    ref_ids: list[str] = field(default_factory=list)


def fold(name: str) -> str:
    """Surname key: lower case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _expand(numbers: str) -> list[str]:
    labels: list[str] = []
    for part in re.split(r"\s*,\s*", numbers.strip()):
        bounds = re.split(r"\s*[\u2013\-–]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            if low <= high <= low + _MAX_RANGE:
                labels.extend(str(n) for n in range(low, high + 1))
                continue
        labels.extend(b for b in bounds if b.isdigit())
    return labels


def _flow_text(pages: list[PageLines], skip: set[int], numbered: bool) -> tuple[str, list[tuple[int, int]]]:
    """Body text of the document in one string, with page start offsets.

    Superscript citation numbers are wrapped in SUP_OPEN/SUP_CLOSE. Headings (short lines
    without final punctuation) get a blank line so they do not merge into a sentence.
    """
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    length = 0
    previous = ""
    for page in pages:
        offsets.append((length, page.number))
        widths = [line.x1 - line.x0 for line in page.lines] or [0.0]
        typical = sorted(widths)[len(widths) // 2]
        for line in page.lines:
            if id(line) in skip:
                continue
            text = line.text
            if numbered and line.superscripts:
                for start, end in reversed(line.superscripts):
                    content = text[start:end]
                    if _SUP_CONTENT.match(content) and start > 0:
                        text = f"{text[:start]}{SUP_OPEN}{content}{SUP_CLOSE}{text[end:]}"
            heading = (
                line.x1 - line.x0 < 0.6 * typical
                and not re.search(r"[.,;:!?)\]\-]$", text)
                and len(text) < 80
            )
            if previous.endswith("-") and text[:1].islower():
                joined = dehyphenate_join(previous, text)
                addition = joined[len(previous) - 1 :]
                parts[-1] = parts[-1][:-1]
                length -= 1
            else:
                addition = ("\n\n" if heading else " ") + text + ("\n\n" if heading else "")
            parts.append(addition)
            length += len(addition)
            previous = text
    return "".join(parts), offsets


def _page_at(offsets: list[tuple[int, int]], position: int) -> int:
    page = offsets[0][1] if offsets else 1
    for start, number in offsets:
        if start > position:
            break
        page = number
    return page


def _resolve_author_year(name: str, years: str, keys: list[RefKey]) -> list[str]:
    surname = fold(name)
    ids: list[str] = []
    for year in re.split(r"\s*,\s*", years):
        plain = year[:4]
        exact = [k.ref_id for k in keys if k.surname == surname and k.year == year]
        loose = [k.ref_id for k in keys if k.surname == surname and (k.year or "")[:4] == plain]
        ids.extend(exact or loose)
    return ids


def _markers(sentence: str, keys: list[RefKey], numbered: bool) -> tuple[list[str], list[str]]:
    by_label = {k.label: k.ref_id for k in keys if k.label}
    markers: list[str] = []
    ids: list[str] = []
    for match in _SUPERSCRIPT.finditer(sentence):
        markers.append(match.group(1))
        ids.extend(by_label.get(label, "") for label in _expand(match.group(1)))
    for match in _BRACKET.finditer(sentence):
        markers.append(match.group(0))
        ids.extend(by_label.get(label, "") for label in _expand(match.group(1)))
    if numbered:
        for match in _PAREN_NUMBERS.finditer(sentence):
            labels = _expand(match.group(1))
            if labels and all(label in by_label for label in labels):
                markers.append(match.group(0))
                ids.extend(by_label[label] for label in labels)
    if not numbered:
        for match in _PARENTHETICAL.finditer(sentence):
            for item in match.group(1).split(";"):
                for name, years in _ITEM.findall(item):
                    if name in _NOT_NAMES:
                        continue
                    markers.append(f"{name} {years}".strip())
                    ids.extend(_resolve_author_year(name, years, keys))
        for match in _NARRATIVE.finditer(sentence):
            if match.group(1) in _NOT_NAMES:
                continue
            markers.append(match.group(0))
            ids.extend(_resolve_author_year(match.group(1), match.group(2), keys))
    return markers, [i for i in dict.fromkeys(ids) if i]


def find_contexts(
    pages: list[PageLines], keys: list[RefKey], skip_line_ids: set[int]
) -> list[CitationContext]:
    """Citing sentences of the body text (reference-section lines in ``skip_line_ids``)."""
    numbered = any(k.label for k in keys)
    text, offsets = _flow_text(pages, skip_line_ids, numbered)
    contexts: list[CitationContext] = []
    for start, end in sentence_spans(text):
        sentence = " ".join(text[start:end].split())
        markers, ids = _markers(sentence, keys, numbered)
        if not markers:
            continue
        clean = sentence.replace(SUP_OPEN, "").replace(SUP_CLOSE, "")
        contexts.append(CitationContext(clean, _page_at(offsets, start), markers, ids))
    return contexts
