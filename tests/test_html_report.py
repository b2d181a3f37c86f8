"""render_html: every section present, hostile report strings never become markup."""
from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import pytest

from citecheck.htmlreport import render_html
from citecheck.report import Report
from fixtures_reports import PAYLOAD_DOI, PAYLOAD_TITLE, TITLE, hostile_report, rich_report


class Page(HTMLParser):
    """Elements, the text of each, and the raw content of <script> elements."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._script_attrs: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self._script_attrs = dict(attrs)

    def handle_endtag(self, tag):
        if tag == "script":
            self._script_attrs = None

    def handle_data(self, data):
        if self._script_attrs is not None:
            self.scripts.append((self._script_attrs, data))
        else:
            self.text.append(data)


def parse(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def rich_page() -> str:
    return render_html(rich_report())


@pytest.fixture(scope="module")
def hostile() -> Report:
    return hostile_report()


@pytest.fixture(scope="module")
def hostile_page(hostile) -> str:
    return render_html(hostile)


def embedded_report(parsed: Page) -> dict:
    (attrs, raw), = [(a, d) for a, d in parsed.scripts if a.get("id") == "citecheck-data"]
    assert attrs.get("type") == "application/json"
    return json.loads(raw)


def test_sections_of_the_page(rich_page):
    parsed = parse(rich_page)
    text = " ".join(parsed.text)
    ids = {a.get("id") for _, a in parsed.elements}
    assert {"signals", "claims", "statistics", "citations", "cited-by", "metadata",
            "provenance", "about"} <= ids
    assert TITLE in text
    assert "The DOI matches its Crossref record" in text  # summary headline
    assert "4 of 6 found" in text and "1 of 2 inconsistent" in text
    assert "Self-citation" in text and "Retracted" in text
    assert "Bradley T. GPU Performance Analysis. 2012." in text  # printed but not linked
    assert "support_check@1" in text and "claude-sonnet-4-5" in text  # claim provenance
    assert "differs in population" in text and "no_open_full_text" in text
    assert "About these checks" in text and "computed, not judged" in text


def test_cited_by_sorted_descending():
    report = rich_report()
    report.cited_by.items.reverse()
    section = render_html(report).split('id="cited-by"')[1]
    counts = [int(n.replace(",", "")) for n in re.findall(r"Cited by ([\d,]+)", section)]
    assert counts == sorted(counts, reverse=True) and len(counts) == 3


def test_no_external_requests(rich_page):
    parsed = parse(rich_page)
    for tag, attrs in parsed.elements:
        assert "src" not in attrs, tag
        if tag == "link":
            assert attrs.get("href", "").startswith("data:")
    assert "@import" not in rich_page and "url(" not in rich_page
    assert "Content-Security-Policy" in rich_page


def test_only_http_links(hostile_page):
    hrefs = [a["href"] for tag, a in parse(hostile_page).elements if tag == "a"]
    assert hrefs and all(h.startswith(("http://", "https://")) for h in hrefs)
    assert not any("javascript:" in h.lower() for h in hrefs)


def test_hostile_strings_stay_text(hostile_page):
    parsed = parse(hostile_page)
    tags = [tag for tag, _ in parsed.elements]
    assert "img" not in tags and "svg" not in tags and "textarea" not in tags
    assert tags.count("script") == 1  # the JSON data block only
    assert not [a for _, a in parsed.elements if any(k.startswith("on") for k in a)]
    text = " ".join(parsed.text)
    assert PAYLOAD_TITLE in text  # shown to the reader, as text
    assert html.unescape(html.escape(PAYLOAD_DOI)) == PAYLOAD_DOI
    assert "doi:" + PAYLOAD_DOI in text


def test_embedded_json_round_trips(hostile, hostile_page):
    data = embedded_report(parse(hostile_page))
    assert data == hostile.model_dump(mode="json")
    assert Report.model_validate(data).work.title is not None


def test_print_css_present(rich_page):
    assert "@media print" in rich_page


def test_empty_report_renders():
    page = render_html(Report())
    parsed = parse(page)
    assert "Untitled work" in " ".join(parsed.text)
    assert embedded_report(parsed)["schema_version"] == "1.0"
