"""Reported changes between two printed values: "from 1.18 to 2.49 GB (a 2.1-fold increase)".

A "from A to B" phrase is paired with a change expression only when the two touch: the change
comes right after (within the same parenthesis or clause, with no other number in between) or
right before ("increased by 12% from A to B"). The change is recomputed over the whole rounding
box of A and B and compared with the rounding interval of the printed change, so only a change
that no rounding of the inputs can give is flagged. Readings accepted as consistent, because
authors use both:

* "k-fold increase": B/A, or (B - A)/A ("increased three-fold" is written both ways);
* "x% increase/decrease" or "by x%": relative change 100·(B - A)/A, or, when A and B are
  themselves percentages, the difference in percentage points;
* "a difference of d" / "by d points": |B - A|.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from itertools import product

from citecheck.stats.models import Finding, StatItem
from citecheck.stats.numbers import EPSILON, Printed, parse_number

logger = logging.getLogger(__name__)

_NUM = r"-?\d+(?:\.\d+)?"
_UNIT = r"(?:\s?%|\s?[A-Za-z\u00b5]{1,6}(?:/[A-Za-z]{1,4})?)?"
_FROM_TO = re.compile(
    rf"\bfrom\s(?P<a>{_NUM})(?P<unit_a>{_UNIT})\s(?:to|up to|down to)\s"
    rf"(?P<b>{_NUM})(?P<unit_b>{_UNIT})"
    r"(?![\d.]\d)"
)
_UP = r"increase[sd]?|higher|greater|more|larger|rise|gain|improvement|growth|longer|faster"
_DOWN = r"decrease[sd]?|lower|less|smaller|reduction|drop|decline|fewer|shorter|slower|loss"
_FOLD = re.compile(
    rf"(?P<c>\d+(?:\.\d+)?)\s?-?\s?(?:fold|times)\s(?:(?P<up>{_UP})|(?P<down>{_DOWN}))"
)
_PERCENT = re.compile(
    rf"(?P<c>\d+(?:\.\d+)?)\s?(?:%|per\s?cent|percent)\s(?:(?P<up>{_UP})|(?P<down>{_DOWN}))"
)
_BY = re.compile(
    rf"(?:(?P<up>{_UP}|rose|grew|went up|improved)|(?P<down>{_DOWN}|fell|dropped|went down|declined"
    rf"|reduced))\s(?:by|of)\s(?P<c>\d+(?:\.\d+)?)"
    r"(?:\s?(?P<unit>%|-?\s?fold|percentage points|points|percent|per cent))?"
)
_DIFFERENCE = re.compile(r"difference\sof\s(?P<c>\d+(?:\.\d+)?)")
_GAP_LIMIT = 40
_GAP_OK = re.compile(r"^[^\d.;]*$")

Reading = Callable[[float, float], float]


def _readings(kind: str, going_up: bool, percent_values: bool) -> list[tuple[str, Reading]]:
    if kind == "fold":
        if going_up:
            return [("B/A", lambda a, b: b / a), ("(B-A)/A", lambda a, b: (b - a) / a)]
        return [("A/B", lambda a, b: a / b), ("(A-B)/B", lambda a, b: (a - b) / b)]
    if kind == "percent":
        readings: list[tuple[str, Reading]] = [
            ("relative change in %", lambda a, b: abs(b - a) / abs(a) * 100)
        ]
        if percent_values:
            readings.append(("percentage points", lambda a, b: abs(b - a)))
        return readings
    return [("|B-A|", lambda a, b: abs(b - a))]


def _range(reading: Reading, a: Printed, b: Printed) -> tuple[float, float] | None:
    corners = []
    for a_value, b_value in product((a.low, a.high), (b.low, b.high)):
        try:
            corners.append(reading(a_value, b_value))
        except ZeroDivisionError:
            return None
    return min(corners), max(corners)


def find_differences(text: str) -> Iterator[Finding]:
    """Yield a difference item for each "from A to B" with a touching change expression."""
    for span in _FROM_TO.finditer(text):
        finding = _pair(text, span)
        if finding is not None:
            yield finding


def _change_near(text: str, span: re.Match[str]) -> tuple[re.Match[str], str, int, int] | None:
    after = text[span.end(): span.end() + _GAP_LIMIT + 30]
    before_start = max(0, span.start() - _GAP_LIMIT - 30)
    before = text[before_start: span.start()]
    changes = (("fold", _FOLD), ("percent", _PERCENT), ("by", _BY), ("diff", _DIFFERENCE))
    for kind, pattern in changes:
        for match in pattern.finditer(after):
            if match.start() <= _GAP_LIMIT and _GAP_OK.match(after[: match.start()]):
                return match, kind, span.start(), span.end() + match.end()
        for match in pattern.finditer(before):
            gap = before[match.end():]
            if len(gap) <= _GAP_LIMIT and _GAP_OK.match(gap):
                return match, kind, before_start + match.start(), span.end()
    return None


def _looks_like_years(a: Printed, b: Printed) -> bool:
    return all(v.decimals == 0 and 1900 <= v.value <= 2100 for v in (a, b))


def _agrees(bounds: tuple[float, float], c: Printed) -> bool:
    """The printed change ``c`` (rounded or truncated) can come from a value within ``bounds``."""
    rounded = bounds[0] <= c.high + EPSILON and bounds[1] >= c.low - EPSILON
    truncated = bounds[0] < c.value + 2 * c.half_unit and bounds[1] >= c.value - EPSILON
    return rounded or truncated


def _pair(text: str, span: re.Match[str]) -> Finding | None:
    near = _change_near(text, span)
    if near is None:
        return None
    change, kind, start, end = near
    a, b = (parse_number(span.group("a")), parse_number(span.group("b")))
    c = parse_number(change.group("c"))
    if a is None or b is None or c is None or a.value == 0 or b.value == 0:
        return None
    if _looks_like_years(a, b):
        return None  # "from 2010 to 2015, a 20% increase": a period, not two values
    going_up = bool(change.groupdict().get("up")) if kind != "diff" else b.value >= a.value
    if (b.value > a.value) != going_up and b.value != a.value:
        return None  # "from 10 to 5 (a 2-fold increase)" is a different comparison; do not guess
    percent_values = "%" in (span.group("unit_a") or "") + (span.group("unit_b") or "")
    if kind == "by":
        unit = (change.group("unit") or "").lstrip("- ")
        kind = {"%": "percent", "percent": "percent", "per cent": "percent", "fold": "fold"}.get(
            unit, "diff"
        )
        if unit == "percentage points":
            percent_values, kind = True, "diff"
    if kind in ("fold", "percent") and min(a.value, b.value) < 0:
        return None  # ratios of signed values have no single reading
    return _verdict(text[start:end], start, end, kind, going_up, percent_values, a, b, c)


def _verdict(matched: str, start: int, end: int, kind: str, going_up: bool,
             percent_values: bool, a: Printed, b: Printed, c: Printed) -> Finding | None:
    best: tuple[str, float, tuple[float, float]] | None = None
    for name, reading in _readings(kind, going_up, percent_values):
        bounds = _range(reading, a, b)
        if bounds is None:
            continue
        if best is None or _agrees(bounds, c):
            best = (name, reading(a.value, b.value), bounds)
        if _agrees(bounds, c):
            break
    if best is None:
        return None
    name, point, bounds = best
    consistent = _agrees(bounds, c)
    item = StatItem(
        id="", kind="difference", text=matched, page=0, reported=c.value,
        recomputed=round(point, 6), consistent=consistent, parts=[a.value, b.value],
        recomputed_range=(round(bounds[0], 6), round(bounds[1], 6)), note=f"read as {name}",
    )
    return Finding(start=start, end=end, item=item)
