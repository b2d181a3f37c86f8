"""Redaction of secrets (API keys, the contact e-mail) from every string we write.

Every log line, error message, cache key and recording goes through ``redact``; the
set of secret values is registered once from the settings.
"""
from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

_SECRET_VALUES: set[str] = set()
SECRET_PARAMS = frozenset({"mailto", "api_key", "email", "key", "apikey", "token"})
_MAILTO_IN_UA = re.compile(r"mailto:[^\s;)]+", re.IGNORECASE)


def register_secret(value: str | None) -> None:
    """Register a secret and the spellings it takes inside URLs (``@`` → ``%40``, ``+`` →
    ``%2B``…), which is how third-party DEBUG logs (urllib3) print request lines."""
    if value and len(value) >= 4:
        _SECRET_VALUES.update({value, quote(value, safe=""), quote_plus(value),
                               quote(value, safe="@+")})


def redact(text: str) -> str:
    for value in sorted(_SECRET_VALUES, key=len, reverse=True):
        if value in text:
            text = text.replace(value, "REDACTED")
    return _MAILTO_IN_UA.sub("mailto:REDACTED", text)


def redact_url(url: str) -> str:
    """The URL with credential parameter values replaced, for logs and messages."""
    parts = urlsplit(url)
    query = [(k, "REDACTED" if k.lower() in SECRET_PARAMS else v)
             for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return redact(urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), "")))


class RedactingFilter(logging.Filter):
    """Rewrites every record's message so no secret reaches a handler, at any level."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, None
        return True


def install_log_redaction() -> None:
    """Attach the filter to every handler of the root logger (and future ones via the root)."""
    root = logging.getLogger()
    for handler in root.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
