"""Per-service request pacing that follows the limits a service advertises.

Crossref sends ``X-Rate-Limit-Limit``/``X-Rate-Limit-Interval`` and ``x-concurrency-limit``
and changes them over time, so the limits are read from every response instead of being
constants. A small hand-written limiter is used because off-the-shelf buckets
(pyrate-limiter, aiolimiter) do not re-size themselves from response headers.
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    requests: int
    interval_s: float
    concurrency: int

    @property
    def spacing_s(self) -> float:
        return self.interval_s / max(self.requests, 1)


DEFAULT_LIMITS = {
    "crossref": Limits(10, 1.0, 3),
    "crossref-public": Limits(5, 1.0, 1),
    "crossref-list": Limits(3, 1.0, 1),
    "openalex": Limits(10, 1.0, 5),
    "unpaywall": Limits(5, 1.0, 2),
    "pdf": Limits(2, 1.0, 2),
}
_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$", re.IGNORECASE)


def parse_interval(value: str | None) -> float | None:
    """``"1s"`` → 1.0, ``"500ms"`` → 0.5; malformed, zero or negative → ``None``."""
    if not value:
        return None
    match = _INTERVAL.match(value)
    if not match:
        return None
    number = float(match.group(1))
    unit = (match.group(2) or "s").lower()
    seconds = number / 1000 if unit == "ms" else number * 60 if unit == "m" else number
    return seconds if seconds > 0 else None


def parse_positive_int(value: str | None) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def limits_from_headers(headers: Mapping[str, str], current: Limits) -> Limits:
    """New limits from response headers; anything missing or malformed keeps the current value."""
    lower = {k.lower(): v for k, v in headers.items()}
    requests = parse_positive_int(lower.get("x-rate-limit-limit")) or current.requests
    interval = parse_interval(lower.get("x-rate-limit-interval")) or current.interval_s
    concurrency = parse_positive_int(lower.get("x-concurrency-limit")) or current.concurrency
    return Limits(min(requests, 1000), min(interval, 3600.0), min(concurrency, 64))


class AdaptiveLimiter:
    """Spacing between request starts plus a cap on requests in flight, both adjustable."""

    def __init__(self, limits: Limits, *, clock=time.monotonic, sleep=time.sleep):
        self._limits = limits
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._in_flight = 0
        self._released = threading.Condition(self._lock)
        self._next_start = 0.0
        self._slowdown = 1.0

    @property
    def limits(self) -> Limits:
        return self._limits

    def update(self, headers: Mapping[str, str]) -> None:
        with self._lock:
            self._limits = limits_from_headers(headers, self._limits)
            self._released.notify_all()

    def slow_down(self) -> None:
        """After a 429: halve the rate until a success."""
        with self._lock:
            self._slowdown = min(self._slowdown * 2, 16.0)

    def recovered(self) -> None:
        with self._lock:
            self._slowdown = max(1.0, self._slowdown / 2)

    @contextmanager
    def slot(self):
        with self._lock:
            while self._in_flight >= self._limits.concurrency:
                self._released.wait(timeout=1.0)
            self._in_flight += 1
            start = max(self._clock(), self._next_start)
            self._next_start = start + self._limits.spacing_s * self._slowdown
            wait = start - self._clock()
        try:
            if wait > 0:
                self._sleep(wait)
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                self._released.notify()
