"""Run every statistics check over a paper's pages and number the items.

Pages are joined with a newline so that a result broken over a page boundary is still read; each
item's page is the page its match starts on, and its ``text`` is cut from the original (not the
normalised) text, so it can be found verbatim on the page.
"""
from __future__ import annotations

import bisect
import logging
from collections import Counter
from collections.abc import Iterable, Iterator

from citecheck.stats.differences import find_differences
from citecheck.stats.grim import find_grim
from citecheck.stats.models import Finding, StatisticsResult, StatItem
from citecheck.stats.nhst_check import check_test
from citecheck.stats.nhst_parse import find_tests, mentions_one_tailed
from citecheck.stats.numbers import normalise
from citecheck.stats.percentages import find_percentages
from citecheck.stats.sums import find_sums

logger = logging.getLogger(__name__)


def check_text(text: str, page: int = 1) -> StatisticsResult:
    """Check a plain text. Form feeds (pdftotext's page breaks) start new pages; without them
    every item is on ``page``."""
    chunks = text.split("\f")
    return check_pages([(page + index, chunk) for index, chunk in enumerate(chunks)])


def check_pages(pages: list[tuple[int, str]]) -> StatisticsResult:
    """Check a paper given as ``(page_number, text)`` pairs in reading order."""
    if not pages or not any(text.strip() for _, text in pages):
        return StatisticsResult.not_checked("no text was given to check")
    starts: list[int] = []
    numbers: list[int] = []
    chunks: list[str] = []
    offset = 0
    for number, text in pages:
        starts.append(offset)
        numbers.append(number)
        chunks.append(text)
        offset += len(text) + 1
    original = "\n".join(chunks)
    normalised = normalise(original)
    findings = sorted(_findings(normalised), key=lambda finding: (finding.start, finding.end))
    items = [
        finding.item.model_copy(
            update={
                "id": f"stat-{index:03d}",
                "page": numbers[bisect.bisect_right(starts, finding.start) - 1],
                "text": original[finding.start: finding.end],
            }
        )
        for index, finding in enumerate(findings, start=1)
    ]
    logger.debug("statistics check: %d items from %d pages", len(items), len(pages))
    return StatisticsResult(status="ok", items=items, counts=_counts(items))


def _findings(text: str) -> Iterator[Finding]:
    yield from _test_findings(text)
    yield from find_percentages(text)
    yield from find_sums(text)
    yield from find_differences(text)
    yield from find_grim(text)


def _test_findings(text: str) -> Iterator[Finding]:
    one_tailed_in_text = mentions_one_tailed(text)
    for test in find_tests(text):
        verdict = check_test(test, one_tailed_in_text)
        notes = [*test.notes, *([verdict.note] if verdict.note else [])]
        item = StatItem(
            id="",
            kind="test_statistic",
            text="",
            page=0,
            reported=f"p {test.p_text}" if test.p_comparison != "ns" else "ns",
            recomputed=verdict.p_recomputed,
            consistent=verdict.consistent,
            decision_error=verdict.decision_error,
            statistic=test.statistic,
            df1=test.df1,
            df2=test.df2,
            test_comparison=test.test_comparison,
            value=test.value.value,
            p_comparison=test.p_comparison,
            p_reported=test.p_value.value if test.p_value else None,
            p_recomputed=verdict.p_recomputed,
            p_range=(verdict.p_low, verdict.p_high),
            one_tailed=verdict.one_tailed,
            note="; ".join(notes) or None,
        )
        yield Finding(start=test.start, end=test.end, item=item)


def _counts(items: Iterable[StatItem]) -> dict[str, int]:
    listed = list(items)
    counts: Counter[str] = Counter(item.kind for item in listed)
    return {
        "items": len(listed),
        "test_statistic": counts["test_statistic"],
        "percentage": counts["percentage"],
        "sum": counts["sum"],
        "difference": counts["difference"],
        "grim": counts["grim"],
        "inconsistent": sum(not item.consistent for item in listed),
        "decision_errors": sum(bool(item.decision_error) for item in listed),
    }
