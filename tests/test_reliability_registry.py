"""Top-15 gaps on the registry side (RELIABILITY.md A8, A9, A11, A13, C6 for API bodies).

Everything runs against ``tests/simserver.py`` on 127.0.0.1 through the ordinary base-URL
settings; no citecheck code is patched.
"""
from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib

import pytest
from simserver import SimRegistry, respond, too_many
from simclient import fast_client, sim_settings

import citecheck
from citecheck.batch import BatchRunner
from citecheck.config import Settings
from citecheck.context import Options
from citecheck.errors import NotFoundError, RateLimitedError, SourceError
from citecheck.sources.openalex import OpenAlexSource


def settings_for(sim: SimRegistry, tmp_path, **overrides) -> Settings:
    return sim_settings(sim, tmp_path / "home", **{"request_deadline_s": 3.0,
                                                   "mailto": "reliability@example.org", **overrides})


# A8: one bad DOI in a list never spoils the others ------------------------------------

def test_a8_invalid_and_unknown_dois_first_in_a_batch_leave_every_valid_doi_resolved(sim, tmp_path):
    sim.not_found.add("10.5555/missing.first")
    valid = [f"10.5555/a8.{i}" for i in range(6)]
    lines = ["10.5555/bad doi <with> spaces", "not-a-doi", "10.5555/missing.first", *valid]
    runner = BatchRunner(tmp_path / "out", settings=settings_for(sim, tmp_path),
                         options=Options(no_llm=True), jobs=3)
    result = runner.run(lines)
    entries = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()]
    by_key = {e["key"]: e for e in entries}
    assert len(entries) == len(by_key) == len(lines)
    for doi in valid:
        assert by_key[doi]["status"] == "ok" and by_key[doi]["registry"] == "matched", by_key[doi]
    assert by_key["10.5555/missing.first"]["registry"] == "not_found"
    invalid = [e for e in entries if e["status"] == "invalid"]
    assert {e["reason"] for e in invalid} == {"invalid_doi"} and len(invalid) == 2
    assert result.invalid == 2 and result.failed == 0 and result.stopped is None


# A9: a DataCite DOI → one 404, one /agency, recorded not_crossref ---------------------

def test_a9_datacite_doi_gets_one_404_one_agency_lookup_and_not_crossref(sim, tmp_path):
    doi = "10.5281/zenodo.a9"
    sim.agencies[doi] = "datacite"
    sim.not_found.add(doi)  # OpenAlex does not know it either
    report = citecheck.check(doi, settings=settings_for(sim, tmp_path), options=Options(no_llm=True))
    crossref_paths = [r.path for r in sim.requests if r.service == "crossref"]
    assert crossref_paths.count(f"/works/{doi}") == 1, crossref_paths
    assert crossref_paths.count(f"/works/{doi}/agency") == 1, crossref_paths
    assert report.registry.agency == "datacite"
    assert "not_crossref" in report.registry.reason
    assert report.registry.status == "not_found"
    assert "datacite" in " ".join(report.summary).lower()


def test_a9_crossref_404_for_a_crossref_doi_is_not_found_not_not_crossref(sim, tmp_path):
    doi = "10.5555/gone.a9"
    sim.not_found.add(doi)
    report = citecheck.check(doi, settings=settings_for(sim, tmp_path), options=Options(no_llm=True))
    assert sim.count(service="crossref", contains="/agency") == 1
    assert "crossref_not_found" in report.registry.reason
    assert "not_crossref" not in report.registry.reason


# A11: cursor paging -------------------------------------------------------------------

def test_a11_cursor_paging_stops_at_a_short_page_without_duplicates(tmp_path):
    with SimRegistry(cited_by_count=130) as sim:
        settings = settings_for(sim, tmp_path)
        client, _ = fast_client(settings)
        total, works = OpenAlexSource(client, settings).citing_works("W123", cap=1000)
        pages = [dict(r.query) for r in sim.requests if "cites:" in dict(r.query).get("filter", "")]
    assert total == 130 and len(works) == 130
    assert len({w["id"] for w in works}) == 130
    assert [p["cursor"] for p in pages] == ["*", "100"]  # the second page was short: stop


def test_a11_cursor_with_plus_slash_and_equals_is_url_encoded(tmp_path):
    with SimRegistry(cited_by_count=230) as sim:
        sim.opaque_cursors = True
        settings = settings_for(sim, tmp_path)
        client, _ = fast_client(settings)
        _total, works = OpenAlexSource(client, settings).citing_works("W123", cap=1000)
        raw = [r.raw_path for r in sim.requests if "cursor=" in r.raw_path]
    assert len(works) == 230 and len({w["id"] for w in works}) == 230
    assert any("%2B" in path for path in raw), raw  # '+' sent encoded, never as a raw '+'
    assert not any("+" in path.split("cursor=", 1)[1].split("&", 1)[0] for path in raw)


def test_a11_a_cursor_refused_on_the_first_page_is_a_classified_error_not_a_loop(tmp_path):
    with SimRegistry(cited_by_count=250) as sim:
        sim.script("cursor=", [respond(400, '{"error":"Invalid query parameters error.",'
                                            '"message":"cursor is expired or invalid"}')],
                   repeat=True)
        settings = settings_for(sim, tmp_path)
        client, _ = fast_client(settings)
        with pytest.raises(SourceError) as caught:
            OpenAlexSource(client, settings).citing_works("W123", cap=1000)
        assert caught.value.status == 400
        assert sim.count(contains="cursor=") <= 2 + settings.max_attempts


def test_a11_expired_cursor_restarts_from_a_saved_position_without_duplicates(tmp_path):
    with SimRegistry(cited_by_count=250) as sim:
        sim.cursor_ttl_s = 0.0
        settings = settings_for(sim, tmp_path)
        client, _ = fast_client(settings)
        _total, works = OpenAlexSource(client, settings).citing_works("W123", cap=1000)
    assert len(works) == 250 and len({w["id"] for w in works}) == 250


# A13: OpenAlex 403 "rate" vs 403 query error vs 429 daily -----------------------------

def test_a13_openalex_403_rate_limit_slows_down_and_retries(sim, tmp_path):
    settings = settings_for(sim, tmp_path)
    client, sleep = fast_client(settings)
    limiter = client.limiter("openalex")
    slowed: list[bool] = []
    original = limiter.slow_down
    limiter.slow_down = lambda: (slowed.append(True), original())[1]
    sim.script("a13", [respond(403, '{"error":"Rate limit exceeded, please slow down"}')])
    work = OpenAlexSource(client, settings).work("10.5555/a13")
    assert work["doi"] == "https://doi.org/10.5555/a13"
    assert sim.count(contains="a13") == 2 and sleep.calls and slowed == [True]


def test_a13_openalex_403_query_error_fails_the_item_without_retrying(sim, tmp_path):
    settings = settings_for(sim, tmp_path)
    client, sleep = fast_client(settings)
    sim.script("a13", [respond(403, '{"error":"Invalid query parameters error.",'
                                    '"message":"filter is not allowed"}')], repeat=True)
    with pytest.raises(SourceError) as caught:
        OpenAlexSource(client, settings).work("10.5555/a13")
    assert not isinstance(caught.value, (RateLimitedError, NotFoundError))
    assert caught.value.status == 403 and sim.count(contains="a13") == 1 and not sleep.calls


def test_a13_openalex_429_daily_budget_stops_at_once(sim, tmp_path):
    settings = settings_for(sim, tmp_path)
    client, sleep = fast_client(settings)
    sim.script("a13", [too_many("30", body='{"error":"Daily request limit exceeded"}')],
               repeat=True)
    with pytest.raises(RateLimitedError) as caught:
        OpenAlexSource(client, settings).work("10.5555/a13")
    assert caught.value.reason == "daily_limit"
    assert sim.count(contains="a13") == 1 and not sleep.calls


# C6 on API bodies: chained encodings and a bomb in a redirect body ---------------------

def _chain(body: bytes, codings: list[str]) -> bytes:
    for coding in codings:
        body = gzip.compress(body) if coding == "gzip" else zlib.compress(body)
    return body


def test_c6_two_chained_encodings_are_decoded(sim, tmp_path):
    client, _ = fast_client(settings_for(sim, tmp_path))
    plain = json.dumps({"status": "ok", "message": {"DOI": "10.5555/c6"}}).encode()
    codings = ["gzip", "deflate"]
    sim.script("c6", [respond(200, _chain(plain, codings),
                              headers={"Content-Encoding": ", ".join(reversed(codings))})])
    assert client.get(sim.url + "/works/10.5555/c6", service="crossref").json()["message"]["DOI"] \
        == "10.5555/c6"


def test_c6_six_chained_encodings_are_refused_with_a_classified_reason(sim, tmp_path):
    client, _ = fast_client(settings_for(sim, tmp_path, max_attempts=1))
    codings = ["gzip"] * 6
    sim.script("c6", [respond(200, _chain(b" " * 5_000_000, codings),
                              headers={"Content-Encoding": ", ".join(codings)})])
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + "/works/10.5555/c6", service="crossref")
    assert caught.value.reason in {"upstream_error", "too_large"}



@pytest.mark.parametrize("status", [200, 302])
def test_c6_gzip_bomb_decoded_bytes_and_memory_stay_under_the_cap(sim, tmp_path, status):
    cap = 1_000_000
    client, _ = fast_client(settings_for(sim, tmp_path, max_json_bytes=cap, max_attempts=1))
    bomb = gzip.compress(b" " * 60_000_000, compresslevel=9)
    headers = {"Content-Encoding": "gzip"}
    if status == 302:
        headers["Location"] = sim.url + "/works/10.5555/c6.target"
    sim.script("c6.bomb", [respond(status, bomb, headers=headers)])
    tracemalloc.start()
    try:
        try:
            response = client.get(sim.url + "/works/10.5555/c6.bomb", service="crossref")
            outcome = "followed" if response.url.endswith("c6.target") else "body"
        except SourceError as error:
            outcome = error.reason
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome == "too_large" if status == 200 else outcome in {"too_large", "followed"}
    assert peak < 8 * cap, f"peak traced memory {peak} bytes"
