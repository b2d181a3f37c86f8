"""The public API: check_pages/check_text, item ids and pages, and statcheck's test papers."""
from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import pytest

from citecheck.stats import StatisticsResult, check_pages, check_text

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
TEST_DIR = CORPUS / "E-statcheck" / "statcheck" / "inst" / "test_materials" / "test_dir"


def test_check_pages_without_text_says_so():
    for pages in ([], [(1, "  "), (2, "")]):
        result = check_pages(pages)
        assert result.status == "no_full_text"
        assert result.items == [] and result.reason


def test_check_pages_numbers_items_and_keeps_pages():
    result = check_pages(
        [
            (1, "Results. t(37) = -4.93, p < .001, and 7/21 (35.0%) agreed."),
            (2, "Of the 120 participants, 70 were women and 50 were men."),
            (3, "F(2,\n56) = 1.203, p < .001"),
        ]
    )
    assert result.status == "ok"
    assert [item.id for item in result.items] == ["stat-001", "stat-002", "stat-003", "stat-004"]
    assert [item.kind for item in result.items] == ["test_statistic", "percentage", "sum",
                                                    "test_statistic"]
    assert [item.page for item in result.items] == [1, 1, 2, 3]
    assert [item.consistent for item in result.items] == [True, False, True, False]
    assert result.counts["inconsistent"] == 2 and result.counts["decision_errors"] == 1
    assert result.items[3].text == "F(2,\n56) = 1.203, p < .001"


def test_check_text_splits_pages_at_form_feeds():
    result = check_text("intro\fz = 1.54, p = .14\f\ft(37) = -4.93, p < .001")
    assert [item.page for item in result.items] == [2, 4]


def test_not_checked_carries_the_reason():
    result = StatisticsResult.not_checked("no_text_layer", status="no_text_layer")
    assert (result.status, result.reason, result.items) == ("no_text_layer", "no_text_layer", [])


def test_check_pages_reads_a_result_broken_over_a_page_boundary():
    result = check_pages([(4, "as expected, t(12) = 2.50,"), (5, "p = .03, which")])
    [item] = result.items
    assert item.page == 4 and item.consistent


def test_check_text_result_round_trips_through_json():
    result = check_text("r(46) = .34, p = .03")
    again = StatisticsResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.items[0].decision_error is False and again.items[0].consistent is False


def test_check_text_finds_nothing_in_plain_prose():
    text = (
        "In 2019/2020 the committee met 12 times (see Table 2). Figure 3 (a) shows t = 4 s and "
        "the range from 2010 to 2015. The F1 score was 0.91 (p. 12)."
    )
    assert check_text(text).items == []


def _gold(file_name: str) -> list[dict[str, str]]:
    path = TEST_DIR / "manually_extracted_stats_testpapers.csv"
    rows = csv.DictReader(path.read_text(encoding="utf-8").splitlines(), delimiter=";")
    return [row for row in rows if row["file_name"].replace(".html", ".htm") == file_name]


def _html_text(path: Path) -> str:
    raw = path.read_bytes().decode("cp1252")
    raw = re.sub(r"(?is)<(style|script).*?</\1>", " ", raw)
    raw = re.sub(r"(?i)</?(p|div|br)\b[^>]*>", "\n", raw)
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def _pdf_pages(path: Path) -> list[tuple[int, str]]:
    pdfplumber = pytest.importorskip("pdfplumber")
    with pdfplumber.open(path) as pdf:
        return [(i, page.extract_text() or "") for i, page in enumerate(pdf.pages, start=1)]


@pytest.mark.parametrize(
    "file_name",
    ["Paper1.pdf", "Paper1.htm", "Paper2.pdf", "Paper3.pdf", "Paper3.htm",
     "Paper4_multiplepages.pdf", "Paper4_multiplepages.htm"],
)
def test_statcheck_test_papers_agree_with_gold(file_name):
    path = TEST_DIR / file_name
    if not path.exists():
        pytest.skip("statcheck corpus not available")
    pages = _pdf_pages(path) if path.suffix == ".pdf" else [(1, _html_text(path))]
    result = check_pages(pages)
    gold = _gold(file_name)
    assert len(result.items) == len(gold)
    for item, row in zip(result.items, gold, strict=True):
        assert item.value == pytest.approx(float(row["test_value"]))
        assert item.consistent is (row["error_1tail"] == "0")
        assert item.decision_error is (row["decision_error_1tail"] == "1")
    if file_name.startswith("Paper4") and file_name.endswith(".pdf"):
        assert [item.page for item in result.items] == [1, 1, 2]
