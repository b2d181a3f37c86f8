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

__all__ = ["dehyphenate_join", "fold_compatibility", "join_split_ligatures", "normalize_line", "normalize_text"]

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
# TeX-made PDFs draw an accent as its own glyph before the letter: "Jim ́enez", "Noˆus".
_LOOSE_ACCENT = re.compile(r"(?<=[^\W\d_]) ?([\u0300-\u036f])([^\W\d_])")
_MODIFIER_ACCENTS = str.maketrans(
    {"\u02c6": "\u0302", "\u02c7": "\u030c", "\u02dc": "\u0303", "\u02d8": "\u0306",
     "\u02d9": "\u0307", "\u02da": "\u030a", "\u02dd": "\u030b"}
)
_SPACES = re.compile(r"[^\S\n]+")
_LINE_END_HYPHEN = re.compile(r"(?<=[A-Za-z\u00C0-\u024F])-\s*\n\s*(?=[a-z\u00DF-\u024F])")

# Prefixes that form hyphenated compounds; a line break after them keeps the hyphen.
_COMPOUND_PREFIXES = frozenset(
    ["anti", "co", "counter", "cross", "double", "ex", "extra", "high", "inter", "intra", "long", "low", "macro", "meta", "micro", "mid", "multi", "neo", "non", "over", "para", "post", "pre", "pro", "pseudo", "quasi", "re", "self", "semi", "short", "single", "sub", "super", "trans", "two", "ultra", "under", "well", "wide"]
)


def fold_compatibility(text: str) -> str:
    """NFKC, loose accents joined to their letter, typographic quotes and dashes made plain."""
    text = unicodedata.normalize("NFKC", text).translate(_MODIFIER_ACCENTS)
    if any("\u0300" <= c <= "\u036f" for c in text):
        text = unicodedata.normalize("NFC", _LOOSE_ACCENT.sub(r"\2\1", text))
        text = re.sub(r"(?<!\S)[\u0300-\u036f]+", "", text)  # an accent left with no letter
    return text.translate(_TRANSLATION)


def join_split_ligatures(text: str) -> str:
    """"signi fi cant" -> "significant": ligature glyphs set apart from their word."""
    return _SPLIT_LIGATURE.sub(r"\1", text)


def normalize_line(text: str) -> str:
    """One printed line: NFKC, quotes and dashes, split ligatures, single spaces."""
    text = fold_compatibility(text)
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
    text = fold_compatibility(text)
    text = _LINE_END_HYPHEN.sub("", text)
    text = _SPLIT_LIGATURE.sub(r"\1", text)
    return " ".join(text.split())
