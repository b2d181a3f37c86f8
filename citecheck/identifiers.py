"""Identifiers printed in text: DOIs, arXiv ids, PMIDs, PMCIDs, URLs and years.

The input is text as a PDF extractor produces it, so an identifier may be broken across a
line ("10.1021/acs.\\njctc.2c01235"), wrapped in a resolver URL, prefixed with ``doi:`` or
followed by sentence punctuation. Every function returns identifiers in a canonical form
(DOIs lower-case without prefix, arXiv ids without version), de-duplicated, in order of
first appearance.
"""

from __future__ import annotations

import datetime
import logging
import re
from urllib.parse import unquote

logger = logging.getLogger(__name__)

__all__ = ["find_arxiv", "find_dois", "find_pmcid", "find_pmid", "find_urls", "find_year"]

# Characters that may end a DOI fragment at a line break and signal that it continues.
_CONTINUATION_END = "./-_:;("
_DOI_START = re.compile(
    r"(?:https?://)?(?:dx\.)?doi\.org/|\bdoi\s*[:=]?\s*|(?<![\w./])(?=10\.\d{4,9}/)",
    re.IGNORECASE,
)
_DOI_BODY = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)
_DOI_CONTINUATION_TOKEN = re.compile(r"[a-z0-9./_\-;:()<>\[\]]+")
_LIST_MARKER = re.compile(r"^(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.)")
_TRAILING_PUNCT = ".,;:'\"!?*"

_ARXIV_NEW = re.compile(
    r"(?:arxiv\s*[:.]?\s*(?:preprint\s+)?(?:arxiv\s*:?\s*)?|arxiv\.org/(?:abs|pdf)/)"
    r"(\d{4}\.\d{4,5})(?:v\d+)?",
    re.IGNORECASE,
)
_ARXIV_OLD = re.compile(
    r"(?:arxiv\s*:?\s*|arxiv\.org/(?:abs|pdf)/|\b)"
    r"((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|"
    r"physics|quant-ph|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)
_PMID = re.compile(
    r"(?:\bPMID\s*:?\s*|\bPubMed\s+(?:PMID\s*:?\s*)?|pubmed\.ncbi\.nlm\.nih\.gov/|"
    r"ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b",
    re.IGNORECASE,
)
_PMCID = re.compile(r"\bPMC\s?(\d{4,9})\b", re.IGNORECASE)
_URL = re.compile(r"(?:https?://|\bwww\.)[^\s<>\"]+", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d./-])(1[5-9]\d\d|20\d\d)(?:[a-z])?(?![\d])")


def _join_broken_lines(text: str, start: int, fragment_end: int) -> tuple[str, int]:
    """Extend an identifier that a line break (or a column join) split in two.

    A fragment continues on the next line when it ends with a separator character, or when
    the next token looks like the rest of an identifier (lower-case or digits with inner
    punctuation) rather than a word or a list marker of the next entry.
    """
    fragment = text[start:fragment_end]
    end = fragment_end
    while end < len(text):
        gap = re.match(r"[ \t]*\n[ \t]*|[ \t]+", text[end:])
        if not gap:
            break
        after = end + gap.end()
        token_match = _DOI_CONTINUATION_TOKEN.match(text, after)
        if not token_match:
            break
        token = token_match.group(0)
        if _LIST_MARKER.match(token) or len(token) < 2:
            break
        has_newline = "\n" in gap.group(0)
        ends_with_separator = fragment[-1] in _CONTINUATION_END
        token_looks_like_id = bool(re.search(r"\d", token)) and bool(
            re.search(r"[./_\-]", token.rstrip(_TRAILING_PUNCT))
        )
        starts_with_separator = token[0] in "./-_"
        if (ends_with_separator and (has_newline or token_looks_like_id)) or (has_newline and (token_looks_like_id or starts_with_separator)):
            pass
        else:
            break
        # Take the token plus any non-space characters glued to it.
        tail = re.match(r"\S+", text[after:])
        assert tail is not None
        fragment += tail.group(0)
        end = after + tail.end()
    return fragment, end


def _strip_trailing(value: str) -> str:
    """Remove sentence punctuation and unbalanced closing brackets from the end."""
    while value:
        last = value[-1]
        if last in _TRAILING_PUNCT:
            value = value[:-1]
        elif last in ")]}>":
            opener = {")": "(", "]": "[", "}": "{", ">": "<"}[last]
            if value.count(opener) < value.count(last):
                value = value[:-1]
            else:
                break
        else:
            break
    return value


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def find_dois(text: str) -> list[str]:
    """DOIs printed in ``text``, lower-case, without resolver prefix or trailing punctuation.

    Handles ``https://doi.org/…``, ``dx.doi.org``, ``doi:``/``DOI`` prefixes, percent-encoded
    URLs and DOIs broken across lines by PDF extraction.
    """
    text = re.sub(r"%2f", "/", text, flags=re.IGNORECASE)
    found: list[str] = []
    position = 0
    while True:
        prefix = _DOI_START.search(text, position)
        if not prefix:
            break
        body = _DOI_BODY.match(text, prefix.end())
        if not body:
            position = prefix.end() + 1 if prefix.end() == prefix.start() else prefix.end()
            continue
        raw, end = _join_broken_lines(text, body.start(), body.end())
        position = end
        doi = _strip_trailing(unquote(raw))
        # A DOI glued to the next reference's text ("…2c01235.Smith") is cut at a URL
        # or a second DOI starting inside it.
        doi = re.split(r"https?://|(?<=\S)doi:", doi, maxsplit=1, flags=re.IGNORECASE)[0]
        doi = _strip_trailing(doi)
        if re.fullmatch(r"10\.\d{4,9}/\S+", doi):
            found.append(doi.lower())
    return _unique(found)


def find_arxiv(text: str) -> list[str]:
    """arXiv identifiers (``2101.12345`` or ``hep-th/9901001``), without version suffix.

    Bare new-style numbers are only accepted after an ``arXiv`` label or in an arxiv.org
    URL, because ``1234.56789`` alone is also a page range or a number.
    """
    hits: list[tuple[int, str]] = [(m.start(), m.group(1)) for m in _ARXIV_NEW.finditer(text)]
    hits += [(m.start(), m.group(1).lower()) for m in _ARXIV_OLD.finditer(text)]
    return _unique([value for _, value in sorted(hits)])


def find_pmid(text: str) -> list[str]:
    """PubMed ids labelled as such (``PMID: 123``, ``PubMed 123``, a PubMed URL)."""
    return _unique([m.group(1) for m in _PMID.finditer(text)])


def find_pmcid(text: str) -> list[str]:
    """PubMed Central ids in the canonical ``PMC1234567`` form."""
    return _unique([f"PMC{m.group(1)}" for m in _PMCID.finditer(text)])


def find_urls(text: str) -> list[str]:
    """http(s) and ``www.`` URLs, rejoined across line breaks, trailing punctuation removed."""
    found: list[str] = []
    position = 0
    while True:
        match = _URL.search(text, position)
        if not match:
            break
        raw, end = _join_broken_lines(text, match.start(), match.end())
        position = end
        url = _strip_trailing(raw)
        if len(url) > len("https://"):
            found.append(url)
    return _unique(found)


def find_year(text: str) -> int | None:
    """The publication year of a printed reference, or None.

    A year in parentheses (``(2020)``, ``(2019a)``) wins. Otherwise the latest plausible
    year outside DOIs, URLs and access dates, because a title mentions earlier years
    ("Ocean heat since 1950. Science. 2016") far more often than later ones. Years after
    next year are ignored (they are page numbers or ids).
    """
    latest = datetime.date.today().year + 1
    cleaned = _URL.sub(" ", text)
    cleaned = re.sub(r"10\.\d{4,9}/\S+", " ", cleaned)
    cleaned = re.sub(r"\b(?:accessed|retrieved|cited|viewed|last visited)\b[^.;\]]*", " ", cleaned, flags=re.I)
    candidates = [
        (m.start(), int(m.group(1)))
        for m in _YEAR.finditer(cleaned)
        if 1500 <= int(m.group(1)) <= latest
    ]
    if not candidates:
        return None
    for start, year in candidates:
        if cleaned[:start].rstrip().endswith(("(", "[")):
            return year
    return max(year for _, year in candidates)
