"""Deterministic checks on every model answer: verbatim quotes and matching numbers.

A quote the model returns must be found in the visible text of the passage it names
(after ``normalize_text`` and whitespace folding); otherwise it is dropped. A verdict left
without evidence becomes ``not_checkable`` / ``evidence_not_found``. Numbers in the claim
are compared with the numbers in the verified evidence; a mismatch is flagged, not judged.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from ..text.normalize import normalize_text
from .models import NumberCheck, Passage, Verdict

logger = logging.getLogger(__name__)

_SPACE = re.compile(r"\s+")
# Numbers are read from normalize_text output, where every dash and minus is "-".
# A number must not be glued to a word: "COVID-19", "SARS-CoV-2" and "IL-6" are names.
_NOT_IN_NAME = r"(?<![\w.])(?<![A-Za-z]-)"
_NUMBER = re.compile(
    _NOT_IN_NAME + r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?"  # 1,234 or 12,345.6
    r"|" + _NOT_IN_NAME + r"-?\d+(?:\.\d+)?%?"  # 12, 0.45, 45%
    r"|(?<![\w])-?\.\d+%?"  # .05
)
_REFERENCE_MARKER = re.compile(r"\[\s*\d+(?:\s*[-,]\s*\d+)*\s*\]|<\|\w+\|>")
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")


def _fold(text: str) -> str:
    return _SPACE.sub(" ", normalize_text(text)).strip()


def quote_in_text(quote: str, text: str) -> bool:
    """True when the quote occurs verbatim in the text, fragments around ``…`` in order."""
    haystack = _fold(text)
    position = 0
    fragments = [f for f in _ELLIPSIS.split(_fold(quote)) if f]
    if not fragments:
        return False
    for fragment in fragments:
        found = haystack.find(fragment, position)
        if found < 0:
            return False
        position = found + len(fragment)
    return True


@dataclass(frozen=True)
class VerifiedQuote:
    passage: Passage
    quote: str


def verify_evidence(verdict: Verdict, passages: list[Passage]) -> tuple[list[VerifiedQuote], int]:
    """The quotes found in the passage they name, and how many were dropped."""
    by_id = {p.id: p for p in passages}
    kept: list[VerifiedQuote] = []
    dropped = 0
    for item in verdict.evidence:
        passage = by_id.get(item.passage_id.strip())
        if passage is not None and quote_in_text(item.quote, passage.text):
            kept.append(VerifiedQuote(passage, _fold(item.quote)))
        else:
            dropped += 1
            logger.info("evidence quote dropped: not found in passage %r", item.passage_id)
    return kept, dropped


@dataclass(frozen=True)
class Number:
    text: str
    value: float
    decimals: int
    percent: bool


def extract_numbers(text: str, *, skip_years: bool = False) -> list[Number]:
    """Numbers written with digits, without reference markers such as ``[12]``."""
    cleaned = _REFERENCE_MARKER.sub(" ", normalize_text(text))
    numbers = []
    for match in _NUMBER.finditer(cleaned):
        token = match.group(0)
        digits = token.rstrip("%").replace(",", "")
        if skip_years and _YEAR.match(digits):
            continue
        decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
        numbers.append(Number(token, float(digits), decimals, token.endswith("%")))
    return numbers


def _same_number(claimed: Number, found: Number) -> bool:
    """Equal at the claim's precision; 45% also matches 0.45 and the reverse."""
    candidates = [found.value]
    if claimed.percent and not found.percent:
        candidates.append(found.value * 100)
    if found.percent and not claimed.percent:
        candidates.append(found.value / 100)
    tolerance = 0.5 * 10**-claimed.decimals
    return any(abs(abs(claimed.value) - abs(c)) <= tolerance + 1e-9 for c in candidates)


def compare_numbers(claim: str, evidence: list[str]) -> NumberCheck:
    """Every number of the claim (years of citations excepted) must occur in the evidence."""
    claimed = extract_numbers(claim, skip_years=True)
    found = [n for quote in evidence for n in extract_numbers(quote)]
    result = {
        "claim_numbers": [n.text for n in claimed],
        "evidence_numbers": [n.text for n in found],
    }
    if not claimed:
        return NumberCheck(status="no_numbers", **result)
    if not found:
        return NumberCheck(status="not_in_evidence", unmatched=result["claim_numbers"], **result)
    unmatched = [c.text for c in claimed if not any(_same_number(c, f) for f in found)]
    status = "mismatch" if unmatched else "consistent"
    return NumberCheck(status=status, unmatched=unmatched, **result)
