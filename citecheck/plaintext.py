"""Third-party text (Crossref titles carry HTML, abstracts carry JATS and MathML) → plain text.

Report text fields hold plain text only: tags are removed, entities decoded, whitespace
collapsed, and a stray ``<`` or ``>`` that survives is replaced by its full-width form so no
consumer can mistake report text for markup.
"""
from __future__ import annotations

import html
import re

_TAG = re.compile(r"<[^<>]{0,2000}>")
_SPACE = re.compile(r"\s+")
_DROP_BLOCKS = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)


def to_plain_text(value: str | None) -> str | None:
    if value is None:
        return None
    text = str(value)
    for _ in range(2):  # entities may hide tags: "&lt;b&gt;" decodes to "<b>"
        text = _DROP_BLOCKS.sub(" ", text)
        text = _TAG.sub(" ", text)
        text = html.unescape(text)
    text = _DROP_BLOCKS.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = text.replace("<", "\uff1c").replace(">", "\uff1e")
    text = text.replace("\u2028", " ").replace("\u2029", " ")
    return _SPACE.sub(" ", text).strip()


def safe_http_url(value: str | None) -> str | None:
    """Only http(s) URLs survive into a report (no ``javascript:``/``data:`` links)."""
    if not value:
        return None
    text = str(value).strip()
    return text if re.match(r"^https?://[^\s<>\"']+$", text, re.IGNORECASE) else None
