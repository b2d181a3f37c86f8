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
from collections import deque
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    requests: int
    interval_s: float
    concurrency: int

    @property
    def allowed(self) -> int:
        """Requests we start per interval: a 5% margin under the advertised limit, because
        delivery jitter bunches requests on their way to the server."""
        return max(1, self.requests - max(1, self.requests // 20)) if self.requests > 1 else 1

    @property
    def spacing_s(self) -> float:
        return self.interval_s / self.allowed


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
        self._starts: deque[float] = deque()

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

    def _window_opens(self) -> float:
        """The earliest start that keeps every sliding interval within ``allowed`` starts."""
        limits = self._limits
        while len(self._starts) > limits.allowed:
            self._starts.popleft()
        if len(self._starts) < limits.allowed:
            return 0.0
        return self._starts[0] + limits.interval_s

    @contextmanager
    def slot(self):
        with self._lock:
            while self._in_flight >= self._limits.concurrency:
                self._released.wait(timeout=1.0)
            self._in_flight += 1
            start = max(self._clock(), self._next_start, self._window_opens())
            self._next_start = start + self._limits.spacing_s * self._slowdown
            self._starts.append(start)
            wait = start - self._clock()
        try:
            if wait > 0:
                self._sleep(wait)
            yield
        finally:
            with self._lock:
                self._in_flight -= 1
                self._released.notify()
