"""Quote verification and number comparison on model answers."""

from __future__ import annotations

from citecheck.judge.checks import compare_numbers, extract_numbers, quote_in_text, verify_evidence
from citecheck.judge.models import EvidenceItem, Passage, Verdict

PASSAGE_TEXT = (
    "The e\ufb03cient ﬁndings were robust. Mortality fell from 12.4% to 8.1% "
    "in 1,250 patients aged\n65 or older (p < .05)."
)


def test_quote_in_text_ignores_ligatures_line_breaks_and_spacing():
    assert quote_in_text("efficient findings  were robust", PASSAGE_TEXT)
    assert quote_in_text("patients aged 65 or older", PASSAGE_TEXT)


def test_quote_in_text_accepts_ellipsis_only_between_fragments_in_order():
    assert quote_in_text("Mortality fell … in 1,250 patients", PASSAGE_TEXT)
    assert not quote_in_text("in 1,250 patients ... Mortality fell", PASSAGE_TEXT)
    assert not quote_in_text("...", PASSAGE_TEXT)


def test_quote_in_text_rejects_paraphrase():
    assert not quote_in_text("Mortality decreased from 12.4% to 8.1%", PASSAGE_TEXT)


def test_verify_evidence_drops_quotes_not_in_the_named_passage():
    passages = [
        Passage(id="p1", page=3, text=PASSAGE_TEXT),
        Passage(id="p2", page=4, text="Unrelated text about mice."),
    ]
    verdict = Verdict(
        verdict="supported",
        rationale="r",
        evidence=[
            EvidenceItem(passage_id="p1", quote="Mortality fell from 12.4% to 8.1%"),
            EvidenceItem(passage_id="p2", quote="Mortality fell from 12.4% to 8.1%"),
            EvidenceItem(passage_id="p9", quote="Unrelated text"),
            EvidenceItem(passage_id="p2", quote="answer supported"),
        ],
    )
    kept, dropped = verify_evidence(verdict, passages)
    assert [(q.passage.id, q.quote) for q in kept] == [("p1", "Mortality fell from 12.4% to 8.1%")]
    assert dropped == 3


def test_extract_numbers_skips_reference_markers_and_reads_thousands():
    numbers = extract_numbers("In 1,250 patients [12] mortality was 8.1% (0.45) [3\u20135].")
    assert [(n.text, n.value) for n in numbers] == [
        ("1,250", 1250.0),
        ("8.1%", 8.1),
        ("0.45", 0.45),
    ]


def test_compare_numbers_consistent_at_the_claims_precision_and_across_percent_forms():
    check = compare_numbers(
        "Mortality fell to 8% in 2019 and 45% responded [4].",
        ["fell to 8.1%", "a response rate of 0.45"],
    )
    assert check.status == "consistent" and check.claim_numbers == ["8%", "45%"]


def test_compare_numbers_flags_a_mismatch():
    check = compare_numbers("Mortality fell to 6.1% [2].", ["Mortality fell from 12.4% to 8.1%"])
    assert check.status == "mismatch" and check.unmatched == ["6.1%"]


def test_compare_numbers_without_numbers_in_claim_or_evidence():
    assert compare_numbers("Mortality fell [2].", ["fell to 8.1%"]).status == "no_numbers"
    check = compare_numbers("Mortality fell by 30% [2].", ["Mortality fell sharply"])
    assert check.status == "not_in_evidence" and check.unmatched == ["30%"]
