"""Printed reference parsing and candidate building for matching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.match import (
    candidate_from_crossref_reference,
    candidate_from_crossref_work,
    candidate_from_openalex,
    expand_pages,
    parse_reference,
)
from citecheck.match.refparse import family_name

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        ("1425-37", "1425-1437"),
        ("1425–1437", "1425-1437"),
        ("99-101", "99-101"),
        ("e123", "e123"),
        ("S12-9", "S12-S19"),
        (None, None),
    ],
)
def test_expand_pages_completes_abbreviated_last_page(pages, expected) -> None:
    assert expand_pages(pages) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Smith JP", "Smith"),
        ("J. Smith", "Smith"),
        ("Smith, J.", "Smith"),
        ("Wu", "Wu"),
        ("van der Waals, J. D.", "van der Waals"),
        ("Jane Smith", "Smith"),
        ("CHUI", "CHUI"),
    ],
)
def test_family_name_handles_common_orders(name: str, expected: str) -> None:
    assert family_name(name) == expected


def test_parse_reference_apa_fields() -> None:
    parsed = parse_reference(
        "Shea, M. J., & Compton, R. N. (1993). Surface-plasmon ejection of Ag+ ions from "
        "laser irradiation of a roughened silver surface. Physical Review B, 47(15), 9967–70."
    )
    assert parsed.authors == ["Shea", "Compton"]
    assert parsed.year == 1993
    assert parsed.title.startswith("Surface-plasmon ejection")
    assert parsed.venue == "Physical Review B"
    assert (parsed.volume, parsed.issue, parsed.pages) == ("47", "15", "9967-9970")


def test_parse_reference_vancouver_numbers_and_doi() -> None:
    parsed = parse_reference(
        "1. Smith J, Doe K. A study of things. J Chem Phys. 2001;12(3):1425-37. doi:10.1000/XYZ"
    )
    assert parsed.year == 2001
    assert (parsed.volume, parsed.issue, parsed.pages) == ("12", "3", "1425-1437")
    assert parsed.dois == ["10.1000/xyz"]
    assert parsed.authors[0] == "Smith"


def test_parse_reference_elsevier_without_title() -> None:
    parsed = parse_reference("[1] M.J. Shea, R.N. Compton, Physical Review B 47 (1993) 9967.")
    assert parsed.authors == ["Shea", "Compton"]
    assert (parsed.year, parsed.volume, parsed.first_page) == (1993, "47", "9967")


def test_parse_reference_never_raises_on_odd_input() -> None:
    for text in ["", "   ", "(((", "2020", "10.1000/x", "et al."]:
        parse_reference(text)


def test_candidate_from_openalex_full_work() -> None:
    path = CORPUS / "A-registry-responses" / "openalex-python"
    files = sorted(path.rglob("*.json")) if path.exists() else []
    if not files:
        pytest.skip("corpus not available")
    work = json.loads(files[0].read_text())
    candidate = candidate_from_openalex(work)
    assert candidate.openalex_id and candidate.openalex_id.startswith("W")
    assert candidate.title and candidate.authors and candidate.year
    assert candidate.source == "openalex"


def test_candidate_from_openalex_minimal_and_arxiv() -> None:
    work = {
        "id": "https://openalex.org/W1",
        "doi": "https://doi.org/10.48550/arXiv.2101.00001",
        "title": "A <i>tiny</i> model",
        "publication_year": 2021,
        "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
        "primary_location": {"source": {"display_name": "arXiv"}},
        "biblio": {"volume": None, "first_page": "1", "last_page": "9"},
        "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/123"},
        "is_retracted": True,
    }
    candidate = candidate_from_openalex(work)
    assert candidate.title == "A tiny model"
    assert candidate.arxiv == "2101.00001"
    assert (candidate.pmid, candidate.pages, candidate.is_retracted) == ("123", "1-9", True)
    assert candidate.authors == ["Lovelace"]


def test_candidate_from_crossref_work_message() -> None:
    message = {
        "DOI": "10.1021/ACS.JCTC.2C01235",
        "title": ["A Perspective on <i>Explanations</i>"],
        "author": [{"family": "Wellawatte", "given": "G."}, {"name": "Consortium X"}],
        "issued": {"date-parts": [[2023, 2]]},
        "container-title": ["J. Chem. Theory Comput."],
        "volume": "19",
        "issue": "8",
        "page": "2149-60",
        "is-referenced-by-count": 50,
    }
    candidate = candidate_from_crossref_work(message)
    assert candidate.doi == "10.1021/acs.jctc.2c01235"
    assert candidate.title == "A Perspective on Explanations"
    assert candidate.authors == ["Wellawatte", "Consortium X"]
    assert (candidate.year, candidate.pages, candidate.cited_by_count) == (2023, "2149-2160", 50)


def test_candidate_from_crossref_reference_shapes() -> None:
    doi_only = candidate_from_crossref_reference({"key": "r1", "DOI": "10.1000/ABC"})
    assert doi_only.doi == "10.1000/abc" and not doi_only.has_text()
    structured = candidate_from_crossref_reference(
        {
            "key": "r2",
            "author": "Álvarez",
            "year": "2002a",
            "article-title": "Effects",
            "journal-title": "Oecologia",
            "volume": "131",
            "first-page": "186",
        }
    )
    assert (structured.authors, structured.year, structured.first_page) == (
        ["Álvarez"],
        2002,
        "186",
    )
    unstructured = candidate_from_crossref_reference(
        {"key": "r3", "unstructured": "Smith J. Title."}
    )
    assert unstructured.unstructured == "Smith J. Title." and unstructured.has_text()


def test_real_reference_strings_parse_and_printed_dois_match_gold() -> None:
    path = (
        CORPUS
        / "C-reference-strings"
        / "crossref-reference-matching-evaluation"
        / "analyses"
        / "3_unstructured_real_evaluation"
        / "data"
        / "unstructured_sbmv.json"
    )
    if not path.exists():
        pytest.skip("corpus not available")
    rows = json.loads(path.read_text())["dataset"][:600]
    parsed = [parse_reference(r["ref_string"]) for r in rows]
    assert sum(p.year is not None for p in parsed) / len(parsed) > 0.9
    with_doi = [(p.dois[0], r["target_gt"]["DOI"]) for p, r in zip(parsed, rows) if p.dois]
    assert with_doi, "the sample prints some DOIs"
    agree = sum(found == gold for found, gold in with_doi if gold)
    assert agree >= 0.8 * sum(1 for _, gold in with_doi if gold)


def test_crossref_record_and_its_deposited_references_convert() -> None:
    path = (
        CORPUS
        / "A-registry-responses"
        / "paper-qa"
        / "bodies"
        / "crossref"
        / "works~10.1021~acs.jctc.2c01235.json"
    )
    if not path.exists():
        pytest.skip("corpus not available")
    body = json.loads(path.read_text())
    message = body.get("message", body)
    work = candidate_from_crossref_work(message)
    assert work.doi == "10.1021/acs.jctc.2c01235" and work.title and work.authors
    references = [candidate_from_crossref_reference(r) for r in message["reference"]]
    assert len(references) == 148
    assert sum(1 for c in references if c.doi) == 125
    assert all(c.source == "crossref-reference" and c.registry_key for c in references)
