"""GRIM: can a printed mean of integer-valued data arise from its sample size?

Brown, N. J. L., & Heathers, J. A. J. (2016/2017). The GRIM test: A simple technique detects
numerous anomalies in the reporting of results in psychology. *Social Psychological and
Personality Science*, 8(4), 363-369. https://doi.org/10.1177/1948550616673876

The mean of N answers to k integer-valued items is a whole number divided by N·k, so only some
values can be printed. A mean printed with d decimals stands for every value within half a unit
of its last digit; it is consistent when some whole total T gives T / (N·k) in that interval
(both ends included, so either rounding of an exact half is accepted). When N·k >= 10^d every
printed value is reachable and GRIM cannot test it: no item is produced.

GRIM is sound only when the data are integers and N and k are the ones the mean was computed
from, so this module does not guess. A mean is checked only when, in one sentence:

* the mean and its N are printed together ("M = 3.47 (N = 28)", "M = 3.47, SD = 1.2, n = 28",
  "(n = 28, M = 3.47)");
* exactly one item count is stated ("a single-item measure", "the 5-item scale", "six items"),
  giving k (a sum score is a multiple of 1/N, hence also of 1/(N·k), so it is never flagged
  wrongly);
* the answers are said to be integers: "Likert", "7-point", "on a scale from 1 to 7".

Anything else (item count stated in another sentence, two scales in one sentence, a visual
analogue scale, counts without items) is skipped.
"""
from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterator

from citecheck.stats.models import Finding, StatItem
from citecheck.stats.numbers import EPSILON, Printed, parse_number

logger = logging.getLogger(__name__)

_NUMBER_WORDS = {
    "single": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\n\s*\n")
_MEAN = r"\b(?:M|[Mm]ean)\s?=\s?(?P<mean>-?\d*\.\d+)(?![\d.]\d)"
_N = r"\b[Nn]\s?=\s?(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?![\d.]\d)"
_SD = r"(?:SD|s\.d\.|sd)\s?=\s?\d*\.?\d+"
_GLUE = r"[\s,;()\[\]]{1,4}"
_MEAN_WITH_N = (
    re.compile(rf"{_MEAN}{_GLUE}(?:{_SD}{_GLUE})?{_N}"),
    re.compile(rf"{_N}{_GLUE}{_MEAN}"),
)
_ITEM_COUNT = re.compile(
    r"\b(?P<k>\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")[\s-]items?\b", re.IGNORECASE
)
_INTEGER_ANSWERS = re.compile(
    r"Likert|\b\d{1,2}[\s-]point\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven)"
    r"[\s-]point\b|\bscale\s(?:ranging\s)?from\s-?\d{1,2}\s(?:\([^)]{0,40}\)\s)?to\s\d{1,2}\b",
    re.IGNORECASE,
)


def grim_consistent(mean: Printed, n: int) -> tuple[bool, float]:
    """(consistent, nearest reachable mean) for ``mean`` printed from ``n`` integer answers."""
    low_total = math.floor(mean.low * n)
    high_total = math.ceil(mean.high * n)
    reachable = [total / n for total in range(low_total, high_total + 1)]
    consistent = any(mean.low - EPSILON <= value <= mean.high + EPSILON for value in reachable)
    nearest = min(reachable, key=lambda value: abs(value - mean.value))
    return consistent, nearest


def grim_testable(mean: Printed, n: int) -> bool:
    """GRIM can only reject a mean when the granularity 1/n is coarser than the printing."""
    return mean.decimals >= 1 and n < 10**mean.decimals


def find_grim(text: str) -> Iterator[Finding]:
    """Yield a ``grim`` item for every mean whose N and item count are stated unambiguously."""
    start = 0
    for boundary in [*_SENTENCE_END.finditer(text), None]:
        end = boundary.start() if boundary else len(text)
        yield from _sentence_findings(text, start, end)
        start = boundary.end() if boundary else end


def _sentence_findings(text: str, start: int, end: int) -> Iterator[Finding]:
    sentence = text[start:end]
    if "=" not in sentence or not _INTEGER_ANSWERS.search(sentence):
        return
    counts = {_item_count(match.group("k")) for match in _ITEM_COUNT.finditer(sentence)}
    if len(counts) != 1:
        return
    items = counts.pop()
    seen: set[int] = set()
    for pattern in _MEAN_WITH_N:
        for match in pattern.finditer(sentence):
            if match.start("mean") in seen:
                continue
            seen.add(match.start("mean"))
            finding = _finding(match, items, start, _closing_bracket(sentence, match))
            if finding is not None:
                yield finding


def _closing_bracket(sentence: str, match: re.Match[str]) -> int:
    """1 when the match opened a bracket that closes right after it ("M = 3.47 (N = 28)")."""
    opened = match.group(0).count("(") - match.group(0).count(")")
    return int(opened > 0 and sentence[match.end(): match.end() + 1] == ")")


def _item_count(raw: str) -> int:
    return int(raw) if raw.isdigit() else _NUMBER_WORDS[raw.lower()]


def _finding(match: re.Match[str], items: int, offset: int, extra: int) -> Finding | None:
    mean = parse_number(match.group("mean"))
    size = parse_number(match.group("n"))
    if mean is None or size is None or size.value < 1 or items < 1:
        return None
    answers = int(size.value) * items
    if not grim_testable(mean, answers):
        logger.debug("GRIM cannot test %r: N*k = %d", match.group(0), answers)
        return None
    consistent, nearest = grim_consistent(mean, answers)
    item = StatItem(
        id="",
        kind="grim",
        text="",
        page=0,
        reported=match.group("mean"),
        recomputed=round(nearest, 6),
        consistent=consistent,
        parts=[size.value, float(items)],
        note=f"N = {int(size.value)}, {items} integer item{'s' if items > 1 else ''}: means "
        f"are multiples of 1/{answers}" + ("" if consistent else
                                           f"; the nearest is {nearest:.{mean.decimals + 2}f}"),
    )
    return Finding(start=offset + match.start(), end=offset + match.end() + extra, item=item)
