"""Prompt files, request building, the call log and the cache of citecheck.llm."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

import anthropic
import httpx2
import pytest
from pydantic import BaseModel

from citecheck.llm import (
    REPO_PROMPTS_DIR,
    AnthropicCaller,
    PromptError,
    build_request_body,
    load_prompt,
    parse_prompt,
    tool_schema,
)
from citecheck.store import Store

PROMPT_VARIABLES = {"claim": "C", "citing_context": "CC", "reference": "R", "cited_passages": "P"}


class Answer(BaseModel):
    """Record an answer."""

    label: Literal["yes", "no"]


def tool_message(answer: dict, stop_reason: str = "tool_use") -> dict:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "record", "input": answer}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }


def caller_with(handler, store: Store | None = None) -> AnthropicCaller:
    client = anthropic.Anthropic(
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    return AnthropicCaller(client, "claude-sonnet-4-6", store)


@pytest.mark.parametrize("path", sorted(REPO_PROMPTS_DIR.glob("*.md")), ids=lambda p: p.name)
def test_prompt_files_declare_exactly_the_variables_their_body_uses(path):
    prompt = parse_prompt(path.read_text(encoding="utf-8"), path.name)
    body_variables = {name for _, template in prompt.parts for name in template.get_identifiers()}
    assert set(prompt.variables) == body_variables
    assert path.name.startswith(f"{prompt.id}.v{prompt.version}")


def test_load_prompt_records_id_version_and_file_sha256():
    prompt = load_prompt("support_check.v1")
    file_bytes = (REPO_PROMPTS_DIR / "support_check.v1.md").read_bytes()
    assert prompt.ref == "support_check@1"
    assert prompt.sha256 == hashlib.sha256(file_bytes).hexdigest()
    assert [name for name, _ in prompt.parts] == ["system", "passages", "claim"]
    assert prompt.cache_part == "passages"


def test_parse_prompt_rejects_undeclared_or_unused_variables():
    text = "---\nid: x\nversion: 1\ndescription: d\nvariables: [a, b]\n---\nHello $a\n"
    with pytest.raises(PromptError, match="declared variables"):
        parse_prompt(text)


def test_render_raises_on_a_missing_variable_and_leaves_json_braces_alone():
    prompt = parse_prompt(
        '---\nid: x\nversion: 1\ndescription: d\nvariables: [a]\n---\n{"k": "$a"}\n'
    )
    assert prompt.render({"a": "v"}) == {"user": '{"k": "v"}'}
    with pytest.raises(PromptError, match="missing variable"):
        prompt.render({})


def test_request_body_puts_passages_in_a_cached_block_and_forces_the_tool():
    body = build_request_body(
        model="m",
        prompt=load_prompt("support_check.v1"),
        variables=PROMPT_VARIABLES,
        tool_name="record",
        output_model=Answer,
    )
    passages_block, claim_block = body["messages"][0]["content"]
    assert passages_block["cache_control"] == {"type": "ephemeral"}
    assert "<passages>\nP\n</passages>" in passages_block["text"]
    assert "cache_control" not in claim_block and "<claim>\nC\n</claim>" in claim_block["text"]
    assert body["tool_choice"] == {"type": "tool", "name": "record"}
    assert body["tools"][0]["input_schema"]["properties"]["label"]["enum"] == ["yes", "no"]
    assert "You check citations" in body["system"]


def test_tool_schema_inlines_nested_definitions():
    from citecheck.judge.models import Verdict

    schema = tool_schema(Verdict)
    assert "$defs" not in json.dumps(schema) and "$ref" not in json.dumps(schema)
    assert schema["properties"]["evidence"]["items"]["properties"]["quote"]["type"] == "string"


def test_call_is_logged_then_served_from_cache_and_a_prompt_change_misses():
    calls = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(json.loads(request.content))
        return httpx2.Response(200, json=tool_message({"label": "yes"}))

    store = Store(":memory:")
    caller = caller_with(handler, store)
    prompt = load_prompt("support_check.v1")
    first = caller.call_structured(
        prompt, PROMPT_VARIABLES, output_model=Answer, tool_name="record"
    )
    second = caller.call_structured(
        prompt, PROMPT_VARIABLES, output_model=Answer, tool_name="record"
    )
    assert first.status == second.status == "ok" and second.output == Answer(label="yes")
    assert (first.cached, second.cached) == (False, True) and len(calls) == 1

    [record] = store.llm_calls()
    assert record["model"] == "claude-sonnet-4-6" and record["prompt_id"] == "support_check"
    assert record["prompt_version"] == "1" and record["prompt_sha256"] == prompt.sha256
    assert (record["input_tokens"], record["output_tokens"]) == (120, 30)
    assert json.loads(record["request_json"]) == calls[0]
    assert json.loads(record["response_json"])["id"] == "msg_test"

    changed = parse_prompt(
        (REPO_PROMPTS_DIR / "support_check.v1.md").read_text().replace("version: 1", "version: 2"),
        "support_check.v2.md",
    )
    third = caller.call_structured(
        changed, PROMPT_VARIABLES, output_model=Answer, tool_name="record"
    )
    assert third.cached is False and len(calls) == 2


def test_failed_calls_are_logged_but_never_served_from_cache():
    calls = []

    def handler(_request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        return httpx2.Response(200, json=tool_message({"label": "maybe"}))

    store = Store(":memory:")
    caller = caller_with(handler, store)
    prompt = load_prompt("support_check.v1")
    for _ in range(2):
        result = caller.call_structured(
            prompt, PROMPT_VARIABLES, output_model=Answer, tool_name="record"
        )
        assert (result.status, result.reason, result.output) == ("failed", "out_of_enum", None)
    assert len(calls) == 2
    records = store.llm_calls()
    assert [r["status"] for r in records] == ["failed", "failed"]
    assert '"maybe"' in records[0]["response_json"]


def test_from_settings_without_a_key_raises_config_error():
    from citecheck.config import Settings
    from citecheck.errors import ConfigError

    with pytest.raises(ConfigError):
        AnthropicCaller.from_settings(Settings(anthropic_api_key=None))
