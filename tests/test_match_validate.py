"""Number vetoes and weak evidence: the rules that keep wrong links out (see match/validate.py)."""

from __future__ import annotations

from citecheck.match import Candidate, MatchThresholds, best_search_hit, link_references
from citecheck.match.scoring import profile_candidate, profile_printed, score_pair

THRESHOLDS = MatchThresholds()

BOOK = Candidate(
    doi="10.1000/book",
    title="Welfare-to-Work",
    authors=["Cebulla"],
    year=2018,
    source="openalex",
)
CHAPTER = Candidate(
    doi="10.1000/chapter-139",
    title="Lessons for Welfare Policy and Research",
    authors=["Cebulla"],
    year=2018,
    venue="Welfare-to-Work",
    pages="139-155",
    source="openalex",
)
FIRST_CHAPTER = CHAPTER.model_copy(
    update={
        "doi": "10.1000/chapter-1",
        "title": "Welfare and Work in the UK",
        "pages": "1-16",
    }
)
ARTICLE_1312 = Candidate(
    doi="10.1128/aem.68.3.1312-1318.2002",
    title="Production of N2 through anaerobic ammonium oxidation coupled to nitrate "
    "reduction in marine sediments",
    authors=["Thamdrup", "Dalsgaard"],
    year=2002,
    venue="Applied and Environmental Microbiology",
    volume="68",
    pages="1312-1318",
    source="openalex",
)
SAME_AUTHORS_OTHER_PAGES = Candidate(
    doi="10.1128/aem.68.8.3802-3808.2002",
    title="Factors controlling anaerobic ammonium oxidation with nitrite in marine sediments",
    authors=["Dalsgaard", "Thamdrup"],
    year=2002,
    venue="Applied and Environmental Microbiology",
    volume="68",
    pages="3802-3808",
    source="openalex",
)
WOOD_A = Candidate(
    doi="10.2139/ssrn.a",
    title="Lawyers Who Deduct Client Costs: Revisiting Boccardo",
    authors=["Wood"],
    year=2010,
    venue="SSRN Electronic Journal",
    source="crossref-search",
)
WOOD_B = WOOD_A.model_copy(
    update={"doi": "10.2139/ssrn.b", "title": "Which Client Costs are Tax Deductible?"}
)


def _pair(printed: str, candidate: Candidate):
    return score_pair(
        profile_printed(printed), profile_candidate(candidate), THRESHOLDS
    )


def test_a_page_locator_refuses_the_book_and_finds_the_chapter() -> None:
    printed = "[1] A. Cebulla, Welfare-to-Work (2018) 139."
    assert _pair(printed, BOOK).veto == "unexplained_locator"
    decided = best_search_hit(
        profile_printed(printed), [BOOK, FIRST_CHAPTER, CHAPTER], THRESHOLDS
    )
    assert decided is not None
    assert decided[0].candidate.doi == "10.1000/chapter-139"


def test_the_book_itself_is_still_found_when_no_page_is_printed() -> None:
    decided = best_search_hit(
        profile_printed("Cebulla, A. (2018). Welfare-to-Work. Palgrave, London."),
        [BOOK],
        THRESHOLDS,
    )
    assert decided is not None and decided[0].candidate.doi == "10.1000/book"


def test_a_locator_printed_in_the_candidate_title_is_explained() -> None:
    person = Candidate(
        doi="10.1093/odnb/1", title="Windham, Joseph (1739-1810)", year=2018
    )
    pair = _pair(
        "Windham, Joseph (1739–1810). (2018). Oxford Dictionary of National Biography.",
        person,
    )
    assert pair.veto is None


def test_printed_pages_that_the_candidate_does_not_have_veto_the_pair() -> None:
    printed = (
        "Thamdrup B, Dalsgaard T (2002) Production of N 2 through anaerobic ammonium oxidation "
        "coupled to nitrate reduction in marine sediments. Appl Environ Microbiol 68:1312-1318"
    )
    assert _pair(printed, SAME_AUTHORS_OTHER_PAGES).veto == "pages"
    assert _pair(printed, ARTICLE_1312).veto is None
    assert (
        best_search_hit(
            profile_printed(printed), [SAME_AUTHORS_OTHER_PAGES], THRESHOLDS
        )
        is None
    )


def test_one_damaged_page_digit_does_not_veto_the_right_work() -> None:
    chapter = Candidate(
        doi="10.1000/notes",
        title="Notes",
        authors=["Roemer"],
        venue="Analytical Foundations of Marxian Economic Theory",
        pages="211-214",
    )
    printed = "Roemer, J. E. (n.d.). NoXes. Analyti calFoundatioss of MarxianEconomic Theory, 2Z1–214."
    assert _pair(printed, chapter).veto is None


def test_author_venue_year_alone_is_weak_and_refused_from_a_search() -> None:
    printed = "[1] R.W. Wood, SSRN Electronic Journal (2010)."
    assert _pair(printed, WOOD_A).weak
    assert best_search_hit(profile_printed(printed), [WOOD_A], THRESHOLDS) is None


def test_a_weak_pair_links_in_a_registry_only_when_nothing_else_comes_close() -> None:
    printed = ["[1] R.W. Wood, SSRN Electronic Journal (2010)."]
    alone = link_references(printed, [WOOD_A], thresholds=THRESHOLDS)
    assert alone.items[0].status == "linked"
    assert alone.items[0].doi == "10.2139/ssrn.a"
    rivalled = link_references(printed, [WOOD_A, WOOD_B], thresholds=THRESHOLDS)
    assert rivalled.items[0].status != "linked"
    assert len(rivalled.registry_only) == 2


def test_first_page_with_volume_stands_in_for_a_missing_title() -> None:
    article = Candidate(
        doi="10.1288/00005537-196403000-00001",
        title="Editorial comment",
        year=1964,
        venue="The Laryngoscope",
        volume="74",
        pages="298-300",
    )
    pair = _pair("[1]The Laryngoscope 74 (1964) 298.", article)
    assert not pair.weak and pair.title_free
    decided = best_search_hit(
        profile_printed("[1]The Laryngoscope 74 (1964) 298."), [article], THRESHOLDS
    )
    assert decided is not None


def test_an_ocr_damaged_first_author_gets_partial_credit() -> None:
    article = Candidate(
        doi="10.1115/1.3424049",
        title="Accurate Transform Inversion in the Elastodynamics of Heterogeneous Media",
        authors=["Gordon"],
        year=1977,
        venue="Journal of Applied Mechanics",
        volume="44",
        issue="2",
        pages="352",
    )
    damaged = _pair(
        "GDrdon, P. F. (1977). AccurateTransform Inversion in the Elastodynamics of "
        "Heterogeneous Media. Journal of Apflied Mechanics, 44(2), 352.",
        article,
    )
    assert 0.0 < damaged.authors < 1.0
    other = _pair(
        "Smith, P. F. (1977). Accurate Transform Inversion in the Elastodynamics of "
        "Heterogeneous Media. Journal of Applied Mechanics, 44(2), 352.",
        article,
    )
    assert other.authors == 0.0


def test_a_deposited_reference_without_pages_is_not_refused_for_lacking_them() -> None:
    deposit = Candidate(
        authors=["Kufferath"],
        year=1957,
        source="crossref-reference",
        registry_key="B34",
    )
    printed = (
        "Kufferath H (1957) Quelques algues des rapides de la Ruzizi à Bugarama. Académie "
        "Royale des Sciences Coloniales, Mémoires in-8, Nouvelle Série 5(3): 1-84."
    )
    assert _pair(printed, deposit).veto is None
    assert link_references([printed], [deposit]).items[0].status == "linked"
