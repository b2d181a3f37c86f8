"""Top-15 gaps on the batch side: H5 (a paper that fails every time) and H2 (a torn
journal line cut inside a UTF-8 character), against the simulated registry."""
from __future__ import annotations

import json
from collections import Counter

import pytest

import citecheck.api
from citecheck.batch import BatchRunner
from citecheck.journal import JOURNAL
from citecheck.config import Settings
from citecheck.context import Options

DOIS = [f"10.5555/h5.{i}" for i in range(8)]
POISON = "10.5555/h5.3"


def runner_for(sim, tmp_path) -> BatchRunner:
    settings = Settings(home=tmp_path / "home", crossref_base_url=sim.url,
                        openalex_base_url=sim.url, unpaywall_base_url=sim.url + "/unpaywall",
                        mailto="h5@example.org", backoff_base_s=0.01, request_deadline_s=3.0)
    return BatchRunner(tmp_path / "out", settings=settings, options=Options(no_llm=True), jobs=3)


def journal(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "out" / JOURNAL).read_text().splitlines()]


@pytest.fixture
def poisoned(monkeypatch) -> Counter:
    """``check`` raises for one DOI, every time; calls are counted per DOI."""
    calls: Counter = Counter()
    real_check = citecheck.api.check

    def check(doi, **kwargs):
        calls[doi] += 1
        if doi == POISON:
            raise KeyError("a bug that fires on every attempt")
        return real_check(doi, **kwargs)

    monkeypatch.setattr(citecheck.api, "check", check)
    return calls


def test_h5_a_paper_that_always_raises_is_recorded_failed_once_and_the_batch_ends(
        sim, tmp_path, poisoned):
    result = runner_for(sim, tmp_path).run(DOIS)
    entries = journal(tmp_path)
    assert Counter(e["key"] for e in entries) == Counter(DOIS)  # each once, none lost
    failed = [e for e in entries if e["status"] == "failed"]
    assert [e["key"] for e in failed] == [POISON]
    assert failed[0]["reason"] == "internal_error:KeyError" and failed[0]["report"] is None
    assert poisoned[POISON] == 1  # tried once in this run, not looped
    assert result.failed == 1 and result.done == len(DOIS) - 1 and result.stopped is None
    assert not list((tmp_path / "out" / "reports").glob("10_5555_h5_3*"))


def test_h5_resume_does_not_retry_the_failed_paper_or_duplicate_anything(sim, tmp_path, poisoned):
    runner_for(sim, tmp_path).run(DOIS)
    again = runner_for(sim, tmp_path).run(DOIS)
    assert poisoned[POISON] == 1 and sum(poisoned.values()) == len(DOIS)
    assert again.skipped == len(DOIS) and again.done == again.failed == 0
    assert len(journal(tmp_path)) == len(DOIS)


def test_h2_torn_line_cut_inside_a_utf8_character_is_repaired_before_appending(sim, tmp_path):
    out = tmp_path / "out"
    runner_for(sim, tmp_path).run(DOIS[:3])
    good = (out / JOURNAL).read_bytes()
    torn = json.dumps({"key": "10.5555/h5.7", "title": "Überraschung"}, ensure_ascii=False).encode()
    (out / JOURNAL).write_bytes(good + torn[: torn.index("Ü".encode()) + 1])  # half of 'Ü'
    runner_for(sim, tmp_path).run(DOIS)
    raw = (out / JOURNAL).read_bytes()
    raw.decode("utf-8")  # no partial character left behind
    entries = journal(tmp_path)
    assert raw.startswith(good)
    assert Counter(e["key"] for e in entries) == Counter(DOIS)


def test_a5_open_breaker_stops_the_batch_instead_of_journaling_degraded_reports(sim, tmp_path):
    from simserver import server_error

    sim.script(r"/works/https", [server_error(503)], repeat=True)  # OpenAlex is down
    runner = runner_for(sim, tmp_path)
    runner.settings.max_attempts = 2
    result = runner.run([f"10.5555/a5.{i}" for i in range(30)])
    degraded = []
    for entry in journal(tmp_path):
        if entry.get("report"):
            report = json.loads((tmp_path / "out" / entry["report"]).read_text())
            degraded += [s for s in report["stages"] if "circuit_open" in (s["reason"] or "")]
    assert result.stopped and "circuit breaker" in result.stopped
    assert degraded == []
