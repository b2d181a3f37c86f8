"""The sandboxed extraction worker: one PDF in, page lines and hidden text out (JSON).

:func:`main` runs in a child forked by :mod:`citecheck.text.forkserver` (or stand-alone
as ``python -m citecheck.text.worker PDF_PATH [MEMORY_MB]``). The parent
(:mod:`citecheck.text.extract`) gives it a wall-clock deadline; the worker caps its own
address space with ``RLIMIT_AS`` before touching the file, so a hostile or huge PDF
kills only this process.

Characters come from pdfium's per-character API (through pypdfium2; see
:mod:`citecheck.text.glyphs`), which gives the same per-glyph facts as pdfplumber (box,
fill colour, render mode, size) at a fraction of the cost. Each page is closed as soon as
it has been read.

Output on stdout, one JSON object: ``{"ok": true, "pages": [...], "page_count": N}`` or
``{"ok": false, "reason": "...", "detail": "..."}``.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from citecheck.text.glyphs import read_glyphs
from citecheck.text.hidden import HiddenTextCollector, PageBackground
from citecheck.text.layout import build_lines
from citecheck.text.protocol import EXIT_OOM

logger = logging.getLogger(__name__)


def _limit_memory(memory_mb: int) -> None:
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def read_page(page: Any, number: int, pdfium_raw: Any) -> dict[str, Any]:
    """Visible lines, hidden-text facts and glyph statistics of one page."""
    left, bottom, right, top = page.get_bbox()
    width, height = right - left, top - bottom
    background = PageBackground.from_page(page, pdfium_raw)
    hidden = HiddenTextCollector(width=width, height=height)
    textpage = page.get_textpage()
    try:
        read = read_glyphs(textpage, page.raw, pdfium_raw, (left, top), hidden, background)
    finally:
        textpage.close()
    visible = read.visible
    ocr_layer = hidden.treat_invisible_as_ocr(read.glyphs, background)
    if ocr_layer:
        visible = ocr_layer + visible
    lines = [line.to_dict() for line in build_lines(visible, width)]
    if read.rotated_text:
        lines.append(
            {"text": "".join(read.rotated_text).strip(), "x0": 0, "top": height, "x1": 0,
             "bottom": height, "size": 0, "sup": [], "rotated": True}
        )
    return {
        "number": number,
        "width": round(width, 1),
        "height": round(height, 1),
        "lines": lines,
        "glyphs": read.glyphs,
        "unmapped": read.unmapped,
        # Only asked for pages without text, where it tells a scan from a blank page.
        "has_image": background.has_image if read.glyphs == 0 else None,
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
