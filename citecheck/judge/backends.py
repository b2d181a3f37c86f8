"""Judges: the ``Judge`` Protocol, the Anthropic-backed judge and a scripted one for tests."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import httpx2

from ..llm import AnthropicCaller, Prompt, build_request_body, load_prompt
from .models import JudgeOutcome, JudgeRequest, Verdict
from .passages import format_passages

if TYPE_CHECKING:
    from ..config import Settings
    from ..store import Store

logger = logging.getLogger(__name__)

DEFAULT_PROMPT = "support_check.v1"
TOOL_NAME = "record_verdict"
MAX_TOKENS = 1024


@runtime_checkable
class Judge(Protocol):
    """Decides whether passages of a cited work back a claim; never guesses on failure."""

    def judge(self, request: JudgeRequest) -> JudgeOutcome: ...


def prompt_variables(request: JudgeRequest) -> dict[str, str]:
    return {
        "claim": request.claim,
        "citing_context": request.citing_context,
        "reference": request.reference or "(not available)",
        "cited_passages": format_passages(request.passages),
    }


class AnthropicJudge:
    """A judge backed by the Anthropic Messages API through :class:`AnthropicCaller`."""

    def __init__(
        self, caller: AnthropicCaller, prompt: Prompt | None = None, max_tokens: int = MAX_TOKENS
    ):
        self.caller = caller
        self.prompt = prompt or load_prompt(DEFAULT_PROMPT)
        self.max_tokens = max_tokens

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        store: Store | None = None,
        http_client: httpx2.Client | None = None,
    ) -> AnthropicJudge:
        """Raises ``ConfigError`` (reason ``no_model``) when no API key is configured."""
        if settings is None:
            from ..config import get_settings

            settings = get_settings()
        return cls(AnthropicCaller.from_settings(settings, store, http_client))

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The exact Messages API body this judge sends for ``request``."""
        return build_request_body(
            model=self.caller.model,
            prompt=self.prompt,
            variables=prompt_variables(request),
            tool_name=TOOL_NAME,
            output_model=Verdict,
            max_tokens=self.max_tokens,
        )

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        result = self.caller.call_structured(
            self.prompt,
            prompt_variables(request),
            output_model=Verdict,
            tool_name=TOOL_NAME,
            max_tokens=self.max_tokens,
        )
        if result.status != "ok":
            logger.warning("judge %s: %s", result.status, result.reason)
        verdict = result.output if isinstance(result.output, Verdict) else None
        return JudgeOutcome(
            status=result.status,
            verdict=verdict,
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


ScriptedAnswer = Verdict | JudgeOutcome | Callable[[JudgeRequest], "Verdict | JudgeOutcome"]


class ScriptedJudge:
    """Answers from a queue (llm's ``MockModel.enqueue`` idea) and keeps every request.

    An empty queue raises instead of inventing a verdict.
    """

    model = "scripted"

    def __init__(
        self, answers: Iterable[ScriptedAnswer] = (), *, default: ScriptedAnswer | None = None
    ):
        self._queue: deque[ScriptedAnswer] = deque(answers)
        self.default = default
        self.history: list[JudgeRequest] = []

    def enqueue(self, *answers: ScriptedAnswer) -> None:
        self._queue.extend(answers)

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        self.history.append(request)
        if self._queue:
            answer = self._queue.popleft()
        elif self.default is not None:
            answer = self.default
        else:
            raise LookupError("ScriptedJudge has no answer queued for this request")
        if callable(answer) and not isinstance(answer, Verdict | JudgeOutcome):
            answer = answer(request)
        if isinstance(answer, JudgeOutcome):
            return answer
        return JudgeOutcome(status="ok", verdict=answer, model=self.model, prompt="scripted@0")
