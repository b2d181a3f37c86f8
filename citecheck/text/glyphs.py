"""One page's glyphs from pdfium's text page: visible characters, hidden ones, rotated text.

This is the extraction's hot loop (thousands of glyphs a page), so it is written for speed:

- the page's text comes in one call (``get_text_range``), not one call per glyph;
- a glyph's render mode, fill colour and rotation belong to its text object. A first
  walk over the page's objects (about a hundred) tells whether any object could hide or
  rotate text; on most pages none can, and then no glyph needs its own object look-up,
  which would cost as much as reading its box;
- when objects must be looked up, a ``c_void_p`` prototype of ``FPDFText_GetTextObject``
  gives plain integers to key the per-object cache (no ``ctypes.cast`` per glyph);
- boxes are written into one ctypes array and read back as one list of floats.

Whatever the path, the result is the same: see :func:`read_glyphs`.
"""

from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass, field
from typing import Any

from citecheck.text.hidden import (
    INVISIBLE_MODES,
    NEAR_WHITE,
    TINY_HEIGHT_PT,
    HiddenTextCollector,
    PageBackground,
)
from citecheck.text.layout import Char

logger = logging.getLogger(__name__)

__all__ = ["PageGlyphs", "read_glyphs"]

Facts = tuple[int, tuple[int, int, int, int], bool]
_ROTATION_TOLERANCE = 0.05
_SPACES = " \t\xa0"
_SKIPPED = " \t\xa0\r\n\x00"
_NORMAL_FACTS: Facts = (0, (0, 0, 0, 255), False)
_PDF_OBJECT_TEXT, _PDF_OBJECT_FORM = 1, 5
_OBJECT_ADDRESS = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


@dataclass
class PageGlyphs:
    """Visible glyphs in stream order, rotated text, and glyph counts of one page."""

    visible: list[Char] = field(default_factory=list)
    rotated_text: list[str] = field(default_factory=list)
    unmapped: int = 0
    glyphs: int = 0


def repair_code_point(char: str) -> str:
    """Map Adobe's private-use small-cap/old-style code points back to ASCII; flag garbage.

    Fonts without a usable ToUnicode map yield control characters or private-use code
    points; those become U+FFFD and count towards ``unmapped_glyphs``.
    """
    if char in "\x02\ufffe":
        return "-"  # pdfium's mark for a hyphen that ends a line
    code = ord(char)
    if 0xF721 <= code <= 0xF77E:
        return chr(code - 0xF700)
    if code < 0x20 or 0xE000 <= code <= 0xF8FF:
        return "\ufffd"
    return char


class _ObjectFacts:
    """Render mode, fill colour (r, g, b, a) and rotation of text objects, ctypes holders reused."""

    def __init__(self, pdfium_raw: Any) -> None:
        self.raw = pdfium_raw
        self.rgba = tuple(ctypes.c_uint() for _ in range(4))
        self.matrix = pdfium_raw.FS_MATRIX()

    def of(self, raw_object: Any) -> Facts:
        raw = self.raw
        mode = raw.FPDFTextObj_GetTextRenderMode(raw_object)
        red, green, blue, alpha = self.rgba
        if raw.FPDFPageObj_GetFillColor(raw_object, red, green, blue, alpha):
            color = (red.value, green.value, blue.value, alpha.value)
        else:
            color = (0, 0, 0, 255)
        matrix = self.matrix
        rotated = False
        if raw.FPDFPageObj_GetMatrix(raw_object, matrix):
            scale = max(abs(matrix.a), abs(matrix.d), 1e-6)
            rotated = abs(matrix.b) / scale > _ROTATION_TOLERANCE or abs(matrix.c) / scale > _ROTATION_TOLERANCE
        return mode, color, rotated

    def page_is_plain(self, page_raw: Any) -> bool:
        """True when no text object of the page (form objects included) can hide or rotate text."""
        raw = self.raw
        pending = [(raw.FPDFPage_CountObjects(page_raw), lambda i: raw.FPDFPage_GetObject(page_raw, i))]
        while pending:
            count, get = pending.pop()
            for index in range(count):
                obj = get(index)
                kind = raw.FPDFPageObj_GetType(obj)
                if kind == _PDF_OBJECT_TEXT and not _is_plain(self.of(obj)):
                    return False
                if kind == _PDF_OBJECT_FORM:
                    pending.append(
                        (raw.FPDFFormObj_CountObjects(obj), lambda i, form=obj: raw.FPDFFormObj_GetObject(form, i))
                    )
        return True


def _is_plain(facts: Facts) -> bool:
    mode, (red, green, blue, alpha), rotated = facts
    return not (mode in INVISIBLE_MODES or alpha == 0 or min(red, green, blue) >= NEAR_WHITE or rotated)


def _facts_per_glyph(raw: Any, kept: list[int], pdfium_raw: Any, reader: _ObjectFacts) -> list[Facts]:
    """Each kept glyph's object facts, one look-up per glyph and one facts read per object."""
    get_text_object = pdfium_raw.FPDFText_GetTextObject
    object_address = _OBJECT_ADDRESS(ctypes.cast(get_text_object, ctypes.c_void_p).value)
    textpage = ctypes.cast(raw, ctypes.c_void_p)
    by_object: dict[int, Facts] = {0: _NORMAL_FACTS}
    facts: list[Facts] = []
    for index in kept:
        key = object_address(textpage, index) or 0
        known = by_object.get(key)
        if known is None:
            known = by_object[key] = reader.of(get_text_object(raw, index))
        facts.append(known)
    return facts


def read_glyphs(
    textpage: Any, page_raw: Any, pdfium_raw: Any, origin: tuple[float, float],
    hidden: HiddenTextCollector, background: PageBackground,
) -> PageGlyphs:
    """Read one page's glyphs; hidden ones go to ``hidden``, the rest come back in stream order.

    ``origin`` is the page box's (left, top): boxes come back in top-down coordinates
    relative to it. Spaces and line breaks are not glyphs; a space before a glyph sets its
    ``space_before``.
    """
    raw = textpage.raw
    count = pdfium_raw.FPDFText_CountChars(raw)
    text = textpage.get_text_range() if count else ""
    if len(text) != count:  # characters outside the BMP: rebuild the text glyph by glyph
        text = "".join(chr(pdfium_raw.FPDFText_GetUnicode(raw, index) or 0xFFFD) for index in range(count))
    kept = [index for index, char in enumerate(text) if char not in _SKIPPED]
    reader = _ObjectFacts(pdfium_raw)
    facts = None if not kept or reader.page_is_plain(page_raw) else _facts_per_glyph(raw, kept, pdfium_raw, reader)
    rects = (pdfium_raw.FS_RECTF * count)()
    get_box = pdfium_raw.FPDFText_GetLooseCharBox
    for index in kept:
        get_box(raw, index, rects[index])
    flat = memoryview(rects).cast("B").cast("f").tolist() if count else []
    return _classify_glyphs(text, kept, flat, facts, origin, hidden, background)


def _classify_glyphs(
    text: str, kept: list[int], flat: list[float], facts: list[Facts] | None, origin: tuple[float, float],
    hidden: HiddenTextCollector, background: PageBackground,
) -> PageGlyphs:
    """Sort glyphs into hidden, rotated and visible ones (``facts`` None: all objects plain)."""
    left, top = origin
    width, height = hidden.width, hidden.height
    result = PageGlyphs(glyphs=len(kept))
    visible = result.visible
    previous = -1
    hidden_run_open = False
    rotated = False
    for position, index in enumerate(kept):
        char = text[index]
        space_before = False
        if index - previous > 1:
            gap = text[previous + 1 : index]
            space_before = " " in gap or "\t" in gap or "\xa0" in gap
        previous = index
        base = 4 * index
        x0, x1 = flat[base] - left, flat[base + 2] - left
        y_top, y_bottom = top - flat[base + 1], top - flat[base + 3]
        if facts is not None:
            mode, color, rotated = facts[position]
            reason = hidden.classify(x0, y_top, x1, y_bottom, mode, color, background)
        elif x1 <= 0 or x0 >= width or y_bottom <= 0 or y_top >= height:
            reason = "outside_page"
        elif 0 < y_bottom - y_top < TINY_HEIGHT_PT:
            reason = "tiny_font"
        else:
            reason = ""
        if reason:
            glyph = Char(char, x0, y_top, x1, y_bottom, space_before) if reason == "invisible_render_mode" else None
            hidden.add(reason, char, space_before, glyph)
            hidden_run_open = True
            continue
        if hidden_run_open:
            hidden.end_run()
            hidden_run_open = False
        if char < " " or "\ue000" <= char <= "\uf8ff" or char == "\ufffe":
            char = repair_code_point(char)
        if char == "\ufffd":
            result.unmapped += 1
        if rotated:
            result.rotated_text.append((" " if space_before else "") + char)
            continue
        visible.append(Char(char, x0, y_top, x1, y_bottom, space_before))
    return result
