"""The SQLite store: migrations, the HTTP response cache (keys without credentials, what is
and is not cached, a warm run with zero requests), the LLM call log, and thread safety."""
from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest
from simserver import respond, server_error

from citecheck import store as store_module
from citecheck.config import Settings
from citecheck.errors import SourceError
from citecheck.http import HttpClient
from citecheck.store import MIGRATIONS, Store


def test_fresh_store_has_every_migration_applied_once(tmp_path):
    Store(tmp_path / "s.sqlite3").close()
    Store(tmp_path / "s.sqlite3").close()
    db = sqlite3.connect(tmp_path / "s.sqlite3")
    names = [row[0] for row in db.execute("SELECT name FROM _citecheck_migrations")]
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert names == [m.__name__ for m in MIGRATIONS]
    assert {"http_cache", "llm_calls"} <= tables
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_new_migration_runs_only_once_on_an_existing_file(tmp_path, monkeypatch):
    Store(tmp_path / "s.sqlite3").close()
    runs = []

    def _m999_extra(db):
        runs.append(1)
        db.execute("CREATE TABLE extra (x INTEGER)")

    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS + (_m999_extra,))
    Store(tmp_path / "s.sqlite3").close()
    Store(tmp_path / "s.sqlite3").close()
    assert runs == [1]


@pytest.mark.parametrize("where", ["file", ":memory:"])
def test_response_round_trip_keeps_bytes_headers_status_and_url(tmp_path, where):
    store = Store(tmp_path / "s.sqlite3" if where == "file" else ":memory:")
    body = bytes(range(256)) * 3
    store.put_response("GET crossref:/works/10.1/x", "https://h/works/10.1/x", 200,
                       {"content-type": "application/json"}, body)
    assert store.get_response("GET crossref:/works/10.1/x") == (
        200, {"content-type": "application/json"}, body, "https://h/works/10.1/x")
    assert store.get_response("GET crossref:/works/10.1/y") is None
    store.put_response("GET crossref:/works/10.1/x", "u", 404, {}, b"gone")
    assert store.get_response("GET crossref:/works/10.1/x")[0] == 404


def test_responses_persist_across_store_instances(tmp_path):
    first = Store(tmp_path / "s.sqlite3")
    first.put_response("k", "u", 200, {}, b"{}")
    first.close()
    assert Store(tmp_path / "s.sqlite3").get_response("k")[2] == b"{}"


def test_concurrent_writers_and_readers_lose_nothing(tmp_path):
    store = Store(tmp_path / "s.sqlite3")

    def work(worker: int) -> None:
        for i in range(60):
            key = f"k{worker}-{i}"
            store.put_response(key, "u", 200, {"n": str(i)}, key.encode())
            assert store.get_response(key)[2] == key.encode()

    with ThreadPoolExecutor(max_workers=8) as pool:
        for future in [pool.submit(work, w) for w in range(8)]:
            future.result(timeout=30)  # re-raises a worker's failure here
    count = sqlite3.connect(tmp_path / "s.sqlite3").execute("SELECT COUNT(*) FROM http_cache")
    assert count.fetchone()[0] == 8 * 60


def test_llm_calls_return_the_latest_successful_call(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    base = {"cache_key": "ck", "model": "m", "prompt_id": "p", "prompt_version": "1"}
    store.put_llm_call({**base, "id": "1", "datetime_utc": "2026-01-01T00:00:00Z", "status": "ok",
                        "response_json": '{"v": 1}'})
    store.put_llm_call({**base, "id": "2", "datetime_utc": "2026-01-02T00:00:00Z", "status": "ok",
                        "response_json": '{"v": 2}'})
    store.put_llm_call({**base, "id": "3", "datetime_utc": "2026-01-03T00:00:00Z",
                        "status": "error", "error": "overloaded"})
    assert store.get_llm_call("ck")["id"] == "2"
    assert store.get_llm_call("other") is None
    assert [c["id"] for c in store.llm_calls()] == ["1", "2", "3"]


# The store under HttpClient ------------------------------------------------------------

def cached_client(sim, tmp_path, **overrides) -> tuple[HttpClient, Store]:
    settings = Settings(home=tmp_path, backoff_base_s=0.01, max_attempts=2, **overrides)
    store = Store(settings.db_path)
    client = HttpClient(settings, store=store, sleep=lambda _s: None)
    client.limiter("crossref").update({"X-Rate-Limit-Limit": "1000"})
    return client, store


def test_warm_request_is_served_from_the_cache_with_zero_network(sim, tmp_path):
    client, _ = cached_client(sim, tmp_path)
    first = client.get(f"{sim.url}/works/10.5555/cached", service="crossref")
    again = client.get(f"{sim.url}/works/10.5555/cached", service="crossref")
    assert sim.count() == 1 and again.source == "cache" and again.body == first.body
    fresh, _ = cached_client(sim, tmp_path)  # a new process with the same home
    assert fresh.get(f"{sim.url}/works/10.5555/cached", service="crossref").source == "cache"
    assert sim.count() == 1 and fresh.stats.counts["network"] == 0


def test_not_found_is_cached_but_failures_and_rate_limits_are_not(sim, tmp_path):
    client, _ = cached_client(sim, tmp_path)
    sim.not_found.add("10.5555/missing")
    for _ in range(2):
        assert client.get(f"{sim.url}/works/10.5555/missing", service="crossref").status == 404
    assert sim.count(contains="missing") == 1
    sim.script("flaky", [server_error(503), server_error(503)])
    with pytest.raises(SourceError):
        client.get(f"{sim.url}/works/10.5555/flaky", service="crossref")
    assert client.get(f"{sim.url}/works/10.5555/flaky", service="crossref").status == 200
    assert sim.count(contains="flaky") == 3
    sim.script("denied", [respond(401, '{"error":"no"}')])
    assert client.get(f"{sim.url}/works/10.5555/denied", service="crossref").status == 401
    assert client.get(f"{sim.url}/works/10.5555/denied", service="crossref").status == 200


def test_cache_key_ignores_credentials_and_parameter_order(sim, tmp_path):
    client, store = cached_client(sim, tmp_path)
    client.get(f"{sim.url}/works/10.5555/k?b=2&a=1&mailto=one@example.org&api_key=K1",
               service="crossref")
    again = client.get(f"{sim.url}/works/10.5555/k?a=1&api_key=K2&b=2", service="crossref")
    assert again.source == "cache" and sim.count() == 1
    keys = [row[0] for row in store._db.execute("SELECT key, url FROM http_cache")]
    urls = [row[1] for row in store._db.execute("SELECT key, url FROM http_cache")]
    assert keys == ["GET crossref:/works/10.5555/k?a=1&b=2"]
    assert "K1" not in urls[0] and "one@example.org" not in urls[0]


def test_cached_headers_are_only_the_harmless_ones(sim, tmp_path):
    client, store = cached_client(sim, tmp_path)
    sim.extra_headers = {"Set-Cookie": "session=secret", "X-Rate-Limit-Limit": "50"}
    client.get(f"{sim.url}/works/10.5555/h", service="crossref")
    _, headers, _, _ = store.get_response("GET crossref:/works/10.5555/h")
    assert set(headers) <= {"content-type", "location"}


def test_use_cache_false_always_goes_to_the_network(sim, tmp_path):
    client, _ = cached_client(sim, tmp_path)
    for _ in range(2):
        client.get(f"{sim.url}/works/10.5555/nocache", service="crossref", use_cache=False)
    assert sim.count() == 2
