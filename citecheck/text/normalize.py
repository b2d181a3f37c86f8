"""Text normalisation shared by extraction and by every stage that compares quotes.

``normalize_text`` is the one function used to decide whether two strings say the same
thing character for character (a model's quote against the page it came from), so it
only removes differences that printing and PDF extraction introduce: ligatures and other
compatibility characters (NFKC), ligatures split by glyph spacing ("signi fi cant"),
typographic quotes and dashes, soft hyphens, hyphenation at line ends and whitespace.
"""

from __future__ import annotations

import logging
import re
import unicodedata

logger = logging.getLogger(__name__)

__all__ = ["dehyphenate_join", "normalize_line", "normalize_text"]

_TRANSLATION = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u00ab": '"', "\u00bb": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2015": "-", "\u2212": "-", "\ufe58": "-", "\ufe63": "-", "\uff0d": "-",
        "\u00ad": "", "\ufffe": "-", "\x02": "-", "\u200b": "", "\u200c": "", "\u200d": "",
        "\ufeff": "", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
    }
)
_SPLIT_LIGATURE = re.compile(r"(?<=[a-z]) (ffi|ffl|ff|fi|fl) (?=[a-z])")
_SPACES = re.compile(r"[^\S\n]+")
_LINE_END_HYPHEN = re.compile(r"(?<=[A-Za-z\u00C0-\u024F])-\s*\n\s*(?=[a-z\u00DF-\u024F])")

# Prefixes that form hyphenated compounds; a line break after them keeps the hyphen.
_COMPOUND_PREFIXES = frozenset(
    "anti co counter cross double ex extra high inter intra long low macro meta micro mid "
    "multi neo non over para post pre pro pseudo quasi re self semi short single sub super "
    "trans two ultra under well wide".split()
)


def normalize_line(text: str) -> str:
    """One printed line: NFKC, quotes and dashes, split ligatures, single spaces."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATION)
    text = _SPLIT_LIGATURE.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()


def dehyphenate_join(first: str, second: str, vocabulary: set[str] | None = None) -> str:
    """Join two lines, removing a line-end hyphen unless the word is a real compound.

    ``first`` ends a line with "…exam-" and ``second`` continues "ple …". The hyphen stays
    when the hyphenated form is known from elsewhere in the document (``vocabulary``),
    when the joined form is not, and the prefix is a common compound prefix, or when the
    continuation does not start with a lower-case letter.
    """
    if not first:
        return second
    if not second:
        return first
    match = re.search(r"([A-Za-z\u00C0-\u024F]+)-$", first)
    if not match or not second[:1].islower():
        return f"{first} {second}"
    head = match.group(1)
    tail_match = re.match(r"[\w\u00C0-\u024F]+", second)
    tail = tail_match.group(0) if tail_match else ""
    hyphenated = f"{head}-{tail}".lower()
    joined = f"{head}{tail}".lower()
    known = vocabulary or set()
    keep = hyphenated in known or (joined not in known and head.lower() in _COMPOUND_PREFIXES)
    return f"{first}{second}" if keep else f"{first[:-1]}{second}"


def normalize_text(text: str) -> str:
    """Canonical form of any text for verbatim comparison (see the module docstring).

    Line-end hyphenation is removed ("exam-\\nple" -> "example"), then all whitespace,
    newlines included, collapses to single spaces.
    """
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATION)
    text = _LINE_END_HYPHEN.sub("", text)
    text = _SPLIT_LIGATURE.sub(r"\1", text)
    return " ".join(text.split())
