"""The reference-kind read through the real Anthropic SDK with only the transport replaced."""
import json

import httpx2
from anthropic_messages import message, tool_use
from pydantic import SecretStr

from citecheck.config import Settings
from citecheck.llm import AnthropicCaller
from citecheck.match import link_references
from citecheck.refkind import TOOL_NAME, ModelReferenceClassifier
from citecheck.store import Store


def tool_answer(payload: dict) -> dict:
    return message([tool_use(payload, TOOL_NAME)])


def classifier_answering(payloads, seen):
    queue = list(payloads)

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=tool_answer(queue.pop(0)))
    settings = Settings(anthropic_api_key=SecretStr("sk-ant-test-key-0000"), llm_max_retries=0)
    client = httpx2.Client(transport=httpx2.MockTransport(handler))
    caller = AnthropicCaller.from_settings(settings, Store(":memory:"), http_client=client)
    return ModelReferenceClassifier(caller)


def test_unmatched_entries_are_read_once_and_sorted_into_unchecked_or_not_found():
    seen = []
    classifier = classifier_answering([
        {"verdict": "not_indexed_kind", "kind": "software", "reason": "An R package."},
        {"verdict": "scholarly", "kind": None, "reason": "A journal article with pages."},
    ], seen)
    printed = ["R Core Team. 2019. R: a language and environment for statistical computing.",
               "Nobody Q. 2021. A study that does not exist. J Imag Res 4:1-9."]
    result = link_references(printed, [], classifier=classifier)
    assert [(i.status, i.reason) for i in result.items] == [
        ("unchecked", "software"), ("not_found", "not_in_registry")]
    assert len(seen) == 2 and seen[0]["tool_choice"]["name"] == TOOL_NAME
    assert "R Core Team" in json.dumps(seen[0]["messages"])


def test_a_failed_model_call_leaves_the_entry_unchecked():
    def handler(request):
        return httpx2.Response(529, json={"type": "error", "error": {"type": "overloaded_error",
                                                                     "message": "Overloaded"}})
    settings = Settings(anthropic_api_key=SecretStr("sk-ant-test-key-0000"), llm_max_retries=0)
    caller = AnthropicCaller.from_settings(settings, Store(":memory:"),
                                           http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    result = link_references(["Some Unknown Work. 2020."], [],
                             classifier=ModelReferenceClassifier(caller))
    assert result.items[0].status == "unchecked"
    assert result.items[0].reason == "model_error"
