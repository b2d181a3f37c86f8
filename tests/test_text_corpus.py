"""extract_pdf on real recorded PDFs from ../shared/corpus (skipped when it is absent)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from citecheck.text import extract_pdf

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "B-pdfs-with-gold-references"
pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
slow = pytest.mark.skipif(os.environ.get("CITECHECK_SLOW") != "1", reason="slow: set CITECHECK_SLOW=1")


def _gold(path: Path) -> list[dict]:
    return json.loads(path.read_text())["reference"]


def test_peerj_author_year_list_matches_crossref_dois() -> None:
    folder = CORPUS / "crminer-oa-articles"
    extraction = extract_pdf(folder / "pdfs" / "10.7717_peerj.8746.pdf")
    gold = _gold(folder / "gold_references" / "10.7717_peerj.8746.crossref-references.json")
    assert extraction.status == "ok" and extraction.artifact.pages == 18
    assert len(extraction.references) == len(gold) == 41
    text = " ".join(p.text for p in extraction.pages).lower()
    # Only DOIs the PDF prints can be found (one gold DOI is not printed at all).
    printed_gold = {g["DOI"].lower() for g in gold if "DOI" in g and g["DOI"].lower() in text}
    found = {r.doi for r in extraction.references if r.doi}
    assert len(printed_gold) >= 30
    assert printed_gold <= found
    # Running footers ("Elek et al. (2020), PeerJ, DOI … 2/18") are gone from the pages.
    assert not any(re.search(r"PeerJ, DOI 10\.7717/peerj\.8746 \d+/18", p.text) for p in extraction.pages)
    contexts = [c for c in extraction.contexts if "Tscharntke et al., 2012" in c.sentence]
    assert contexts and contexts[0].ref_ids


def test_cermine_numbered_list_with_squeezed_spaces() -> None:
    extraction = extract_pdf(CORPUS / "cermine" / "pdfs" / "test1.pdf")
    labels = [r.label for r in extraction.references]
    assert labels == [str(n) for n in range(1, 80)]
    first = extraction.references[0].printed
    assert first.startswith("Kudsk KA, Fabian TC, Baum S")  # spaces between words survive


def test_jctc_preprint_numbered_list_and_superscripts() -> None:
    pdf = CORPUS / "paper-qa-jctc" / "pdfs" / "10.1021_acs.jctc.2c01235.preprint.pdf"
    extraction = extract_pdf(pdf)
    assert extraction.artifact.pages == 41
    assert [r.label for r in extraction.references] == [str(n) for n in range(1, 150)]
    cited = {ref_id for c in extraction.contexts for ref_id in c.ref_ids}
    assert len(cited) > 100  # most entries are cited somewhere in the body


def test_ssoar_hanging_indent_list_matches_gold_strings() -> None:
    folder = CORPUS / "ssoar-exgoldstandard-en"
    extraction = extract_pdf(folder / "1-pdfs" / "11218.pdf")
    gold = [g for g in (folder / "4-References_extracted_from_Layout" / "11218.csv").read_text().splitlines() if g]
    printed = [r.printed for r in extraction.references]
    assert abs(len(printed) - len(gold)) <= 1
    assert printed[0] == "Bade, K.J. (1994), Homo Migrans. Wanderungen aus und nach Deutschland. Erfahrungen " \
        "und Fragen. Stuttgarter Vorträge zur Zeitgeschichte. Bd. 2, Essen."


def test_ssoar_tiny_glyph_watermark_is_hidden_not_garbage() -> None:
    extraction = extract_pdf(CORPUS / "ssoar-exgoldstandard-en" / "1-pdfs" / "22654.pdf")
    assert extraction.status == "ok"
    assert extraction.hidden_text.by_reason.get("tiny_font", 0) > 100_000
    assert len(extraction.references) >= 24


@slow
def test_every_corpus_pdf_extracts_without_failure() -> None:
    for pdf in sorted(CORPUS.rglob("*.pdf")):
        extraction = extract_pdf(pdf)
        assert extraction.status in {"ok", "partial"}, (pdf.name, extraction.reason, extraction.detail)
        assert extraction.references, pdf.name
