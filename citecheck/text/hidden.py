"""Hidden text: glyphs that are in the text layer but that a reader of the page cannot see.

Papers have carried instructions aimed at LLM readers in white or microscopic text. A
glyph is hidden when it is drawn invisibly (render mode 3 or 7), fully transparent, in a
near-white fill over no dark background, smaller than about 1 pt, or outside the page box.
Hidden glyphs are counted and sampled, and kept out of the text every later stage reads.

One exception: a scanned page whose OCR layer is invisible text over a full-page image is
read as ordinary text, because that invisible text is the page's only text layer.
"""

from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass, field
from typing import Any

from citecheck.text.layout import Char

logger = logging.getLogger(__name__)

INVISIBLE_MODES = frozenset({3, 7})
NEAR_WHITE = 235
TINY_HEIGHT_PT = 1.0
MAX_SAMPLES = 20
MAX_SAMPLE_CHARS = 300
_PDF_OBJECT_TEXT, _PDF_OBJECT_PATH, _PDF_OBJECT_IMAGE = 1, 2, 3
Box = tuple[float, float, float, float]


@dataclass
class PageBackground:
    """Images and dark filled shapes of a page, read lazily from its object list.

    White text drawn on a coloured banner or on a figure is visible; only white text over
    the white page is hidden. The object list is only walked when a question needs it.
    """

    page: Any
    pdfium_raw: Any
    _images: list[Box] | None = None
    _dark_fills: list[Box] | None = None
    _page_area: float = 0.0

    @classmethod
    def from_page(cls, page: Any, pdfium_raw: Any) -> PageBackground:
        return cls(page=page, pdfium_raw=pdfium_raw)

    def _load(self) -> None:
        raw = self.pdfium_raw
        left, bottom, right, top = self.page.get_bbox()
        self._page_area = max(1.0, (right - left) * (top - bottom))
        images: list[Box] = []
        fills: list[Box] = []
        page_raw = self.page.raw
        x0, y0, x1, y1 = (ctypes.c_float() for _ in range(4))
        red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
        fill_mode, stroke = ctypes.c_int(), ctypes.c_int()
        for index in range(raw.FPDFPage_CountObjects(page_raw)):
            obj = raw.FPDFPage_GetObject(page_raw, index)
            kind = raw.FPDFPageObj_GetType(obj)
            if kind not in (_PDF_OBJECT_IMAGE, _PDF_OBJECT_PATH):
                continue
            if not raw.FPDFPageObj_GetBounds(obj, x0, y0, x1, y1):
                continue
            box = (x0.value - left, top - y1.value, x1.value - left, top - y0.value)
            if kind == _PDF_OBJECT_IMAGE:
                images.append(box)
                continue
            if not raw.FPDFPath_GetDrawMode(obj, fill_mode, stroke) or fill_mode.value == 0:
                continue
            if raw.FPDFPageObj_GetFillColor(obj, red, green, blue, alpha) and (
                min(red.value, green.value, blue.value) < NEAR_WHITE and alpha.value > 0
            ):
                fills.append(box)
        self._images, self._dark_fills = images, fills

    @property
    def has_image(self) -> bool:
        if self._images is None:
            self._load()
        return bool(self._images)

    def image_coverage(self) -> float:
        """Share of the page area covered by the largest image."""
        if self._images is None:
            self._load()
        assert self._images is not None
        largest = max(((b[2] - b[0]) * (b[3] - b[1]) for b in self._images), default=0.0)
        return largest / self._page_area

    def is_dark_behind(self, x0: float, top: float, x1: float, bottom: float) -> bool:
        """True when an image or a non-white filled shape lies under the glyph's centre."""
        if self._images is None:
            self._load()
        assert self._images is not None and self._dark_fills is not None
        cx, cy = (x0 + x1) / 2, (top + bottom) / 2
        return any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in self._images + self._dark_fills)


@dataclass
class HiddenTextCollector:
    """Counts hidden glyphs of one page by reason and keeps readable samples of them."""

    width: float
    height: float
    counts: dict[str, int] = field(default_factory=dict)
    samples: list[dict[str, str]] = field(default_factory=list)
    invisible_chars: list[Char] = field(default_factory=list)
    _run: list[str] = field(default_factory=list)
    _run_reason: str = ""

    def classify(
        self,
        x0: float,
        top: float,
        x1: float,
        bottom: float,
        render_mode: int,
        color: tuple[int, int, int, int],
        background: PageBackground,
    ) -> str:
        """The reason a glyph is hidden, or "" when it is visible."""
        if render_mode in INVISIBLE_MODES:
            return "invisible_render_mode"
        if x1 <= 0 or x0 >= self.width or bottom <= 0 or top >= self.height:
            return "outside_page"
        if 0 < bottom - top < TINY_HEIGHT_PT:
            return "tiny_font"
        red, green, blue, alpha = color
        if alpha == 0:
            return "transparent"
        if min(red, green, blue) >= NEAR_WHITE and not background.is_dark_behind(x0, top, x1, bottom):
            return "white_fill"
        return ""

    def add(self, reason: str, text: str, space_before: bool, glyph: Char | None = None) -> None:
        """Count one hidden glyph and extend the current sample run.

        ``glyph`` (the positioned character) is needed only for invisible render mode,
        whose glyphs may turn out to be a scan's OCR layer; the caller builds it only then.
        """
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if reason == "invisible_render_mode":
            assert glyph is not None
            self.invisible_chars.append(glyph)
        if self._run and reason != self._run_reason:
            self.end_run()
        self._run_reason = reason
        self._run.append((" " if space_before and self._run else "") + text)

    def end_run(self) -> None:
        if self._run and len(self.samples) < MAX_SAMPLES:
            text = "".join(c if c >= " " else "\ufffd" for c in "".join(self._run)).strip()
            if text:
                self.samples.append({"text": text[:MAX_SAMPLE_CHARS], "reason": self._run_reason})
        self._run = []

    def treat_invisible_as_ocr(self, glyphs: int, background: PageBackground) -> list[Char]:
        """Give back invisible glyphs that are a scanned page's OCR layer, uncounting them."""
        invisible = self.counts.get("invisible_render_mode", 0)
        if not invisible or invisible < 0.8 * glyphs or not background.has_image:
            return []
        if background.image_coverage() < 0.5:
            return []
        del self.counts["invisible_render_mode"]
        self.samples = [s for s in self.samples if s["reason"] != "invisible_render_mode"]
        return self.invisible_chars

    def summary(self) -> dict[str, Any]:
        self.end_run()
        return {"chars": sum(self.counts.values()), "by_reason": dict(self.counts), "samples": self.samples}
