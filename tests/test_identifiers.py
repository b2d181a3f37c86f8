"""Identifiers in printed reference text."""

from __future__ import annotations

import pytest

from citecheck.identifiers import find_arxiv, find_dois, find_pmcid, find_pmid, find_urls, find_year


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("J Chem 2020. 10.1021/acs.\njctc.2c01235.\n2. Lee K", ["10.1021/acs.jctc.2c01235"]),
        ("https://doi.org/10.1371/journal.PONE.0033693). Next", ["10.1371/journal.pone.0033693"]),
        ("http://dx.doi.org/10.1000%2F182, and", ["10.1000/182"]),
        ("DOI: 10.1016/j.cell.2020\n.01.001 more", ["10.1016/j.cell.2020.01.001"]),
        ("see doi:10.1000/182. Accessed 2020", ["10.1000/182"]),
        ("10.1000/182 and then 10.1000/182", ["10.1000/182"]),
        (
            "doi:10.1002/(SICI)1097-4636(199910)47:1<1::AID-JBM1>3.0.CO;2-X.",
            ["10.1002/(sici)1097-4636(199910)47:1<1::aid-jbm1>3.0.co;2-x"],
        ),
        ("(doi: 10.1093/nar/gkz1031)", ["10.1093/nar/gkz1031"]),
        ("no identifier 10.5 here", []),
    ],
)
def test_find_dois_canonical_forms(text: str, expected: list[str]) -> None:
    assert find_dois(text) == expected


def test_find_dois_does_not_swallow_next_entry() -> None:
    text = "Nature 5:1. doi:10.1038/nature123.\n[2] Lee K. Cell."
    assert find_dois(text) == ["10.1038/nature123"]


def test_find_arxiv_new_old_and_url_without_version() -> None:
    text = "arXiv preprint arXiv:2101.12345v2 [cs.LG]; hep-th/9901001; arxiv.org/abs/1706.03762"
    assert find_arxiv(text) == ["2101.12345", "hep-th/9901001", "1706.03762"]


def test_find_arxiv_ignores_bare_numbers() -> None:
    assert find_arxiv("pages 1234.56789 and 2101.12345") == []


def test_find_pmid_and_pmcid() -> None:
    text = "PMID: 12345678. PMCID: PMC1234567 https://www.ncbi.nlm.nih.gov/pmc/articles/PMC7654321/."
    assert find_pmid(text) == ["12345678"]
    assert find_pmcid(text) == ["PMC1234567", "PMC7654321"]


def test_find_urls_rejoins_and_strips() -> None:
    text = "Available at https://example.org/some-\npath/file.pdf. See www.who.int/data)."
    assert find_urls(text) == ["https://example.org/some-path/file.pdf", "www.who.int/data"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Smith J (2019a) The 1918 flu. Nature", 2019),
        ("Smith, J. 2020. A study of 1500 cases.", 2020),
        ("Lee K. Title. J Chem. 2018;12:1-9. doi:10.1000/2017.5", 2018),
        ("Adams P. Ocean heat content since 1950. Science. 2016;351:10-15.", 2016),
        ("Doe J. Data set 2019. Zenodo. Accessed 12 May 2023.", 2019),
        ("no year at all, page 3456", None),
        ("Report 9999", None),
    ],
)
def test_find_year(text: str, expected: int | None) -> None:
    assert find_year(text) == expected
