"""judge_claims: every citing sentence becomes claims with honest verdicts or reasons."""

from __future__ import annotations

import pytest

from citecheck.judge import (
    CitedText,
    EvidenceItem,
    JudgeOutcome,
    ScriptedJudge,
    Verdict,
    judge_claims,
)

CITED_PAGES = [
    {
        "number": 1,
        "text": "We enrolled 745 patients with chronic liver disease in 29 countries. "
        "Mortality was 32% in patients with cirrhosis compared to 8% in those "
        "without. Respiratory failure was the main cause of death.",
    },
    {
        "number": 2,
        "text": "Alcohol-related liver disease was an independent risk factor for death. "
        "Child-Pugh class C carried the highest risk.",
    },
]
CITING_PAGES = [
    {
        "number": 4,
        "text": "Cirrhosis raises COVID-19 mortality to 32% [4].\n"
        "Alcohol use is a risk factor [4, 5]. Older age matters [7].",
    }
]
CONTEXTS = [
    {
        "sentence": "Cirrhosis raises COVID-19 mortality to 32% [4].",
        "page": 4,
        "markers": ["[4]"],
        "ref_ids": ["ref-004"],
    },
    {
        "sentence": "Alcohol use is a risk factor [4, 5].",
        "page": 4,
        "markers": ["[4, 5]"],
        "ref_ids": ["ref-004", "ref-005"],
    },
    {"sentence": "Older age matters [7].", "page": 4, "markers": ["[7]"], "ref_ids": []},
]
REFERENCES = [
    {
        "id": "ref-004",
        "printed": "Marjot T, et al. J Hepatol 2021;74:567.",
        "doi": "10.1016/j.jhep.2020.09.024",
    },
    {"id": "ref-005", "printed": "Smith A. Liver Int 2020.", "doi": None},
]
SHA = "c" * 64


def cited_texts() -> dict[str, CitedText]:
    return {"ref-004": CitedText(pages=CITED_PAGES, artifact_sha256=SHA)}


def supported(quote: str, passage_id: str = "p1", **extra) -> Verdict:
    return Verdict(
        verdict=extra.pop("verdict", "supported"),
        rationale="Says so.",
        evidence=[EvidenceItem(passage_id=passage_id, quote=quote)],
        **extra,
    )


def passage_with(request, text: str) -> str:
    return next(p.id for p in request.passages if text in p.text)


def test_without_a_model_every_claim_is_listed_with_candidates_and_no_model():
    claims = judge_claims(
        CONTEXTS, REFERENCES, cited_texts(), None, citing_doi="10.1/x", citing_pages=CITING_PAGES
    )
    assert [c.id for c in claims] == ["claim-001", "claim-002", "claim-003", "claim-004"]
    assert [(c.judged_ref_id, c.verdict, c.reason) for c in claims] == [
        ("ref-004", "not_checkable", "no_model"),
        ("ref-004", "not_checkable", "no_model"),
        ("ref-005", "not_checkable", "no_open_full_text"),
        (None, "not_checkable", "citation_not_linked"),
    ]
    first = claims[0]
    assert first.citing_doi == "10.1/x" and first.cited_doi == "10.1016/j.jhep.2020.09.024"
    assert first.cited_ref_ids == ["ref-004"] and first.page == 4
    assert first.candidates and "Mortality was 32%" in first.candidates[0].text
    assert first.candidates[0].page == 1 and first.candidates[0].score > 0
    assert claims[1].cited_ref_ids == ["ref-004", "ref-005"]
    assert "Alcohol-related" in claims[1].candidates[0].text


def test_a_sentence_not_found_in_the_citing_text_is_not_kept():
    contexts = [
        *CONTEXTS[:1],
        {
            "sentence": "A paraphrase that is not in the paper [4].",
            "page": 4,
            "ref_ids": ["ref-004"],
        },
    ]
    claims = judge_claims(contexts, REFERENCES, cited_texts(), None, citing_pages=CITING_PAGES)
    assert [c.quote for c in claims] == [CONTEXTS[0]["sentence"]]


def test_a_verified_answer_gives_a_verdict_with_evidence_page_and_artifact_hash():
    judge = ScriptedJudge(
        [
            lambda r: supported(
                "Mortality was 32% in patients with cirrhosis", passage_with(r, "Mortality was 32%")
            )
        ]
    )
    [claim] = judge_claims(
        CONTEXTS[:1], REFERENCES, cited_texts(), judge, citing_pages=CITING_PAGES
    )
    assert (claim.verdict, claim.reason) == ("supported", None)
    assert [(e.quote, e.page, e.artifact_sha256) for e in claim.evidence] == [
        ("Mortality was 32% in patients with cirrhosis", 1, SHA)
    ]
    assert claim.numbers.status == "consistent" and claim.flags == []
    [request] = judge.history
    assert request.claim == CONTEXTS[0]["sentence"]
    assert request.reference == REFERENCES[0]["printed"]
    assert "Alcohol use is a risk factor" in request.citing_context


def test_an_invented_quote_is_dropped_and_the_verdict_becomes_evidence_not_found():
    judge = ScriptedJudge([supported("Mortality tripled in cirrhosis", "p1")])
    [claim] = judge_claims(CONTEXTS[:1], REFERENCES, cited_texts(), judge)
    assert (claim.verdict, claim.reason, claim.evidence) == (
        "not_checkable",
        "evidence_not_found",
        [],
    )
    assert claim.rationale is None and claim.flags == ["evidence_dropped:1"]


def test_a_quote_naming_a_passage_that_was_not_shown_is_dropped():
    judge = ScriptedJudge([supported("Mortality was 32% in patients with cirrhosis", "p99")])
    [claim] = judge_claims(CONTEXTS[:1], REFERENCES, cited_texts(), judge)
    assert claim.reason == "evidence_not_found"


def test_a_number_mismatch_between_claim_and_evidence_is_flagged():
    contexts = [
        {"sentence": "Mortality in cirrhosis reached 42% [4].", "page": 4, "ref_ids": ["ref-004"]}
    ]
    judge = ScriptedJudge(
        [
            lambda r: supported(
                "Mortality was 32% in patients with cirrhosis", passage_with(r, "Mortality was 32%")
            )
        ]
    )
    [claim] = judge_claims(contexts, REFERENCES, cited_texts(), judge)
    assert claim.verdict == "supported" and "number_mismatch" in claim.flags
    assert claim.numbers.unmatched == ["42%"]


def test_partial_support_keeps_its_dimension():
    judge = ScriptedJudge(
        [
            lambda r: supported(
                "Alcohol-related liver disease was an independent risk factor for death",
                passage_with(r, "Alcohol-related"),
                verdict="partially_supported",
                dimension="population",
            )
        ]
    )
    claims = judge_claims(CONTEXTS[1:2], REFERENCES, cited_texts(), judge)
    assert (claims[0].verdict, claims[0].dimension) == ("partially_supported", "population")
    assert claims[1].reason == "no_open_full_text" and len(judge.history) == 1


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (JudgeOutcome(status="failed", reason="refusal", model="m"), "judge_failed:refusal"),
        (
            JudgeOutcome(status="unavailable", reason="overloaded", model="m"),
            "judge_unavailable:overloaded",
        ),
        (
            Verdict(verdict="not_checkable", rationale="Passages are about something else."),
            "no_relevant_passage",
        ),
    ],
)
def test_failures_and_model_abstentions_are_not_checkable_with_a_reason(outcome, reason):
    [claim] = judge_claims(CONTEXTS[:1], REFERENCES, cited_texts(), ScriptedJudge([outcome]))
    assert (claim.verdict, claim.reason, claim.evidence) == ("not_checkable", reason, [])


def test_first_id_lets_incoming_claims_continue_the_numbering():
    claims = judge_claims(CONTEXTS[:1], REFERENCES, cited_texts(), None, first_id=12)
    assert [c.id for c in claims] == ["claim-012"]


def test_scripted_judge_raises_when_nothing_is_queued():
    with pytest.raises(LookupError):
        judge_claims(CONTEXTS[:1], REFERENCES, cited_texts(), ScriptedJudge())


def test_a_sentence_across_a_page_break_or_joined_differently_at_a_line_end_is_kept():
    pages = [
        {"number": 1, "text": "Intro. Telomere probes re-\nsulted in a signal"},
        {"number": 2, "text": "in the centromere [4]. Next sentence."},
    ]
    contexts = [
        {
            "sentence": "Telomere probes re-sulted in a signal in the centromere [4].",
            "page": 1,
            "ref_ids": ["ref-004"],
        },
        {
            "sentence": "Telomere probes resulted in no signal [4].",
            "page": 1,
            "ref_ids": ["ref-004"],
        },
    ]
    claims = judge_claims(contexts, REFERENCES, {}, None, citing_pages=pages)
    assert [c.quote for c in claims] == [contexts[0]["sentence"]]
    assert claims[0].reason == "no_open_full_text"
