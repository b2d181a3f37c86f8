"""JSON that is safe to place inside an HTML ``<script>`` element.

Report strings come from third parties: a DOI can contain ``</script>``, a title can contain
``<!--``. Inside a ``<script>`` element the HTML parser looks for ``</script`` (and, after
``<!--``, for ``<script``) before any JSON parser sees the text, so those characters must not
appear literally. Escaping ``<``, ``>`` and ``&`` as ``\\u003c``, ``\\u003e`` and ``\\u0026``
removes every such sequence while keeping the JSON identical once parsed. U+2028 and U+2029 are
escaped too: they are valid in JSON strings but were line terminators in JavaScript source
before ES2019, so older engines evaluating the text as a script literal break on them.

These characters can only occur inside JSON strings (never in JSON's structural syntax), so a
plain substitution on the serialised text is exact.
"""
from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel

logger = logging.getLogger(__name__)

_SCRIPT_UNSAFE = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_TRANSLATION = str.maketrans(_SCRIPT_UNSAFE)


def script_safe_json(obj: Any) -> str:
    """Serialise ``obj`` (JSON-compatible data or a pydantic model) for a ``<script>`` element.

    ``json.loads`` of the result equals ``json.loads(json.dumps(obj))``; the result contains no
    ``<``, ``>``, ``&``, U+2028 or U+2029 character.
    """
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.translate(_TRANSLATION)
