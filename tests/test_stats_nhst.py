"""Test statistics: parsing of APA results and statcheck-style recomputation of p."""
from __future__ import annotations

import pytest

from citecheck.stats import check_text
from citecheck.stats.nhst_check import check_test, compute_p
from citecheck.stats.nhst_parse import find_tests, mentions_one_tailed
from citecheck.stats.numbers import normalise


def _one(text: str):
    tests = list(find_tests(normalise(text)))
    assert len(tests) == 1, tests
    return tests[0]


@pytest.mark.parametrize(
    ("text", "statistic", "df1", "df2", "value", "p_comparison", "p"),
    [
        ("t(37) = -4.93, p <.001", "t", None, 37, -4.93, "<", 0.001),
        ("t(37) = \u22124.93, p < .001", "t", None, 37, -4.93, "<", 0.001),
        ("t(37) = \u20134.93, p < .001", "t", None, 37, -4.93, "<", 0.001),
        ("F(2, 56) = 1.203, p < .001", "F", 2, 56, 1.203, "<", 0.001),
        ("F(l, 76)\n= 23.95, p <.001;", "F", 1, 76, 23.95, "<", 0.001),
        ("r(46) = .34, p = .03", "r", None, 46, 0.34, "=", 0.03),
        ("\u03c72(1, N = 226) = 6.90, p <.01", "chi2", 1, None, 6.90, "<", 0.01),
        ("chi2(1) = 6.90, p=0.009", "chi2", 1, None, 6.90, "=", 0.009),
        ("x2 (1, N = 6,721) = 10.45, p < .01", "chi2", 1, None, 10.45, "<", 0.01),
        ("X2(374, N = 488) = 1,224.08, p < .001", "chi2", 374, None, 1224.08, "<", 0.001),
        ("Z = 1.54, p = .14", "z", None, None, 1.54, "=", 0.14),
        ("Qb(1) = 3.78, p < .05", "Q", 1, None, 3.78, "<", 0.05),
        ("QWithin(12) = 9.20,\np = .69", "Q", 12, None, 9.20, "=", 0.69),
        ("t(261.38) = -2.27, p = .024", "t", None, 261.38, -2.27, "=", 0.024),
        ("F(2, 70) = 4.48, MSE = 6.61, p <.02", "F", 2, 70, 4.48, "<", 0.02),
        ("F(2, 726)=7.20, pb.001", "F", 2, 726, 7.20, "<", 0.001),
        ("F(1, 127) p 6.36, p ! .05", "F", 1, 127, 6.36, "<", 0.05),
    ],
)
def test_find_tests_reads_apa_and_damaged_forms(text, statistic, df1, df2, value, p_comparison, p):
    test = _one(text)
    assert (test.statistic, test.df1, test.df2) == (statistic, df1, df2)
    assert test.value.value == pytest.approx(value)
    assert test.p_comparison == p_comparison
    assert test.p_value is not None and test.p_value.value == pytest.approx(p)


def test_find_tests_reads_ns_and_plural_forms():
    ns = _one("t(68) = 0.60, ns")
    assert ns.p_comparison == "ns" and ns.p_value is None
    plural = _one("Fs(1, 248) < 1.16, ps > .28")
    assert (plural.test_comparison, plural.p_comparison) == ("<", ">")


def test_find_tests_reads_undecodable_glyph_before_value_as_minus():
    damaged = _one("t(67) p \x013.03, p ! .01")
    assert damaged.value.value == pytest.approx(-3.03)
    assert any("minus" in note for note in damaged.notes)
    spaced = _one("t(226.15) =\x01 1.25, p \x01= .213")
    assert spaced.value.value == pytest.approx(1.25)


@pytest.mark.parametrize(
    "text",
    [
        "the t(37) test was run",  # no value
        "F = 6.74, p = .013",  # F without degrees of freedom cannot be recomputed
        "r(20) = 1.20, p = .01",  # impossible correlation
        "at(37) = 4.93, p < .001",  # the letter is part of a word
        "t(37) = 4.93, p = 1.20",  # impossible p
    ],
)
def test_find_tests_skips_non_results(text):
    assert list(find_tests(normalise(text))) == []


def test_compute_p_matches_textbook_values():
    assert compute_p("z", 1.96, None, None) == pytest.approx(0.04999579, rel=1e-6)
    assert compute_p("t", 2.0, None, 10) == pytest.approx(0.07338803, rel=1e-6)
    assert compute_p("t", 2.0, None, 10, two_tailed=False) == pytest.approx(0.03669402, rel=1e-6)
    assert compute_p("F", 4.0, 1, 20) == pytest.approx(0.05926518, rel=1e-5)
    assert compute_p("chi2", 3.841459, 1, None) == pytest.approx(0.05, rel=1e-6)
    # r(46) = .34 is t(46) = .34 * sqrt(46 / (1 - .34^2))
    expected = compute_p("t", 2.4518, None, 46)
    assert compute_p("r", 0.34, None, 46) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize(
    ("text", "consistent", "decision_error"),
    [
        ("t(37) = -4.93, p <.001", True, False),
        ("F(2,56) = 1.203, p < .001", False, True),
        ("Z = 1.54, p = .14", False, False),
        ("Qb(1) = 3.78, p < .05", False, True),
        ("r(46) = .34, p = .03", False, False),
        ("Q(1) = 6.9, p < .01", True, False),
        # rounding of the statistic: z = 1.95 may be 1.955, p = .0506 rounds to .05
        ("z = 1.95, p = .05", True, False),
        # t = 2.0 may be 1.95..2.05, p .054-.065, which rounds to .05: consistent
        ("t(20) = 2.0, p = .05", True, False),
        # p = .05 counts as significant; recomputed .059 is not: a decision error
        ("t(20) = 2.00, p = .05", False, True),
        ("t(68) = 0.60, ns", True, False),
        ("t(68) = 2.60, ns", False, True),
        ("F(1, 20) = 9.61, p = .000", False, False),  # statcheck's pZeroError
    ],
)
def test_check_test_follows_statcheck_rules(text, consistent, decision_error):
    verdict = check_test(_one(text), one_tailed_in_text=False)
    assert verdict.consistent is consistent
    assert verdict.decision_error is decision_error
    assert verdict.p_low <= verdict.p_recomputed <= verdict.p_high


def test_check_test_accepts_one_tailed_only_when_the_text_says_so():
    test = _one("t(20) = 1.80, p = .04")  # two-tailed p = .087, one-tailed .043
    assert not check_test(test, one_tailed_in_text=False).consistent
    assert "one-tailed" in (check_test(test, one_tailed_in_text=False).note or "")
    verdict = check_test(test, one_tailed_in_text=True)
    assert verdict.consistent and verdict.one_tailed
    assert verdict.p_recomputed == pytest.approx(compute_p("t", 1.8, None, 20, two_tailed=False))


def test_check_test_never_halves_f_or_chi2_for_one_tailed_text():
    verdict = check_test(_one("F(1, 20) = 3.50, p = .04"), one_tailed_in_text=True)
    assert not verdict.consistent and not verdict.one_tailed


def test_mentions_one_tailed_uses_statcheck_phrases():
    assert mentions_one_tailed("All tests are one-tailed.")
    assert mentions_one_tailed("a one sided test")
    assert not mentions_one_tailed("All tests are two-tailed.")


def test_check_text_quotes_the_original_characters():
    result = check_text("We found t(37) = \u22124.93, p < .001 overall.")
    assert result.items[0].text == "t(37) = \u22124.93, p < .001"


def test_check_test_notes_a_truncated_p_but_still_flags_it():
    verdict = check_test(_one("Z = -1.963; P = 0.049"), one_tailed_in_text=False)
    assert not verdict.consistent and not verdict.decision_error
    assert "truncated" in (verdict.note or "")


def test_find_tests_reads_subscript_degrees_of_freedom():
    test = _one("(F 2,25 = 7.90,\nP = 0.002)")
    assert (test.statistic, test.df1, test.df2) == ("F", 2, 25)
    assert _one("t 7 =5.52,P<0.001").df2 == 7
    assert list(find_tests(normalise("at t1 = 2.5, p = .03"))) == []


def test_find_tests_reads_df_given_after_the_value():
    test = _one("(t= 5.04, df= 12, p= .0001)")
    assert (test.statistic, test.df2, test.value.value) == ("t", 12, 5.04)
    assert list(find_tests(normalise("at t = 5 s, p = .03"))) == []
