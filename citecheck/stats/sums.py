"""Totals stated with their parts: "120 participants (70 women, 50 men)".

Parts are only added up when they are categories that partition the total: a breakdown by sex
or gender, cases and controls, or one that ends in "the rest"/"others"/"remaining". A generic
breakdown ("200 students (20 classes, 4 schools)") is not a partition, and guessing would produce
false alarms, so it is skipped. Forms read:

* ``N noun (a women, b men)`` and ``N noun (a women and b men)``;
* ``Of (the) N noun, a were women and b were men``;
* ``N noun (x% women, y% men)``: the percentages must add to 100 within their rounding.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from citecheck.stats.models import Finding, StatItem
from citecheck.stats.numbers import Printed, parse_number, within

logger = logging.getLogger(__name__)

_PARTITION_WORDS = {
    "women", "woman", "men", "man", "female", "females", "male", "males", "girls", "girl",
    "boys", "boy", "cases", "case", "controls", "control", "others", "other", "remaining",
    "rest", "non-binary", "nonbinary",
}
_PARTITION_PAIRS = (
    {"women", "woman", "female", "females", "girls", "girl"},
    {"men", "man", "male", "males", "boys", "boy"},
)
_NUM = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_PART = rf"(?P<num>{_NUM})\s?(?P<pct>%)?\s(?:were\s|was\s)?(?:the\s)?(?P<word>[A-Za-z-]+)"
_PART_RE = re.compile(_PART)
_PART_LIST = rf"(?:{_NUM})\s?%?\s(?:were\s|was\s)?(?:the\s)?[A-Za-z-]+"
_SEP = r"\s?(?:,\s?(?:and\s)?|;\s?|\sand\s)"

_BREAKDOWN = re.compile(
    rf"(?<![\d.,])(?P<total>{_NUM})\s(?P<noun>[A-Za-z-]+(?:\s[A-Za-z-]+)?)\s?"
    rf"\(\s?(?P<parts>{_PART_LIST}(?:{_SEP}{_PART_LIST})+)\s?\)"
)
_OF_TOTAL = re.compile(
    rf"\b[Oo]f\s(?:the\s|these\s|all\s)?(?P<total>{_NUM})\s(?P<noun>[A-Za-z-]+(?:\s[A-Za-z-]+)?)"
    rf",\s(?P<parts>{_PART_LIST}(?:{_SEP}{_PART_LIST})+)(?=\s?[.,;:)])"
)


def _is_partition(words: list[str]) -> bool:
    lowered = [word.lower() for word in words]
    if len(set(lowered)) != len(lowered) or not all(w in _PARTITION_WORDS for w in lowered):
        return False
    has_pair = all(any(w in group for w in lowered) for group in _PARTITION_PAIRS)
    has_rest = lowered[-1] in {"others", "other", "remaining", "rest"}
    return has_pair or has_rest or {"cases", "controls"} <= set(lowered) or {
        "case",
        "control",
    } <= set(lowered)


def find_sums(text: str) -> Iterator[Finding]:
    """Yield a sum item for every total stated with a partition into parts."""
    for pattern in (_BREAKDOWN, _OF_TOTAL):
        for match in pattern.finditer(text):
            finding = _finding(match)
            if finding is not None:
                yield finding


def _finding(match: re.Match[str]) -> Finding | None:
    total = parse_number(match.group("total"))
    parts = list(_PART_RE.finditer(match.group("parts")))
    if total is None or len(parts) < 2:
        return None
    if not _is_partition([part.group("word") for part in parts]):
        return None
    percent_flags = {bool(part.group("pct")) for part in parts}
    if len(percent_flags) != 1:
        return None
    printed = [parse_number(part.group("num")) for part in parts]
    if any(value is None for value in printed):
        return None
    values: list[Printed] = [value for value in printed if value is not None]
    if percent_flags == {True}:
        return _percent_parts(match, values)
    return _count_parts(match, total, values)


def _count_parts(match: re.Match[str], total: Printed, values: list[Printed]) -> Finding | None:
    if total.decimals or any(value.decimals for value in values):
        return None
    recomputed = sum(value.value for value in values)
    gap = total.value - recomputed
    note = None
    if gap:
        direction = "short of" if gap > 0 else "over"
        note = f"parts add to {recomputed:g}, {abs(gap):g} {direction} the total"
    item = StatItem(
        id="", kind="sum", text=match.group(0), page=0, reported=total.value,
        recomputed=recomputed, consistent=gap == 0, parts=[v.value for v in values], note=note,
    )
    return Finding(start=match.start(), end=match.end(), item=item)


def _percent_parts(match: re.Match[str], values: list[Printed]) -> Finding:
    recomputed = sum(value.value for value in values)
    low = sum(value.low for value in values)
    high = sum(value.high for value in values)
    consistent = within(100.0, low, high)
    item = StatItem(
        id="", kind="sum", text=match.group(0), page=0, reported=100.0,
        recomputed=round(recomputed, 6), consistent=consistent,
        parts=[v.value for v in values], recomputed_range=(round(low, 6), round(high, 6)),
        note="percentages of one base should add to 100",
    )
    return Finding(start=match.start(), end=match.end(), item=item)
