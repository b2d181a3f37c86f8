"""citecheck's exceptions: library code raises these; the CLI maps them to exit codes."""
from __future__ import annotations


class CitecheckError(Exception):
    """Base class; ``reason`` is the machine-readable code written into reports."""

    reason = "error"

    def __init__(self, message: str, *, reason: str | None = None):
        super().__init__(message)
        if reason:
            self.reason = reason


class BadInputError(CitecheckError):
    """The user's input cannot be used (exit code 2)."""

    reason = "bad_input"


class InvalidDOIError(BadInputError):
    reason = "invalid_doi"


class ConfigError(BadInputError):
    """Missing or invalid configuration (a key, a contact address)."""

    reason = "config_error"


class SourceError(CitecheckError):
    """A remote service did not give a usable answer."""

    reason = "upstream_error"

    def __init__(self, message: str, *, reason: str | None = None, status: int | None = None,
                 retryable: bool = False):
        super().__init__(message, reason=reason)
        self.status = status
        self.retryable = retryable


class NotFoundError(SourceError):
    reason = "not_found"


class RateLimitedError(SourceError):
    reason = "rate_limited"


class CircuitOpenError(CitecheckError):
    """Too many recent failures: the run stops instead of hammering a service.

    Deliberately not a ``SourceError``: stages record source errors and go on, but an open
    breaker must stop the paper (and the batch), not degrade every later report."""

    reason = "circuit_open"


class ReplayMissError(SourceError):
    """A replayed run asked for a request that is not in the recording."""

    reason = "not_recorded"


class BlockedDestinationError(SourceError):
    reason = "blocked_destination"



class LLMError(CitecheckError):
    reason = "judge_unavailable"
