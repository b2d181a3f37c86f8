"""Printed numbers: parsing, decimals, and the interval a rounded number stands for.

Every check in this package compares intervals, never bare numbers: a printed "2.4" is any value
in [2.35, 2.45], so a recomputation is flagged only when no value consistent with the printed
inputs can produce the printed output.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass

logger = logging.getLogger(__name__)

# Character-for-character replacements, so offsets in normalised text equal offsets in the
# original and the matched text can always be quoted exactly from the page.
_ONE_TO_ONE = {
    "\u2212": "-",  # minus sign
    "\u2012": "-",  # figure dash
    "\u2013": "-",  # en dash (PDFs often set minus signs as en dashes)
    "\ufe63": "-",  # small hyphen-minus
    "\uff0d": "-",  # full-width hyphen-minus
    "\u00a0": " ",  # no-break space
    "\u2009": " ",  # thin space
    "\u202f": " ",  # narrow no-break space
    "\u2002": " ",
    "\u2003": " ",
    "\uff1d": "=",
    "\uff1c": "<",
    "\uff1e": ">",
    "\u2264": "<",  # "p ≤ .05" is checked as "p < .05" (noted on the item)
    "\u2265": ">",
}
_TRANSLATION = str.maketrans(_ONE_TO_ONE)


def normalise(text: str) -> str:
    """Return ``text`` with minus, space and comparison look-alikes mapped, length unchanged."""
    normalised = text.translate(_TRANSLATION)
    if len(normalised) != len(text):  # pragma: no cover - guarded by the table's construction
        raise AssertionError("normalisation must keep offsets")
    return normalised


@dataclass(frozen=True)
class Printed:
    """A number as printed: its value and how many decimals it was printed with."""

    value: float
    decimals: int

    @property
    def half_unit(self) -> float:
        """Half of the last printed digit's unit: 2.4 -> 0.05, 33 -> 0.5."""
        return 0.5 * 10.0 ** (-self.decimals)

    @property
    def low(self) -> float:
        return self.value - self.half_unit

    @property
    def high(self) -> float:
        return self.value + self.half_unit


_NUMBER = re.compile(r"^\s*(-)?\s*(\d{1,3}(?:,\d{3})+|\d*)(?:\.(\d+))?\s*$")


def parse_number(raw: str) -> Printed | None:
    """Parse "1,224.08", ".34", "-2.15", "12" into a :class:`Printed`; None if it is not one.

    A comma is read as a thousands separator only in groups of three digits after 1-3 digits.
    """
    match = _NUMBER.match(raw)
    if not match:
        return None
    sign, whole, fraction = match.groups()
    if not whole and not fraction:
        return None
    digits = (whole or "0").replace(",", "")
    value = float(f"{digits}.{fraction}" if fraction else digits)
    if sign:
        value = -value
    return Printed(value=value, decimals=len(fraction or ""))


# Float noise guard when comparing a recomputed value with the edge of a rounding interval.
EPSILON = 1e-9


def within(value: float, low: float, high: float) -> bool:
    """``low <= value <= high`` with a tolerance for floating-point noise."""
    return low - EPSILON <= value <= high + EPSILON
