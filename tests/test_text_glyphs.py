"""The glyph reader's shortcut for pages whose text objects are all plain changes nothing.

``read_glyphs`` skips per-glyph object look-ups when no text object of the page can hide or
rotate text. These tests read generated PDFs both ways (shortcut forced off) and compare.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdfgen

pdfium = pytest.importorskip("pypdfium2")
import pypdfium2.raw as pdfium_raw

from citecheck.text import glyphs
from citecheck.text.worker import extract_file


def _pages(path: Path) -> list[dict[str, Any]]:
    result = extract_file(str(path))
    assert result["ok"]
    return result["pages"]


@pytest.mark.parametrize(
    "maker", [pdfgen.make_one_column_numbered, pdfgen.make_two_column_author_year, pdfgen.make_superscript_numbered,
              pdfgen.make_hidden_text, pdfgen.make_ligatures],
)
def test_plain_page_shortcut_gives_the_same_pages(maker: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = maker(tmp_path / "doc.pdf")
    fast = _pages(pdf)
    monkeypatch.setattr(glyphs._ObjectFacts, "page_is_plain", lambda self, page_raw: False)
    by_object = _pages(pdf)
    assert fast == by_object
    assert sum(page["glyphs"] for page in fast) > 50


def _plain_pages(pdf: Path) -> list[bool]:
    document = pdfium.PdfDocument(str(pdf))
    try:
        reader = glyphs._ObjectFacts(pdfium_raw)
        pages = [document[index] for index in range(len(document))]
        return [reader.page_is_plain(page.raw) for page in pages]
    finally:
        document.close()


def test_hidden_text_page_is_not_plain(tmp_path: Path) -> None:
    pdf = pdfgen.make_hidden_text(tmp_path / "hidden.pdf")
    assert not all(_plain_pages(pdf))
    hidden = sum(page["hidden"]["chars"] for page in _pages(pdf))
    assert hidden > 0


def test_plain_page_is_recognised(tmp_path: Path) -> None:
    pdf = pdfgen.make_one_column_numbered(tmp_path / "one.pdf")
    assert all(_plain_pages(pdf))


def test_repair_code_point_maps_small_caps_and_flags_garbage() -> None:
    assert glyphs.repair_code_point("\uf761") == "a"
    assert glyphs.repair_code_point("\x02") == "-"
    assert glyphs.repair_code_point("\ue123") == "\ufffd"
    assert glyphs.repair_code_point("x") == "x"
