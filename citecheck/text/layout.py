"""Page geometry to reading-order lines: rows, words, column gutters, superscripts.

Input is the visible characters of one page in content-stream order, in top-down
coordinates. Output is a list of :class:`Line` in reading order: for a two-column page, the
left column top to bottom, then the right one, with full-width lines (titles, wide figures)
acting as separators between column blocks.

The code is pure Python over small slotted objects so that it runs inside the extraction
worker without copying per-character objects across the process boundary.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)

__all__ = ["Char", "Line", "build_lines"]


class Char:
    """One visible glyph. ``top`` < ``bottom`` (top-down coordinates, points).

    A plain slotted class rather than a dataclass: pages hold thousands of these, and the
    generated ``__init__`` plus ``__post_init__`` cost twice as much as one ``__init__``.
    """

    __slots__ = ("text", "x0", "top", "x1", "bottom", "space_before", "height", "middle")

    def __init__(
        self, text: str, x0: float, top: float, x1: float, bottom: float, space_before: bool = False
    ) -> None:
        self.text = text
        self.x0 = x0
        self.top = top
        self.x1 = x1
        self.bottom = bottom
        self.space_before = space_before
        self.height = bottom - top
        self.middle = (top + bottom) / 2


class _Word:
    __slots__ = ("chars", "x0", "x1")

    def __init__(self, chars: list[Char]) -> None:
        self.chars = chars
        self.x0 = chars[0].x0
        self.x1 = max([c.x1 for c in chars])


@dataclass(slots=True)
class Line:
    """A line of text with its box, body size and superscript spans (indexes into text)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    superscripts: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "x0": round(self.x0, 1),
            "top": round(self.top, 1),
            "x1": round(self.x1, 1),
            "bottom": round(self.bottom, 1),
            "size": round(self.size, 2),
            "sup": [list(span) for span in self.superscripts],
        }


def _split_rows(chars: list[Char]) -> list[list[Char]]:
    """Group characters into rows in stream order.

    A new row starts when a glyph leaves the current row's vertical band or jumps back
    to the left, which is how content streams move to the next line or column.
    """
    rows: list[list[Char]] = []
    current: list[Char] = []
    band_top = band_bottom = 0.0
    last_x1 = 0.0
    for char in chars:
        if current:
            band_height = band_bottom - band_top
            x0 = char.x0
            in_band = band_top - 0.25 * band_height <= char.middle <= band_bottom + 0.1 * band_height
            moves_back = x0 < last_x1 - (band_height if band_height > 2.0 else 2.0)
            if in_band and not moves_back:
                current.append(char)
                x1 = char.x1
                if x0 < last_x1 - 1 or x1 > last_x1:
                    last_x1 = x1
                if char.height >= 0.8 * band_height:
                    if char.top < band_top:
                        band_top = char.top
                    if char.bottom > band_bottom:
                        band_bottom = char.bottom
                continue
            rows.append(current)
        current = [char]
        band_top, band_bottom, last_x1 = char.top, char.bottom, char.x1
    if current:
        rows.append(current)
    return rows


def _words(row: list[Char]) -> list[_Word]:
    """Split a row into words at spaces and at gaps wider than a fraction of the size."""
    heights = sorted([c.height for c in row])
    min_gap = 0.2 * heights[len(heights) // 2]
    words: list[_Word] = []
    current: list[Char] = []
    last_x1 = 0.0
    for char in sorted(row, key=lambda c: c.x0) if _is_disordered(row) else row:
        if current and (char.space_before or char.x0 - last_x1 > min_gap):
            words.append(_Word(current))
            current = []
        current.append(char)
        last_x1 = char.x1
    if current:
        words.append(_Word(current))
    return words


def _is_disordered(row: list[Char]) -> bool:
    previous = row[0].x0
    for char in row:
        if char.x0 < previous - 1:
            return True
        previous = char.x0
    return False


def _median(values: list[float]) -> float:
    """``statistics.median`` without importing it into the worker (it pulls in fractions, random…)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _find_gutters(rows: list[list[_Word]], width: float) -> list[float]:
    """x positions of vertical white strips that separate text columns (none: one column).

    A strip lies between 15% and 85% of the page width, is at least 6 pt wide, is crossed
    by almost no words, and every column it creates holds text in a fair share of rows.
    """
    if len(rows) < 6 or width <= 0:
        return []
    step = 2.0
    size = int(width / step) + 2
    # Each word adds one to every bin it spans: a difference array, then a running sum.
    steps = [0] * (size + 1)
    for row in rows:
        for word in row:
            first, last = max(0, int(word.x0 / step)), min(size - 1, int(word.x1 / step))
            if first <= last:
                steps[first] += 1
                steps[last + 1] -= 1
    bins = list(itertools.accumulate(steps[:size]))
    allowed = max(1, int(0.03 * len(rows)))
    low, high = int(0.15 * width / step), int(0.85 * width / step)
    runs: list[tuple[int, int]] = []
    run_start: int | None = None
    for index in range(low, high + 2):
        open_bin = index <= high and bins[index] <= allowed
        if open_bin and run_start is None:
            run_start = index
        elif not open_bin and run_start is not None:
            if (index - run_start) * step >= 6:
                runs.append((run_start, index))
            run_start = None
    gutters = [(a + b) / 2 * step for a, b in runs]
    # Drop the gutter whose thinnest neighbouring column is weakest until all are strong.
    while gutters:
        edges = [float("-inf"), *gutters, float("inf")]
        counts = [
            sum(1 for row in rows if any(lo < w.x0 and w.x1 < hi for w in row))
            for lo, hi in zip(edges, edges[1:], strict=False)
        ]
        weakest = min(range(len(counts)), key=counts.__getitem__)
        if counts[weakest] >= max(4, 0.2 * len(rows) / len(gutters)):
            break
        # Remove the gutter next to the weakest column (merging it with a neighbour).
        gutters.pop(min(weakest, len(gutters) - 1))
    return gutters


def _make_line(words: list[_Word]) -> Line:
    chars = [c for w in words for c in w.chars]
    heights = sorted([c.height for c in chars])
    size = heights[len(heights) // 2]
    small = 0.85 * size
    body = [c for c in chars if c.height >= small]
    body_bottom = _median([c.bottom for c in body]) if body else chars[0].bottom
    sup_bottom = body_bottom - 0.2 * size
    parts: list[str] = []
    superscripts: list[tuple[int, int]] = []
    position = 0
    for index, word in enumerate(words):
        if index:
            parts.append(" ")
            position += 1
        for char in word.chars:
            text = char.text
            if char.height < small and char.bottom < sup_bottom:
                if superscripts and superscripts[-1][1] == position:
                    superscripts[-1] = (superscripts[-1][0], position + len(text))
                else:
                    superscripts.append((position, position + len(text)))
            parts.append(text)
            position += len(text)
    box = body or chars
    return Line(
        text="".join(parts),
        x0=min([c.x0 for c in chars]),
        top=min([c.top for c in box]),
        x1=max([c.x1 for c in chars]),
        bottom=max([c.bottom for c in box]),
        size=size,
        superscripts=superscripts,
    )


def _merge_same_band(lines: list[list[_Word]]) -> list[list[_Word]]:
    """Join row pieces of one column that share a baseline (pieces drawn out of order)."""
    ordered = sorted(((_row_band(ws), ws) for ws in lines), key=lambda item: (item[0][1], item[1][0].x0))
    merged: list[list[_Word]] = []
    top = bottom = 0.0
    for (new_top, new_bottom), words in ordered:
        if merged:
            overlap = min(bottom, new_bottom) - max(top, new_top)
            if overlap > 0.6 * min(bottom - top, new_bottom - new_top):
                merged[-1] = sorted(merged[-1] + words, key=lambda w: w.x0)
                top, bottom = _row_band(merged[-1])
                continue
        merged.append(words)
        top, bottom = new_top, new_bottom
    return merged


def _row_band(words: list[_Word]) -> tuple[float, float]:
    chars = [c for w in words for c in w.chars]
    heights = sorted([c.height for c in chars])
    floor = 0.85 * heights[len(heights) // 2]
    body = [c for c in chars if c.height >= floor] or chars
    return min([c.top for c in body]), max([c.bottom for c in body])


def _segments(rows: list[list[_Word]]) -> list[list[list[_Word]]]:
    """Cut the page at horizontal white bands crossing it entirely (an XY-cut's Y step).

    A page can change its number of columns halfway (two-column text above a three-column
    reference list); each segment then finds its own gutters.
    """
    bands = sorted((_row_band(words), index) for index, words in enumerate(rows))
    heights = sorted(bottom - top for (top, bottom), _ in bands)
    line_height = heights[len(heights) // 2] if heights else 0.0
    segments: list[list[list[_Word]]] = []
    reach = float("-inf")
    for (top, bottom), index in bands:
        if not segments or top > reach + 0.8 * line_height:
            segments.append([])
        segments[-1].append(rows[index])
        reach = max(reach, bottom)
    return segments


def _split_at_gutters(rows: list[list[_Word]], gutters: list[float]) -> list[Line]:
    if not gutters:
        return [_make_line(words) for words in _merge_same_band(rows)]
    edges = [float("-inf"), *gutters, float("inf")]
    # Split rows at the gutters; a row with a word across a gutter is full width.
    pieces: list[tuple[int, list[_Word]]] = []
    for words in rows:
        if any(w.x0 < g < w.x1 for w in words for g in gutters):
            pieces.append((-1, words))
            continue
        for column, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
            inside = [w for w in words if low <= w.x0 and w.x1 <= high]
            if inside:
                pieces.append((column, inside))
    return _order_columns(pieces, len(gutters) + 1)


def build_lines(chars: list[Char], page_width: float) -> list[Line]:
    """Lines of one page in reading order (see the module docstring)."""
    if not chars:
        return []
    rows = [_words(row) for row in _split_rows(chars)]
    page_gutters = _find_gutters(rows, page_width)
    segments = _segments(rows)
    if len(segments) == 1:
        return _split_at_gutters(rows, page_gutters)
    # Merge neighbouring segments with the same column structure, so that a white band
    # that happens to cross both columns does not reorder them. Small segments carry no
    # evidence of their own and join their neighbour.
    groups: list[tuple[list[list[_Word]], list[float] | None]] = []
    for segment in segments:
        gutters = _find_gutters(segment, page_width) if len(segment) >= 6 else None
        if groups and (gutters is None or groups[-1][1] is None or _same_columns(groups[-1][1], gutters)):
            merged = groups[-1][0] + segment
            groups[-1] = (merged, groups[-1][1] if gutters is None else gutters)
        else:
            groups.append((segment, gutters))
    lines: list[Line] = []
    for group, gutters in groups:
        if gutters is None or len(groups) == 1:
            gutters = _find_gutters(group, page_width) or page_gutters
        lines.extend(_split_at_gutters(group, gutters))
    return lines


def _same_columns(first: list[float], second: list[float]) -> bool:
    return len(first) == len(second) and all(abs(a - b) < 15 for a, b in zip(first, second, strict=True))


def _order_columns(pieces: list[tuple[int, list[_Word]]], columns: int) -> list[Line]:
    """Column by column, left to right, block by block between full-width lines."""

    def top_of(words: list[_Word]) -> float:
        return min([c.top for w in words for c in w.chars])

    full = sorted(((top_of(ws), ws) for column, ws in pieces if column < 0), key=lambda item: item[0])
    side = [(column, ws, top_of(ws)) for column, ws in pieces if column >= 0]
    lines: list[Line] = []
    previous = float("-inf")
    for boundary, words in [*full, (float("inf"), [])]:
        block = [(c, ws) for c, ws, top in side if previous <= top < boundary]
        for column in range(columns):
            rows = [ws for c, ws in block if c == column]
            lines.extend(_make_line(ws) for ws in _merge_same_band(rows))
        if words:
            lines.append(_make_line(words))
        previous = boundary
    return lines
