"""Data shapes of the claims stage: the model's answer, passages, and the report's claims."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

VerdictLabel = Literal[
    "supported", "partially_supported", "not_supported", "contradicted", "not_checkable"
]
Dimension = Literal["population", "condition", "comparison", "quantity", "scope", "hedging"]


class EvidenceItem(BaseModel):
    passage_id: str = Field(description="Id of the passage the quote is copied from, e.g. p2.")
    quote: str = Field(description="Text copied character for character from that passage.")


class Verdict(BaseModel):
    """Record whether the cited source says what the claim attributes to it."""

    verdict: VerdictLabel
    dimension: Dimension | None = Field(
        default=None, description="Only for partially_supported: what differs."
    )
    rationale: str = Field(description="One or two sentences explaining the verdict.")
    evidence: list[EvidenceItem] = Field(
        default_factory=list, description="Verbatim quotes; required unless not_checkable."
    )


class Passage(BaseModel):
    """A window of consecutive sentences of the cited work's visible text on one page."""

    id: str
    page: int | None
    text: str
    truncated: bool = Field(default=False, description="Cut to the passage length cap.")


class Candidate(BaseModel):
    """A retrieved passage, listed with the claim even when no model ran."""

    passage_id: str
    page: int | None
    score: float
    text: str


class CitedText(BaseModel):
    """The visible text of a cited work's open full text and the hash of the bytes read."""

    pages: list[dict] = Field(description="[{number, text}] as extract_pdf returns them.")
    artifact_sha256: str
    doi: str | None = None
    url: str | None = None

    @classmethod
    def from_extraction(
        cls, extraction: Any, *, doi: str | None = None, url: str | None = None
    ) -> CitedText:
        """From ``citecheck.text.extract_pdf``'s result (its pages are hidden-text free)."""
        return cls(
            pages=[{"number": p.number, "text": p.text} for p in extraction.pages],
            artifact_sha256=extraction.artifact.sha256,
            doi=doi,
            url=url,
        )


class EvidenceQuote(BaseModel):
    quote: str
    page: int | None
    artifact_sha256: str | None


class NumberCheck(BaseModel):
    """Deterministic comparison of the numbers in the claim with those in the evidence."""

    status: Literal["consistent", "mismatch", "not_in_evidence", "no_numbers"]
    claim_numbers: list[str] = Field(default_factory=list)
    evidence_numbers: list[str] = Field(default_factory=list)
    unmatched: list[str] = Field(default_factory=list)


class JudgeRequest(BaseModel):
    """What a judge is asked: one claim against the passages of one cited work."""

    claim: str
    citing_context: str
    reference: str
    passages: list[Passage]


class JudgeOutcome(BaseModel):
    """A judge's answer, or the reason there is none. ``verdict`` is None unless ok."""

    status: Literal["ok", "failed", "unavailable"]
    verdict: Verdict | None = None
    reason: str | None = None
    model: str | None = None
    prompt: str | None = None
    prompt_sha256: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cached: bool = False


class Claim(BaseModel):
    """One citing sentence judged against one cited work (the report's claim item)."""

    id: str
    quote: str
    page: int | None
    citing_doi: str | None = None
    cited_ref_ids: list[str] = Field(
        default_factory=list, description="Every reference the sentence cites."
    )
    judged_ref_id: str | None = Field(
        default=None, description="The reference whose text this verdict is about."
    )
    cited_doi: str | None = None
    verdict: VerdictLabel = "not_checkable"
    dimension: Dimension | None = None
    reason: str | None = None
    rationale: str | None = None
    evidence: list[EvidenceQuote] = Field(default_factory=list)
    model: str | None = None
    prompt: str | None = None
    prompt_sha256: str | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    numbers: NumberCheck | None = None
    flags: list[str] = Field(default_factory=list)
