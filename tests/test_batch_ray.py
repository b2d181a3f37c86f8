"""--engine ray: without Ray a one-line exit 2; with Ray (local instance, 2 CPUs) the same
journal as the local engine, and the rate limit held across workers by the limiter actors."""
import importlib.util
from collections import defaultdict

import pytest
from simserver import SimRegistry
from test_batch import journal
from typer.testing import CliRunner

from citecheck import batch_ray
from citecheck.batch import BatchRunner, LocalEngine
from citecheck.cli import app
from citecheck.config import Settings
from citecheck.context import Options

HAS_RAY = importlib.util.find_spec("ray") is not None
LIMIT = 20


def test_cli_engine_ray_without_ray_exits_2(tmp_path, monkeypatch):
    monkeypatch.setattr(batch_ray, "ray_available", lambda: False)
    listing = tmp_path / "dois.txt"
    listing.write_text("10.5555/x.1\n")
    result = CliRunner().invoke(app, ["batch", str(listing), "--out-dir", str(tmp_path / "out"),
                                      "--engine", "ray"])
    assert result.exit_code == 2
    assert "install citecheck-integrity[ray]" in result.output
    assert not (tmp_path / "out").exists()


def busiest_second(times: list[float]) -> int:
    """Most requests that arrived within any half-open 1-second window."""
    times = sorted(times)
    best, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        best = max(best, end - start + 1)
    return best


@pytest.fixture(scope="module")
def local_ray():
    if not HAS_RAY:
        pytest.skip("ray is not installed (pip install citecheck-integrity[ray])")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def test_batch_ray_engine_matches_local_and_shares_the_rate_limit(tmp_path, local_ray):
    dois = [f"10.5555/ray.{i}" for i in range(16)] + ["10.5555/ray.missing", "not a doi"]
    headers = {"X-Rate-Limit-Limit": str(LIMIT), "X-Rate-Limit-Interval": "1s"}
    outcomes = {}
    with SimRegistry(latency_s=0.01, headers=headers, not_found={"10.5555/ray.missing"}) as sim:
        for name, engine in (("ray", batch_ray.RayEngine), ("local", LocalEngine)):
            settings = Settings(home=tmp_path / f"home-{name}", crossref_base_url=sim.url,
                                openalex_base_url=sim.url, unpaywall_base_url=sim.url + "/unpaywall",
                                backoff_base_s=0.01)
            sim.reset_log()
            result = BatchRunner(tmp_path / name, settings=settings, options=Options(no_llm=True),
                                 jobs=4, engine=engine).run(dois)
            assert result.stopped is None and result.total == 18
            per_service = defaultdict(list)
            for request in sim.requests:
                per_service[request.service].append(request.at)
            # Shared: one limiter for both workers keeps the busiest second at the limit (give
            # or take the start-time jitter the limiter allows); separate limiters would double it.
            assert max(busiest_second(times) for times in per_service.values()) <= LIMIT + 2
            outcomes[name] = {e["key"]: (e["status"], e.get("found"), e.get("cited_by"))
                              for e in journal(tmp_path / name)}
    assert outcomes["ray"] == outcomes["local"]
    assert outcomes["ray"]["not a doi"][0] == "invalid"
    assert sum(status == "ok" for status, _, _ in outcomes["ray"].values()) == 16
    for entry in journal(tmp_path / "ray"):
        if entry.get("report"):
            assert (tmp_path / "ray" / entry["report"]).is_file()
