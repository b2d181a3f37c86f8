"""BatchJudge through the real SDK against a Message Batches API served at the transport.

The batch, results (JSONL) and message bodies below were WRITTEN HERE from the API's
documented formats (platform.claude.com "Create / Retrieve a Message Batch", "Retrieve
Message Batch results", and the SDK's ``types/messages`` models); they are not recorded
from a live service.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import anthropic
import httpx2
import pytest
from anthropic_messages import MODEL, message

from citecheck.judge import (
    AnsweringJudge,
    AnthropicJudge,
    BatchJudge,
    CitedText,
    Claim,
    CollectingJudge,
    JudgeRequest,
    Passage,
    apply_outcome,
    judge_claims,
    judge_claims_batched,
)
from citecheck.llm import AnthropicCaller, canonical_json
from citecheck.store import Store

API = "https://api.anthropic.com/v1/messages/batches"
_PASSAGE = re.compile(r'<passage id="(\w+)"[^>]*>\n(.*?)\n</passage>', re.DOTALL)


def request_for(claim: str) -> JudgeRequest:
    return JudgeRequest(
        claim=claim,
        citing_context=claim,
        reference="Marjot T, et al. J Hepatol 2021.",
        passages=[
            Passage(id="p1", page=2, text="Mortality was 32% in patients with cirrhosis."),
            Passage(id="p2", page=5, text="The sample was drawn from 29 countries."),
        ],
    )


def quoting_first_passage(params: dict) -> dict:
    """A succeeded result whose verdict quotes the first passage shown, verbatim."""
    passages_text = params["messages"][0]["content"][0]["text"]
    passage_id, text = _PASSAGE.search(passages_text).groups()
    verdict = {
        "verdict": "supported",
        "dimension": None,
        "rationale": "The passage states it.",
        "evidence": [{"passage_id": passage_id, "quote": text}],
    }
    tool = {"type": "tool_use", "id": "toolu_01", "name": "record_verdict", "input": verdict}
    return {"type": "succeeded", "message": message([tool])}


def errored(error_type: str) -> dict:
    return {
        "type": "errored",
        "error": {"type": "error", "error": {"type": error_type, "message": "written example"}},
    }


def claim_text(params: dict) -> str:
    return params["messages"][0]["content"][-1]["text"]


class BatchServer:
    """Create / retrieve / results / cancel of the Message Batches API, written by hand.

    ``answer(params)`` gives each request's ``result`` object, or None to leave its line
    out. The batch ends after ``polls_to_end`` retrievals (never when None); results
    are served in reverse order, since the API does not keep the request order.
    """

    def __init__(
        self,
        answer: Callable[[dict], dict | None] = quoting_first_passage,
        *,
        polls_to_end: int | None = 1,
        create_error: httpx2.Response | None = None,
        extra_lines: tuple[str, ...] = (),
        faults: dict[str, list[httpx2.Response]] | None = None,
    ):
        self.answer = answer
        self.polls_to_end = polls_to_end
        self.create_error = create_error
        self.extra_lines = extra_lines
        self.faults = faults or {}
        self.batches: dict[str, list[dict]] = {}
        self.polls: dict[str, int] = {}
        self.calls: list[tuple[str, str]] = []

    def batch_json(self, batch_id: str, status: str) -> dict:
        ended = status == "ended"
        requests = self.batches[batch_id]
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {
                "processing": 0 if ended else len(requests),
                "succeeded": len(requests) if ended else 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-11-29T17:00:00.000000Z",
            "expires_at": "2026-11-30T17:00:00.000000Z",
            "ended_at": "2026-11-29T17:05:00.000000Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{API}/{batch_id}/results" if ended else None,
        }

    def status(self, batch_id: str) -> str:
        ended = self.polls_to_end is not None and self.polls[batch_id] >= self.polls_to_end
        return "ended" if ended else "in_progress"

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        self.calls.append((request.method, path))
        if request.method == "POST" and path == "/v1/messages/batches":
            if self.create_error is not None:
                return self.create_error
            batch_id = f"msgbatch_{len(self.batches) + 1:04d}"
            self.batches[batch_id] = json.loads(request.content)["requests"]
            self.polls[batch_id] = 0
            return httpx2.Response(200, json=self.batch_json(batch_id, "in_progress"))
        batch_id = path.split("/")[4]
        kind = "results" if path.endswith("/results") else "retrieve"
        if request.method == "GET" and self.faults.get(kind):
            return self.faults[kind].pop(0)
        if path.endswith("/cancel"):
            return httpx2.Response(200, json=self.batch_json(batch_id, "canceling"))
        if path.endswith("/results"):
            lines = [*self.extra_lines]
            for entry in reversed(self.batches[batch_id]):
                result = self.answer(entry["params"])
                if result is not None:
                    lines.append(json.dumps({"custom_id": entry["custom_id"], "result": result}))
            body = "".join(line + "\n" for line in lines).encode()
            return httpx2.Response(
                200, content=body, headers={"content-type": "application/binary"}
            )
        self.polls[batch_id] += 1
        return httpx2.Response(200, json=self.batch_json(batch_id, self.status(batch_id)))

    def submitted(self) -> list[dict]:
        return [entry for requests in self.batches.values() for entry in requests]


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def client_for(handler) -> anthropic.Anthropic:
    client = anthropic.Anthropic(
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    client._calculate_retry_timeout = lambda *_args, **_kwargs: 0.0
    return client


def batch_judge(server: BatchServer, store: Store | None = None, **options) -> BatchJudge:
    clock = FakeClock()
    options = {"poll_interval_s": 30.0, "sleep": clock.sleep, "clock": clock, **options}
    return BatchJudge(client_for(server), MODEL, store, **options)


def judged_claim(outcome, request: JudgeRequest) -> Claim:
    claim = Claim(id="claim-001", quote=request.claim, page=1, judged_ref_id="ref-004")
    apply_outcome(claim, outcome, request.passages, "f" * 64)
    return claim


def test_one_batch_answers_every_request_in_order_with_the_synchronous_bodies():
    store = Store(":memory:")
    server = BatchServer()
    judge = batch_judge(server, store)
    requests = [request_for(f"Mortality in cirrhosis was 32% [{n}].") for n in range(3)]
    outcomes = judge.judge_many(requests)
    assert [o.status for o in outcomes] == ["ok"] * 3
    assert all(o.verdict.evidence[0].passage_id == "p1" for o in outcomes)
    assert [(o.model, o.prompt, o.input_tokens) for o in outcomes] == [
        (MODEL, "support_check@1", 900)
    ] * 3
    assert len(server.batches) == 1 and judge.batch_ids == ["msgbatch_0001"]
    sync = AnthropicJudge(AnthropicCaller(client_for(server), MODEL))
    assert [e["params"] for e in server.submitted()] == [sync.request_body(r) for r in requests]
    assert [claim_text(e["params"]) for e in server.submitted()] == [
        claim_text(judge.request_body(r)) for r in requests
    ]
    records = store.llm_calls()
    assert [r["status"] for r in records] == ["ok"] * 3
    assert {r["cache_key"] for r in records} == {e["custom_id"] for e in server.submitted()}
    assert all(json.loads(r["response_json"])["type"] == "message" for r in records)


def test_a_batch_outcome_equals_the_synchronous_outcome_for_the_same_message():
    request = request_for("Mortality in cirrhosis was 32% [4].")
    [batched] = batch_judge(BatchServer()).judge_many([request])
    body = BatchJudge(client_for(BatchServer()), MODEL).request_body(request)
    answer = quoting_first_passage(body)["message"]
    sync = AnthropicJudge(
        AnthropicCaller(client_for(lambda _r: httpx2.Response(200, json=answer)), MODEL)
    )
    assert batched == sync.judge(request)
    assert judged_claim(batched, request).verdict == "supported"


FAILED_ENTRIES = {
    "errored": (errored("api_error"), "judge_unavailable:batch_errored", "unavailable"),
    "errored_invalid": (
        errored("invalid_request_error"),
        "judge_failed:batch_errored",
        "failed",
    ),
    "expired": ({"type": "expired"}, "judge_unavailable:batch_expired", "unavailable"),
    "canceled": ({"type": "canceled"}, "judge_unavailable:batch_canceled", "unavailable"),
    "missing": (None, "judge_unavailable:batch_result_missing", "unavailable"),
    "refusal": (
        {"type": "succeeded", "message": message([], stop_reason="refusal")},
        "judge_failed:refusal",
        "failed",
    ),
    "no_tool_call": (
        {"type": "succeeded", "message": message([{"type": "text", "text": "{}"}], "end_turn")},
        "judge_failed:no_tool_call",
        "failed",
    ),
    "max_tokens": (
        {"type": "succeeded", "message": message([], stop_reason="max_tokens")},
        "judge_failed:max_tokens",
        "failed",
    ),
}


def test_entries_that_did_not_succeed_are_not_checkable_with_their_reason_never_a_verdict():
    store = Store(":memory:")
    by_claim = {f"claim {name} [1].": entry for name, (entry, _, _) in FAILED_ENTRIES.items()}
    good = "Mortality in cirrhosis was 32% [4]."

    def answer(params: dict) -> dict | None:
        text = claim_text(params)
        hits = [entry for claim, entry in by_claim.items() if claim in text]
        return hits[0] if hits else quoting_first_passage(params)

    requests = [request_for(claim) for claim in by_claim] + [request_for(good)]
    outcomes = batch_judge(BatchServer(answer), store).judge_many(requests)
    claims = [judged_claim(o, r) for o, r in zip(outcomes, requests, strict=True)]
    assert [(c.verdict, c.reason) for c in claims] == [
        *(("not_checkable", reason) for _, reason, _ in FAILED_ENTRIES.values()),
        ("supported", None),
    ]
    assert all(c.evidence == [] for c in claims[:-1])
    records = {r["request_json"]: r for r in store.llm_calls()}
    assert len(records) == len(requests)
    expected = [status for _, _, status in FAILED_ENTRIES.values()] + ["ok"]
    assert sorted(r["status"] for r in records.values()) == sorted(expected)
    errored_record = next(r for r in store.llm_calls() if r["error"] == "batch_errored")
    assert json.loads(errored_record["response_json"])["type"] == "errored"


def test_only_uncached_requests_are_submitted_and_a_fully_cached_run_makes_no_call():
    store = Store(":memory:")
    first, second = request_for("First claim 32% [1]."), request_for("Second claim 32% [2].")
    batch_judge(BatchServer(), store).judge_many([first])
    server = BatchServer()
    outcomes = batch_judge(server, store).judge_many([first, second])
    assert [o.cached for o in outcomes] == [True, False]
    assert [claim_text(e["params"]) for e in server.submitted()] == [
        claim_text(BatchJudge(client_for(server), MODEL).request_body(second))
    ]
    silent = BatchServer()
    again = batch_judge(silent, store).judge_many([first, second])
    assert silent.calls == [] and all(o.cached and o.status == "ok" for o in again)
    assert again[1].verdict == outcomes[1].verdict


def test_a_verdict_cached_by_the_synchronous_judge_is_not_resubmitted():
    store = Store(":memory:")
    request = request_for("Mortality in cirrhosis was 32% [4].")
    answer = quoting_first_passage(BatchJudge(client_for(None), MODEL).request_body(request))
    sync_client = client_for(lambda _r: httpx2.Response(200, json=answer["message"]))
    AnthropicJudge(AnthropicCaller(sync_client, MODEL, store)).judge(request)
    server = BatchServer()
    [outcome] = batch_judge(server, store).judge_many([request])
    assert server.calls == [] and outcome.cached and outcome.status == "ok"


def test_a_failed_entry_is_not_cached_and_is_submitted_again_next_time():
    store = Store(":memory:")
    request = request_for("Mortality in cirrhosis was 32% [4].")
    [outcome] = batch_judge(BatchServer(lambda _p: {"type": "expired"}), store).judge_many(
        [request]
    )
    assert outcome.reason == "batch_expired"
    server = BatchServer()
    [retried] = batch_judge(server, store).judge_many([request])
    assert retried.status == "ok" and len(server.submitted()) == 1


def test_identical_requests_are_sent_once_and_answered_each():
    server = BatchServer()
    request = request_for("Mortality in cirrhosis was 32% [4].")
    outcomes = batch_judge(server).judge_many([request, request])
    assert len(server.submitted()) == 1 and outcomes[0] == outcomes[1]


def test_requests_are_split_into_batches_of_the_configured_size():
    server = BatchServer()
    requests = [request_for(f"Claim {n} 32% [1].") for n in range(5)]
    outcomes = batch_judge(server, max_requests_per_batch=2).judge_many(requests)
    assert [len(r) for r in server.batches.values()] == [2, 2, 1]
    assert [o.status for o in outcomes] == ["ok"] * 5


def test_batches_are_also_split_by_size_in_bytes(monkeypatch):
    server = BatchServer()
    requests = [request_for(f"Claim {n} 32% [1].") for n in range(3)]
    body = BatchJudge(client_for(server), MODEL).request_body(requests[0])
    one_and_a_half = int(1.5 * (len(canonical_json(body).encode()) + 64))
    monkeypatch.setattr("citecheck.judge.batches.MAX_BATCH_BYTES", one_and_a_half)
    outcomes = batch_judge(server).judge_many(requests)
    assert [len(r) for r in server.batches.values()] == [1, 1, 1]
    assert [o.status for o in outcomes] == ["ok"] * 3


def test_a_batch_still_running_at_the_deadline_is_cancelled_and_reported_batch_timeout():
    store = Store(":memory:")
    server = BatchServer(polls_to_end=None)
    clock = FakeClock()
    judge = BatchJudge(
        client_for(server),
        MODEL,
        store,
        max_wait_s=100.0,
        poll_interval_s=30.0,
        sleep=clock.sleep,
        clock=clock,
    )
    request = request_for("Mortality in cirrhosis was 32% [4].")
    [outcome] = judge.judge_many([request])
    assert (outcome.status, outcome.reason) == ("unavailable", "batch_timeout")
    assert judged_claim(outcome, request).reason == "judge_unavailable:batch_timeout"
    assert sum(clock.sleeps) == pytest.approx(100.0) and max(clock.sleeps) <= 30.0
    assert ("POST", "/v1/messages/batches/msgbatch_0001/cancel") in server.calls
    assert not any(path.endswith("/results") for _, path in server.calls)
    assert store.llm_calls()[0]["error"] == "batch_timeout"


def test_polling_waits_between_retrievals_until_the_batch_ends():
    server = BatchServer(polls_to_end=3)
    clock = FakeClock()
    judge = BatchJudge(
        client_for(server), MODEL, poll_interval_s=30.0, sleep=clock.sleep, clock=clock
    )
    [outcome] = judge.judge_many([request_for("Mortality in cirrhosis was 32% [4].")])
    assert outcome.status == "ok" and clock.sleeps == [30.0, 30.0]


def api_error(status: int, error_type: str) -> httpx2.Response:
    return httpx2.Response(
        status, json={"type": "error", "error": {"type": error_type, "message": "x"}}
    )


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (api_error(529, "overloaded_error"), "judge_unavailable:batch_create_overloaded"),
        (api_error(400, "invalid_request_error"), "judge_failed:batch_create_http_400"),
    ],
    ids=["overloaded", "bad_request"],
)
def test_a_batch_that_cannot_be_created_gives_every_request_its_reason(response, reason):
    server = BatchServer(create_error=response)
    requests = [request_for("First claim 32% [1]."), request_for("Second claim 32% [2].")]
    outcomes = batch_judge(server).judge_many(requests)
    assert [judged_claim(o, r).reason for o, r in zip(outcomes, requests, strict=True)] == [
        reason,
        reason,
    ]


def test_a_failed_poll_is_retried_at_the_next_interval():
    server = BatchServer(faults={"retrieve": [api_error(503, "api_error")]})
    clock = FakeClock()
    judge = BatchJudge(
        client_for(server), MODEL, poll_interval_s=30.0, sleep=clock.sleep, clock=clock
    )
    [outcome] = judge.judge_many([request_for("A claim 32% [1].")])
    assert outcome.status == "ok" and clock.sleeps == [30.0]


def test_results_that_cannot_be_read_give_every_request_the_reason():
    store = Store(":memory:")
    server = BatchServer(faults={"results": [api_error(500, "api_error")]})
    requests = [request_for("First claim 32% [1]."), request_for("Second claim 32% [2].")]
    outcomes = batch_judge(server, store).judge_many(requests)
    assert [(o.status, o.reason) for o in outcomes] == [
        ("unavailable", "batch_results_server_error")
    ] * 2
    assert [r["status"] for r in store.llm_calls()] == ["unavailable"] * 2


def test_a_malformed_results_line_is_skipped_and_its_request_reported_missing():
    server = BatchServer(lambda _p: None, extra_lines=('{"custom_id": "x", "result": [tru',))
    [outcome] = batch_judge(server).judge_many([request_for("A claim 32% [1].")])
    assert outcome.reason == "batch_result_missing"


CITED = {
    "ref-004": CitedText(
        pages=[
            {
                "number": 1,
                "text": "We enrolled 745 patients with chronic liver disease in 29 countries. "
                "Mortality was 32% in patients with cirrhosis compared to 8% in those "
                "without. Respiratory failure was the main cause of death.",
            },
            {
                "number": 2,
                "text": "Alcohol-related liver disease was an independent risk factor for "
                "death. Child-Pugh class C carried the highest risk.",
            },
        ],
        artifact_sha256="c" * 64,
    )
}
CONTEXTS = [
    {
        "sentence": "Cirrhosis raises COVID-19 mortality to 32% [4].",
        "page": 4,
        "ref_ids": ["ref-004"],
    },
    {
        "sentence": "Alcohol use is a risk factor [4, 5].",
        "page": 4,
        "ref_ids": ["ref-004", "ref-005"],
    },
    {"sentence": "Older age matters [7].", "page": 4, "ref_ids": []},
]
REFERENCES = [
    {"id": "ref-004", "printed": "Marjot T, et al. J Hepatol 2021.", "doi": "10.1016/x"},
    {"id": "ref-005", "printed": "Smith A. Liver Int 2020.", "doi": None},
]


def test_judge_claims_batched_gives_the_claims_the_synchronous_judge_gives():
    def sync_answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, json=quoting_first_passage(json.loads(request.content))["message"]
        )

    sync = AnthropicJudge(AnthropicCaller(client_for(sync_answer), MODEL))
    expected = judge_claims(CONTEXTS, REFERENCES, CITED, sync, citing_doi="10.1/x")
    server = BatchServer()
    batched = judge_claims_batched(
        CONTEXTS, REFERENCES, CITED, batch_judge(server), citing_doi="10.1/x"
    )
    assert batched == expected
    assert [(c.verdict, c.reason) for c in batched] == [
        ("supported", None),
        ("supported", None),
        ("not_checkable", "no_open_full_text"),
        ("not_checkable", "citation_not_linked"),
    ]
    assert batched[0].evidence[0].artifact_sha256 == "c" * 64
    assert len(server.batches) == 1 and len(server.submitted()) == 2


def test_judge_claims_batched_without_a_model_lists_claims_with_no_model():
    claims = judge_claims_batched(CONTEXTS, REFERENCES, CITED, None)
    assert [c.reason for c in claims] == [
        "no_model",
        "no_model",
        "no_open_full_text",
        "citation_not_linked",
    ]


def test_no_batch_is_created_when_no_claim_needs_the_model():
    server = BatchServer()
    claims = judge_claims_batched(CONTEXTS[2:], REFERENCES, CITED, batch_judge(server))
    assert server.calls == [] and claims[0].reason == "citation_not_linked"


def test_the_answering_judge_refuses_a_request_it_did_not_collect():
    collector = CollectingJudge()
    pending = collector.judge(request_for("A claim [1]."))
    assert (pending.status, pending.reason) == ("unavailable", "batch_pending")
    answering = AnsweringJudge(collector.requests, [pending])
    assert answering.judge(request_for("A claim [1].")) == pending
    with pytest.raises(LookupError):
        answering.judge(request_for("Another claim [2]."))
