"""Percentages, sums of parts and reported differences recomputed from printed numbers."""
from __future__ import annotations

import pytest

from citecheck.stats.differences import find_differences
from citecheck.stats.numbers import normalise, parse_number
from citecheck.stats.percentages import find_percentages
from citecheck.stats.sums import find_sums


def test_parse_number_keeps_decimals_and_thousands():
    assert parse_number("1,224.08").value == pytest.approx(1224.08)
    assert parse_number(".34").decimals == 2
    assert parse_number("-2.15").value == pytest.approx(-2.15)
    assert parse_number("12").half_unit == pytest.approx(0.5)
    assert parse_number("1,22") is None
    assert parse_number("abc") is None


def test_normalise_keeps_length():
    text = "t(3)\u2009=\u00a0\u22121.0, p \u2264 .05"
    assert len(normalise(text)) == len(text)
    assert normalise(text) == "t(3) = -1.0, p < .05"


@pytest.mark.parametrize(
    ("text", "reported", "consistent"),
    [
        ("12/40 (30%)", "30%", True),
        ("7/21 (33.3%)", "33.3%", True),
        ("7/21 (35.0%)", "35.0%", False),
        ("7 of 21 patients (33%)", "33%", True),
        ("5 out of 6 (83%)", "83%", True),
        ("33% (7 of 21)", "33%", True),
        ("66% (2/3)", "66%", True),  # truncated, not rounded: not flagged
        ("40% (2/3)", "40%", False),
        ("Of the 125 children, 110 (88.0%) agreed", "88.0%", True),
        ("Of 125 children, 100 (88.0%) agreed", "88.0%", False),
    ],
)
def test_find_percentages_recomputes_n_of_base(text, reported, consistent):
    [finding] = list(find_percentages(normalise(text)))
    assert finding.item.reported == reported
    assert finding.item.consistent is consistent


@pytest.mark.parametrize("text", ["2019/2020 (12%)", "40/12 (30%)", "in 1.5/3 (50%)"])
def test_find_percentages_skips_years_and_impossible_counts(text):
    assert list(find_percentages(normalise(text))) == []


@pytest.mark.parametrize(
    ("text", "consistent", "recomputed"),
    [
        ("We recruited 120 participants (70 women, 50 men).", True, 120),
        ("Of the 120 participants, 70 were women and 45 were men.", False, 115),
        ("a sample of 310 adolescents (52.3% girls and 47.7% boys)", True, 100),
        ("a sample of 310 adolescents (62% girls, 47% boys)", False, 109),
        ("40 patients (20 cases and 20 controls)", True, 40),
    ],
)
def test_find_sums_adds_partitions(text, consistent, recomputed):
    [finding] = list(find_sums(normalise(text)))
    assert finding.item.consistent is consistent
    assert finding.item.recomputed == pytest.approx(recomputed)


@pytest.mark.parametrize(
    "text",
    [
        "The 200 students (20 classes, 4 schools) took part.",  # not a partition
        "Of the 120 participants, 70 were women and 30 men completed follow-up.",
        "30 participants (15 per group, 10 dropped out)",
    ],
)
def test_find_sums_skips_breakdowns_that_are_not_partitions(text):
    assert list(find_sums(normalise(text))) == []


@pytest.mark.parametrize(
    ("text", "consistent", "recomputed"),
    [
        ("memory grew from 1.18 to 2.49 GB (a 2.1-fold increase).", True, 2.1102),
        ("memory grew from 1.18 to 2.49 GB (a 3.1-fold increase).", False, 2.1102),
        ("a 2.1-fold increase from 1.18 to 2.49 GB", True, 2.1102),
        ("a difference of 3.2 points (from 10.1 to 13.3)", True, 3.2),
        ("a difference of 4.2 points (from 10.1 to 13.3)", False, 3.2),
        ("errors dropped by 40% from 50 to 30", True, 40.0),
        ("rose from 20% to 30% (an increase of 10 percentage points)", True, 10.0),
        ("rose from 20% to 30%, a 50% increase", True, 50.0),
        ("time fell from 10 s to 2 s (a 5-fold decrease)", True, 5.0),
    ],
)
def test_find_differences_recomputes_changes(text, consistent, recomputed):
    [finding] = list(find_differences(normalise(text)))
    assert finding.item.consistent is consistent
    assert finding.item.recomputed == pytest.approx(recomputed, rel=1e-3)


@pytest.mark.parametrize(
    "text",
    [
        "from 2010 to 2015, a 20% increase in cases",  # a period, not two values
        "from 10 to 5 (a 2-fold increase in 3 groups)",  # direction contradicts: not guessed
        "scores ranged from 1 to 7; a 12% increase in 2019",  # another number in between
    ],
)
def test_find_differences_does_not_guess(text):
    assert list(find_differences(normalise(text))) == []
