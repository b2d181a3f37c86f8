"""Property tests (hypothesis) over the parsers that read outside input: the DOI
normaliser, the URL/destination guard, the HTML-to-text cleaner, the rate-limit and
Retry-After header parsers, and the report round-trip. Bounded for CI (small
``max_examples``); the whole file runs in a few seconds."""
from __future__ import annotations

import ipaddress
import json
import socket
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from citecheck.doi import crossref_path, normalize_doi, parse_doi
from citecheck.embed import script_safe_json
from citecheck.errors import BlockedDestinationError, InvalidDOIError
from citecheck.http import parse_retry_after
from citecheck.netguard import check_url, resolve_checked
from citecheck.plaintext import safe_http_url, to_plain_text
from citecheck.ratelimit import Limits, limits_from_headers, parse_interval
from citecheck.report import Claim, RefItem, Report, Work

BOUNDED = settings(max_examples=150, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
HOSTILE_PIECES = ["<", ">", "&", "&lt;", "&gt;", "&#60;", "<script>", "</script>", "<!--", "-->",
                  "<jats:p>", "</jats:p>", "<img src=x onerror=alert(1)>", "<math><mi>x</mi></math>",
                  "\u2028", "\u2029", "\x00", "\ufeff", "%3C", "&amp;lt;", "<<>>", "<a", "b>", "'", '"']
hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(max_size=8)),
                        max_size=12).map("".join)


# DOI normaliser ------------------------------------------------------------------------

doi_like = st.one_of(
    st.text(max_size=60),
    st.builds(lambda pre, suf, deco: deco.format(f"{pre}/{suf}"),
              st.from_regex(r"10\.[0-9]{4,6}", fullmatch=True),
              st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=25),
              st.sampled_from(["{}", "doi:{}", "https://doi.org/{}", "http://dx.doi.org/{}",
                               " {} ", "{}.", "{},", "DOI: {}", "<{}>"])),
)


@BOUNDED
@given(doi_like)
@example("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O")
@example("https://doi.org/10.1000/a%2Bb%23c")
def test_doi_normaliser_raises_only_invalid_doi_and_is_idempotent(text):
    try:
        canonical = normalize_doi(text)
    except InvalidDOIError:
        return
    assert canonical.startswith("10.") and canonical == canonical.strip()
    assert normalize_doi(canonical) == canonical
    assert canonical == canonical.lower()
    path = crossref_path(canonical)
    assert unquote(path) == canonical and not any(c in path for c in " ?#<>")


@BOUNDED
@given(st.text(max_size=60))
def test_doi_parse_never_raises_anything_but_invalid_doi(text):
    try:
        parsed = parse_doi(text)
    except InvalidDOIError:
        return
    assert isinstance(parsed.is_suspicious, bool)


# URL / destination guard -------------------------------------------------------------

url_like = st.one_of(
    st.text(max_size=60),
    st.builds("{}://{}{}{}".format,
              st.sampled_from(["http", "https", "HTTP", "file", "ftp", "gopher", "data", "javascript", ""]),
              st.sampled_from(["", "user@", "user:pw@", "@", "a@b@"]),
              st.one_of(st.sampled_from(["127.0.0.1", "[::1]", "169.254.169.254", "0x7f.1",
                                         "2130706433", "017700000001", "[::ffff:127.0.0.1]",
                                         "100.100.100.200", "localhost", "example.org",
                                         "10.0.0.1", "0", "1.1.1.1.", "[fe80::1%25eth0]"]),
                        st.text(max_size=15)),
              st.sampled_from(["", ":80", ":0", ":99999", ":-1", ":abc", "/x.pdf", "?a=b#c"])),
)


@BOUNDED
@given(url_like)
def test_check_url_accepts_only_http_hosts_or_raises_blocked_destination(url):
    try:
        _ = urlsplit(url).hostname
    except ValueError:
        assume(False)  # URLs urllib cannot split: tested separately below
    try:
        scheme, host, port = check_url(url)
    except BlockedDestinationError as error:
        assert error.reason == "blocked_destination"
        return
    assert scheme in ("http", "https") and host and 0 <= port <= 65535
    assert "@" not in host


@pytest.mark.parametrize("url", ["http://[", "https://[::1/paper.pdf", "http://[not-an-ip]/x"])
def test_check_url_malformed_brackets_are_blocked_destinations(url):
    with pytest.raises(BlockedDestinationError):
        check_url(url)


def _not_global(ip) -> bool:
    return not ip.is_global or ip.is_multicast


private_v4 = st.ip_addresses(v=4).filter(_not_global)
private_v6 = st.ip_addresses(v=6).filter(lambda ip: _not_global(ip) and ip.ipv4_mapped is None
                                         and ip.sixtofour is None)


def literal_resolver(host, port, type=0):
    """getaddrinfo for IP literals only, so the property never touches DNS."""
    ip = ipaddress.ip_address(host.strip("[]"))
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    return [(family, socket.SOCK_STREAM, 6, "", (str(ip), port))]


@BOUNDED
@given(st.one_of(private_v4, private_v6,
                 private_v4.map(lambda ip: ipaddress.IPv6Address(f"::ffff:{ip}"))))
def test_every_non_global_address_literal_is_refused_after_the_check(ip):
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    try:
        _scheme, checked_host, port = check_url(f"http://{host}/paper.pdf")
    except BlockedDestinationError:
        return
    with pytest.raises(BlockedDestinationError):
        resolve_checked(checked_host, port, resolver=literal_resolver)


@BOUNDED
@given(st.integers(min_value=0, max_value=2**32 - 1),
       st.sampled_from(["{:d}", "0x{:x}", "0{:o}", "0x{:08X}"]))
def test_numeric_host_spellings_are_refused_before_any_lookup(number, spelling):
    with pytest.raises(BlockedDestinationError):
        check_url(f"http://{spelling.format(number)}/x.pdf")


# HTML-to-text cleaner ----------------------------------------------------------------

@BOUNDED
@given(st.one_of(hostile_text, st.text(max_size=200)))
@example("&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;")
@example("<<script>script>alert(1)<</script>/script>")
def test_plain_text_never_contains_markup_or_line_separators(value):
    text = to_plain_text(value)
    assert "<" not in text and ">" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert text == text.strip()
    assert to_plain_text(text) == text


@BOUNDED
@given(st.one_of(hostile_text, url_like))
def test_safe_http_url_keeps_only_http_links(value):
    url = safe_http_url(value)
    assert url is None or url.lower().startswith(("http://", "https://"))
    assert url is None or not any(c in url for c in "<>\"' ")


# Header parsers -----------------------------------------------------------------------

header_text = st.one_of(st.text(max_size=20), st.from_regex(r"-?[0-9]{0,6}(\.[0-9]{0,3})?\s*(ms|s|m|h)?",
                                                           fullmatch=True))


@BOUNDED
@given(header_text)
def test_parse_interval_is_none_or_positive(value):
    seconds = parse_interval(value)
    assert seconds is None or seconds > 0


@BOUNDED
@given(st.dictionaries(st.sampled_from(["X-Rate-Limit-Limit", "x-rate-limit-interval",
                                        "X-Concurrency-Limit", "Retry-After", "other"]),
                       header_text, max_size=5))
def test_limits_from_headers_stay_positive_and_bounded(headers):
    limits = limits_from_headers(headers, Limits(10, 1.0, 3))
    assert 1 <= limits.requests <= 1000 and 0 < limits.interval_s <= 3600
    assert 1 <= limits.concurrency <= 64 and limits.spacing_s > 0


@BOUNDED
@given(header_text)
def test_parse_retry_after_is_none_or_non_negative(value):
    seconds = parse_retry_after(value)
    assert seconds is None or seconds >= 0


@BOUNDED
@given(st.integers(min_value=-86_400, max_value=10 * 86_400))
def test_parse_retry_after_reads_http_dates_to_the_second(offset):
    now = time.time()
    when = datetime.fromtimestamp(int(now) + offset, tz=UTC)
    seconds = parse_retry_after(format_datetime(when, usegmt=True), now=now)
    assert seconds == pytest.approx(max(0.0, int(now) + offset - now), abs=1.0)


@given(st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)))
@settings(max_examples=50, deadline=None)
def test_parse_retry_after_never_raises_on_dates_far_away(when):
    value = format_datetime(when.replace(tzinfo=UTC) + timedelta(0), usegmt=True)
    seconds = parse_retry_after(value)
    assert seconds is not None and seconds >= 0


# Report round-trip ----------------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=hostile_text, abstract=hostile_text, doi=hostile_text, quote=hostile_text,
       printed=hostile_text, url=st.one_of(hostile_text, url_like))
def test_report_round_trip_is_stable_and_its_embedding_is_script_safe(title, abstract, doi, quote,
                                                                      printed, url):
    """``url`` goes where the model validates links (``work.open_access.locations``)."""
    report = Report(
        work=Work(title=title, abstract=abstract, open_access={"locations": [url]}),
        references={"items": [RefItem(id="ref-001", status="not_found", printed=printed, doi=doi,
                                      title=title)]},
        claims={"outgoing": [Claim(id="claim-001", quote=quote or "q", rationale=abstract)]},
    )
    once = report.model_dump_json()
    again = Report.model_validate_json(once).model_dump_json()
    assert once == again
    for text in (report.work.title, report.work.abstract, report.references.items[0].title):
        assert text is None or "<" not in text
    embedded = script_safe_json(report)
    assert not any(c in embedded for c in "<>&\u2028\u2029")
    assert json.loads(embedded) == json.loads(once)
    for location in report.work.open_access.locations:
        assert location is None or location.lower().startswith(("http://", "https://"))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["javascript:alert(1)", "data:text/html,<script>x</script>", "ftp://x/y"]))
def test_artifact_urls_are_http_only(url):
    artifact = Report(artifacts=[{"kind": "pdf", "url": url, "sha256": "0" * 64, "bytes": 1}]).artifacts[0]
    assert artifact.url is None or artifact.url.startswith(("http://", "https://"))
