"""The sandboxed extraction worker: one PDF in, page lines and hidden text out (JSON).

Run as ``python -m citecheck.text.worker PDF_PATH [MEMORY_MB]``. The parent
(:mod:`citecheck.text.extract`) gives it a wall-clock deadline; the worker caps its own
address space with ``RLIMIT_AS`` before touching the file, so a hostile or huge PDF
kills only this process.

Characters come from pdfium's per-character API (through pypdfium2), which gives the
same per-glyph facts as pdfplumber (box, fill colour, render mode, size) at a fraction of
the cost. Each page is closed as soon as it has been read.

Output on stdout, one JSON object: ``{"ok": true, "pages": [...], "page_count": N}`` or
``{"ok": false, "reason": "...", "detail": "..."}``.
"""

from __future__ import annotations

import ctypes
import json
import logging
import sys
from typing import Any

from citecheck.text.hidden import HiddenTextCollector, PageBackground
from citecheck.text.layout import Char, build_lines
from citecheck.text.protocol import EXIT_OOM

logger = logging.getLogger(__name__)

_ROTATION_TOLERANCE = 0.05


def _limit_memory(memory_mb: int) -> None:
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _repair_code_point(char: str) -> str:
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


def _object_facts(raw_object: Any, pdfium_raw: Any) -> tuple[int, tuple[int, int, int, int], bool]:
    """Render mode, fill colour (r, g, b, a) and rotation of one text object."""
    mode = pdfium_raw.FPDFTextObj_GetTextRenderMode(raw_object)
    red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
    if not pdfium_raw.FPDFPageObj_GetFillColor(raw_object, red, green, blue, alpha):
        red.value = green.value = blue.value = 0
        alpha.value = 255
    matrix = pdfium_raw.FS_MATRIX()
    rotated = False
    if pdfium_raw.FPDFPageObj_GetMatrix(raw_object, matrix):
        scale = max(abs(matrix.a), abs(matrix.d), 1e-6)
        rotated = abs(matrix.b) / scale > _ROTATION_TOLERANCE or abs(matrix.c) / scale > _ROTATION_TOLERANCE
    return mode, (red.value, green.value, blue.value, alpha.value), rotated


def read_page(page: Any, number: int, pdfium_raw: Any) -> dict[str, Any]:
    """Visible lines, hidden-text facts and glyph statistics of one page."""
    left, bottom, right, top = page.get_bbox()
    width, height = right - left, top - bottom
    background = PageBackground.from_page(page, pdfium_raw)
    hidden = HiddenTextCollector(width=width, height=height)
    textpage = page.get_textpage()
    try:
        raw = textpage.raw
        count = pdfium_raw.FPDFText_CountChars(raw)
        text = textpage.get_text_range() if count else ""
        aligned = len(text) == count
        objects: dict[int, tuple[int, tuple[int, int, int, int], bool]] = {}
        visible: list[Char] = []
        rotated_text: list[str] = []
        unmapped = 0
        glyphs = 0
        space_pending = False
        rect = pdfium_raw.FS_RECTF()
        for index in range(count):
            char = text[index] if aligned else chr(pdfium_raw.FPDFText_GetUnicode(raw, index) or 0xFFFD)
            if char in " \t\xa0":
                space_pending = True
                continue
            if char in "\r\n\x00":
                continue
            raw_object = pdfium_raw.FPDFText_GetTextObject(raw, index)
            key = ctypes.cast(raw_object, ctypes.c_void_p).value or 0
            facts = objects.get(key)
            if facts is None:
                facts = _object_facts(raw_object, pdfium_raw) if key else (0, (0, 0, 0, 255), False)
                objects[key] = facts
            mode, color, rotated = facts
            pdfium_raw.FPDFText_GetLooseCharBox(raw, index, rect)
            x0, x1 = rect.left - left, rect.right - left
            y_top, y_bottom = top - rect.top, top - rect.bottom
            glyphs += 1
            reason = hidden.classify(x0, y_top, x1, y_bottom, mode, color, background)
            if reason:
                hidden.add(Char(char, x0, y_top, x1, y_bottom, space_pending), reason)
                space_pending = False
                continue
            hidden.end_run()
            if char < " " or "\ue000" <= char <= "\uf8ff" or char == "\ufffe":
                char = _repair_code_point(char)
            if char == "\ufffd":
                unmapped += 1
            if rotated:
                rotated_text.append((" " if space_pending else "") + char)
                space_pending = False
                continue
            visible.append(Char(char, x0, y_top, x1, y_bottom, space_pending))
            space_pending = False
    finally:
        textpage.close()
    ocr_layer = hidden.treat_invisible_as_ocr(glyphs, background)
    if ocr_layer:
        visible = ocr_layer + visible
    lines = [line.to_dict() for line in build_lines(visible, width)]
    if rotated_text:
        lines.append(
            {"text": "".join(rotated_text).strip(), "x0": 0, "top": height, "x1": 0,
             "bottom": height, "size": 0, "sup": [], "rotated": True}
        )
    return {
        "number": number,
        "width": round(width, 1),
        "height": round(height, 1),
        "lines": lines,
        "glyphs": glyphs,
        "unmapped": unmapped,
        # Only asked for pages without text, where it tells a scan from a blank page.
        "has_image": background.has_image if glyphs == 0 else None,
        "hidden": hidden.summary(),
    }


def extract_file(path: str) -> dict[str, Any]:
    """Read every page of the PDF at ``path``; the worker's whole job."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_raw

    try:
        document = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as error:
        message = str(error).lower()
        if "password" in message:
            return {"ok": False, "reason": "encrypted", "detail": str(error)}
        return {"ok": False, "reason": "parse_error", "detail": str(error)}
    try:
        pages = []
        for index in range(len(document)):
            page = document[index]
            try:
                pages.append(read_page(page, index + 1, pdfium_raw))
            finally:
                page.close()
        return {"ok": True, "page_count": len(pages), "pages": pages}
    finally:
        document.close()


def main(argv: list[str]) -> int:
    """Entry point: ``worker.py PDF_PATH [MEMORY_MB]``; JSON to stdout."""
    path = argv[0]
    if len(argv) > 1:
        _limit_memory(int(argv[1]))
    try:
        result = extract_file(path)
    except MemoryError:
        sys.stdout.write(json.dumps({"ok": False, "reason": "parse_oom", "detail": "MemoryError"}))
        return EXIT_OOM
    sys.stdout.write(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
