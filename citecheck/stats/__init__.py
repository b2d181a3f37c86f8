"""Statistics self-check: the paper's own numbers recomputed (issue #6).

Test statistics (t, F, r, chi2, z, Q) with their p are recomputed statcheck-style
(:mod:`citecheck.stats.nhst_check` says where the rules differ from statcheck's); percentages,
totals with their parts and reported changes are recomputed from the printed numbers, and means
of integer answers are checked against their N with GRIM (:mod:`citecheck.stats.grim`). Every
comparison allows for the rounding of every printed number, so an item is flagged only when no
rounding can explain it.
"""
from __future__ import annotations

from citecheck.stats.check import check_pages, check_text
from citecheck.stats.models import StatisticsResult, StatItem

__all__ = ["StatItem", "StatisticsResult", "check_pages", "check_text"]
