"""Replay of model responses matched on the whole request body, and their recording.

A fixture is one JSON file ``{provenance, request, response}`` where ``response`` is the
Messages API response body. A request that matches no fixture raises
``ReplayMissError`` (a changed prompt changes the body, so a stale answer can never be
replayed); the real SDK and the real interpretation code run on the recorded bytes, only
the HTTP transport is replaced.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anthropic
import httpx2

from ..errors import ReplayMissError
from ..llm import AnthropicCaller, Prompt, canonical_json
from .backends import AnthropicJudge
from .models import JudgeOutcome, JudgeRequest

if TYPE_CHECKING:
    from ..store import Store

logger = logging.getLogger(__name__)


def body_sha256(body: Any) -> str:
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


class RecordedResponses:
    """The fixtures of a folder, indexed by the sha256 of their canonical request body."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.by_body: dict[str, dict[str, Any]] = {}
        for path in sorted(self.folder.glob("*.json")):
            fixture = json.loads(path.read_text(encoding="utf-8"))
            fixture["path"] = str(path)
            self.by_body[body_sha256(fixture["request"])] = fixture

    def __contains__(self, body: Any) -> bool:
        return body_sha256(body) in self.by_body

    def get(self, body: Any) -> dict[str, Any]:
        fixture = self.by_body.get(body_sha256(body))
        if fixture is None:
            raise ReplayMissError(self._miss_message(body))
        return fixture

    def _miss_message(self, body: dict[str, Any]) -> str:
        """Name the recording for the same claim, if any, and the fields that changed."""
        claim_text = _last_text(body)
        for fixture in self.by_body.values():
            if _last_text(fixture["request"]) == claim_text:
                changed = sorted(
                    k
                    for k in set(body) | set(fixture["request"])
                    if body.get(k) != fixture["request"].get(k)
                )
                return (
                    f"no recording matches this request; {fixture['path']} has the same "
                    f"claim but differs in {changed} (prompt or model changed? re-record)"
                )
        return f"no recording in {self.folder} matches this request (sha256 {body_sha256(body)})"

    def model(self) -> str:
        """The one model the recordings were made with."""
        models = {fixture["request"].get("model") for fixture in self.by_body.values()}
        if len(models) != 1:
            raise ValueError(
                f"{self.folder}: recordings name models {sorted(map(str, models))}; "
                "pass model= explicitly"
            )
        return str(models.pop())

    def transport(self) -> httpx2.MockTransport:
        def handle(request: httpx2.Request) -> httpx2.Response:
            fixture = self.get(json.loads(request.content))
            status = fixture.get("status_code", 200)
            return httpx2.Response(status, json=fixture["response"])

        return httpx2.MockTransport(handle)


def _last_text(body: dict[str, Any]) -> str | None:
    try:
        return body["messages"][-1]["content"][-1]["text"]
    except (KeyError, IndexError, TypeError):
        return None


class ReplayJudge:
    """An :class:`AnthropicJudge` whose answers come from recorded responses."""

    def __init__(
        self,
        folder: str | Path,
        *,
        model: str | None = None,
        store: Store | None = None,
        prompt: Prompt | None = None,
    ):
        self.recordings = RecordedResponses(folder)
        model = model or self.recordings.model()
        client = anthropic.Anthropic(
            api_key="replay-no-key",
            max_retries=0,
            http_client=httpx2.Client(transport=self.recordings.transport()),
        )
        self._judge = AnthropicJudge(AnthropicCaller(client, model, store), prompt)

    def has_recording(self, request: JudgeRequest) -> bool:
        return self._judge.request_body(request) in self.recordings

    def judge(self, request: JudgeRequest) -> JudgeOutcome:
        self.recordings.get(self._judge.request_body(request))  # raises loudly on a miss
        return self._judge.judge(request)


class RecordingTransport(httpx2.BaseTransport):
    """Wraps a live transport and writes every Messages API exchange as a fixture."""

    def __init__(self, folder: str | Path, inner: httpx2.BaseTransport | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.inner = inner or httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self.inner.handle_request(request)
        response.read()
        body = json.loads(request.content)
        try:
            payload = response.json()
        except ValueError:
            payload = {"unparsed_text": response.text}
        fixture = {
            "provenance": f"recorded from a live call on {datetime.now(UTC).date().isoformat()}",
            "status_code": response.status_code,
            "request": body,
            "response": payload,
        }
        path = self.folder / f"{body_sha256(body)[:16]}.json"
        path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        headers = [
            (k, v)
            for k, v in response.headers.items()
            if k.lower() not in {"content-encoding", "content-length", "transfer-encoding"}
        ]
        return httpx2.Response(response.status_code, headers=headers, content=response.content)
