"""The one model read of a printed reference that no registry, index or search found:
is it a kind of work indexes do not list (``unchecked``), or a scholarly work that should
be indexed (``not_found``)? Goes through ``citecheck.llm`` like every model call (prompt
file ``prompts/reference_kind.v1.md``, logged and cached in the store)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .errors import LLMError
from .llm import AnthropicCaller, load_prompt

PROMPT = "reference_kind.v1"
TOOL_NAME = "record_reference_kind"


class ReferenceKind(BaseModel):
    """Record what kind of work the printed reference is."""

    verdict: Literal["not_indexed_kind", "scholarly"]
    kind: str | None = Field(default=None, description="For not_indexed_kind: software, web_page, "
                             "report, standard, book_chapter, book, thesis, dataset, patent, ...")
    reason: str = Field(description="One short sentence.")


class ModelReferenceClassifier:
    """``ReferenceKindClassifier`` for ``citecheck.match.link_references``."""

    def __init__(self, caller: AnthropicCaller):
        self.caller = caller
        self.prompt = load_prompt(PROMPT)

    def classify(self, printed: str) -> tuple[str, str]:
        result = self.caller.call_structured(self.prompt, {"printed": printed[:2000]},
                                             output_model=ReferenceKind, tool_name=TOOL_NAME,
                                             max_tokens=300)
        if result.status != "ok" or not isinstance(result.output, ReferenceKind):
            raise LLMError(f"reference-kind model: {result.status} {result.reason}",
                           reason=f"judge_{result.status}")
        answer = result.output
        if answer.verdict == "not_indexed_kind":
            return "not_indexed_kind", (answer.kind or "other").strip().lower().replace(" ", "_")
        return "scholarly", answer.reason
