"""Full text of a PDF: clean pages, hidden text, printed references, citation contexts.

Public entry points:
- :func:`extract_pdf` runs the sandboxed worker and returns an :class:`Extraction`;
- :func:`normalize_text` is the normalisation used to compare quotes with page text;
- :func:`split_sentences` is the sentence splitter used for citation contexts.

Imports are lazy so that the extraction worker (``python -m citecheck.text.worker``),
which imports this package first, starts without loading pydantic and the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citecheck.text.extract import Extraction, extract_pdf
    from citecheck.text.normalize import normalize_text
    from citecheck.text.sentences import split_sentences

__all__ = ["Extraction", "extract_pdf", "normalize_text", "split_sentences"]

_HOMES = {
    "Extraction": "citecheck.text.extract",
    "extract_pdf": "citecheck.text.extract",
    "normalize_text": "citecheck.text.normalize",
    "split_sentences": "citecheck.text.sentences",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'citecheck.text' has no attribute {name!r}")
