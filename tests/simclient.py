"""Clients of the simulated registry (tests/simserver.py) for the fault tests: settings that
point every service at it, a sleep that records instead of waiting, unpaced limiters."""
from __future__ import annotations

from citecheck.config import Settings
from citecheck.http import HttpClient


class FakeSleep:
    """Records requested waits instead of waiting."""

    def __init__(self):
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def sim_settings(sim, home, **overrides) -> Settings:
    """Every service at the simulator, short timeouts, fast backoff; ``overrides`` win."""
    values = {"home": home, "crossref_base_url": sim.url, "openalex_base_url": sim.url,
              "unpaywall_base_url": sim.url + "/unpaywall", "connect_timeout_s": 1.0,
              "read_timeout_s": 1.0, "request_deadline_s": 2.0, "backoff_base_s": 0.01,
              "max_attempts": 4}
    values.update(overrides)
    return Settings(**values)


def unpace(client: HttpClient) -> None:
    """Limiters at 1000 requests/s, so tests of other protections do not wait on spacing."""
    for service in ("crossref", "openalex"):
        client.limiter(service).update({"X-Rate-Limit-Limit": "1000", "X-Rate-Limit-Interval": "1s"})


def fast_client(settings: Settings) -> tuple[HttpClient, FakeSleep]:
    sleep = FakeSleep()
    client = HttpClient(settings, sleep=sleep)
    unpace(client)
    return client, sleep
