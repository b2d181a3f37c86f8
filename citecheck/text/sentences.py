"""Sentence splitting for scholarly text.

A full stop ends a sentence only when the next sentence visibly starts (upper case, digit,
quote or bracket after white space) and the word before it is not an abbreviation that
scholarly writing uses mid-sentence ("et al.", "Fig.", "e.g.", "i.e.", "cf.", "vs.", "Eq.",
"No.", "pp.") or an initial ("J. Smith"). Decimals never break because no space follows
their point. Citation markers glued after the stop ("…disease.12 Next", "…disease. [3]")
stay with the sentence they close. Blank lines always end a sentence.
"""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)

__all__ = ["sentence_spans", "split_sentences"]

_ABBREVIATIONS = frozenset(
    ["al", "fig", "figs", "eq", "eqs", "eqn", "ref", "refs", "e.g", "i.e", "cf", "vs", "viz", "etc", "approx", "ca", "resp", "sect", "sec", "tab", "no", "nos", "vol", "vols", "pp", "p", "ed", "eds", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "univ", "ch", "chap", "suppl", "et", "seq", "op", "cit", "ibid", "id", "incl", "min", "max", "avg", "est", "var", "spp", "sp", "subsp", "var", "nr", "art", "para", "mt", "ft", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"]
)
# A terminator, then closing quotes/brackets, then optional citation markers, then space.
_BOUNDARY = re.compile(
    r"[.!?]['\"\u2019\u201d)\]]*"
    r"(?:\s?\x01[^\x02]*\x02|\d{1,3}(?:[,\u2013\-]\d{1,3})*(?=\s+[A-Z]))?"
    r"(?=\s+['\"\u2018\u201c(\[]?[A-Z0-9\u00C0-\u00DE])"
)
_PARAGRAPH = re.compile(r"\n\s*\n")


def _is_abbreviation(text: str, stop: int) -> bool:
    """True when the word ending at ``stop`` (the index of the '.') is an abbreviation."""
    if text[stop] != ".":
        return False
    start = stop
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    word = text[start:stop]
    if not word:
        return False
    if len(word) == 1 and word.isalpha() and word.isupper():
        return True  # an initial: "J. Smith"
    return word.lower().rstrip(".") in _ABBREVIATIONS


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, leading/trailing space excluded."""
    spans: list[tuple[int, int]] = []
    paragraph_start = 0
    for paragraph in [*_PARAGRAPH.finditer(text), None]:
        paragraph_end = paragraph.start() if paragraph else len(text)
        start = paragraph_start
        for match in _BOUNDARY.finditer(text, paragraph_start, paragraph_end):
            if _is_abbreviation(text, match.start()):
                continue
            spans.append((start, match.end()))
            start = match.end()
        spans.append((start, paragraph_end))
        paragraph_start = paragraph.end() if paragraph else len(text)
    trimmed = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            trimmed.append((start, end))
    return trimmed


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` in order, whitespace collapsed, none empty."""
    return [" ".join(text[start:end].split()) for start, end in sentence_spans(text)]
