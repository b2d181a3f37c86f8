"""Split a cited work's visible text into passages: windows of sentences on one page.

Windows overlap by one sentence so that a statement spread over two sentences is whole in
at least one passage; they never cross a page, so every passage has one page number.
"""

from __future__ import annotations

import logging
import re

from ..text.normalize import normalize_text
from ..text.sentences import split_sentences
from .models import CitedText, Passage

logger = logging.getLogger(__name__)

DEFAULT_WINDOW = 3
DEFAULT_STRIDE = 2
# A "sentence" from a table or a page without full stops can run for pages; the model
# sees at most this much of one passage, cut at a word boundary, and the cut is flagged.
MAX_PASSAGE_CHARS = 2000
_DELIMITER_LOOKALIKE = re.compile(
    r"</?\s*(passages?|claim|citing_context|reference)\b[^>]*>", re.IGNORECASE
)


def build_passages(
    cited: CitedText, *, window: int = DEFAULT_WINDOW, stride: int = DEFAULT_STRIDE
) -> list[Passage]:
    """Passages ``p1, p2, …`` in reading order, each at most ``window`` sentences."""
    if window < 1 or not 1 <= stride <= window:
        raise ValueError("need window >= 1 and 1 <= stride <= window")
    passages: list[Passage] = []
    for page in cited.pages:
        sentences = [normalize_text(s) for s in split_sentences(page.get("text") or "")]
        sentences = [s for s in sentences if s]
        if not sentences:
            continue
        starts = range(0, max(len(sentences) - window, 0) + 1, stride)
        last_start = None
        for start in starts:
            passages.append(
                _passage(len(passages), page.get("number"), sentences[start : start + window])
            )
            last_start = start
        if last_start is not None and last_start + window < len(sentences):
            passages.append(
                _passage(len(passages), page.get("number"), sentences[last_start + stride :])
            )
    logger.debug("%d passages from %d pages", len(passages), len(cited.pages))
    return passages


def _passage(index: int, page: int | None, sentences: list[str]) -> Passage:
    text = " ".join(s.strip() for s in sentences)
    truncated = len(text) > MAX_PASSAGE_CHARS
    if truncated:
        cut = text.rfind(" ", 0, MAX_PASSAGE_CHARS)
        text = text[: cut if cut > 0 else MAX_PASSAGE_CHARS]
    return Passage(id=f"p{index + 1}", page=page, text=text, truncated=truncated)


def format_passages(passages: list[Passage]) -> str:
    """Passages as delimited data for the prompt.

    Text that imitates one of the prompt's delimiter tags is neutralised so that a
    passage cannot close its own block and speak as an instruction.
    """
    blocks = []
    for passage in passages:
        text = _DELIMITER_LOOKALIKE.sub("[tag removed]", passage.text)
        page = "" if passage.page is None else f' page="{passage.page}"'
        blocks.append(f'<passage id="{passage.id}"{page}>\n{text}\n</passage>')
    return "\n".join(blocks)
