"""extract_pdf end to end on generated PDFs: layouts, citations, hidden text, bad files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdfgen

from citecheck.text import Extraction, extract_pdf


@pytest.fixture(scope="module")
def pdf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("pdfs")
    pdfgen.make_one_column_numbered(directory / "one.pdf")
    pdfgen.make_two_column_author_year(directory / "two.pdf")
    pdfgen.make_superscript_numbered(directory / "sup.pdf")
    pdfgen.make_hidden_text(directory / "hidden.pdf")
    pdfgen.make_ligatures(directory / "ligatures.pdf")
    pdfgen.make_image_only(directory / "image.pdf")
    pdfgen.make_encrypted(directory / "encrypted.pdf", directory / "one.pdf")
    pdfgen.make_truncated(directory / "truncated.pdf", directory / "two.pdf")
    return directory


@pytest.fixture(scope="module")
def one_column(pdf_dir: Path) -> Extraction:
    return extract_pdf(pdf_dir / "one.pdf")


@pytest.fixture(scope="module")
def two_column(pdf_dir: Path) -> Extraction:
    return extract_pdf(pdf_dir / "two.pdf")


def test_extract_json_has_the_contract_keys(one_column: Extraction) -> None:
    dumped = one_column.model_dump()
    assert {"artifact", "pages", "references", "contexts", "hidden_text", "status", "reason"} <= set(dumped)
    assert set(dumped["artifact"]) >= {"kind", "sha256", "bytes", "pages", "hidden_text_chars"}
    assert set(dumped["pages"][0]) == {"number", "text"}
    assert set(dumped["references"][0]) >= {"id", "printed", "page", "doi", "arxiv", "pmid", "url", "year"}
    assert set(dumped["contexts"][0]) == {"sentence", "page", "markers", "ref_ids"}
    assert set(dumped["hidden_text"]) >= {"chars", "samples"}
    assert dumped["artifact"]["kind"] == "pdf" and len(dumped["artifact"]["sha256"]) == 64


def test_extract_numbered_references_and_identifiers(one_column: Extraction) -> None:
    assert one_column.status == "ok"
    refs = one_column.references
    assert [r.id for r in refs] == [f"ref-00{n}" for n in range(1, 6)]
    assert [r.label for r in refs] == ["1", "2", "3", "4", "5"]
    assert refs[0].printed.startswith("Smith J, Jones K. Soil carbon")
    assert refs[0].doi == "10.1000/jecol.2019.001"
    assert refs[3].pmid == "12345678"
    assert refs[4].arxiv == "2101.12345"
    assert [r.year for r in refs] == [2019, 2018, 2020, 2017, 2021]


def test_extract_numeric_contexts_expand_lists_and_ranges(one_column: Extraction) -> None:
    by_sentence = {c.sentence: c for c in one_column.contexts}
    assert by_sentence["Soil carbon was measured in grasslands [1]."].ref_ids == ["ref-001"]
    assert by_sentence["Earlier surveys [2, 3-5] disagree."].ref_ids == ["ref-002", "ref-003", "ref-004", "ref-005"]
    # "Fig." and "e.g." and the decimal do not split the sentence.
    assert "As shown in Fig. 2, the effect was large, e.g. 3.5 times higher [4]." in by_sentence


def test_extract_two_columns_author_year(two_column: Extraction) -> None:
    assert two_column.status == "ok"
    assert two_column.artifact.pages == 2
    printed = [r.printed for r in two_column.references]
    assert len(printed) == 5
    assert printed[0].startswith("Lee, K. (2019a). Aphids")
    assert printed[2].endswith("doi:10.1000/ele.2020.23")
    assert two_column.references[2].doi == "10.1000/ele.2020.23"
    contexts = {c.sentence: c for c in two_column.contexts}
    parenthetical = contexts["Pests respond to landscape (Smith et al., 2020; Lee 2019a)."]
    assert "ref-001" in parenthetical.ref_ids and "ref-003" in parenthetical.ref_ids
    assert "ref-002" not in parenthetical.ref_ids  # 2019a is not 2019b
    narrative = contexts["Smith and Lee (2020) found fewer aphids near set-aside fields."]
    assert "ref-004" in narrative.ref_ids
    assert contexts["Predators matter too (Lee, 2019b; Zhang 2015)."].ref_ids == ["ref-002", "ref-005"]


def test_extract_removes_running_headers_and_page_numbers(two_column: Extraction) -> None:
    for page in two_column.pages:
        assert "Ecology Tests 3:e100" not in page.text
        assert page.text.splitlines()[-1].strip() not in {"1", "2"}


def test_extract_two_column_text_is_in_reading_order(two_column: Extraction) -> None:
    text = two_column.pages[0].text
    assert text.index("Paragraph 1 of") < text.index("Paragraph 2 of") < text.index("Paragraph 3 of")


def test_extract_superscript_citations(pdf_dir: Path) -> None:
    extraction = extract_pdf(pdf_dir / "sup.pdf")
    assert [r.label for r in extraction.references] == ["1", "2", "3"]
    assert extraction.references[0].year == 2016
    contexts = {c.sentence: c for c in extraction.contexts}
    assert contexts["Ocean heat content has risen for decades1,2."].ref_ids == ["ref-001", "ref-002"]
    assert contexts["Reefs bleach in heat waves3."].markers == ["3"]


def test_extract_hidden_text_is_counted_and_kept_out_of_pages(pdf_dir: Path) -> None:
    extraction = extract_pdf(pdf_dir / "hidden.pdf")
    text = extraction.pages[0].text
    assert "This visible sentence is what a reader sees." in text
    assert "White banner text" in text  # white on a dark fill is visible
    assert "Another visible line closes the page." in text
    for hidden in (pdfgen.HIDDEN_INSTRUCTION, "tiny hidden", "outside the page", "invisible render"):
        assert hidden not in text
    reasons = extraction.hidden_text.by_reason
    assert set(reasons) == {"white_fill", "tiny_font", "outside_page", "invisible_render_mode"}
    assert extraction.artifact.hidden_text_chars == extraction.hidden_text.chars == sum(reasons.values())
    samples = {s.text for s in extraction.hidden_text.samples}
    assert pdfgen.HIDDEN_INSTRUCTION in samples


def test_hidden_white_text_agrees_with_pdfplumber(pdf_dir: Path) -> None:
    """pdfplumber's per-character colours see the same white glyphs as the worker."""
    pdfplumber = pytest.importorskip("pdfplumber")
    with pdfplumber.open(pdf_dir / "hidden.pdf") as pdf:
        chars = pdf.pages[0].chars
    white = [c for c in chars if c["non_stroking_color"] in ((1, 1, 1), [1, 1, 1], (1.0, 1.0, 1.0))]
    white_text = "".join(c["text"] for c in white)
    assert pdfgen.HIDDEN_INSTRUCTION.replace(" ", "") in white_text.replace(" ", "")
    extraction = extract_pdf(pdf_dir / "hidden.pdf")
    banner = len("White banner text".replace(" ", ""))
    assert extraction.hidden_text.by_reason["white_fill"] == len(white_text.replace(" ", "")) - banner


def test_extract_ligatures_and_hyphenation(pdf_dir: Path) -> None:
    text = extract_pdf(pdf_dir / "ligatures.pdf").pages[0].text
    assert "The first floral survey was significant for the example" in text
    assert "in the field." in text


@pytest.mark.parametrize(
    ("name", "reason"),
    [("image.pdf", "no_text_layer"), ("encrypted.pdf", "encrypted"), ("truncated.pdf", "parse_error")],
)
def test_extract_unreadable_pdfs_fail_with_reason(pdf_dir: Path, name: str, reason: str) -> None:
    extraction = extract_pdf(pdf_dir / name)
    assert extraction.status == "failed"
    assert extraction.reason == reason
    assert extraction.pages == [] and extraction.references == []
    assert extraction.artifact.bytes == (pdf_dir / name).stat().st_size


def test_extract_empty_and_non_pdf_bytes() -> None:
    assert extract_pdf(b"").reason == "empty_file"
    not_pdf = extract_pdf(b"<html><body>Just a moment...</body></html>")
    assert (not_pdf.status, not_pdf.reason) == ("failed", "not_pdf")


def test_extract_missing_file_raises() -> None:
    with pytest.raises(FileNotFoundError):
        extract_pdf(Path("/nonexistent/paper.pdf"))


def test_extract_timeout_kills_only_the_worker(pdf_dir: Path) -> None:
    extraction = extract_pdf(pdf_dir / "two.pdf", timeout_s=0.01)
    assert (extraction.status, extraction.reason) == ("failed", "parse_timeout")


def test_extract_memory_limit_reports_oom(pdf_dir: Path) -> None:
    # 16 MB of address space is too little even to map pdfium: the limit is really hit.
    extraction = extract_pdf(pdf_dir / "two.pdf", memory_mb=16)
    assert (extraction.status, extraction.reason) == ("failed", "parse_oom")


def test_worker_reports_memory_error_as_oom(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from citecheck.text import worker

    def exhausted(path: str) -> dict:
        raise MemoryError

    monkeypatch.setattr(worker, "extract_file", exhausted)
    assert worker.main(["any.pdf"]) == worker.EXIT_OOM
    assert '"reason": "parse_oom"' in capsys.readouterr().out


def test_extract_accepts_bytes(pdf_dir: Path) -> None:
    data = (pdf_dir / "sup.pdf").read_bytes()
    assert extract_pdf(data).model_dump() == extract_pdf(pdf_dir / "sup.pdf").model_dump()
