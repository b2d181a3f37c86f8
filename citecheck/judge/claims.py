"""Claim assembly: citing sentences → claims with candidates, verdicts and checked evidence.

One claim per (citing sentence, cited reference): a sentence citing [3, 4] yields two
claims, each judged against one cited work, with ``cited_ref_ids`` listing both. Every
claim is listed; when it cannot be judged it says why (``no_model``,
``no_open_full_text``, ``citation_not_linked``, ``judge_failed:…``…).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from ..text.normalize import normalize_text
from ..text.sentences import split_sentences
from .backends import Judge
from .checks import compare_numbers, verify_evidence
from .models import Candidate, CitedText, Claim, EvidenceQuote, JudgeOutcome, JudgeRequest, Passage
from .passages import build_passages
from .retrieval import PassageIndex

logger = logging.getLogger(__name__)

DEFAULT_TOP_K = 3
_SPACE = re.compile(r"\s+")
_SPACE_OR_HYPHEN = re.compile(r"[\s\-]+")


def _as_dict(item: Any) -> Mapping[str, Any]:
    """Accept the extractor's pydantic models as well as plain dicts."""
    return item.model_dump() if isinstance(item, BaseModel) else item


def _fold(text: str) -> str:
    return _SPACE.sub(" ", normalize_text(text)).strip()


def _letters(folded: str) -> str:
    return _SPACE_OR_HYPHEN.sub("", folded)


class _CitingText:
    """The citing paper's pages, to keep only quotes found in them and to give context.

    A sentence is looked for on its page joined to the next one (sentences run across
    page breaks), comparing letters in order: whitespace and hyphens are ignored there,
    because a sentence and its page may have been joined differently at line ends
    ("re-sulted" / "resulted").
    """

    def __init__(self, pages: Sequence[Mapping[str, Any] | BaseModel] | None):
        pages = [_as_dict(p) for p in pages or ()]
        self.raw = {p.get("number"): p.get("text") or "" for p in pages}
        self.pages = {number: _fold(text) for number, text in self.raw.items()}
        self._keys = {number: _letters(text) for number, text in self.pages.items()}
        self._sentences: dict[Any, list[str]] = {}

    def contains(self, sentence: str, page: int | None) -> bool:
        if not self.pages:
            return True
        needle = _letters(_fold(sentence))
        if page in self._keys:
            following = self._keys.get(page + 1, "") if isinstance(page, int) else ""
            return needle in self._keys[page] + following
        return any(needle in text for text in self._keys.values())

    def context(self, sentence: str, page: int | None) -> str:
        """The sentence with its neighbours on the page, when they can be found."""
        if page not in self.pages:
            return sentence
        if page not in self._sentences:
            self._sentences[page] = [_fold(s) for s in split_sentences(self.raw[page])]
        sentences, needle = self._sentences[page], _fold(sentence)
        for i, candidate in enumerate(sentences):
            if needle in candidate or candidate in needle:
                return " ".join(sentences[max(i - 1, 0) : i + 2])
        return sentence


class _CitedIndex:
    """Passages and a BM25 index per cited reference, built once per run."""

    def __init__(self, cited_texts: Mapping[str, CitedText]):
        self.cited_texts = cited_texts
        self._built: dict[str, tuple[dict[str, Passage], PassageIndex]] = {}

    def retrieve(
        self, ref_id: str, claim: str, k: int
    ) -> tuple[list[Candidate], dict[str, Passage]]:
        if ref_id not in self._built:
            passages = build_passages(self.cited_texts[ref_id])
            self._built[ref_id] = ({p.id: p for p in passages}, PassageIndex(passages))
        by_id, index = self._built[ref_id]
        return index.top_k(claim, k), by_id


def judge_claims(
    contexts: Sequence[Mapping[str, Any] | BaseModel],
    references: Sequence[Mapping[str, Any] | BaseModel],
    cited_texts: Mapping[str, CitedText],
    judge: Judge | None,
    *,
    citing_doi: str | None = None,
    citing_pages: Sequence[Mapping[str, Any] | BaseModel] | None = None,
    top_k: int = DEFAULT_TOP_K,
    first_id: int = 1,
) -> list[Claim]:
    """Build and judge the claims of one citing text.

    Args:
        contexts: ``[{sentence, page, markers, ref_ids}]`` from ``extract_pdf``.
        references: ``[{id, printed, doi, …}]``; ``ref_ids`` point into it.
        cited_texts: open full text per reference id; missing → ``no_open_full_text``.
        judge: the model judge, or None → every claim ``not_checkable`` / ``no_model``
            with its retrieved candidates.
        citing_pages: the citing paper's pages; when given, a sentence not found on them
            is not kept as a claim (claims are quotes, not paraphrases).
        first_id: number of the first claim id, so outgoing and incoming ids differ.
    """
    references_by_id = {r.get("id"): r for r in map(_as_dict, references)}
    citing = _CitingText(citing_pages)
    cited = _CitedIndex(cited_texts)
    claims: list[Claim] = []
    not_found = 0
    for context in map(_as_dict, contexts):
        sentence, page = context.get("sentence") or "", context.get("page")
        if not sentence.strip() or not citing.contains(sentence, page):
            not_found += 1
            continue
        ref_ids = [r for r in context.get("ref_ids") or [] if r]
        base = {"quote": sentence, "page": page, "citing_doi": citing_doi, "cited_ref_ids": ref_ids}
        if not ref_ids:
            claims.append(Claim(id="", reason="citation_not_linked", **base))
            continue
        for ref_id in ref_ids:
            reference = references_by_id.get(ref_id) or {}
            claim = Claim(id="", judged_ref_id=ref_id, cited_doi=reference.get("doi"), **base)
            _fill(claim, reference, cited, judge, citing.context(sentence, page), top_k)
            claims.append(claim)
    if not_found:
        logger.warning(
            "%d citing sentences not found verbatim in the citing text; not kept", not_found
        )
    for number, claim in enumerate(claims, start=first_id):
        claim.id = f"claim-{number:03d}"
    return claims


def _fill(
    claim: Claim,
    reference: Mapping[str, Any],
    cited: _CitedIndex,
    judge: Judge | None,
    citing_context: str,
    top_k: int,
) -> None:
    ref_id = claim.judged_ref_id
    if ref_id is None or ref_id not in cited.cited_texts:
        claim.reason = "no_open_full_text"
        return
    candidates, passages_by_id = cited.retrieve(ref_id, claim.quote, top_k)
    claim.candidates = candidates
    if judge is None:
        claim.reason = "no_model"
        return
    if not candidates:
        claim.reason = "no_candidate_passage"
        return
    request = JudgeRequest(
        claim=claim.quote,
        citing_context=citing_context,
        reference=str(reference.get("printed") or ""),
        passages=[passages_by_id[c.passage_id] for c in candidates],
    )
    outcome = judge.judge(request)
    apply_outcome(claim, outcome, request.passages, cited.cited_texts[ref_id].artifact_sha256)


def apply_outcome(
    claim: Claim, outcome: JudgeOutcome, passages: list[Passage], artifact_sha256: str | None
) -> None:
    """Write a judge's answer into the claim, after the quote and number checks."""
    claim.model, claim.prompt, claim.prompt_sha256 = (
        outcome.model,
        outcome.prompt,
        outcome.prompt_sha256,
    )
    if outcome.status != "ok" or outcome.verdict is None:
        kind = "judge_unavailable" if outcome.status == "unavailable" else "judge_failed"
        claim.reason = f"{kind}:{outcome.reason or 'unknown'}"
        return
    verdict = outcome.verdict
    if verdict.verdict == "not_checkable":
        claim.reason, claim.rationale = "no_relevant_passage", verdict.rationale
        return
    kept, dropped = verify_evidence(verdict, passages)
    if dropped:
        claim.flags.append(f"evidence_dropped:{dropped}")
    if not kept:
        claim.reason = "evidence_not_found"
        return
    claim.verdict = verdict.verdict
    claim.reason = None
    claim.rationale = verdict.rationale
    if verdict.verdict == "partially_supported":
        claim.dimension = verdict.dimension
        if verdict.dimension is None:
            claim.flags.append("dimension_missing")
    claim.evidence = [
        EvidenceQuote(quote=q.quote, page=q.passage.page, artifact_sha256=artifact_sha256)
        for q in kept
    ]
    claim.numbers = compare_numbers(claim.quote, [q.quote for q in kept])
    if claim.numbers.status == "mismatch":
        claim.flags.append("number_mismatch")
    elif claim.numbers.status == "not_in_evidence":
        claim.flags.append("numbers_not_in_evidence")
