"""Full text of a PDF: clean pages, hidden text, printed references, citation contexts.

Public entry points:
- :func:`extract_pdf` runs the sandboxed worker and returns an :class:`Extraction`;
- :func:`normalize_text` is the normalisation used to compare quotes with page text;
- :func:`split_sentences` is the sentence splitter used for citation contexts.
"""

from __future__ import annotations

from citecheck.text.extract import Extraction, extract_pdf
from citecheck.text.normalize import normalize_text
from citecheck.text.sentences import split_sentences

__all__ = ["Extraction", "extract_pdf", "normalize_text", "split_sentences"]
