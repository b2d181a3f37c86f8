"""Claims bench on Citation-Integrity (Sarol et al. 2024, doi 10.1093/bioinformatics/btae420).

    python bench/claims.py [--split dev|test] [--live | --replay DIR] [--record DIR] [--jobs N]

Prints, for the chosen split:
  1. Retrieval (offline, always): each claim's five candidate sentences ranked by our BM25
     retrieval; recall@1 and recall@2 of the annotated evidence sentence. The corpus lists
     the evidence sentence first, so ties are broken against it (pessimistic rank).
  2. The judge: macro-F1, micro-F1 and per-class precision/recall against the gold labels,
     tokens per claim and cost per claim and per paper. Live when ANTHROPIC_API_KEY is set
     (or --live); otherwise on the recorded responses in fixtures/llm/citation-integrity
     (those were WRITTEN by hand, not recorded: the figures then test the pipeline, they do
     not measure any model).

Label mapping (gold → ours):
  ACCURATE                      → accurate      ← supported
  NOT_ACCURATE                  → not_accurate  ← partially_supported, not_supported, contradicted
  no evidence (empty evidence)  → no_evidence   ← not_checkable (model abstained, or its quote
                                                  was not found: evidence_not_found)
  judge_failed / judge_unavailable → "failed", counted as a wrong answer for its gold class.
Anchors (3-class, test split): the corpus authors' best model 0.59 micro / 0.52 macro F1;
GPT-4 0.65 / 0.45.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from citecheck.judge import (  # noqa: E402
    AnthropicJudge,
    Claim,
    JudgeOutcome,
    JudgeRequest,
    Passage,
    ReplayJudge,
    apply_outcome,
)
from citecheck.judge.retrieval import PassageIndex  # noqa: E402

CORPUS = (
    REPO.parent
    / "shared"
    / "corpus"
    / "D-citation-support"
    / "citation-integrity"
    / "data"
    / "Citation-Integrity"
)
PAPERS = REPO.parent / "shared" / "corpus" / "B-pdfs-with-gold-references"
FIXTURES = REPO / "fixtures" / "llm" / "citation-integrity"
CLASSES = ("accurate", "not_accurate", "no_evidence")
GOLD = {"ACCURATE": "accurate", "NOT_ACCURATE": "not_accurate"}
OURS = {
    "supported": "accurate",
    "partially_supported": "not_accurate",
    "not_supported": "not_accurate",
    "contradicted": "not_accurate",
    "not_checkable": "no_evidence",
}
# USD per million tokens (input, output), list prices; cache writes cost 1.25x input and
# cache reads 0.1x input. Override with --price-in/--price-out for another model.
PRICES = {"claude-sonnet-4-5": (3.0, 15.0), "claude-sonnet-4-6": (3.0, 15.0)}
MARKERS = {"<|multi_cit|>": "CITED", "<|cit|>": "CITED", "<|other_cit|>": "other"}


@dataclass
class BenchClaim:
    id: int
    text: str
    sentences: list[str]
    evidence: set[int]
    gold: str


def load_split(split: str) -> list[BenchClaim]:
    corpus = {}
    with (CORPUS / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            document = json.loads(line)
            corpus[document["doc_id"]] = document["abstract"]
    claims = []
    with (CORPUS / f"claims_{split}.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            [doc_id] = row["cited_doc_ids"]
            rationales = row["evidence"].get(str(doc_id), [])
            labels = {r["label"] for r in rationales}
            gold = GOLD[labels.pop()] if len(labels) == 1 else "no_evidence"
            evidence = {i for r in rationales for i in r["sentences"]}
            claims.append(BenchClaim(row["id"], row["claim"], corpus[doc_id], evidence, gold))
    return claims


def mark(text: str) -> str:
    """Readable citation markers: [CITED] is the citation being judged."""
    for marker, word in MARKERS.items():
        text = text.replace(marker, word)
    return text


def judge_request(claim: BenchClaim) -> JudgeRequest:
    """The five candidate sentences as passages, in a fixed shuffled order.

    The corpus lists the evidence sentence first; shuffling (seeded by the claim id)
    keeps that position from hinting at the answer.
    """
    order = list(range(len(claim.sentences)))
    random.Random(claim.id).shuffle(order)
    passages = [
        Passage(id=f"p{n + 1}", page=None, text=claim.sentences[i]) for n, i in enumerate(order)
    ]
    return JudgeRequest(
        claim=mark(claim.text), citing_context=mark(claim.text), reference="", passages=passages
    )


def retrieval_figures(claims: list[BenchClaim]) -> dict[str, float]:
    ranks, candidates = [], []
    for claim in claims:
        if not claim.evidence:
            continue
        passages = [Passage(id=str(i), page=None, text=s) for i, s in enumerate(claim.sentences)]
        scores = PassageIndex(passages).scores(mark(claim.text))
        for gold in claim.evidence:
            better_or_tied = sum(1 for i, s in enumerate(scores) if i != gold and s >= scores[gold])
            ranks.append(1 + better_or_tied)
            candidates.append(len(passages))
    return {
        "claims_with_evidence": len(ranks),
        "recall@1": sum(r <= 1 for r in ranks) / len(ranks),
        "recall@2": sum(r <= 2 for r in ranks) / len(ranks),
        "random@1": statistics.fmean(min(1, n) / n for n in candidates),
        "random@2": statistics.fmean(min(2, n) / n for n in candidates),
        "mrr": statistics.fmean(1 / r for r in ranks),
    }


def predicted_class(claim: BenchClaim, outcome: JudgeOutcome, request: JudgeRequest) -> str:
    checked = Claim(id=f"claim-{claim.id}", quote=claim.text, page=None)
    apply_outcome(checked, outcome, request.passages, None)
    if checked.reason and checked.reason.startswith(("judge_failed", "judge_unavailable")):
        return "failed"
    return OURS[checked.verdict]


def classification_figures(pairs: list[tuple[str, str]]) -> dict[str, object]:
    per_class = {}
    for label in CLASSES:
        tp = sum(g == p == label for g, p in pairs)
        predicted = sum(p == label for _, p in pairs)
        actual = sum(g == label for g, _ in pairs)
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {"precision": precision, "recall": recall, "f1": f1, "support": actual}
    present = [c for c in CLASSES if per_class[c]["support"]]
    return {
        "n": len(pairs),
        "micro_f1": sum(g == p for g, p in pairs) / len(pairs) if pairs else 0.0,
        "macro_f1": statistics.fmean(per_class[c]["f1"] for c in present) if present else 0.0,
        "per_class": per_class,
        "failed": sum(p == "failed" for _, p in pairs),
    }


def measure_claims_per_paper() -> float | None:
    """Mean (citing sentence, cited reference) pairs per corpus PDF: judge calls per paper
    if every cited work had open full text (an upper bound)."""
    from citecheck.text.extract import extract_pdf

    counts = []
    for path in sorted(PAPERS.glob("*/pdfs/*.pdf")):
        if path.parent.parent.name in {"crminer-oa-articles", "paper-qa-jctc"}:
            extraction = extract_pdf(path, timeout_s=120)
            counts.append(sum(len(c.ref_ids) for c in extraction.contexts))
    return statistics.fmean(counts) if counts else None


def cost_per_claim(
    outcomes: list[JudgeOutcome], model: str, price_in: float | None, price_out: float | None
) -> float | None:
    prices = PRICES.get(model)
    if price_in is not None and price_out is not None:
        prices = (price_in, price_out)
    if prices is None or not outcomes:
        return None
    per_token_in, per_token_out = prices[0] / 1e6, prices[1] / 1e6
    total = sum(
        o.input_tokens * per_token_in
        + o.output_tokens * per_token_out
        + o.cache_creation_input_tokens * per_token_in * 1.25
        + o.cache_read_input_tokens * per_token_in * 0.1
        for o in outcomes
    )
    return total / len(outcomes)


def make_judge(args: argparse.Namespace):
    live = args.live or (args.replay is None and os.environ.get("ANTHROPIC_API_KEY"))
    if not live:
        return ReplayJudge(args.replay or FIXTURES), "replay"
    import httpx2

    from citecheck.judge.replay import RecordingTransport
    from citecheck.store import Store

    client = httpx2.Client(transport=RecordingTransport(args.record)) if args.record else None
    return AnthropicJudge.from_settings(store=Store(), http_client=client), "live"


def run_judge(claims: list[BenchClaim], judge, mode: str, jobs: int):
    work = [(c, judge_request(c)) for c in claims]
    if mode == "replay":
        work = [(c, r) for c, r in work if judge.has_recording(r)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(lambda item: judge.judge(item[1]), work))
    return [(c, r, o) for (c, r), o in zip(work, outcomes, strict=True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "train"), default="dev")
    parser.add_argument("--live", action="store_true", help="call the model (needs a key)")
    parser.add_argument("--replay", type=Path, help="folder of recorded responses")
    parser.add_argument("--record", type=Path, help="with --live: write each exchange here")
    parser.add_argument("--limit", type=int, help="judge only the first N claims")
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--price-in", type=float)
    parser.add_argument("--price-out", type=float)
    parser.add_argument(
        "--no-papers",
        action="store_true",
        help="skip measuring claims per paper on the corpus PDFs",
    )
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}; nothing to measure", file=sys.stderr)
        return 0

    claims = load_split(args.split)
    print(
        f"Citation-Integrity {args.split}: {len(claims)} claims "
        f"({dict(Counter(c.gold for c in claims))})"
    )
    started = time.perf_counter()
    retrieval = retrieval_figures(claims)
    print(
        f"retrieval (BM25 over each claim's {len(claims[0].sentences)} candidates, "
        f"{retrieval['claims_with_evidence']} claims with evidence, ties against gold, "
        f"{time.perf_counter() - started:.2f} s): recall@1 {retrieval['recall@1']:.3f} "
        f"recall@2 {retrieval['recall@2']:.3f} MRR {retrieval['mrr']:.3f} "
        f"(random: @1 {retrieval['random@1']:.3f}, @2 {retrieval['random@2']:.3f})"
    )

    judge, mode = make_judge(args)
    selected = claims[: args.limit] if args.limit else claims
    results = run_judge(selected, judge, mode, args.jobs)
    if not results:
        print("judge: no claim has a recorded response; set ANTHROPIC_API_KEY to run live")
        return 0
    pairs = [(c.gold, predicted_class(c, o, r)) for c, r, o in results]
    figures = classification_figures(pairs)
    label = (
        "LIVE"
        if mode == "live"
        else "REPLAY of hand-written responses: tests the pipeline, measures no model"
    )
    print(
        f"judge [{label}] model {results[0][2].model}, prompt {results[0][2].prompt}: "
        f"n={figures['n']} macro-F1 {figures['macro_f1']:.3f} micro-F1 "
        f"{figures['micro_f1']:.3f} failed {figures['failed']}"
    )
    for name, row in figures["per_class"].items():
        print(
            f"  {name:<13} P {row['precision']:.3f} R {row['recall']:.3f} "
            f"F1 {row['f1']:.3f} support {row['support']}"
        )
    outcomes = [o for _, _, o in results]
    print(
        f"tokens per claim: input {statistics.fmean(o.input_tokens for o in outcomes):.0f}, "
        f"output {statistics.fmean(o.output_tokens for o in outcomes):.0f}, cache read "
        f"{statistics.fmean(o.cache_read_input_tokens for o in outcomes):.0f}, cache write "
        f"{statistics.fmean(o.cache_creation_input_tokens for o in outcomes):.0f}"
    )
    cost = cost_per_claim(outcomes, str(outcomes[0].model), args.price_in, args.price_out)
    per_paper = None if args.no_papers else measure_claims_per_paper()
    if cost is None:
        print("cost: no price known for this model (pass --price-in and --price-out)")
    else:
        paper_text = (
            ""
            if per_paper is None
            else f"; cost per paper ${cost * per_paper:.3f} at {per_paper:.0f} "
            f"claims/paper (mean sentence-reference pairs in the corpus PDFs)"
        )
        print(f"cost per claim ${cost:.5f}{paper_text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
