"""Linking printed references to registry entries, search, and the model read."""

from __future__ import annotations

import pytest

from citecheck.match import (
    Candidate,
    LinkResult,
    MatchThresholds,
    format_refs_text,
    link_references,
    refs_output,
)
from citecheck.match.assign import assign_one_to_one

SHEA = Candidate(
    doi="10.1103/physrevb.47.9967",
    title="Surface-plasmon ejection of Ag+ ions from laser "
    "irradiation of a roughened silver surface",
    authors=["Shea", "Compton"],
    year=1993,
    venue="Physical Review B",
    volume="47",
    issue="15",
    pages="9967-9970",
    source="openalex",
)
WANG = Candidate(
    doi="10.5012/bkcs.2013.34.12.3829",
    title="Synthesis of Hβ (core)/SAPO-11 (shell) Composite "
    "Molecular Sieve and its Catalytic Performances in the Methylation of Naphthalene with "
    "Methanol",
    authors=["Wang", "Guo", "Zhao"],
    year=2013,
    venue="Bulletin of the Korean Chemical Society",
    volume="34",
    issue="12",
    pages="3829-3834",
    source="openalex",
)
HERZOG = Candidate(
    doi="10.1016/s0002-9343(03)00432-7",
    title="Effects of previous influenza vaccination on "
    "subsequent readmission and mortality in elderly patients hospitalized with pneumonia",
    authors=["Herzog", "Bratzler", "Houck"],
    year=2003,
    venue="The American Journal of Medicine",
    volume="115",
    issue="6",
    pages="454-461",
    source="openalex",
    is_retracted=True,
)
REGISTRY = [SHEA, WANG, HERZOG]

NOISY_SHEA = (
    "Shea, M. J., & Compto n,R. N. (1993). Surf ace-plasmon ejection ofAg+ions from "
    "laser irradiation of a roughened silver surface. Physical ReviewB, 47H15),9967– 9970."
)
SCRAMBLED_WANG = (
    "Wang, Xiaoxiao, Guo, Shaoqing, Zhao, Liangfu. in Catalytic of the Methanol "
    "Methylation its Performances Molecular Hβ (shell) Composite Synthesis Sieve of "
    "with and Naphthalene (core)/SAPO-11. Bulletin of the Korean Chemical Society. "
    "2013. 34. 12. 3829-3834"
)
TITLELESS_HERZOG = "[3] N.S. Herzog, D.W. Bratzler, P.M. Houck, Am. J. Med. 115 (2003) 454."
SOFTWARE = "R Core Team (2020). R: A language and environment for statistical computing. Vienna."


class FakeSearcher:
    """Answers from a fixed list, as Crossref/OpenAlex search would; records its calls."""

    def __init__(self, hits: list[Candidate]) -> None:
        self.hits = hits
        self.calls: list[str] = []

    def search(self, printed, parsed):
        self.calls.append(printed)
        return list(self.hits)


class FakeClassifier:
    def __init__(self, answer: tuple[str, str]) -> None:
        self.answer = answer

    def classify(self, printed: str) -> tuple[str, str]:
        return self.answer


def _assert_counts_add_up(result: LinkResult) -> None:
    counts = result.counts
    total = sum(
        counts[k] for k in ("linked", "found", "found_with_differences", "not_found", "unchecked")
    )
    assert total == counts["printed"] == len(result.items)


def test_link_noisy_scrambled_and_titleless_strings_to_registry() -> None:
    printed = [TITLELESS_HERZOG, NOISY_SHEA, SCRAMBLED_WANG, SOFTWARE]
    result = link_references(printed, list(REGISTRY))
    assert [i.id for i in result.items] == ["ref-001", "ref-002", "ref-003", "ref-004"]
    assert [i.doi for i in result.items[:3]] == [HERZOG.doi, SHEA.doi, WANG.doi]
    assert all(i.status == "linked" for i in result.items[:3])
    assert result.items[0].matched_by == "title_free"
    assert result.items[0].retracted is True
    assert result.items[3].status == "unchecked" and result.items[3].reason == "no_model"
    assert result.registry_only == []
    _assert_counts_add_up(result)


def test_unprinted_registry_entries_are_registry_only() -> None:
    result = link_references([NOISY_SHEA], list(REGISTRY))
    assert {c.doi for c in result.registry_only} == {WANG.doi, HERZOG.doi}
    assert result.counts["registry"] == 3 and result.counts["linked"] == 1


def test_printed_doi_in_registry_links_directly() -> None:
    doi_only = Candidate(doi="10.1000/xyz123", source="crossref-reference")
    result = link_references(["Anything at all. doi:10.1000/XYZ123"], [doi_only])
    item = result.items[0]
    assert (item.status, item.matched_by, item.score) == ("linked", "doi", 1.0)


def test_printed_doi_with_another_title_is_doi_title_mismatch() -> None:
    fabricated = (
        "Smith, J. (2021). Deep learning cures all known diseases. Nature Medicine, "
        "27, 1-10. https://doi.org/10.1103/PhysRevB.47.9967"
    )
    searcher = FakeSearcher([SHEA])
    result = link_references([fabricated], [], searcher=searcher)
    item = result.items[0]
    assert item.status == "found_with_differences"
    assert item.doi == SHEA.doi
    assert item.differences[0].field == "doi_title_mismatch"
    assert item.differences[0].found == SHEA.title
    assert searcher.calls == [fabricated]


def test_search_hit_found_and_year_difference_listed() -> None:
    shifted = NOISY_SHEA.replace("(1993)", "(1994)")
    result = link_references([shifted], [], searcher=FakeSearcher([SHEA, WANG]))
    item = result.items[0]
    assert item.status == "found_with_differences"
    assert [d.field for d in item.differences] == ["year"]
    exact = link_references([NOISY_SHEA], [], searcher=FakeSearcher([WANG, SHEA])).items[0]
    assert (exact.status, exact.doi, exact.reason) == ("found", SHEA.doi, None)


def test_year_outside_tolerance_vetoes_a_link() -> None:
    shifted = NOISY_SHEA.replace("(1993)", "(1999)")
    result = link_references([shifted], [SHEA], searcher=FakeSearcher([SHEA]))
    assert result.items[0].status == "unchecked"
    assert result.registry_only == [SHEA]


def test_unrelated_search_hits_are_not_accepted() -> None:
    result = link_references([SOFTWARE], [], searcher=FakeSearcher([SHEA, WANG, HERZOG]))
    assert result.items[0].status == "unchecked"


@pytest.mark.parametrize(
    ("answer", "status", "reason"),
    [
        (("not_indexed_kind", "software"), "unchecked", "software"),
        (("scholarly", "a journal article"), "not_found", "not_in_registry"),
    ],
)
def test_classifier_decides_unmatched_entries(answer, status, reason) -> None:
    result = link_references([SOFTWARE], [SHEA], classifier=FakeClassifier(answer))
    assert (result.items[0].status, result.items[0].reason) == (status, reason)
    _assert_counts_add_up(result)


def test_classifier_failure_is_recorded_not_raised() -> None:
    class Broken:
        def classify(self, printed):
            raise TimeoutError("model down")

    result = link_references([SOFTWARE], [], classifier=Broken())
    assert (result.items[0].status, result.items[0].reason) == ("unchecked", "model_error")


def test_preprint_and_published_twins_told_apart_by_venue_and_year() -> None:
    title = "Attention is all you need for molecular property prediction"
    preprint = Candidate(
        doi="10.48550/arxiv.1706.00001",
        title=title,
        authors=["Vaswani"],
        year=2017,
        venue="arXiv",
        arxiv="1706.00001",
        source="openalex",
    )
    published = Candidate(
        doi="10.5555/neurips.2018.42",
        title=title,
        authors=["Vaswani"],
        year=2018,
        venue="Advances in Neural Information Processing Systems",
        volume="31",
        pages="100-110",
        source="openalex",
    )
    printed = [
        f"Vaswani A. {title}. Advances in Neural Information Processing Systems 31 (2018) 100-110.",
        f"Vaswani A. {title}. arXiv preprint arXiv:1706.00001 (2017).",
    ]
    result = link_references(printed, [preprint, published])
    assert [i.doi for i in result.items] == [published.doi, preprint.doi]


def test_one_to_one_assignment_beats_first_come() -> None:
    # Row 0 slightly prefers column 0, but row 1 fits only column 0.
    chosen = assign_one_to_one({(0, 0): 0.9, (0, 1): 0.85, (1, 0): 0.8})
    assert chosen == {0: 1, 1: 0}


def test_two_printed_copies_of_one_reference_link_once() -> None:
    result = link_references([NOISY_SHEA, NOISY_SHEA], [SHEA])
    assert [i.status for i in result.items] == ["linked", "unchecked"]


def test_refs_output_and_text_table() -> None:
    result = link_references([NOISY_SHEA, SOFTWARE], [SHEA])
    rows = refs_output(result)
    assert [set(r) for r in rows] == [
        {"printed", "status", "doi", "openalex_id", "score", "differences"}
    ] * 2
    assert rows[0]["doi"] == SHEA.doi and rows[1]["status"] == "unchecked"
    table = format_refs_text(result)
    assert "ref-001" in table and "2 printed: 1 linked" in table


def test_thresholds_are_configurable_and_validated() -> None:
    strict = MatchThresholds(registry_accept=0.99)
    result = link_references([TITLELESS_HERZOG.replace("454", "455")], [HERZOG], thresholds=strict)
    assert result.items[0].status == "unchecked"
    with pytest.raises(ValueError):
        MatchThresholds(search_accept=1.5)


def test_large_registry_uses_retrieval_and_stays_correct() -> None:
    filler = [
        Candidate(
            doi=f"10.9999/f{i}",
            title=f"Filler study number {i} of soil microbes",
            authors=[f"Author{i}"],
            year=2000 + i % 20,
            venue="Soil Biology",
            volume=str(i),
            pages=f"{i}-{i + 9}",
            source="openalex",
        )
        for i in range(3000)
    ]
    result = link_references(
        [NOISY_SHEA, SCRAMBLED_WANG] * 1 + [SOFTWARE] * 100, filler + list(REGISTRY)
    )
    assert [i.doi for i in result.items[:2]] == [SHEA.doi, WANG.doi]
    assert all(i.status == "unchecked" for i in result.items[2:])
