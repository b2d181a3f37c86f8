"""Percentages printed with their counts: "n/N (x%)", "n of N (x%)", "x% (n of N)", and
"Of (the) N noun, n (x%)".

The count and the base must be whole numbers and the count may not exceed the base. The printed
percentage is consistent when 100·n/N rounds to it at its printed decimals, or truncates to it
(some authors truncate; a flag must be a real error, not a style).
Year pairs such as "2019/2020 (12%)" are skipped.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from citecheck.stats.models import Finding, StatItem
from citecheck.stats.numbers import EPSILON, Printed, parse_number, within

logger = logging.getLogger(__name__)

_COUNT = r"\d{1,3}(?:,\d{3})+|\d+"
_PCT = r"\d+(?:\.\d+)?"
_PCT_CLOSE = r"\s?%\s?[),;]"

_PATTERNS = (
    # n/N (x%)
    re.compile(
        rf"(?<![\d.,/])(?P<n>{_COUNT})\s?/\s?(?P<base>{_COUNT})(?![\d.,/])\s?"
        rf"\(\s?(?P<pct>{_PCT}){_PCT_CLOSE}"
    ),
    # n of N (x%), n out of N [a few words] (x%)
    re.compile(
        rf"(?<![\d.,])(?P<n>{_COUNT})\s(?:out\s)?of\s(?:the\s|all\s)?(?P<base>{_COUNT})(?![\d.,])"
        rf"(?:\s[A-Za-z-]+){{0,3}}?\s?\(\s?(?P<pct>{_PCT}){_PCT_CLOSE}"
    ),
    # Of (the) N noun, n (x%) ...
    re.compile(
        rf"\b[Oo]f\s(?:the\s|these\s|those\s|all\s)?(?P<base>{_COUNT})(?![\d.,])(?:\s[A-Za-z-]+){{0,3}},"
        rf"\s(?P<n>{_COUNT})\s?\(\s?(?P<pct>{_PCT}){_PCT_CLOSE}"
    ),
    # x% (n of N), x% (n/N), x% (n out of N)
    re.compile(
        rf"(?<![\d.])(?P<pct>{_PCT})\s?%\s?\(\s?(?:n\s?=\s?)?(?P<n>{_COUNT})\s?"
        rf"(?:/|out\sof|of)\s?(?P<base>{_COUNT})\s?[),;]"
    ),
)


def _looks_like_years(n: float, base: float) -> bool:
    return 1900 <= n <= 2100 and 1900 <= base <= 2100


def percentage_verdict(n: int, base: int, pct: Printed) -> tuple[float, bool, str | None]:
    """(recomputed %, consistent, note) for n of base printed as ``pct``."""
    recomputed = 100.0 * n / base
    if within(recomputed, pct.low, pct.high):
        return recomputed, True, None
    unit = 2 * pct.half_unit
    if pct.value - EPSILON <= recomputed < pct.value + unit:
        return recomputed, True, "truncated rather than rounded"
    return recomputed, False, None


def find_percentages(text: str) -> Iterator[Finding]:
    """Yield a percentage item for every count-with-percentage in ``text`` (normalised)."""
    seen: set[int] = set()
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if match.start() in seen:
                continue
            finding = _finding(match)
            if finding is not None:
                seen.add(match.start())
                yield finding


def _finding(match: re.Match[str]) -> Finding | None:
    n_printed = parse_number(match.group("n"))
    base_printed = parse_number(match.group("base"))
    pct = parse_number(match.group("pct"))
    if n_printed is None or base_printed is None or pct is None:
        return None
    n, base = n_printed.value, base_printed.value
    if base <= 0 or n > base or pct.value > 100 or _looks_like_years(n, base):
        return None
    recomputed, consistent, note = percentage_verdict(int(n), int(base), pct)
    text = match.group(0).rstrip(",;) ") if not match.group(0).endswith(")") else match.group(0)
    item = StatItem(
        id="",
        kind="percentage",
        text=text,
        page=0,
        reported=f"{match.group('pct')}%",
        recomputed=round(recomputed, 6),
        consistent=consistent,
        parts=[n, base],
        note=note,
    )
    return Finding(start=match.start(), end=match.start() + len(text), item=item)
