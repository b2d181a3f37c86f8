"""The one place that calls a language model.

Three jobs: load versioned prompt files from ``prompts/``; build a Messages API request
that asks for structured output through a forced tool call; interpret the answer without
ever inventing one (refusals, truncation, malformed output and outages come back as a
status and a machine-readable reason). Every call is logged in the SQLite store, and the
same table is the cache: the key is the sha256 of (model, prompt sha256, request body),
so a re-run is free and a changed prompt misses.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import string
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anthropic
import httpx2
import yaml
from pydantic import BaseModel, ValidationError

from .errors import ConfigError
from .redaction import redact

if TYPE_CHECKING:
    from .config import Settings
    from .store import Store

logger = logging.getLogger(__name__)

REPO_PROMPTS_DIR = Path(__file__).resolve().parents[1] / "prompts"
_PART_MARKER = re.compile(r"^=== (\w+) ===[ \t]*$", re.MULTILINE)
_FAILED_STOP_REASONS = frozenset({"refusal", "max_tokens", "model_context_window_exceeded"})


class PromptError(ValueError):
    """A prompt file is malformed or its declared variables disagree with its body."""


@dataclass(frozen=True)
class Prompt:
    """A parsed prompt file: front matter plus named ``string.Template`` parts.

    The body is split by ``=== name ===`` lines so that the static instructions can go
    into ``system`` and the passages into their own content block, which is the block
    marked for prompt caching (``cache_part``).
    """

    id: str
    version: int
    description: str
    variables: tuple[str, ...]
    parts: tuple[tuple[str, string.Template], ...]
    sha256: str
    cache_part: str | None = None
    model: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.id}@{self.version}"

    def render(self, variables: Mapping[str, str]) -> dict[str, str]:
        """Substitute every variable; a missing or an undeclared one raises."""
        extra = set(variables) - set(self.variables)
        if extra:
            raise PromptError(f"{self.ref}: undeclared variables {sorted(extra)}")
        try:
            return {name: template.substitute(variables).strip() for name, template in self.parts}
        except KeyError as exc:
            raise PromptError(f"{self.ref}: missing variable {exc.args[0]!r}") from exc


def parse_prompt(text: str, source: str = "<string>") -> Prompt:
    """Parse a prompt file and check that its declared variables equal its body's."""
    if not text.startswith("---\n"):
        raise PromptError(f"{source}: no front matter")
    try:
        header_text, body = text[4:].split("\n---\n", 1)
    except ValueError as exc:
        raise PromptError(f"{source}: unterminated front matter") from exc
    header = yaml.safe_load(header_text) or {}
    for key in ("id", "version", "description", "variables"):
        if key not in header:
            raise PromptError(f"{source}: front matter lacks {key!r}")
    parts = _split_parts(body, source)
    declared_parts = header.get("parts")
    if declared_parts is not None and list(declared_parts) != [name for name, _ in parts]:
        raise PromptError(f"{source}: parts {declared_parts} do not match the body")
    used = {name for _, template in parts for name in _template_identifiers(template)}
    declared = set(header["variables"])
    if used != declared:
        raise PromptError(
            f"{source}: declared variables {sorted(declared)} but the body uses {sorted(used)}"
        )
    cache_part = header.get("cache_part")
    if cache_part is not None and cache_part not in dict(parts):
        raise PromptError(f"{source}: cache_part {cache_part!r} is not a part")
    return Prompt(
        id=str(header["id"]),
        version=int(header["version"]),
        description=str(header["description"]),
        variables=tuple(header["variables"]),
        parts=tuple(parts),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        cache_part=cache_part,
        model=header.get("model"),
    )


def _split_parts(body: str, source: str) -> list[tuple[str, string.Template]]:
    markers = list(_PART_MARKER.finditer(body))
    if not markers:
        return [("user", string.Template(body))]
    if body[: markers[0].start()].strip():
        raise PromptError(f"{source}: text before the first part marker")
    parts = []
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        end = following.start() if following else len(body)
        parts.append((marker.group(1), string.Template(body[marker.end() : end])))
    return parts


def _template_identifiers(template: string.Template) -> set[str]:
    if not template.is_valid():
        raise PromptError(f"invalid placeholder in template: {template.template[:60]!r}")
    return set(template.get_identifiers())


def load_prompt(name: str) -> Prompt:
    """Load ``<name>.md`` from the installed package, else from the repository's ``prompts/``."""
    filename = f"{name}.md"
    packaged = resources.files("citecheck").joinpath("prompts").joinpath(filename)
    if packaged.is_file():
        return parse_prompt(packaged.read_text(encoding="utf-8"), filename)
    local = REPO_PROMPTS_DIR / filename
    if local.is_file():
        return parse_prompt(local.read_text(encoding="utf-8"), filename)
    raise PromptError(f"prompt {name!r} not found in the package or in {REPO_PROMPTS_DIR}")


def tool_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema with ``$ref``s inlined, as a tool ``input_schema``."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(definitions[node["$ref"].rsplit("/", 1)[-1]])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return inline(schema)


def build_request_body(
    *,
    model: str,
    prompt: Prompt,
    variables: Mapping[str, str],
    tool_name: str,
    output_model: type[BaseModel],
    max_tokens: int = 1024,
) -> dict[str, Any]:
    """The Messages API request: system part, user parts as blocks, one forced tool."""
    rendered = prompt.render(variables)
    system = rendered.pop("system", None)
    blocks: list[dict[str, Any]] = []
    for name, text in rendered.items():
        block: dict[str, Any] = {"type": "text", "text": text}
        if name == prompt.cache_part:
            block["cache_control"] = {"type": "ephemeral"}
        blocks.append(block)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "tools": [
            {
                "name": tool_name,
                "description": output_model.__doc__ or tool_name,
                "input_schema": tool_schema(output_model),
            }
        ],
        "tool_choice": {"type": "tool", "name": tool_name},
        "messages": [{"role": "user", "content": blocks}],
    }
    if system is not None:
        body["system"] = system
    return body


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(model: str, prompt_sha256: str, body: Mapping[str, Any]) -> str:
    material = canonical_json({"model": model, "prompt_sha256": prompt_sha256, "body": body})
    return hashlib.sha256(material.encode()).hexdigest()


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


@dataclass
class StructuredResult:
    """The outcome of one structured call. ``output`` is set only when ``status == "ok"``."""

    status: Literal["ok", "failed", "unavailable"]
    model: str
    prompt_ref: str
    prompt_sha256: str
    output: BaseModel | None = None
    reason: str | None = None
    raw_response: str | None = None
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    call_id: str | None = None


class AnthropicCaller:
    """Structured calls to the Anthropic Messages API, logged and cached in the store."""

    def __init__(self, client: anthropic.Anthropic, model: str, store: Store | None = None):
        self.client = client
        self.model = model
        self.store = store

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        store: Store | None = None,
        http_client: httpx2.Client | None = None,
    ) -> AnthropicCaller:
        """Explicit timeout and retries: the SDK's own default timeout is ten minutes."""
        if settings.anthropic_api_key is None:
            raise ConfigError("ANTHROPIC_API_KEY is not set", reason="no_model")
        client = anthropic.Anthropic(
            api_key=settings.anthropic_api_key.get_secret_value(),
            timeout=httpx2.Timeout(settings.llm_timeout_s, connect=5.0),
            max_retries=settings.llm_max_retries,
            http_client=http_client,
        )
        return cls(client, settings.judge_model, store)

    def call_structured(
        self,
        prompt: Prompt,
        variables: Mapping[str, str],
        *,
        output_model: type[BaseModel],
        tool_name: str,
        max_tokens: int = 1024,
    ) -> StructuredResult:
        body = build_request_body(
            model=self.model,
            prompt=prompt,
            variables=variables,
            tool_name=tool_name,
            output_model=output_model,
            max_tokens=max_tokens,
        )
        key = cache_key(self.model, prompt.sha256, body)
        base = {"model": self.model, "prompt_ref": prompt.ref, "prompt_sha256": prompt.sha256}
        if self.store is not None and (record := self.store.get_llm_call(key)) is not None:
            result = interpret_response(record["response_json"], output_model, tool_name, base)
            result.cached, result.call_id = True, record["id"]
            return result
        started = time.monotonic()
        result = self._send(body, output_model, tool_name, base)
        duration_ms = int((time.monotonic() - started) * 1000)
        result.call_id = uuid.uuid4().hex
        self._log(result, key, prompt, body, duration_ms)
        return result

    def _send(
        self,
        body: dict[str, Any],
        output_model: type[BaseModel],
        tool_name: str,
        base: dict[str, str],
    ) -> StructuredResult:
        try:
            raw = self.client.messages.with_raw_response.create(**body)
        except anthropic.APIStatusError as exc:
            return StructuredResult(
                status=error_status(exc),
                reason=error_reason(exc),
                raw_response=redact(exc.response.text),
                **base,
            )
        except anthropic.APITimeoutError:
            return StructuredResult(status="unavailable", reason="timeout", **base)
        except anthropic.APIConnectionError:
            return StructuredResult(status="unavailable", reason="connection_error", **base)
        return interpret_response(raw.http_response.text, output_model, tool_name, base)

    def _log(
        self,
        result: StructuredResult,
        key: str,
        prompt: Prompt,
        body: dict[str, Any],
        duration_ms: int,
    ) -> None:
        if self.store is not None:
            log_call(self.store, result, key, prompt, body, duration_ms)


def log_call(
    store: Store,
    result: StructuredResult,
    key: str,
    prompt: Prompt,
    body: Mapping[str, Any],
    duration_ms: int,
) -> None:
    """Write one call (request, raw response, tokens, status) to the store's log and cache."""
    store.put_llm_call(
        {
            "id": result.call_id,
            "cache_key": key,
            "model": result.model,
            "prompt_id": prompt.id,
            "prompt_version": str(prompt.version),
            "prompt_sha256": prompt.sha256,
            "request_json": canonical_json(body),
            "response_json": result.raw_response,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "duration_ms": duration_ms,
            "datetime_utc": datetime.now(UTC).isoformat(),
            "status": result.status,
            "error": result.reason,
        }
    )


def error_status(exc: anthropic.APIStatusError) -> Literal["failed", "unavailable"]:
    """A request the API rejects as such is ``failed``; anything else may succeed later."""
    if isinstance(
        exc,
        anthropic.BadRequestError
        | anthropic.UnprocessableEntityError
        | anthropic.ContentTooLargeError,
    ):
        return "failed"
    return "unavailable"


def error_reason(exc: anthropic.APIStatusError) -> str:
    """A machine-readable reason for an API error (``overloaded``, ``rate_limited``…)."""
    error_type = ""
    if isinstance(exc.body, dict):
        error = exc.body.get("error")
        if isinstance(error, dict):
            error_type = str(error.get("type", ""))
    if exc.status_code == 529 or error_type == "overloaded_error":
        return "overloaded"
    if isinstance(exc, anthropic.RateLimitError):
        return "rate_limited"
    if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return "auth_error"
    if isinstance(exc, anthropic.InternalServerError):
        return "server_error"
    return f"http_{exc.status_code}"


def interpret_response(
    raw_text: str | None, output_model: type[BaseModel], tool_name: str, base: dict[str, str]
) -> StructuredResult:
    """Turn a raw Messages API response body into a result, never a guessed answer."""

    def failed(reason: str, usage: Usage | None = None) -> StructuredResult:
        return StructuredResult(
            status="failed", reason=reason, raw_response=raw_text, usage=usage or Usage(), **base
        )

    try:
        message = anthropic.types.Message.model_validate_json(raw_text or "")
    except ValidationError:
        return failed("malformed_response")
    usage = Usage(
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        cache_creation_input_tokens=message.usage.cache_creation_input_tokens or 0,
        cache_read_input_tokens=message.usage.cache_read_input_tokens or 0,
    )
    if message.stop_reason in _FAILED_STOP_REASONS:
        return failed(str(message.stop_reason), usage)
    if not message.content:
        return failed("empty_content", usage)
    calls = [
        block for block in message.content if block.type == "tool_use" and block.name == tool_name
    ]
    if not calls:
        return failed("no_tool_call", usage)
    try:
        output = output_model.model_validate(calls[0].input)
    except ValidationError as exc:
        out_of_enum = any(error["type"] in {"literal_error", "enum"} for error in exc.errors())
        return failed("out_of_enum" if out_of_enum else "invalid_output", usage)
    return StructuredResult(status="ok", output=output, raw_response=raw_text, usage=usage, **base)
