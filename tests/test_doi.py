"""DOIs (RELIABILITY.md B1–B4): one canonical form, correct per-service encoding, look-alikes
flagged instead of "fixed", and hostile DOI strings kept as data in every output."""
from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from citecheck.doi import (
    crossref_path,
    doi_slug,
    doi_url,
    normalize_doi,
    openalex_filter_value,
    parse_doi,
    try_normalize_doi,
)
from citecheck.errors import InvalidDOIError

SICI = "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"
SERRANO_SICI = "10.1002/1096-9861(20010212)430:3<283::aid-cne1031>3.0.co;2-v"
SCRIPT_DOI = '10.5555/</script><script>alert("x")</script>'

# Suffix characters seen in real DOIs (SICI, Wiley, Elsevier PII, arXiv) plus the awkward ones.
suffix_chars = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                    "-._;()/:<>+&#[]%'\"*!?@=$~"))
suffixes = st.text(suffix_chars, min_size=1, max_size=30).filter(lambda s: s[0] not in "/")
prefixes = st.from_regex(r"10\.[0-9]{4,9}", fullmatch=True)
dois = st.builds(lambda p, s: f"{p}/{s}", prefixes, suffixes)


def valid(text: str) -> str | None:
    try:
        return normalize_doi(text)
    except InvalidDOIError:
        return None


# B2: canonical form ----------------------------------------------------------------------

@given(dois)
@example("10.1000/a%2525")
@example("10.1000%2Fabc%252F")
def test_b2_normalising_is_idempotent(doi):
    once = valid(doi)
    assume(once is not None)
    assert normalize_doi(once) == once


@given(dois)
def test_b2_normalising_is_case_insensitive(doi):
    once = valid(doi)
    assume(once is not None)
    assert valid(doi.upper()) == once == valid(doi.lower())


@given(dois, st.sampled_from(["", "doi:", "DOI: ", "https://doi.org/", "http://dx.doi.org/",
                              "https://www.doi.org/", "info:doi/", "urn:doi:"]),
       st.sampled_from(["", ".", ",", ";", " ", ".\n"]))
def test_b2_resolver_prefixes_and_trailing_punctuation_dedupe(doi, prefix, trailing):
    plain = valid(doi)
    assume(plain is not None and plain[-1] not in ".,;:)")
    assert valid(prefix + doi + trailing) == plain


@given(dois)
def test_b2_fully_url_encoded_form_dedupes(doi):
    plain = valid(doi)
    assume(plain is not None and "%" not in doi)
    assert valid(quote(doi, safe="")) == plain
    assert valid("https://doi.org/" + quote(doi, safe="/")) == plain


@pytest.mark.parametrize("spelling", [
    "10.1073/PNAS.1414271111", "doi:10.1073/pnas.1414271111", "DOI:10.1073/pnas.1414271111",
    "https://doi.org/10.1073/pnas.1414271111", "http://dx.doi.org/10.1073/pnas.1414271111",
    "10.1073/pnas.1414271111.", "10.1073/pnas.1414271111,", " 10.1073/pnas.1414271111 ",
    "10.1073%2Fpnas.1414271111", "https://doi.org/10.1073%2Fpnas.1414271111",
    "(10.1073/pnas.1414271111)"[1:],
])
def test_b2_common_spellings_give_one_key(spelling):
    assert normalize_doi(spelling) == "10.1073/pnas.1414271111"


@pytest.mark.parametrize("text", ["not-a-doi", "", "10.12/abc", "11.1234/abc", "10.1234/",
                                  "https://example.org/10.1234", "10.1234/a b"])
def test_b2_non_dois_are_rejected(text):
    with pytest.raises(InvalidDOIError):
        normalize_doi(text)
    assert try_normalize_doi(text) is None


def test_b2_balanced_parentheses_are_kept_and_a_stray_closing_one_dropped():
    assert normalize_doi("10.1016/s0140-6736(20)30183-5") == "10.1016/s0140-6736(20)30183-5"
    assert normalize_doi("10.1016/s0140-6736(20)30183-5)") == "10.1016/s0140-6736(20)30183-5"


# B1: per-service encoding --------------------------------------------------------------

@pytest.mark.parametrize("doi, path", [
    (SICI, "10.1002/%28sici%291097-4571%28199806%2949%3A8%3C693%3A%3Aaid-asi4%3E3.0.co%3B2-o"),
    ("10.1000/a+b", "10.1000/a%2Bb"), ("10.1000/a&b", "10.1000/a%26b"),
    ("10.1000/a#b", "10.1000/a%23b"), ("10.1000/a?b", "10.1000/a%3Fb"),
    ("10.1000/abc/", "10.1000/abc%2F"), ("10.1000/a//", "10.1000/a%2F%2F"), ("10.1000/a b", "10.1000/a%20b"),
])
def test_b1_crossref_path_encodes_everything_but_slashes(doi, path):
    assert crossref_path(doi) == path


@given(dois)
def test_b1_crossref_path_round_trips_and_has_no_raw_delimiters(doi):
    from urllib.parse import unquote

    plain = valid(doi)
    assume(plain is not None)
    path = crossref_path(plain)
    assert unquote(path) == plain
    assert not set(path) & set("#?&+<>; \"'")


def test_b1_openalex_filter_values():
    assert openalex_filter_value("10.1000/a&b") == "10.1000/a%26b"
    assert openalex_filter_value("10.1000/a|b") is None
    assert openalex_filter_value("10.1000/a,b") is None
    assert openalex_filter_value(SICI) == SICI


def quick_client(sim, tmp_path):
    from citecheck.config import Settings
    from citecheck.http import HttpClient

    settings = Settings(home=tmp_path, crossref_base_url=sim.url, openalex_base_url=sim.url,
                        backoff_base_s=0.01)
    client = HttpClient(settings, sleep=lambda _s: None)
    for service in ("crossref", "openalex"):
        client.limiter(service).update({"X-Rate-Limit-Limit": "1000"})
    return settings, client


AWKWARD = [SICI, "10.1000/a+b", "10.1000/a&b", "10.1000/a#b", "10.1000/x;y<z>", "10.1000/abc/"]


@pytest.mark.parametrize("doi", AWKWARD)
def test_b1_awkward_dois_reach_crossref_and_openalex_intact(sim, tmp_path, doi):
    from citecheck.sources.crossref import CrossrefSource
    from citecheck.sources.openalex import OpenAlexSource

    settings, client = quick_client(sim, tmp_path)
    assert CrossrefSource(client, settings).work(doi)["DOI"] == doi
    assert OpenAlexSource(client, settings).work(doi)["doi"] == "https://doi.org/" + doi
    OpenAlexSource(client, settings).works_by_dois([doi, "10.1000/other"])
    crossref, single, batch = sim.requests[0], sim.requests[1], sim.requests[2]
    assert crossref.service == "crossref" and crossref.path == f"/works/{doi}"
    assert single.path == f"/works/https://doi.org/{doi}"
    assert dict(batch.query)["filter"] == f"doi:{doi}|10.1000/other"


def test_b1_recorded_sici_record_is_served_for_the_encoded_request(sim, tmp_path):
    from simserver import REGISTRY

    from citecheck.sources.crossref import CrossrefSource

    if not REGISTRY.exists():
        pytest.skip("corpus not available")
    settings, client = quick_client(sim, tmp_path)
    message = CrossrefSource(client, settings).work(normalize_doi(SERRANO_SICI.upper()))
    assert message["DOI"].lower() == SERRANO_SICI
    assert "%3C283%3A%3Aaid" in sim.requests[0].raw_path  # `<` and `:` went out encoded


# B3: look-alikes -----------------------------------------------------------------------

@pytest.mark.parametrize("char", ["\u2010", "\u2011", "\u2013", "\u2014", "\u2212", "\u00a0",
                                  "\u200b", "\u200d", "\ufeff", "\u2044", "\uff0f", "\u2024"])
def test_b3_lookalike_characters_are_flagged_not_fixed(char):
    text = f"10.1000/abc{char}123"
    parsed = parse_doi(text)
    assert parsed.is_suspicious and parsed.suspicious[0].startswith(f"U+{ord(char):04X}")
    if char != "\u00a0":
        assert char in parsed.doi  # never silently turned into the ASCII character
    with pytest.raises(InvalidDOIError) as caught:
        normalize_doi(text)
    assert caught.value.reason == "suspicious_doi"
    assert try_normalize_doi(text) is None


def test_b3_lookalike_in_the_prefix_is_flagged_too():
    with pytest.raises(InvalidDOIError) as caught:
        normalize_doi("10\u20241000/abc")
    assert caught.value.reason in ("suspicious_doi", "invalid_doi")
    assert normalize_doi("10.1000/abc-123") == "10.1000/abc-123"


def test_b3_url_encoded_lookalike_is_flagged():
    with pytest.raises(InvalidDOIError) as caught:
        normalize_doi("10.1000/abc" + quote("\u2010") + "123")
    assert caught.value.reason == "suspicious_doi"


# B4: hostile DOI strings stay data -----------------------------------------------------

def test_b4_script_doi_is_a_doi_and_every_encoding_escapes_it():
    doi = normalize_doi(SCRIPT_DOI)
    assert doi == SCRIPT_DOI.lower()
    for encoded in (crossref_path(doi), doi_url(doi)):
        assert "<" not in encoded and ">" not in encoded and '"' not in encoded
    assert set(doi_slug(doi)) <= set("abcdefghijklmnopqrstuvwxyz0123456789_-")


def test_b4_script_doi_survives_a_whole_run_as_data_and_is_escaped_in_html(sim, tmp_path):
    import json

    import citecheck
    from citecheck.config import Settings
    from citecheck.embed import script_safe_json
    from citecheck.htmlreport import render_html

    settings = Settings(home=tmp_path, crossref_base_url=sim.url, openalex_base_url=sim.url,
                        unpaywall_base_url=sim.url + "/unpaywall", backoff_base_s=0.01)
    report = citecheck.check(SCRIPT_DOI, settings=settings)
    doi = SCRIPT_DOI.lower()
    assert report.input.doi == doi
    assert json.loads(report.model_dump_json())["input"]["doi"] == doi
    assert "<" not in script_safe_json(report)
    assert json.loads(script_safe_json(report))["input"]["doi"] == doi
    html = render_html(report)
    assert "<script>alert(" not in html and "</script><script>" not in html
