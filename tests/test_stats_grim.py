"""GRIM (Brown & Heathers 2016): means of integer answers against N x items."""
from __future__ import annotations

import random

import pytest

from citecheck.stats import check_text
from citecheck.stats.grim import find_grim, grim_consistent, grim_testable
from citecheck.stats.numbers import Printed, normalise


def grim_items(text: str):
    return [finding.item for finding in find_grim(normalise(text))]


def test_the_worked_example_is_inconsistent():
    # 3.47 x 28 = 97.16: 97/28 = 3.464 and 98/28 = 3.500 both round elsewhere.
    consistent, nearest = grim_consistent(Printed(3.47, 2), 28)
    assert not consistent and nearest == pytest.approx(97 / 28)
    assert grim_consistent(Printed(3.46, 2), 28)[0]


def test_either_rounding_of_an_exact_half_is_accepted():
    # 1/8 = 0.125 prints as 0.12 (half to even) or 0.13 (half up).
    assert grim_consistent(Printed(0.12, 2), 8)[0]
    assert grim_consistent(Printed(0.13, 2), 8)[0]


def test_untestable_when_granularity_is_finer_than_the_printing():
    assert grim_testable(Printed(3.47, 2), 99)
    assert not grim_testable(Printed(3.47, 2), 100)
    assert not grim_testable(Printed(3.47, 2), 150)
    assert not grim_testable(Printed(3.0, 0), 5)
    assert grim_testable(Printed(3.5, 1), 9)


@pytest.mark.parametrize(
    ("first", "decimals", "n", "items", "expected"),
    [
        # Expected vectors from lhdjung/scrutiny, tests/testthat/test-grim.R (grim() with its
        # default "up_or_down" rounding): consecutive means from `first` in steps of one unit.
        (5.19, 2, 28, 1, "FFTFFFTFFFTF"),
        (0.150, 3, 120, 3, "TFFTFFTFTF"),
        (0.80, 2, 28, 2, "TFTFTFTTTT"),
    ],
)
def test_agrees_with_scrutiny(first, decimals, n, items, expected):
    step = 10.0**-decimals
    verdicts = [
        grim_consistent(Printed(round(first + index * step, decimals), decimals), n * items)[0]
        for index in range(len(expected))
    ]
    assert "".join("T" if verdict else "F" for verdict in verdicts) == expected


def test_means_of_real_integer_data_are_never_flagged():
    rng = random.Random(1)
    for _ in range(2000):
        n = rng.randint(2, 99)
        total = sum(rng.randint(1, 7) for _ in range(n))
        for decimals in (1, 2, 3):
            printed = Printed(round(total / n, decimals), decimals)
            assert grim_consistent(printed, n)[0], (total, n, decimals)


@pytest.mark.parametrize(
    ("text", "reported", "consistent", "parts"),
    [
        ("Liking was rated on a single-item 7-point Likert scale (M = 3.47, N = 28).",
         "3.47", False, [28, 1]),
        ("Liking was rated on a single-item 7-point Likert scale (M = 3.46, N = 28).",
         "3.46", True, [28, 1]),
        ("Participants (n = 15, M = 2.71) answered one item on a scale from 1 (not at all) to 7.",
         "2.71", False, [15, 1]),
        ("The three-item Likert measure gave M = 4.11, SD = 1.02, n = 12.", "4.11", True, [12, 3]),
        ("The three-item Likert measure gave M = 4.12, SD = 1.02, n = 12.", "4.12", False, [12, 3]),
    ],
)
def test_reads_means_with_n_and_item_count(text, reported, consistent, parts):
    [item] = grim_items(text)
    assert item.kind == "grim"
    assert (item.reported, item.consistent, item.parts) == (reported, consistent, parts)


@pytest.mark.parametrize(
    "text",
    [
        # no item count stated in the sentence
        "Liking was rated on a 7-point Likert scale (M = 3.47, N = 28).",
        # item count in another sentence
        "Liking was measured with a single item. On a 7-point scale, M = 3.47 (N = 28).",
        # no sign that the answers are integers
        "A single-item visual analogue measure gave M = 3.47 (N = 28).",
        # two item counts: which scale the mean belongs to is not said
        "The 3-item and the 5-item Likert scales gave M = 3.47 (N = 28).",
        # N x k >= 100: every two-decimal mean is reachable
        "The 5-item Likert scale gave M = 3.47, SD = 0.8, n = 28.",
        # a mean without its N
        "The single-item 7-point Likert scale gave M = 3.47 in 28 people.",
    ],
)
def test_does_not_guess(text):
    assert grim_items(text) == []


def test_text_keeps_the_closing_bracket():
    [item] = check_text("A single-item 7-point scale gave M = 3.47 (N = 28).").items
    assert item.text == "M = 3.47 (N = 28)"


def test_grim_items_reach_the_section_with_page_and_text():
    result = check_text("Intro.\fLiking was rated on a single-item 7-point Likert scale "
                        "(M = 3.47, N = 28).")
    [item] = result.items
    assert (item.id, item.kind, item.page, item.text) == ("stat-001", "grim", 2, "M = 3.47, N = 28")
    assert result.counts["grim"] == 1 and result.counts["inconsistent"] == 1
