"""Secrets never leak (RELIABILITY.md G1–G3).

Canary values for the Anthropic key, the OpenAlex key and the contact e-mail are configured,
a whole ``citecheck.check`` runs against the simulated registry with every logger at DEBUG,
and then the log text, exception messages and tracebacks, the report JSON, the SQLite cache
bytes and the recording folder are searched for the canaries (also URL-encoded). The test
first checks that the canaries really were used (sent to the simulated services), so an
absence means redaction, not disuse.
"""
from __future__ import annotations

import io
import logging
import traceback
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from simserver import SimRegistry, respond, server_error

import citecheck
from citecheck.config import Settings
from citecheck.errors import ConfigError, SourceError
from citecheck.http import HttpClient, request_key
from citecheck.redaction import (
    RedactingFilter,
    install_log_redaction,
    redact,
    redact_url,
)
from citecheck.sources.openalex import OpenAlexSource

ANTHROPIC_CANARY = "sk-ant-api03-CANARYcanary0123456789"
OPENALEX_CANARY = "oa-CANARY-key-9876543210"
MAILTO_CANARY = "canary.person+cc@example.org"
CANARIES = (ANTHROPIC_CANARY, OPENALEX_CANARY, MAILTO_CANARY)


def spellings(value: str) -> set[str]:
    """The canary as written, and as it appears inside URLs."""
    return {value, quote(value, safe=""), quote_plus(value), quote(value, safe="@+")}


def leaks(text: str | bytes) -> list[str]:
    haystack = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return sorted(s for canary in CANARIES for s in spellings(canary) if s in haystack)


@pytest.fixture
def debug_log():
    """Every logger at DEBUG into one buffer, with the redaction the CLI installs."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    install_log_redaction()
    try:
        yield buffer
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def canary_settings(sim: SimRegistry, tmp_path: Path, **overrides) -> Settings:
    values = {"home": tmp_path / "home", "crossref_base_url": sim.url,
              "openalex_base_url": sim.url, "unpaywall_base_url": sim.url + "/unpaywall",
              "mailto": MAILTO_CANARY, "openalex_api_key": OPENALEX_CANARY,
              "anthropic_api_key": ANTHROPIC_CANARY, "backoff_base_s": 0.01,
              "request_deadline_s": 5.0}
    values.update(overrides)
    return Settings(**values)


def test_g1_canaries_reach_the_services_but_no_log_report_cache_or_recording(
        sim, tmp_path, debug_log, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_LOG", "debug")
    settings = canary_settings(sim, tmp_path)
    report = citecheck.check("10.5555/secret.run", settings=settings, record=tmp_path / "rec")

    sent = " ".join(f"{r.raw_path} {r.headers}" for r in sim.requests)
    assert f"Bearer {OPENALEX_CANARY}" in sent  # the key was really used …
    assert any(s in sent for s in spellings(MAILTO_CANARY))  # … and so was the contact

    log_text = debug_log.getvalue()
    assert "GET" in log_text and "DEBUG" in log_text  # the debug log did capture traffic
    assert leaks(log_text) == []
    assert leaks(report.model_dump_json()) == []
    db_files = list((tmp_path / "home").glob("citecheck.sqlite3*"))
    assert db_files
    for path in db_files:
        assert leaks(path.read_bytes()) == [], path.name
    recorded = list((tmp_path / "rec").rglob("*"))
    assert any(p.suffix == ".json" for p in recorded)
    for path in recorded:
        if path.is_file():
            assert leaks(path.read_bytes()) == [], path


def test_g1_citecheck_loggers_never_carry_secrets_even_without_the_filter(sim, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    settings = canary_settings(sim, tmp_path)
    citecheck.check("10.5555/secret.caplog", settings=settings)
    own = [r.getMessage() for r in caplog.records if r.name.startswith("citecheck")]
    assert own and leaks("\n".join(own)) == []


def test_g1_errors_and_tracebacks_carry_no_secrets(sim, tmp_path):
    settings = canary_settings(sim, tmp_path, max_attempts=2)
    client = HttpClient(settings, sleep=lambda _s: None)
    sim.script(".", [server_error(503)], repeat=True)
    url = f"{sim.url}/works?filter=doi:10.1/x&api_key={OPENALEX_CANARY}&mailto={MAILTO_CANARY}"
    with pytest.raises(SourceError) as caught:
        client.get(url, service="openalex")
    text = "".join(traceback.format_exception(caught.value))
    assert leaks(str(caught.value)) == [] and leaks(text) == []
    with pytest.raises(SourceError) as again:
        OpenAlexSource(client, settings).works_by_ids(["W1"])
    assert leaks("".join(traceback.format_exception(again.value))) == []


def test_g2_openalex_4xx_with_api_key_in_the_url_logs_it_redacted(sim, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="citecheck")
    unregistered = "oa-key-never-registered-42"  # only the parameter name can give it away
    settings = Settings(home=tmp_path, openalex_base_url=sim.url, backoff_base_s=0.01)
    client = HttpClient(settings, sleep=lambda _s: None)
    sim.script(".", [respond(403, '{"error":"Forbidden","message":"bad query"}')])
    response = client.get(f"{sim.url}/works?filter=doi:10.1/x&api_key={unregistered}",
                          service="openalex")
    assert response.status == 403
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "api_key=REDACTED" in logged and unregistered not in logged
    assert redact_url(f"https://x.org/w?api_key={unregistered}&page=2") == \
        "https://x.org/w?api_key=REDACTED&page=2"


def test_g2_cache_and_replay_keys_have_no_credentials():
    key = request_key("GET", "openalex",
                      f"https://api.openalex.org/works?filter=doi:10.1/x&api_key={OPENALEX_CANARY}"
                      f"&mailto={quote(MAILTO_CANARY)}&email={quote(MAILTO_CANARY)}")
    assert key == "GET openalex:/works?filter=doi:10.1/x"
    keyed = request_key("GET", "openalex", f"https://API.openalex.org/works?api_key={OPENALEX_CANARY}&b=2")
    assert leaks(keyed) == [] and keyed == "GET openalex:/works?b=2"


def test_g1_redaction_catches_url_encoded_and_user_agent_forms():
    Settings(mailto=MAILTO_CANARY, openalex_api_key=OPENALEX_CANARY)
    for spelling in spellings(MAILTO_CANARY) | spellings(OPENALEX_CANARY):
        assert leaks(redact(f"GET /x?email={spelling} HTTP/1.1")) == []
    assert redact("citecheck/0.1 (mailto:someone.else@example.com)") == \
        "citecheck/0.1 (mailto:REDACTED)"


def test_g1_log_filter_redacts_arguments_of_third_party_records():
    Settings(openalex_api_key=OPENALEX_CANARY)
    record = logging.LogRecord("urllib3.connectionpool", logging.DEBUG, __file__, 1,
                               '%s "%s" %s', ("http://h:1", f"GET /w?api_key={OPENALEX_CANARY}",
                                              200), None)
    RedactingFilter().filter(record)
    assert leaks(record.getMessage()) == []


def test_g3_missing_anthropic_key_is_a_clear_config_error_naming_the_variable(tmp_path):
    from citecheck.llm import AnthropicCaller

    with pytest.raises(ConfigError) as caught:
        AnthropicCaller.from_settings(Settings(home=tmp_path, anthropic_api_key=None))
    assert "ANTHROPIC_API_KEY" in str(caught.value)


def test_g3_invalid_openalex_key_401_is_not_retried_and_fails_cleanly(sim, tmp_path):
    settings = canary_settings(sim, tmp_path)
    sim.script(".", [respond(401, '{"error":"Invalid API key","message":"Check your API key."}')],
               repeat=True)
    with pytest.raises(SourceError) as caught:
        OpenAlexSource(HttpClient(settings, sleep=lambda _s: None), settings).work("10.5555/k")
    assert sim.count() == 1
    assert leaks("".join(traceback.format_exception(caught.value))) == []


def test_g3_invalid_openalex_key_names_the_variable(sim, tmp_path):
    settings = canary_settings(sim, tmp_path)
    sim.script(".", [respond(401, '{"error":"Invalid API key","message":"Check your API key."}')])
    with pytest.raises(SourceError) as caught:
        OpenAlexSource(HttpClient(settings, sleep=lambda _s: None), settings).work("10.5555/k")
    assert "OPENALEX_API_KEY" in str(caught.value)
