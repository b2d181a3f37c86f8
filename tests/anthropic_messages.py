"""Messages API responses written for tests in the API's documented format (not recorded)."""
from __future__ import annotations

MODEL = "claude-sonnet-4-6"


def message(content: list, stop_reason: str = "tool_use", *, model: str = MODEL) -> dict:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 900,
            "output_tokens": 80,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def tool_use(payload: dict, name: str = "record_verdict") -> dict:
    return {"type": "tool_use", "id": "toolu_01", "name": name, "input": payload}
