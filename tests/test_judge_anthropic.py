"""AnthropicJudge through the real SDK with only the HTTP transport replaced.

Every failure mode must end as ``not_checkable`` with a reason, never as a default verdict,
and the raw response must be kept in the call log.
"""

from __future__ import annotations

import json

import anthropic
import httpx2
import pytest
from anthropic_messages import MODEL, message, tool_use

from citecheck.judge import AnthropicJudge, Claim, JudgeRequest, Passage, apply_outcome
from citecheck.llm import AnthropicCaller
from citecheck.store import Store

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
GOOD_VERDICT = {
    "verdict": "supported",
    "dimension": None,
    "rationale": "States 32%.",
    "evidence": [{"passage_id": "p1", "quote": "Mortality was 32% in patients with cirrhosis."}],
}


class Server:
    """A scripted Messages API: one response (or exception) per request, requests kept."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.requests: list[dict] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        response = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(response, Exception):
            raise response
        return response


def judge_with(server: Server, store: Store | None = None, max_retries: int = 0) -> AnthropicJudge:
    client = anthropic.Anthropic(
        api_key="sk-ant-test",
        max_retries=max_retries,
        http_client=httpx2.Client(transport=httpx2.MockTransport(server)),
    )
    # No real sleeps between retries: only the SDK's backoff delay is shortened.
    client._calculate_retry_timeout = lambda *_args, **_kwargs: 0.0
    return AnthropicJudge(AnthropicCaller(client, MODEL, store))


def judged_claim(outcome) -> Claim:
    claim = Claim(
        id="claim-001",
        quote=REQUEST.claim,
        page=1,
        cited_ref_ids=["ref-004"],
        judged_ref_id="ref-004",
    )
    apply_outcome(claim, outcome, PASSAGES, "f" * 64)
    return claim


def test_a_valid_answer_becomes_a_verdict_with_provenance_and_checked_evidence():
    store = Store(":memory:")
    judge = judge_with(Server(httpx2.Response(200, json=message([tool_use(GOOD_VERDICT)]))), store)
    claim = judged_claim(judge.judge(REQUEST))
    assert (claim.verdict, claim.reason) == ("supported", None)
    assert [(e.quote, e.page, e.artifact_sha256) for e in claim.evidence] == [
        ("Mortality was 32% in patients with cirrhosis.", 2, "f" * 64)
    ]
    assert claim.model == MODEL and claim.prompt == "support_check@1"
    assert claim.prompt_sha256 == judge.prompt.sha256
    assert claim.numbers.status == "consistent"
    assert store.llm_calls()[0]["status"] == "ok"


def test_the_request_sends_passages_as_cached_delimited_data_with_a_forced_tool():
    server = Server(httpx2.Response(200, json=message([tool_use(GOOD_VERDICT)])))
    judge_with(server).judge(REQUEST)
    [body] = server.requests
    passages_block = body["messages"][0]["content"][0]
    assert passages_block["cache_control"] == {"type": "ephemeral"}
    assert (
        '<passage id="p1" page="2">\nMortality was 32% in patients with cirrhosis.\n</passage>'
        in passages_block["text"]
    )
    assert body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert set(body["tools"][0]["input_schema"]["properties"]) == {
        "verdict",
        "dimension",
        "rationale",
        "evidence",
    }


BAD_ANSWERS = [
    ("refusal", message([], stop_reason="refusal"), "judge_failed:refusal"),
    (
        "max_tokens",
        message([{"type": "text", "text": '{"verdict": "supp'}], "max_tokens"),
        "judge_failed:max_tokens",
    ),
    (
        "context_window",
        message([tool_use(GOOD_VERDICT)], "model_context_window_exceeded"),
        "judge_failed:model_context_window_exceeded",
    ),
    ("empty_content", message([], stop_reason="end_turn"), "judge_failed:empty_content"),
    (
        "free_text_json",
        message([{"type": "text", "text": json.dumps(GOOD_VERDICT)}], "end_turn"),
        "judge_failed:no_tool_call",
    ),
    (
        "out_of_enum",
        message([tool_use({**GOOD_VERDICT, "verdict": "mostly_supported"})]),
        "judge_failed:out_of_enum",
    ),
    ("missing_field", message([tool_use({"verdict": "supported"})]), "judge_failed:invalid_output"),
]


@pytest.mark.parametrize(
    ("payload", "reason"),
    [(b, r) for _, b, r in BAD_ANSWERS],
    ids=[name for name, _, _ in BAD_ANSWERS],
)
def test_a_bad_answer_is_not_checkable_with_its_reason_and_logged_raw(payload, reason):
    store = Store(":memory:")
    claim = judged_claim(
        judge_with(Server(httpx2.Response(200, json=payload)), store).judge(REQUEST)
    )
    assert (claim.verdict, claim.reason, claim.evidence) == ("not_checkable", reason, [])
    [record] = store.llm_calls()
    assert record["status"] == "failed" and json.loads(record["response_json"]) == payload


def test_a_malformed_response_body_is_judge_failed():
    server = Server(
        httpx2.Response(
            200,
            content=b'{"id": "msg_01", "content": [tru',
            headers={"content-type": "application/json"},
        )
    )
    store = Store(":memory:")
    claim = judged_claim(judge_with(server, store).judge(REQUEST))
    assert claim.reason == "judge_failed:malformed_response"
    assert store.llm_calls()[0]["response_json"] == '{"id": "msg_01", "content": [tru'


def error_response(status: int, error_type: str) -> httpx2.Response:
    return httpx2.Response(
        status,
        headers={"retry-after-ms": "1"},
        json={"type": "error", "error": {"type": error_type, "message": "x"}},
    )


UNAVAILABLE = [
    ("overloaded_529", error_response(529, "overloaded_error"), "judge_unavailable:overloaded"),
    (
        "overloaded_without_529",
        error_response(500, "overloaded_error"),
        "judge_unavailable:overloaded",
    ),
    ("rate_limited", error_response(429, "rate_limit_error"), "judge_unavailable:rate_limited"),
    ("server_error", error_response(502, "api_error"), "judge_unavailable:server_error"),
    ("auth", error_response(401, "authentication_error"), "judge_unavailable:auth_error"),
    ("timeout", httpx2.ReadTimeout("read timed out"), "judge_unavailable:timeout"),
    (
        "connection_drop",
        httpx2.RemoteProtocolError("peer closed"),
        "judge_unavailable:connection_error",
    ),
]


@pytest.mark.parametrize(
    ("response", "reason"),
    [(r, e) for _, r, e in UNAVAILABLE],
    ids=[name for name, _, _ in UNAVAILABLE],
)
def test_outages_are_retried_a_bounded_number_of_times_then_judge_unavailable(response, reason):
    server = Server(response)
    claim = judged_claim(judge_with(server, max_retries=2).judge(REQUEST))
    assert (claim.verdict, claim.reason) == ("not_checkable", reason)
    retryable = reason not in {"judge_unavailable:auth_error"}
    assert len(server.requests) == (3 if retryable else 1)


def test_a_429_followed_by_success_gives_the_verdict():
    server = Server(
        error_response(429, "rate_limit_error"),
        httpx2.Response(200, json=message([tool_use(GOOD_VERDICT)])),
    )
    claim = judged_claim(judge_with(server, max_retries=2).judge(REQUEST))
    assert claim.verdict == "supported" and len(server.requests) == 2


def test_a_bad_request_is_judge_failed_not_retried():
    server = Server(error_response(400, "invalid_request_error"))
    claim = judged_claim(judge_with(server, max_retries=2).judge(REQUEST))
    assert claim.reason == "judge_failed:http_400" and len(server.requests) == 1
