"""The prompt file of the one model read of an unmatched reference."""

from __future__ import annotations

import re
import string
from pathlib import Path

import yaml

PROMPT = Path(__file__).resolve().parents[1] / "prompts" / "reference_kind.v1.md"


def _split(text: str) -> tuple[dict, str]:
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def test_reference_kind_prompt_front_matter_and_variables() -> None:
    meta, body = _split(PROMPT.read_text(encoding="utf-8"))
    assert meta["id"] == "reference_kind" and meta["version"] == 1
    assert meta["description"]
    used = {
        m.group("named") or m.group("braced")
        for m in string.Template.pattern.finditer(body)
        if m.group("named") or m.group("braced")
    }
    assert set(meta["variables"]) == used == {"printed"}


def test_reference_kind_prompt_renders_with_braces_left_alone() -> None:
    _, body = _split(PROMPT.read_text(encoding="utf-8"))
    rendered = string.Template(body).substitute(printed="R Core Team (2020). R. Vienna.")
    assert "R Core Team (2020)" in rendered
    assert re.search(r'\{"verdict": "not_indexed_kind"', rendered)
