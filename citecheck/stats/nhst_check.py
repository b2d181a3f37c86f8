"""Recompute p for a parsed test result and classify it, following statcheck's rules.

Rules (statcheck ``R/error_test.R``, ``R/decision_error_test.R``, ``R/process_stats.R``, read
and re-implemented, not copied):

* The printed statistic stands for every value within half a unit of its last decimal
  (``2.4`` is 2.35..2.45); p is recomputed at both ends, giving ``[p_low, p_high]``.
* ``p = x``: inconsistent when x lies outside ``[p_low, p_high]`` after rounding both bounds
  to x's decimals. ``p < x``: inconsistent when x < p_low. ``p > x``: inconsistent when
  x > p_high. "ns" is read as ``p > .05``. A statistic printed with ``<`` or ``>`` only
  constrains p on one side. A printed ``p = 0`` (or ``p < 0``) is
  inconsistent (statcheck's ``pZeroError``).
* Tests are two-tailed; t, z and r p-values are doubled; F, chi2 and Q are not.
  r is converted to t with ``t = r * sqrt(df / (1 - r^2))``.
* r printed with N but no df (``r = .32, N = 120``) uses df = N - 2 (not for partial
  correlations). A chi2 printed with N but no df (``chi2 = 5.2, N = 120``) is recomputed at
  df = 1, the smallest p any df gives; its largest p is taken as 1, so it is flagged only when
  the printed p is too small for every df, and its decision error is judged at df = 1.
* Decision error (alpha = .05, ``p = .05`` counted as significant): only for inconsistent
  results, when the printed p and the recomputed p fall on different sides of .05.
* One-tailed: when an inconsistent result becomes consistent as a one-tailed test and the text
  says one-tailed/one-sided/directional anywhere, it is counted consistent and marked
  ``one_tailed``.

Where this differs from statcheck's defaults: statcheck applies the one-tailed correction only
with ``OneTailedTxt = TRUE`` (off by default); here it is always on, because a flagged
inconsistency in a real paper must be real. For a statistic printed with ``<`` or ``>``
(``Fs(1, 248) < 1.16, ps > .28``) the bound is taken at the lenient end of the rounding interval
(statcheck takes the strict end). When the text does not mention one-tailed testing
but the result would be consistent as one, the item stays inconsistent and says so in ``note``;
likewise when the printed p is the recomputed p truncated instead of rounded.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from scipy import stats as distributions

from citecheck.stats.nhst_parse import ParsedTest
from citecheck.stats.numbers import EPSILON

logger = logging.getLogger(__name__)

ALPHA = 0.05
_TWO_SIDED = ("t", "z", "r")


@dataclass(frozen=True)
class TestVerdict:
    """The recomputation of one :class:`ParsedTest`."""

    p_recomputed: float
    p_low: float
    p_high: float
    consistent: bool
    decision_error: bool
    one_tailed: bool
    note: str | None


def compute_p(statistic: str, value: float, df1: float | None, df2: float | None,
              two_tailed: bool = True) -> float:
    """The p-value of a test statistic (two-tailed for t, z and r unless told otherwise)."""
    magnitude = abs(value)
    if statistic == "t":
        p = float(distributions.t.sf(magnitude, df2))
    elif statistic == "z":
        p = float(distributions.norm.sf(magnitude))
    elif statistic == "r":
        p = float(distributions.t.sf(_r_to_t(magnitude, df2), df2))
    elif statistic == "F":
        p = float(distributions.f.sf(value, df1, df2))
    elif statistic in ("chi2", "Q"):
        p = float(distributions.chi2.sf(value, df1))
    else:
        raise ValueError(f"unknown test statistic {statistic!r}")
    if statistic in _TWO_SIDED and two_tailed:
        p = min(1.0, 2 * p)
    return p


def _r_to_t(r: float, df: float | None) -> float:
    if df is None:
        raise ValueError("a correlation needs its degrees of freedom")
    if r >= 1:
        return math.inf
    return r * math.sqrt(df / (1 - r * r))


def _df_unknown(test: ParsedTest) -> bool:
    return test.statistic == "chi2" and test.df1 is None


def _degrees(test: ParsedTest) -> tuple[float | None, float | None]:
    """The dfs to compute with; a chi2 without df is computed at df = 1, its smallest p."""
    return (1.0, None) if _df_unknown(test) else (test.df1, test.df2)


def _p_bounds(test: ParsedTest, two_tailed: bool) -> tuple[float, float]:
    """(smallest, largest) p the printed statistic allows given its rounding.

    For a chi2 without df the largest is 1: p grows with df towards 1, so only a printed p
    below the df = 1 bound is impossible for every df.
    """
    df1, df2 = _degrees(test)
    half = test.value.half_unit
    magnitude = abs(test.value.value)
    smaller = max(0.0, magnitude - half)
    larger = magnitude + half
    if test.statistic == "r":
        larger = min(larger, 1.0)
    p_at_larger = compute_p(test.statistic, larger, df1, df2, two_tailed)
    if _df_unknown(test):
        return p_at_larger, 1.0
    p_at_smaller = compute_p(test.statistic, smaller, df1, df2, two_tailed)
    return p_at_larger, p_at_smaller


def _is_error(test: ParsedTest, p_low: float, p_high: float) -> bool:
    """statcheck's error_test on the printed comparison signs."""
    p_comparison, reported, decimals = _reported_p(test)
    if reported <= 0 and p_comparison in ("=", "<"):
        return True
    if test.test_comparison == "=":
        if p_comparison == "=":
            return reported > round(p_high, decimals) + EPSILON or (
                reported < round(p_low, decimals) - EPSILON
            )
        if p_comparison == "<":
            return reported < p_low - EPSILON
        return reported > p_high + EPSILON
    if test.test_comparison == "<":
        # the statistic is below the printed value (+ rounding), so p is above p_low
        if p_comparison == "=":
            return reported < round(p_low, decimals) - EPSILON
        if p_comparison == "<":
            return reported <= p_low
        return False
    # ">": the statistic is above the printed value (- rounding), so p is below p_high
    if p_comparison == "=":
        return reported > round(p_high, decimals) + EPSILON
    if p_comparison == "<":
        return False
    return reported >= p_high


def _reported_p(test: ParsedTest) -> tuple[str, float, int]:
    if test.p_comparison == "ns" or test.p_value is None:
        return ">", ALPHA, 2
    return test.p_comparison, test.p_value.value, test.p_value.decimals


def _is_decision_error(test: ParsedTest, computed: float) -> bool:
    """statcheck's decision_error_test with pEqualAlphaSig = TRUE."""
    p_comparison, reported, _ = _reported_p(test)
    if test.test_comparison == "=":
        if p_comparison == "=":
            return (reported <= ALPHA < computed) or (reported > ALPHA >= computed)
        if p_comparison == "<":
            return reported <= ALPHA < computed
        return reported >= ALPHA >= computed
    if test.test_comparison == "<":
        if p_comparison in ("=", "<"):
            return reported <= ALPHA <= computed
        return False
    if p_comparison == "=":
        return reported > ALPHA >= computed
    if p_comparison == "<":
        return False
    return reported >= ALPHA >= computed


def _classify(test: ParsedTest, two_tailed: bool) -> tuple[float, float, float, bool, bool]:
    computed = compute_p(test.statistic, test.value.value, *_degrees(test), two_tailed)
    p_low, p_high = _p_bounds(test, two_tailed)
    error = _is_error(test, p_low, p_high)
    decision_error = error and _is_decision_error(test, computed)
    return computed, p_low, p_high, error, decision_error


def _truncation_explains(test: ParsedTest, p_low: float, p_high: float) -> bool:
    """Whether ``p = x`` is p cut (not rounded) to x's decimals; statcheck still flags it."""
    if test.p_comparison != "=" or test.p_value is None or test.test_comparison != "=":
        return False
    scale = 10 ** test.p_value.decimals
    low = math.floor(p_low * scale + EPSILON) / scale
    high = math.floor(p_high * scale + EPSILON) / scale
    return low - EPSILON <= test.p_value.value <= high + EPSILON


def check_test(test: ParsedTest, one_tailed_in_text: bool) -> TestVerdict:
    """Recompute p for ``test`` and say whether the printed p can arise from it."""
    computed, p_low, p_high, error, decision_error = _classify(test, two_tailed=True)
    note = None
    one_tailed = False
    if error and test.statistic in _TWO_SIDED:
        one = _classify(test, two_tailed=False)
        if not one[3]:
            if one_tailed_in_text:
                computed, p_low, p_high, error, decision_error = one
                one_tailed = True
                note = "consistent as a one-tailed test; the text mentions one-tailed testing"
            else:
                note = "would be consistent as a one-tailed test, which the text does not mention"
    if error and note is None and _truncation_explains(test, p_low, p_high):
        note = "the printed p matches if p was truncated rather than rounded"
    return TestVerdict(
        p_recomputed=computed,
        p_low=p_low,
        p_high=p_high,
        consistent=not error,
        decision_error=decision_error,
        one_tailed=one_tailed,
        note=note,
    )
