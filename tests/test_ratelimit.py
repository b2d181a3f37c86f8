"""The header-driven limiter (RELIABILITY.md A3): parsing, clamping, spacing, concurrency."""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citecheck.ratelimit import (
    DEFAULT_LIMITS,
    AdaptiveLimiter,
    Limits,
    limits_from_headers,
    parse_interval,
    parse_positive_int,
)

CROSSREF = DEFAULT_LIMITS["crossref"]


class FrozenClock:
    """A clock that only moves when told; ``sleep`` records the waits and advances it."""

    def __init__(self):
        self.now = 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))
        self.now += seconds


@pytest.mark.parametrize("text, seconds", [
    ("1s", 1.0), ("1", 1.0), (" 2 s ", 2.0), ("500ms", 0.5), ("2m", 120.0), ("1.5s", 1.5),
    ("1S", 1.0), ("abc", None), ("0s", None), ("0", None), ("-1s", None), ("", None),
    (None, None), ("1h", None), ("1 s 2", None), ("nan", None), ("inf", None),
])
def test_parse_interval(text, seconds):
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("text, number", [
    ("3", 3), (" 10 ", 10), ("0", None), ("-2", None), ("abc", None), ("", None), (None, None),
    ("1.5", None), ("1e3", None),
])
def test_parse_positive_int(text, number):
    assert parse_positive_int(text) == number


@given(st.text(max_size=20))
def test_header_parsers_never_raise_and_never_return_non_positive(text):
    interval = parse_interval(text)
    number = parse_positive_int(text)
    assert interval is None or interval > 0
    assert number is None or number > 0


@given(st.dictionaries(st.sampled_from(["X-Rate-Limit-Limit", "x-rate-limit-interval",
                                        "X-Concurrency-Limit", "Retry-After", "x-other"]),
                       st.text(max_size=12) | st.integers(-10**12, 10**12).map(str)))
def test_limits_from_any_headers_stay_positive_and_bounded(headers):
    limits = limits_from_headers(headers, CROSSREF)
    assert 1 <= limits.requests <= 1000
    assert 0 < limits.interval_s <= 3600
    assert 1 <= limits.concurrency <= 64
    assert limits.spacing_s > 0


def test_limits_follow_the_advertised_headers_case_insensitively():
    headers = {"X-RATE-LIMIT-LIMIT": "3", "x-rate-limit-interval": "1s", "X-Concurrency-Limit": "1"}
    assert limits_from_headers(headers, CROSSREF) == Limits(3, 1.0, 1)


def test_malformed_or_missing_headers_keep_the_current_limits():
    current = Limits(7, 2.0, 2)
    assert limits_from_headers({}, current) == current
    assert limits_from_headers({"X-Rate-Limit-Limit": "abc", "X-Rate-Limit-Interval": "0s",
                                "x-concurrency-limit": "0"}, current) == current
    assert limits_from_headers({"X-Rate-Limit-Limit": "50"}, current) == Limits(50, 2.0, 2)


def test_absurd_advertised_limits_are_clamped():
    limits = limits_from_headers({"X-Rate-Limit-Limit": "999999999", "X-Rate-Limit-Interval":
                                  "999999s", "x-concurrency-limit": "100000"}, CROSSREF)
    assert limits == Limits(1000, 3600.0, 64)


def test_spacing_between_request_starts_follows_the_limits():
    clock = FrozenClock()
    limiter = AdaptiveLimiter(Limits(4, 1.0, 8), clock=clock, sleep=clock.sleep)
    for _ in range(3):
        with limiter.slot():
            pass
    third = pytest.approx(1 / 3)
    assert clock.waits == [third, third]  # first start is free, then 1 s / 3 (4 less a margin)
    limiter.update({"X-Rate-Limit-Limit": "10", "X-Rate-Limit-Interval": "1s"})
    clock.waits.clear()
    for _ in range(3):
        with limiter.slot():
            pass
    ninth = pytest.approx(1 / 9)
    assert clock.waits == [third, ninth, ninth]  # the slot booked before, then 1 s / 9 (10 less a margin)


def test_slow_down_doubles_spacing_up_to_sixteen_times_and_recovers():
    clock = FrozenClock()
    limiter = AdaptiveLimiter(Limits(10, 1.0, 8), clock=clock, sleep=clock.sleep)
    for _ in range(6):
        limiter.slow_down()
    with limiter.slot():
        pass
    with limiter.slot():
        pass
    assert clock.waits == [pytest.approx(16 / 9)]  # 1/9 s × 16, not × 64
    for _ in range(6):
        limiter.recovered()
    clock.now += 10
    clock.waits.clear()
    for _ in range(2):
        with limiter.slot():
            pass
    assert clock.waits == [pytest.approx(1 / 9)]


def run_concurrently(limiter: AdaptiveLimiter, workers: int, hold_s: float) -> int:
    """Highest number of callers inside ``slot()`` at once."""
    inside, peak, lock = 0, 0, threading.Lock()

    def work():
        nonlocal inside, peak
        with limiter.slot():
            with lock:
                inside += 1
                peak = max(peak, inside)
            time.sleep(hold_s)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    return peak


def test_concurrency_cap_is_enforced():
    limiter = AdaptiveLimiter(Limits(1000, 1.0, 2))
    assert run_concurrently(limiter, workers=6, hold_s=0.05) == 2


def test_concurrency_follows_a_header_change_both_ways():
    limiter = AdaptiveLimiter(Limits(1000, 1.0, 1))
    assert run_concurrently(limiter, workers=4, hold_s=0.05) == 1
    limiter.update({"x-concurrency-limit": "4"})
    assert run_concurrently(limiter, workers=4, hold_s=0.1) == 4
    limiter.update({"x-concurrency-limit": "2"})
    assert run_concurrently(limiter, workers=4, hold_s=0.05) == 2


def test_waiters_are_released_when_the_limit_is_raised():
    limiter = AdaptiveLimiter(Limits(1000, 1.0, 1))
    entered = threading.Event()
    release = threading.Event()

    def holder():
        with limiter.slot():
            entered.set()
            release.wait(5)

    def waiter(done: threading.Event):
        with limiter.slot():
            done.set()

    hold = threading.Thread(target=holder)
    hold.start()
    entered.wait(5)
    done = threading.Event()
    wait = threading.Thread(target=waiter, args=(done,))
    wait.start()
    assert not done.wait(0.2)  # blocked behind the holder at concurrency 1
    limiter.update({"x-concurrency-limit": "2"})
    assert done.wait(0.5)  # let in when the limit rose (not at the 1 s re-check), holder inside
    release.set()
    hold.join(5)
    wait.join(5)


def test_default_limits_are_conservative():
    assert DEFAULT_LIMITS["crossref"].requests <= 10 and DEFAULT_LIMITS["crossref"].concurrency <= 3
    assert DEFAULT_LIMITS["crossref-public"].concurrency == 1
    assert DEFAULT_LIMITS["crossref-list"].requests <= 3
    assert DEFAULT_LIMITS["openalex"].requests <= 100


def test_no_sliding_interval_holds_more_starts_than_allowed():
    clock = FrozenClock()
    limiter = AdaptiveLimiter(Limits(50, 1.0, 64), clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(300):
        with limiter.slot():
            starts.append(clock.now)
    window = max(sum(1 for t in starts if s <= t < s + 1.0) for s in starts)
    assert window <= Limits(50, 1.0, 64).allowed < 50
