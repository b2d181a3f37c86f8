"""Results sharing one sentence, and r / chi2 printed with N instead of df."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from citecheck.stats import check_text

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
HAND_EXTRACTED = (CORPUS / "E-statcheck" / "statcheck" / "inst" / "test_materials"
                  / "manually_extracted_stats.csv")


def results_in(text: str):
    return [item for item in check_text(text).items if item.kind == "test_statistic"]


def test_values_paired_with_their_ps_in_order():
    first, second = results_in("BF(1, 15) = 19.9 and\n5.16, p <.001 and p <.05")
    assert (first.value, first.p_reported, first.consistent) == (19.9, 0.001, True)
    assert (second.value, second.p_reported, second.consistent) == (5.16, 0.05, True)
    assert first.text == second.text == "F(1, 15) = 19.9 and\n5.16, p <.001 and p <.05"


def test_values_sharing_one_bound_are_each_checked():
    first, second = results_in("F(1, 15) = 19.9 and 2.16, ps < .05")
    assert first.consistent and not first.decision_error
    assert not second.consistent and second.decision_error
    assert "sharing" in second.note
    assert len(results_in("z = 2.1, 3.4, and 4.2, ps < .05")) == 3


@pytest.mark.parametrize(
    "text",
    [
        "t(20) = 2.5 and 2.6, p = .02",  # one exact p cannot belong to two values
        "F(1, 15) = 19.9 and 5.16, p < .001, p < .05 and p < .01",  # 2 values, 3 p's
    ],
)
def test_ambiguous_pairings_are_skipped(text):
    assert results_in(text) == []


@pytest.mark.parametrize(
    ("text", "consistent"),
    [
        ("r = .32, N = 120, p < .001", True),
        ("r = .32, p < .001, N = 120", True),
        ("r(N = 120) = .32, p < .001", True),
        ("r = .12, N = 120, p < .001", False),
        ("r(N = 120) = .32, p = .03", False),
    ],
)
def test_r_with_n_uses_n_minus_two(text, consistent):
    [item] = results_in(text)
    assert (item.statistic, item.df2, item.consistent) == ("r", 118.0, consistent)
    assert "N - 2" in item.note


@pytest.mark.parametrize(
    "text",
    [
        "r = .32, p < .001",  # no N, no df
        "with r = 0.5, N = 100, p = 0.2",  # a simulation parameter, not a result
        "controlling for age, r = .12, N = 120, p < .001",  # partial r: df < N - 2
        "r = .32, N = 3, p < .001",
    ],
)
def test_r_without_a_safe_df_is_skipped(text):
    assert results_in(text) == []


@pytest.mark.parametrize(
    ("text", "consistent", "decision_error"),
    [
        ("χ2 = 5.2, N = 120, p = .02", True, False),
        ("chi-square = 5.2, N = 120, p = .9", True, False),  # reachable with a large df
        ("χ2 = 5.2, N = 120, p = .002", False, False),  # below the df = 1 p (.023)
        ("χ2(N = 120) = 5.2, p < .01", False, False),
        ("chi-square = 3.1, N = 50, p = .03", False, True),  # p >= .078 for every df
    ],
)
def test_chi2_without_df_flags_only_impossible_ps(text, consistent, decision_error):
    [item] = results_in(text)
    assert item.statistic == "chi2" and item.df1 is None
    assert (item.consistent, bool(item.decision_error)) == (consistent, decision_error)
    assert item.p_range[1] == 1.0


def test_damaged_chi_names_without_df_are_not_read():
    assert results_in("B2 = 0.45, N = 200, p < .001") == []
    assert results_in("x2 = 5.2, N = 120, p = .002") == []


def test_hand_extracted_combined_result_is_read():
    if not HAND_EXTRACTED.exists():
        pytest.skip("corpus not available")
    text = HAND_EXTRACTED.read_bytes().decode("utf-8", errors="replace")
    rows = [row for row in csv.DictReader(text.splitlines(keepends=True), delimiter=";")
            if row["remarks"] == "two results combined in a sentence"]
    assert len(rows) == 4
    for row in rows:
        values = {item.value: item.p_reported for item in results_in(row["raw_result"])}
        assert values == {19.9: 0.001, 5.16: 0.05}
