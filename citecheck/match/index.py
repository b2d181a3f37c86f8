"""Fast candidate retrieval: which few of thousands of candidates deserve a detailed score.

Blocking by exact year or first author loses title-scrambled, noisy and year-shifted strings,
so retrieval is a sparse IDF-weighted token overlap (numpy/scipy): every printed string is
compared with every candidate in one sparse product, and only the top few per string go on to
rapidfuzz scoring. Tokens found in more than a fifth of the candidates carry no signal and
are dropped, which keeps the product sparse for pools of 10,000 and more.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from citecheck.match.candidates import Candidate
from citecheck.match.refparse import normalize_text

logger = logging.getLogger(__name__)

_MAX_DOCUMENT_SHARE = 0.2


def candidate_text(candidate: Candidate) -> str:
    """All matchable text of a candidate, for retrieval."""
    parts = [
        candidate.title or "",
        " ".join(candidate.authors),
        str(candidate.year or ""),
        candidate.venue or "",
        candidate.volume or "",
        candidate.issue or "",
        candidate.first_page or "",
        candidate.unstructured or "",
    ]
    return " ".join(p for p in parts if p)


def _tokens(text: str) -> set[str]:
    return {t for t in normalize_text(text).split() if len(t) >= 2 or t.isdigit()}


class CandidateIndex:
    """Sparse token index over a fixed list of candidates."""

    def __init__(self, candidates: Sequence[Candidate]) -> None:
        self.candidates = list(candidates)
        documents = [_tokens(candidate_text(c)) for c in self.candidates]
        frequency: dict[str, int] = {}
        for tokens in documents:
            for token in tokens:
                frequency[token] = frequency.get(token, 0) + 1
        size = max(1, len(documents))
        limit = max(2, int(size * _MAX_DOCUMENT_SHARE))
        self._vocabulary = {
            t: i
            for i, t in enumerate(sorted(t for t, n in frequency.items() if n <= limit))
        }
        self._idf = np.array(
            [
                math.log(1 + size / frequency[t])
                for t in sorted(self._vocabulary, key=self._vocabulary.get)
            ],
            dtype=np.float32,
        )
        self._matrix = self._vectorise(documents, weighted=False).T.tocsr()

    def __len__(self) -> int:
        return len(self.candidates)

    def _vectorise(
        self, documents: Sequence[set[str]], *, weighted: bool
    ) -> sparse.csr_matrix:
        rows, cols = [], []
        for row, tokens in enumerate(documents):
            for token in tokens:
                if (col := self._vocabulary.get(token)) is not None:
                    rows.append(row)
                    cols.append(col)
        data = self._idf[cols] if weighted else np.ones(len(cols), dtype=np.float32)
        return sparse.csr_matrix(
            (data, (rows, cols)),
            shape=(len(documents), len(self._vocabulary)),
            dtype=np.float32,
        )

    def top(self, texts: Sequence[str], limit: int) -> list[list[int]]:
        """For each text, the indexes of up to ``limit`` candidates sharing the most rare tokens."""
        if not self.candidates or not self._vocabulary:
            return [[] for _ in texts]
        queries = self._vectorise([_tokens(t) for t in texts], weighted=True)
        scores = (queries @ self._matrix).tocsr()
        result: list[list[int]] = []
        for row in range(scores.shape[0]):
            start, end = scores.indptr[row], scores.indptr[row + 1]
            columns, values = scores.indices[start:end], scores.data[start:end]
            if len(values) > limit:
                keep = np.argpartition(-values, limit - 1)[:limit]
                columns, values = columns[keep], values[keep]
            order = np.argsort(-values, kind="stable")
            result.append([int(c) for c in columns[order]])
        return result
