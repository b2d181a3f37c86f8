"""Fault tests of the HTTP policy against the simulated registry (RELIABILITY.md A1–A7, A10, A12).

Each test drives ``citecheck.http.HttpClient`` (or a source built on it) against
``tests/simserver.py`` on 127.0.0.1 through the ordinary base-URL settings. Waiting is
observed through an injected ``sleep`` wherever the wait itself is not what is measured.
"""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from simclient import FakeSleep, sim_settings, unpace
from simserver import (
    SimRegistry,
    delay,
    empty,
    gzip_bomb,
    hang,
    html_page,
    http_date,
    no_content_type,
    oversize,
    redirect,
    reset,
    respond,
    server_error,
    too_many,
    trickle,
    truncated,
)

from citecheck.config import Settings
from citecheck.errors import CircuitOpenError, RateLimitedError, SourceError
from citecheck.http import HttpClient, parse_retry_after
from citecheck.ratelimit import Limits
from citecheck.sources.crossref import CrossrefSource
from citecheck.sources.openalex import OpenAlexSource
from citecheck.store import Store

DOI = "10.5555/sim.fault"
WORK = f"/works/{DOI}"


def settings_for(sim: SimRegistry, tmp_path, **overrides) -> Settings:
    return sim_settings(sim, tmp_path, **{"retry_after_cap_s": 120.0, **overrides})


def client_for(sim, tmp_path, *, paced: bool = False, **overrides) -> tuple[HttpClient, FakeSleep]:
    """A client with a fake sleep; unless ``paced``, its limiters allow 1000 requests/s so that
    tests about other protections do not spend their time in the limiter's real spacing."""
    sleep = FakeSleep()
    client = HttpClient(settings_for(sim, tmp_path, **overrides), sleep=sleep)
    if not paced:
        unpace(client)
    return client, sleep


# A1, A2: 429 and Retry-After -----------------------------------------------------------

def test_a1_retry_after_seconds_is_waited_then_the_retry_succeeds(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path)
    sim.script("sim.fault", [too_many("3")])
    response = client.get(sim.url + WORK, service="crossref")
    assert response.status == 200 and response.json()["message"]["DOI"] == DOI
    assert sim.count() == 2
    assert len(sleep.calls) == 1 and 3.0 <= sleep.calls[0] <= 3.5  # 3 s plus jitter


def test_a1_repeated_429s_slow_the_service_limiter_down(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, paced=True, max_attempts=1)
    limiter = client.limiter("crossref")
    before = limiter.limits.spacing_s
    sim.script("sim.fault", [too_many("1")])
    with pytest.raises(RateLimitedError):
        client.get(sim.url + WORK, service="crossref")
    time.sleep(2 * before)  # let the slot booked by the 429 request pass
    with limiter.slot():
        first = time.monotonic()
    with limiter.slot():
        second = time.monotonic()
    # the second start waited the doubled spacing, not the advertised one
    assert second - first >= 2 * before * 0.85


def test_a2_retry_after_http_date_is_parsed_and_waited(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path)
    sim.script("sim.fault", [too_many(http_date(30))])
    assert client.get(sim.url + WORK, service="crossref").status == 200
    assert len(sleep.calls) == 1 and 28.0 <= sleep.calls[0] <= 31.0


def test_a2_retry_after_beyond_the_cap_defers_as_rate_limited_without_waiting(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path, retry_after_cap_s=120.0)
    sim.script("sim.fault", [too_many("86400")])
    started = time.monotonic()
    with pytest.raises(RateLimitedError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "rate_limited" and caught.value.status == 429
    assert sim.count() == 1 and sleep.calls == []
    assert time.monotonic() - started < 5


def test_a2_http_date_a_day_ahead_is_also_refused_at_the_cap(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path)
    sim.script("sim.fault", [too_many(http_date(86400))])
    with pytest.raises(RateLimitedError):
        client.get(sim.url + WORK, service="crossref")
    assert sleep.calls == []


def test_a2_429_without_retry_after_backs_off_exponentially(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path, backoff_base_s=1.0)
    sim.script("sim.fault", [too_many(None), too_many(None), too_many(None)])
    assert client.get(sim.url + WORK, service="crossref").status == 200
    assert sim.count() == 4 and len(sleep.calls) == 3
    for attempt, waited in enumerate(sleep.calls):
        assert 0.8 * 2 ** attempt <= waited <= 1.2 * 2 ** attempt + 0.5


def test_a2_429_on_every_attempt_ends_as_rate_limited_after_bounded_attempts(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, max_attempts=3)
    sim.script("sim.fault", [too_many("1")], repeat=True)
    with pytest.raises(RateLimitedError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "rate_limited"
    assert sim.count() == 3


def test_a2_openalex_daily_budget_429_stops_at_once(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path)
    sim.script("W123", [too_many("60", body='{"error":"Daily limit exceeded: credits spent"}')])
    with pytest.raises(RateLimitedError) as caught:
        client.get(sim.url + "/works/W123", service="openalex")
    assert caught.value.reason == "daily_limit"
    assert sim.count() == 1 and sleep.calls == []


@given(st.text(max_size=40))
def test_a2_parse_retry_after_never_raises_and_never_goes_negative(text):
    value = parse_retry_after(text, now=0.0)
    assert value is None or value >= 0.0


def test_a2_parse_retry_after_forms():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 120 ") == 120.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None


# A3: limits from headers ---------------------------------------------------------------

def test_a3_limits_follow_the_headers_and_survive_malformed_ones(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, paced=True)
    limiter = client.limiter("crossref")
    sim.extra_headers = {"X-Rate-Limit-Limit": "3", "X-Rate-Limit-Interval": "1s",
                         "x-concurrency-limit": "1"}
    client.get(sim.url + WORK, service="crossref")
    assert limiter.limits == Limits(3, 1.0, 1)
    sim.extra_headers = {"X-Rate-Limit-Limit": "10", "X-Rate-Limit-Interval": "1s",
                         "x-concurrency-limit": "3"}
    client.get(sim.url + WORK, service="crossref", use_cache=False)
    assert limiter.limits == Limits(10, 1.0, 3)
    sim.extra_headers = {"X-Rate-Limit-Limit": "abc", "X-Rate-Limit-Interval": "0s",
                         "x-concurrency-limit": "-2"}
    client.get(sim.url + WORK, service="crossref", use_cache=False)
    assert limiter.limits == Limits(10, 1.0, 3)


def test_a3_advertised_concurrency_limit_caps_requests_in_flight(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, paced=True)
    sim.extra_headers = {"X-Rate-Limit-Limit": "50", "X-Rate-Limit-Interval": "1s",
                         "x-concurrency-limit": "1"}
    client.get(sim.url + WORK, service="crossref")
    sim.script("slow", [delay(0.25)] * 4)
    sim.max_in_flight = 0
    threads = [threading.Thread(target=client.get, args=(f"{sim.url}/works/10.5555/slow.{i}",),
                                kwargs={"service": "crossref"}) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sim.count(contains="slow") == 4
    assert sim.max_in_flight == 1  # the default for crossref would allow 3


# A4: 5xx bursts, resets, no retry on other 4xx -----------------------------------------

def test_a4_5xx_burst_shorter_than_the_attempts_is_ridden_out(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path, max_attempts=4)
    sim.script("sim.fault", [server_error(503), server_error(502), server_error(500)])
    assert client.get(sim.url + WORK, service="crossref").status == 200
    assert sim.count() == 4 and len(sleep.calls) == 3


def test_a4_endless_5xx_gives_upstream_error_after_bounded_attempts(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path, max_attempts=3, backoff_base_s=1.0)
    sim.script("sim.fault", [server_error(503)], repeat=True)
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "upstream_error" and caught.value.status == 503
    assert sim.count() == 3
    assert len(sleep.calls) == 2 and sleep.calls[1] > sleep.calls[0] * 1.1


def test_a4_connection_resets_are_retried_then_reported(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, max_attempts=3)
    sim.script("sim.fault", [reset(), reset()])
    assert client.get(sim.url + WORK, service="crossref").status == 200
    assert sim.count() == 3
    sim.reset_log()
    sim.script("reset.always", [reset()], repeat=True)
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + "/works/10.5555/reset.always", service="crossref")
    assert caught.value.reason == "upstream_error" and sim.count() == 3


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a4_other_client_errors_are_not_retried(sim, tmp_path, status):
    client, sleep = client_for(sim, tmp_path)
    sim.script("sim.fault", [respond(status, '{"status":"failed"}')])
    assert client.get(sim.url + WORK, service="crossref").status == status
    assert sim.count() == 1 and sleep.calls == []


def test_a4_crossref_404_becomes_not_found_after_one_request(sim, tmp_path):
    settings = settings_for(sim, tmp_path)
    sim.not_found.add(DOI)
    client = HttpClient(settings, sleep=FakeSleep())
    with pytest.raises(SourceError) as caught:
        CrossrefSource(client, settings).work(DOI)
    assert caught.value.reason == "not_found"
    assert sim.count() == 1


# A5: circuit breaker -------------------------------------------------------------------

def breaker_client(sim, tmp_path):
    return client_for(sim, tmp_path, max_attempts=1, breaker_window=20, breaker_failure_ratio=0.10)


def test_a5_breaker_opens_at_ten_percent_failures_and_stops_sending(sim, tmp_path):
    client, _ = breaker_client(sim, tmp_path)
    for i in range(18):
        client.get(f"{sim.url}/works/10.5555/ok.{i}", service="crossref")
    sim.script("bad", [server_error(500)], repeat=True)
    for i in range(2):
        with pytest.raises(SourceError):
            client.get(f"{sim.url}/works/10.5555/bad.{i}", service="crossref")
    sent = sim.count()
    with pytest.raises(CircuitOpenError) as caught:
        client.get(f"{sim.url}/works/10.5555/ok.next", service="crossref")
    assert caught.value.reason == "circuit_open" and "2 of the last 20" in str(caught.value)
    assert sim.count() == sent  # nothing more reached the service


def test_a5_breaker_stays_closed_below_ten_percent(sim, tmp_path):
    client, _ = breaker_client(sim, tmp_path)
    for i in range(19):
        client.get(f"{sim.url}/works/10.5555/ok.{i}", service="crossref")
    sim.script("bad", [server_error(500)])
    with pytest.raises(SourceError):
        client.get(f"{sim.url}/works/10.5555/bad.0", service="crossref")
    assert client.get(f"{sim.url}/works/10.5555/ok.next", service="crossref").status == 200


def test_a5_breaker_counts_timeouts_and_resets_as_failures_but_not_404(sim, tmp_path):
    client, _ = breaker_client(sim, tmp_path)
    sim.not_found.update(f"10.5555/gone.{i}" for i in range(18))
    for i in range(18):
        client.get(f"{sim.url}/works/10.5555/gone.{i}", service="crossref")
    sim.script("broken", [reset()], repeat=True)
    for i in range(2):
        with pytest.raises(SourceError):
            client.get(f"{sim.url}/works/10.5555/broken.{i}", service="crossref")
    with pytest.raises(CircuitOpenError):
        client.get(f"{sim.url}/works/10.5555/gone.0", service="crossref")


# A6: hangs and trickles under the total deadline ---------------------------------------

def test_a6_hung_socket_ends_at_the_total_deadline_not_the_read_timeout(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, read_timeout_s=30.0, request_deadline_s=0.6,
                           max_attempts=1)
    sim.script("sim.fault", [hang(20)])
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "timeout"
    assert time.monotonic() - started < 3.0
    assert client.get(f"{sim.url}/works/10.5555/after", service="crossref").status == 200


def test_a6_one_byte_trickle_is_cut_by_the_total_deadline(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, read_timeout_s=1.0, request_deadline_s=0.8,
                           max_attempts=2)
    body = b'{"status":"ok","message":{"DOI":"10.5555/sim.fault","title":["x"]}}'
    sim.script("sim.fault", [trickle(body, interval=0.1)], repeat=True)
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    elapsed = time.monotonic() - started
    assert caught.value.reason == "timeout" and sim.count() == 2
    assert elapsed < 4.0  # each byte came within the read timeout: only the deadline ends it


def test_a6_slow_but_complete_answer_within_the_deadline_is_kept(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, request_deadline_s=3.0)
    sim.script("sim.fault", [delay(0.3)])
    assert client.get(sim.url + WORK, service="crossref").status == 200


# A7: bodies that are not JSON ----------------------------------------------------------

@pytest.mark.parametrize("fault, reason", [
    (html_page(200), "html_body"), (empty(200), "empty_body"), (truncated(200), "bad_json"),
    (no_content_type(), "bad_json"),
])
def test_a7_unusable_success_bodies_are_classified_retried_and_not_cached(sim, tmp_path, fault, reason):
    store = Store(tmp_path / "c.sqlite3")
    settings = settings_for(sim, tmp_path, max_attempts=2)
    client = HttpClient(settings, store=store, sleep=FakeSleep())
    sim.script("sim.fault", [fault], repeat=True)
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert type(caught.value) is SourceError and caught.value.reason == reason
    assert sim.count() == 2
    sim._rules.clear()
    assert client.get(sim.url + WORK, service="crossref").json()["message"]["DOI"] == DOI
    assert sim.count() == 3  # the bad body was never served from the cache


@pytest.mark.parametrize("fault", [html_page(200), truncated(200), empty(200)])
def test_a7_sources_raise_classified_errors_never_json_decode_errors(sim, tmp_path, fault):
    settings = settings_for(sim, tmp_path, max_attempts=1)
    client = HttpClient(settings, sleep=FakeSleep())
    sim.script(".", [fault], repeat=True)
    with pytest.raises(SourceError):
        CrossrefSource(client, settings).work(DOI)
    with pytest.raises(SourceError):
        OpenAlexSource(client, settings).work(DOI)
    with pytest.raises(SourceError):
        OpenAlexSource(client, settings).works_by_ids(["W1", "W2"])


def test_a7_html_429_page_is_a_rate_limit_not_a_parse_error(sim, tmp_path):
    client, sleep = client_for(sim, tmp_path, max_attempts=2)
    sim.script("sim.fault", [too_many("2", html=True)], repeat=True)
    with pytest.raises(RateLimitedError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "rate_limited" and sleep.calls and sleep.calls[0] >= 2.0


def test_a7_error_body_classification_of_the_response_object(sim, tmp_path):
    client, _ = client_for(sim, tmp_path)
    sim.script("sim.fault", [too_many(None, html=True)], repeat=True)
    client.settings.max_attempts = 1
    with pytest.raises(RateLimitedError):
        client.get(sim.url + WORK, service="crossref")
    sim._rules.clear()
    sim.script("plain", [respond(400, "<html>bad request</html>", content_type="text/html")])
    response = client.get(sim.url + "/works/10.5555/plain", service="crossref")
    with pytest.raises(SourceError) as caught:
        response.json()
    assert caught.value.reason == "html_body" and caught.value.status == 400


# Size caps and encodings ---------------------------------------------------------------

def test_gzip_bodies_are_decoded_and_bombs_capped_by_decoded_size(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, max_json_bytes=200_000)
    import gzip
    import json
    plain = json.dumps({"status": "ok", "message": {"DOI": DOI}}).encode()
    sim.script("sim.fault", [respond(200, gzip.compress(plain), headers={"Content-Encoding": "gzip"})])
    assert client.get(sim.url + WORK, service="crossref").json()["message"]["DOI"] == DOI
    sim.script("bomb", [gzip_bomb(20_000_000)])
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + "/works/10.5555/bomb", service="crossref")
    assert caught.value.reason == "too_large"


def test_oversize_body_is_refused_with_too_large(sim, tmp_path):
    client, _ = client_for(sim, tmp_path, max_json_bytes=100_000)
    sim.script("sim.fault", [oversize(300_000)])
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "too_large" and sim.count() == 1


# A10: redirects ------------------------------------------------------------------------

def test_a10_redirect_within_the_api_host_is_followed(sim, tmp_path):
    client, _ = client_for(sim, tmp_path)
    sim.script("sim.fault", [redirect(sim.url + "/works/10.5555/sim.fault.v2")])
    response = client.get(sim.url + WORK, service="crossref")
    assert response.status == 200 and response.url.endswith("/works/10.5555/sim.fault.v2")
    assert response.json()["message"]["DOI"] == "10.5555/sim.fault.v2"


def test_a10_redirect_off_the_api_host_is_refused_before_any_request(sim, tmp_path):
    client, _ = client_for(sim, tmp_path)
    with SimRegistry() as elsewhere:
        sim.script("sim.fault", [redirect(elsewhere.url + "/works/10.5555/stolen")])
        with pytest.raises(SourceError) as caught:
            client.get(sim.url + WORK, service="crossref")
        assert caught.value.reason == "blocked_destination"
        assert elsewhere.count() == 0


def test_a10_redirect_loop_stops_at_the_hop_cap(sim, tmp_path):
    client, _ = client_for(sim, tmp_path)
    sim.script("sim.fault", [redirect(sim.url + WORK)], repeat=True)
    with pytest.raises(SourceError) as caught:
        client.get(sim.url + WORK, service="crossref")
    assert caught.value.reason == "too_many_redirects" and sim.count() <= 5


# A12: OpenAlex OR-filter batches -------------------------------------------------------

@pytest.mark.parametrize("batch_size", [50, 100, 500])
def test_a12_250_dois_go_out_in_or_filters_of_at_most_100(sim, tmp_path, batch_size):
    settings = settings_for(sim, tmp_path, openalex_batch_size=batch_size)
    client = HttpClient(settings, sleep=FakeSleep())
    unpace(client)
    source = OpenAlexSource(client, settings)
    awkward = ["10.1000/a&b", "10.1000/pipe|doi", "10.1000/comma,doi"]
    dois = [f"10.5555/batch.{i}" for i in range(247)] + awkward
    works = source.works_by_dois(dois)
    sent: list[str] = []
    for request in sim.requests:
        query = dict(request.query)
        if "filter" in query:
            values = query["filter"].removeprefix("doi:").split("|")
            assert len(values) <= min(batch_size, 100)
            assert int(query["per-page"]) <= 100 and int(query["per-page"]) >= len(values)
            sent.extend(values)
    assert sorted(sent) == sorted(dois[:-2])  # the `|` and `,` DOIs cannot be OR-ed
    assert "10.1000/a&b" in sent  # sent as %26 and decoded intact by the server
    singles = [r.path for r in sim.requests if "filter" not in dict(r.query)]
    assert sorted(singles) == ["/works/https://doi.org/10.1000/comma,doi",
                               "/works/https://doi.org/10.1000/pipe|doi"]
    assert len(works) == 250


# End to end: citecheck.check against the simulator -------------------------------------

def e2e_settings(sim, tmp_path) -> Settings:
    return settings_for(sim, tmp_path, mailto="e2e@example.org", request_deadline_s=5.0)


def comparable(report) -> dict:
    """The report without the run-dependent fields (generation time, stage timings)."""
    data = report.model_dump(mode="json")
    data.pop("generated_at", None)
    for stage in data.get("stages", []):
        stage.pop("seconds", None)
    return data


@pytest.mark.parametrize("doi", ["10.1073/pnas.1414271111", "10.5555/generated.e2e"])
def test_check_end_to_end_against_the_simulator_and_warm_rerun_makes_no_requests(sim, tmp_path, doi):
    from simserver import REGISTRY

    import citecheck

    if doi.startswith("10.1073") and not REGISTRY.exists():
        pytest.skip("corpus not available")
    settings = e2e_settings(sim, tmp_path)
    first = citecheck.check(doi, settings=settings)
    stages = {s.name: s.status for s in first.stages}
    assert stages["resolve"] == "ok" and stages["registry_references"] == "ok"
    assert stages["cited_by"] == "ok"
    assert first.registry.status == "matched"
    assert first.references.counts.registry == len(first.references.items) > 0
    assert first.cited_by.items and sim.count(service="crossref") >= 1
    assert sim.count(service="openalex") >= 2
    if doi.startswith("10.1073"):  # the recorded bodies were served
        assert first.work.title.startswith("Developing functional musculoskeletal tissues")
        assert any(n.type == "correction" for n in first.registry.notices)
    cold = sim.count()
    sim.reset_log()
    second = citecheck.check(doi, settings=settings)
    assert sim.count() == 0, [r.raw_path for r in sim.requests]
    assert cold > 0
    assert comparable(second) == comparable(first)


def test_check_end_to_end_pages_citing_works_by_cursor_up_to_the_cap(tmp_path):
    import citecheck

    with SimRegistry(cited_by_count=250) as sim:
        report = citecheck.check("10.5555/popular.e2e", settings=e2e_settings(sim, tmp_path))
        pages = [dict(r.query) for r in sim.requests if "cites:" in dict(r.query).get("filter", "")]
    assert [p["cursor"] for p in pages] == ["*", "100"]  # stopped at the cap of 200
    assert all(int(p["per-page"]) <= 100 for p in pages)
    assert report.cited_by.count == 250 and len(report.cited_by.items) == 200
    assert len({item.openalex_id for item in report.cited_by.items}) == 200


def test_check_end_to_end_records_reasons_when_the_registry_fails(sim, tmp_path):
    import citecheck

    settings = settings_for(sim, tmp_path, max_attempts=2)
    sim.script("/works/10.5555/", [server_error(503)], repeat=True)
    report = citecheck.check("10.5555/down.e2e", settings=settings)
    resolve = next(s for s in report.stages if s.name == "resolve")
    assert resolve.status == "partial" and "crossref_upstream_error" in resolve.reason
    assert report.registry.crossref is not True


def test_check_end_to_end_record_then_replay_offline(sim, tmp_path):
    import citecheck

    settings = e2e_settings(sim, tmp_path)
    recorded = citecheck.check("10.5555/recorded.e2e", settings=settings, record=tmp_path / "rec")
    sim.stop()
    replayed = citecheck.check("10.5555/recorded.e2e", settings=settings, replay=tmp_path / "rec")
    assert comparable(replayed)["registry"] == comparable(recorded)["registry"]
    assert comparable(replayed)["references"] == comparable(recorded)["references"]
    assert comparable(replayed)["cited_by"] == comparable(recorded)["cited_by"]


def test_mixed_faults_every_request_ends_ok_or_with_a_classified_reason(sim, tmp_path):
    from simserver import FaultMix

    client, _ = client_for(sim, tmp_path, max_attempts=2, request_deadline_s=0.3,
                           read_timeout_s=0.3, breaker_failure_ratio=1.1)  # breaker: A5
    sim.mix = FaultMix({"429": 0.10, "5xx": 0.10, "html": 0.05, "truncated": 0.05,
                        "reset": 0.05, "hang": 0.02}, seed=7)
    outcomes: dict[str, int] = {}
    for i in range(60):
        try:
            response = client.get(f"{sim.url}/works/10.5555/mix.{i}", service="crossref")
            assert response.json()["message"]["DOI"] == f"10.5555/mix.{i}"
            key = "ok"
        except SourceError as error:
            key = error.reason
        outcomes[key] = outcomes.get(key, 0) + 1
    assert sum(outcomes.values()) == 60 and outcomes["ok"] >= 40
    assert set(outcomes) <= {"ok", "rate_limited", "upstream_error", "html_body", "bad_json",
                             "timeout"}


@pytest.mark.parametrize("fault", [
    respond(400, '{"error":"Invalid query parameters error.","message":"bad filter"}'),
    respond(401, "<html>Unauthorized</html>", content_type="text/html"),
])
def test_a7_openalex_list_calls_classify_client_errors(sim, tmp_path, fault):
    settings = settings_for(sim, tmp_path)
    client, _ = client_for(sim, tmp_path)
    sim.script(".", [fault], repeat=True)
    with pytest.raises(SourceError):
        OpenAlexSource(client, settings).works_by_ids(["W1", "W2"])


def test_an_unresolvable_host_fails_at_once_without_retries(tmp_path):
    sleeps = []
    client = HttpClient(Settings(home=tmp_path), sleep=sleeps.append)
    with pytest.raises(SourceError) as caught:
        client.get("https://api.citecheck-test.invalid/works/10.1/x", service="crossref")
    assert caught.value.reason == "dns_error"
    assert sleeps == [] and client.stats.counts["network"] == 1
