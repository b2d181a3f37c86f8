"""ReplayJudge: recorded responses matched on the whole request body."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from citecheck.errors import ReplayMissError
from citecheck.judge import Claim, JudgeRequest, Passage, ReplayJudge, apply_outcome
from citecheck.llm import REPO_PROMPTS_DIR, parse_prompt
from citecheck.store import Store

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures" / "llm"
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
PASSAGES = [
    Passage(id="p1", page=2, text="Mortality was 32% in patients with cirrhosis."),
    Passage(id="p2", page=5, text="The sample was drawn from 29 countries."),
]
REQUEST = JudgeRequest(
    claim="Mortality in cirrhosis was 32% [4].",
    citing_context="Mortality in cirrhosis was 32% [4].",
    reference="Marjot T, et al. J Hepatol 2021.",
    passages=PASSAGES,
)


def test_every_fixture_is_labelled_as_written_or_recorded():
    for path in FIXTURES.rglob("*.json"):
        provenance = json.loads(path.read_text())["provenance"]
        assert provenance.startswith(("WRITTEN by hand", "recorded from a live call")), path


def test_replay_gives_the_verdict_with_verified_quotes_provenance_and_a_log_entry():
    store = Store(":memory:")
    judge = ReplayJudge(FIXTURES / "synthetic", store=store)
    outcome = judge.judge(REQUEST)
    claim = Claim(id="claim-001", quote=REQUEST.claim, page=1)
    apply_outcome(claim, outcome, PASSAGES, "d" * 64)
    assert (claim.verdict, claim.model, claim.prompt) == (
        "supported",
        "claude-sonnet-4-6",
        "support_check@1",
    )
    assert [(e.quote, e.page, e.artifact_sha256) for e in claim.evidence] == [
        ("Mortality was 32% in patients with cirrhosis.", 2, "d" * 64)
    ]
    assert store.llm_calls()[0]["status"] == "ok"


def test_a_changed_prompt_fails_loudly_instead_of_replaying_a_stale_answer():
    changed = parse_prompt(
        (REPO_PROMPTS_DIR / "support_check.v1.md")
        .read_text()
        .replace("You check citations", "You verify citations"),
        "edited.md",
    )
    judge = ReplayJudge(FIXTURES / "synthetic", prompt=changed)
    with pytest.raises(ReplayMissError, match=r"differs in \['system'\]"):
        judge.judge(REQUEST)


def test_a_changed_passage_fails_loudly():
    judge = ReplayJudge(FIXTURES / "synthetic")
    edited = REQUEST.model_copy(update={"passages": [PASSAGES[0]]})
    assert not judge.has_recording(edited)
    with pytest.raises(ReplayMissError):
        judge.judge(edited)


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_claims", REPO / "bench" / "claims.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_bench_on_the_written_dev_responses_maps_labels_and_counts_failures():
    if not (CORPUS / "D-citation-support" / "citation-integrity").is_dir():
        pytest.skip("Citation-Integrity corpus not available")
    bench = load_bench()
    claims = {c.id: c for c in bench.load_split("dev")}
    judge = ReplayJudge(FIXTURES / "citation-integrity")
    results = bench.run_judge(list(claims.values()), judge, "replay", jobs=1)
    predicted = {c.id: bench.predicted_class(c, o, r) for c, r, o in results}
    assert predicted == {
        0: "not_accurate",
        1: "not_accurate",
        3: "accurate",
        6: "not_accurate",
        11: "accurate",
        12: "not_accurate",
        13: "no_evidence",
        14: "failed",
        52: "no_evidence",
        57: "not_accurate",
    }
    figures = bench.classification_figures([(claims[i].gold, p) for i, p in predicted.items()])
    assert figures["micro_f1"] == pytest.approx(0.6) and figures["failed"] == 1
    assert figures["per_class"]["accurate"]["recall"] == pytest.approx(0.4)


def test_bench_retrieval_ranks_ties_against_the_gold_sentence():
    bench = load_bench()
    same = bench.BenchClaim(
        id=1,
        text="alpha beta",
        sentences=["alpha beta", "alpha beta"],
        evidence={0},
        gold="accurate",
    )
    figures = bench.retrieval_figures([same])
    assert (figures["recall@1"], figures["recall@2"]) == (0.0, 1.0)
