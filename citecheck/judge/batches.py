"""The judge through the Anthropic Message Batches API: many claims, one submission.

Batches cost half as much as synchronous calls and are meant for batch mode, where
nobody waits on one report. A :class:`BatchJudge` sends exactly the request bodies
:class:`AnthropicJudge` would send, so the cache key is the same and a verdict already
in the store (from either path) is reused, not resubmitted. It submits once, polls with
a bounded total wait, streams the results (their order is not the request order; the
``custom_id`` is the cache key) and interprets each message with the synchronous path's
own code. An entry that did not succeed becomes an outcome with a reason
(``batch_errored``, ``batch_expired``, ``batch_canceled``, ``batch_result_missing``,
``batch_timeout``…), never a verdict.

:func:`judge_claims_batched` fits this into :func:`judge_claims` in two passes: the first
collects the requests, one batch answers them all, the second fills the claims.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anthropic
import httpx2
from pydantic import BaseModel

from ..llm import (
    AnthropicCaller,
    Prompt,
    StructuredResult,
    cache_key,
    canonical_json,
    error_reason,
    error_status,
    interpret_response,
    log_call,
)
from ..redaction import redact
from .backends import MAX_TOKENS, TOOL_NAME, AnthropicJudge
from .claims import judge_claims
from .models import CitedText, Claim, JudgeOutcome, JudgeRequest, Verdict

if TYPE_CHECKING:
    from ..config import Settings
    from ..store import Store

logger = logging.getLogger(__name__)

API_MAX_REQUESTS_PER_BATCH = 100_000
MAX_BATCH_BYTES = 200 * 2**20  # under the API's 256 MB per batch, leaving room for framing
DEFAULT_MAX_WAIT_S = 2 * 3600.0
DEFAULT_POLL_INTERVAL_S = 30.0
_ENTRY_REASONS = {
    "errored": "batch_errored",
    "expired": "batch_expired",
    "canceled": "batch_canceled",
}

Status = Literal["ok", "failed", "unavailable"]


@dataclass
class _Submission:
    """One created batch and the cache keys (``custom_id``s) it answers."""

    keys: list[str]
    batch_id: str | None = None
    submitted_at: float = 0.0
    ended: bool = False
    failure: tuple[Status, str] | None = None
    results: dict[str, StructuredResult] = field(default_factory=dict)


class BatchJudge:
    """Judges many requests with one Message Batch per ``max_requests_per_batch``.

    ``max_wait_s`` bounds the whole wait, from the first submission to the last poll;
    a batch still running then is cancelled (unless ``cancel_on_timeout`` is False) and
    its requests come back ``unavailable`` / ``batch_timeout``.
    """

    def __init__(
        self,
        client: anthropic.Anthropic,
        model: str,
        store: Store | None = None,
        prompt: Prompt | None = None,
        max_tokens: int = MAX_TOKENS,
        *,
        max_wait_s: float = DEFAULT_MAX_WAIT_S,
        poll_interval_s: float = DEFAULT_POLL_INTERVAL_S,
        max_requests_per_batch: int = 10_000,
        cancel_on_timeout: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        if not 0 < max_requests_per_batch <= API_MAX_REQUESTS_PER_BATCH:
            raise ValueError(f"max_requests_per_batch must be in 1..{API_MAX_REQUESTS_PER_BATCH}")
        self.client = client
        self.store = store
        self._sync = AnthropicJudge(AnthropicCaller(client, model, store), prompt, max_tokens)
        self.max_wait_s = max_wait_s
        self.poll_interval_s = poll_interval_s
        self.max_requests_per_batch = max_requests_per_batch
        self.cancel_on_timeout = cancel_on_timeout
        self._sleep = sleep
        self._clock = clock
        self.batch_ids: list[str] = []

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        store: Store | None = None,
        http_client: httpx2.Client | None = None,
        **options: Any,
    ) -> BatchJudge:
        """Same client policy as the synchronous judge; raises ``ConfigError`` without a key."""
        caller = AnthropicJudge.from_settings(settings, store, http_client).caller
        return cls(caller.client, caller.model, store, **options)

    @property
    def model(self) -> str:
        return self._sync.caller.model

    @property
    def prompt(self) -> Prompt:
        return self._sync.prompt

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The Messages API body of ``request``: the synchronous judge's, byte for byte."""
        return self._sync.request_body(request)

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        """A batch of one; use :meth:`judge_many` for anything else."""
        return self.judge_many([request])[0]

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeOutcome]:
        """One outcome per request, in order; identical requests are sent once."""
        bodies: dict[str, dict[str, Any]] = {}
        keys = []
        for request in requests:
            body = self.request_body(request)
            key = cache_key(self.model, self.prompt.sha256, body)
            bodies.setdefault(key, body)
            keys.append(key)
        results = self._cached(bodies)
        pending = [key for key in bodies if key not in results]
        if pending:
            logger.info(
                "judge batch: %d requests, %d cached, %d to submit",
                len(keys),
                len(results),
                len(pending),
            )
            results.update(self._run(pending, bodies))
        return [_outcome(results[key]) for key in keys]

    def _base(self) -> dict[str, str]:
        prompt = self.prompt
        return {"model": self.model, "prompt_ref": prompt.ref, "prompt_sha256": prompt.sha256}

    def _cached(self, bodies: Mapping[str, dict[str, Any]]) -> dict[str, StructuredResult]:
        found: dict[str, StructuredResult] = {}
        if self.store is None:
            return found
        for key in bodies:
            record = self.store.get_llm_call(key)
            if record is not None:
                result = interpret_response(
                    record["response_json"], Verdict, TOOL_NAME, self._base()
                )
                result.cached, result.call_id = True, record["id"]
                found[key] = result
        return found

    def _run(
        self, pending: list[str], bodies: Mapping[str, dict[str, Any]]
    ) -> dict[str, StructuredResult]:
        deadline = self._clock() + self.max_wait_s
        submissions = [
            _Submission(keys) for keys in _chunks(pending, bodies, self.max_requests_per_batch)
        ]
        for submission in submissions:
            self._submit(submission, bodies)
        self._poll(submissions, deadline)
        results: dict[str, StructuredResult] = {}
        for submission in submissions:
            if submission.failure is None and submission.ended:
                self._read_results(submission)
            elif submission.failure is None:
                submission.failure = ("unavailable", "batch_timeout")
                self._cancel(submission)
            duration_ms = int((self._clock() - submission.submitted_at) * 1000)
            for key in submission.keys:
                result = submission.results.get(key) or self._failed(
                    *(submission.failure or ("unavailable", "batch_result_missing"))
                )
                result.call_id = uuid.uuid4().hex
                if self.store is not None:
                    log_call(self.store, result, key, self.prompt, bodies[key], duration_ms)
                results[key] = result
        return results

    def _failed(self, status: Status, reason: str, raw: str | None = None) -> StructuredResult:
        return StructuredResult(status=status, reason=reason, raw_response=raw, **self._base())

    def _submit(self, submission: _Submission, bodies: Mapping[str, dict[str, Any]]) -> None:
        submission.submitted_at = self._clock()
        requests = [{"custom_id": key, "params": bodies[key]} for key in submission.keys]
        try:
            batch = self.client.messages.batches.create(requests=requests)
        except anthropic.APIError as exc:
            submission.failure = _api_failure("batch_create", exc)
            logger.warning("judge batch not created: %s", submission.failure[1])
            return
        submission.batch_id = batch.id
        submission.ended = batch.processing_status == "ended"
        self.batch_ids.append(batch.id)
        logger.info("judge batch %s created with %d requests", batch.id, len(requests))

    def _poll(self, submissions: list[_Submission], deadline: float) -> None:
        """Retrieve each open batch until all have ended or the deadline passes.

        A failed poll is logged and retried at the next interval (the SDK has already
        retried it); only the deadline ends the wait.
        """
        while True:
            waiting = [s for s in submissions if s.failure is None and not s.ended]
            for submission in waiting:
                assert submission.batch_id is not None
                try:
                    batch = self.client.messages.batches.retrieve(submission.batch_id)
                except anthropic.APIError as exc:
                    logger.warning("judge batch %s: poll failed: %s", submission.batch_id, exc)
                    continue
                submission.ended = batch.processing_status == "ended"
            if all(s.failure is not None or s.ended for s in submissions):
                return
            remaining = deadline - self._clock()
            if remaining <= 0:
                return
            self._sleep(min(self.poll_interval_s, remaining))

    def _read_results(self, submission: _Submission) -> None:
        """Stream the results file line by line (it can be large) and interpret each line."""
        assert submission.batch_id is not None
        wanted = set(submission.keys)
        try:
            with self.client.messages.batches.with_streaming_response.results(
                submission.batch_id
            ) as response:
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    custom_id, result = self._interpret_line(line)
                    if custom_id in wanted:
                        submission.results[custom_id] = result
                    else:
                        logger.warning(
                            "judge batch %s: result for unknown custom_id %r",
                            submission.batch_id,
                            custom_id,
                        )
        except anthropic.APIError as exc:
            submission.failure = _api_failure("batch_results", exc)
            logger.warning("judge batch %s: %s", submission.batch_id, submission.failure[1])
            return
        missing = len(wanted - set(submission.results))
        if missing:
            logger.warning("judge batch %s: %d results missing", submission.batch_id, missing)

    def _interpret_line(self, line: str) -> tuple[str | None, StructuredResult]:
        """One JSONL line: a succeeded message goes through the synchronous interpretation."""
        try:
            entry = json.loads(line)
            custom_id, result = entry["custom_id"], entry["result"]
            kind = result["type"]
        except (ValueError, KeyError, TypeError):
            return None, self._failed("failed", "batch_malformed_result", redact(line))
        if kind == "succeeded":
            raw = json.dumps(result.get("message"), ensure_ascii=False)
            return custom_id, interpret_response(raw, Verdict, TOOL_NAME, self._base())
        raw = redact(canonical_json(result))
        if kind not in _ENTRY_REASONS:
            return custom_id, self._failed("failed", "batch_malformed_result", raw)
        return custom_id, self._failed(_entry_status(result), _ENTRY_REASONS[kind], raw)

    def _cancel(self, submission: _Submission) -> None:
        if not self.cancel_on_timeout or submission.batch_id is None:
            return
        try:
            self.client.messages.batches.cancel(submission.batch_id)
            logger.warning("judge batch %s: wait exceeded, cancelled", submission.batch_id)
        except anthropic.APIError as exc:
            logger.warning("judge batch %s: cancel failed: %s", submission.batch_id, exc)


def _chunks(
    keys: list[str], bodies: Mapping[str, dict[str, Any]], max_requests: int
) -> list[list[str]]:
    """Consecutive groups of at most ``max_requests`` keys and ``MAX_BATCH_BYTES`` of bodies."""
    chunks: list[list[str]] = []
    size = 0
    for key in keys:
        body_bytes = len(canonical_json(bodies[key]).encode()) + len(key)
        if not chunks or len(chunks[-1]) >= max_requests or size + body_bytes > MAX_BATCH_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(key)
        size += body_bytes
    return chunks


def _entry_status(result: Mapping[str, Any]) -> Status:
    """An entry the API rejected as invalid will fail again; any other may succeed later."""
    if result.get("type") != "errored":
        return "unavailable"
    error = (result.get("error") or {}).get("error") or {}
    return "failed" if error.get("type") == "invalid_request_error" else "unavailable"


def _api_failure(stage: str, exc: anthropic.APIError) -> tuple[Status, str]:
    if isinstance(exc, anthropic.APIStatusError):
        return error_status(exc), f"{stage}_{error_reason(exc)}"
    if isinstance(exc, anthropic.APITimeoutError):
        return "unavailable", f"{stage}_timeout"
    if isinstance(exc, anthropic.APIConnectionError):
        return "unavailable", f"{stage}_connection_error"
    return "unavailable", f"{stage}_error"


def _outcome(result: StructuredResult) -> JudgeOutcome:
    """The same mapping as :meth:`AnthropicJudge.judge`."""
    return JudgeOutcome(
        status=result.status,
        verdict=result.output if isinstance(result.output, Verdict) else None,
        reason=result.reason,
        model=result.model,
        prompt=result.prompt_ref,
        prompt_sha256=result.prompt_sha256,
        input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens,
        cache_read_input_tokens=result.usage.cache_read_input_tokens,
        cache_creation_input_tokens=result.usage.cache_creation_input_tokens,
        cached=result.cached,
    )


class CollectingJudge:
    """Pass one of a batched run: keeps every request, answers ``batch_pending``.

    Claims built in this pass are thrown away; its only product is ``requests``. Usable
    across many papers, so that a batch runner can submit one batch for all of them.
    """

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        self.requests.append(request)
        return JudgeOutcome(status="unavailable", reason="batch_pending")


class AnsweringJudge:
    """Pass two: answers with outcomes obtained earlier for the same requests.

    A request that was not collected raises rather than getting a made-up answer.
    """

    def __init__(self, requests: Sequence[JudgeRequest], outcomes: Sequence[JudgeOutcome]):
        if len(requests) != len(outcomes):
            raise ValueError("one outcome per request is needed")
        self._answers = {
            _request_key(request): outcome
            for request, outcome in zip(requests, outcomes, strict=True)
        }

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        try:
            return self._answers[_request_key(request)]
        except KeyError:
            raise LookupError("no batch outcome for this request (not collected)") from None


def _request_key(request: JudgeRequest) -> str:
    return canonical_json(request.model_dump(mode="json"))


def judge_claims_batched(
    contexts: Sequence[Mapping[str, Any] | BaseModel],
    references: Sequence[Mapping[str, Any] | BaseModel],
    cited_texts: Mapping[str, CitedText],
    judge: BatchJudge | None,
    **options: Any,
) -> list[Claim]:
    """:func:`judge_claims` with every model question answered by one batch.

    Takes the same arguments (``options`` are its keyword arguments). Retrieval is
    deterministic, so the second pass asks exactly the questions the first collected.
    """
    if judge is None:
        return judge_claims(contexts, references, cited_texts, None, **options)
    collector = CollectingJudge()
    judge_claims(contexts, references, cited_texts, collector, **options)
    outcomes = judge.judge_many(collector.requests) if collector.requests else []
    answering = AnsweringJudge(collector.requests, outcomes)
    return judge_claims(contexts, references, cited_texts, answering, **options)
