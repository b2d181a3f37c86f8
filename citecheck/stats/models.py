"""Pydantic models of the statistics section of the report.

The field names ``id, kind, text, page, reported, recomputed, consistent, decision_error`` are
fixed by the report contract (DESIGN.md); everything else is an addition readers may ignore.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

ItemKind = Literal["test_statistic", "percentage", "sum", "difference", "grim"]
SectionStatus = Literal["ok", "no_full_text", "no_text_layer"]


class StatItem(BaseModel):
    """One number the paper reports, recomputed from the paper's own numbers."""

    id: str = Field(description='Stable identifier within the report, "stat-001".')
    kind: ItemKind
    text: str = Field(description="The exact text that was matched, as it appears on the page.")
    page: int = Field(description="1-based page number the match starts on.")
    reported: str | float = Field(description="The checked value as printed ('p < .001', '33%').")
    recomputed: float | None = Field(
        description="The value recomputed from the other printed numbers (None when it cannot be)."
    )
    consistent: bool = Field(
        description="True when the printed value can arise from the other printed numbers, "
        "allowing for rounding of every printed number (grim: when the printed mean is a "
        "reachable mean of N x k integer answers)."
    )
    decision_error: bool | None = Field(
        default=None,
        description="Test statistics only: the inconsistency flips significance at alpha = .05.",
    )
    statistic: str | None = Field(default=None, description="t, F, r, chi2, z or Q (tests only).")
    df1: float | None = None
    df2: float | None = None
    test_comparison: str | None = Field(default=None, description="'=', '<' or '>' before value.")
    value: float | None = Field(default=None, description="The printed test statistic.")
    p_comparison: str | None = Field(default=None, description="'=', '<', '>' or 'ns'.")
    p_reported: float | None = None
    p_recomputed: float | None = None
    p_range: tuple[float, float] | None = Field(
        default=None,
        description="Smallest and largest p the printed statistic allows, given its rounding.",
    )
    one_tailed: bool | None = Field(
        default=None,
        description="True when the result is consistent only as a one-tailed test and the text "
        "mentions one-tailed/one-sided/directional testing.",
    )
    parts: list[float] | None = Field(
        default=None, description="Numbers that were combined (grim: [N, number of items])."
    )
    recomputed_range: tuple[float, float] | None = Field(
        default=None,
        description="Range of the recomputed value over the rounding of its inputs.",
    )
    note: str | None = Field(default=None, description="Why a value was read a particular way.")


class StatisticsResult(BaseModel):
    """The report's ``statistics`` section."""

    status: SectionStatus
    reason: str | None = Field(default=None, description="Why the check could not run.")
    items: list[StatItem] = Field(default_factory=list)
    counts: dict[str, int] = Field(
        default_factory=dict,
        description="Items per kind, and how many are inconsistent or decision errors.",
    )

    @classmethod
    def not_checked(
        cls, reason: str, status: SectionStatus = "no_full_text"
    ) -> StatisticsResult:
        """The section when there was no text to read (no open PDF, extraction failed...)."""
        return cls(status=status, reason=reason)


@dataclass(frozen=True)
class Finding:
    """A checker's item with its character offsets in the joined text; ids and pages come later."""

    start: int
    end: int
    item: StatItem
