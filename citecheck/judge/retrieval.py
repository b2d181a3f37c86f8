"""BM25 retrieval (bm25s) of the passages most likely to bear on a claim.

The model sees a few passages, not the whole paper: this keeps prompts small and the
evidence reproducible. Tokenising is done here (lower-case words, English stop words, a
light suffix folding) so that queries and passages share one vocabulary.
"""

from __future__ import annotations

import logging
import re

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN

from .models import Candidate, Passage

logger = logging.getLogger(__name__)

_WORD = re.compile(r"\w+", re.UNICODE)
_CITATION_MARKER = re.compile(
    r"<\|\w+\|>"  # corpus markers such as <|multi_cit|>
    r"|\[\s*\d+(?:\s*[-\u2013,]\s*\d+)*\s*\]"  # [12], [3-5] (en dash too), [1, 4]
    r"|\(\s*[A-Z][^()]{0,80}?\b(?:19|20)\d{2}[a-z]?\s*\)"  # (Smith et al., 2010)
)
_STOPWORDS = frozenset(STOPWORDS_EN)


def strip_citation_markers(text: str) -> str:
    return _CITATION_MARKER.sub(" ", text)


def _fold(word: str) -> str:
    """Fold plural and common verb endings so that 'patients' meets 'patient'."""
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + replacement
    return word


def tokenize(text: str) -> list[str]:
    words = (w.lower() for w in _WORD.findall(text))
    return [_fold(w) for w in words if w not in _STOPWORDS and (len(w) > 1 or w.isdigit())]


class PassageIndex:
    """A BM25 index over one cited work's passages."""

    def __init__(self, passages: list[Passage]):
        self.passages = passages
        self._retriever: bm25s.BM25 | None = None
        tokens = [tokenize(p.text) for p in passages]
        if any(tokens):
            self._retriever = bm25s.BM25()
            self._retriever.index([t or [""] for t in tokens], show_progress=False)

    def scores(self, claim: str) -> np.ndarray:
        """One BM25 score per passage (zeros when nothing overlaps)."""
        result = np.zeros(len(self.passages), dtype=np.float32)
        if self._retriever is None:
            return result
        vocabulary = self._retriever.vocab_dict
        query = [t for t in tokenize(strip_citation_markers(claim)) if t in vocabulary]
        if not query:
            return result
        return np.asarray(self._retriever.get_scores(query), dtype=np.float32)

    def top_k(self, claim: str, k: int = 3) -> list[Candidate]:
        """The ``k`` best passages with a positive score, best first; ties keep text order."""
        scores = self.scores(claim)
        order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
        return [
            Candidate(
                passage_id=self.passages[i].id,
                page=self.passages[i].page,
                score=round(float(scores[i]), 4),
                text=self.passages[i].text,
            )
            for i in order[:k]
            if scores[i] > 0
        ]
