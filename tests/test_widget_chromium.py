"""The widget in headless Chromium (Debian's ``chromium`` package), served from 127.0.0.1.

One page per scenario; each page ends with a probe script that records, after the widget has
had time to load and after the badge has been clicked open, whether the payload's marker global
exists and what ``document.title`` is. Chromium's ``--dump-dom`` output is parsed with
:mod:`html.parser`, so text that merely *looks* like markup is not mistaken for an element.
"""
from __future__ import annotations

import functools
import html
import json
import subprocess
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from citecheck.widget import widget_script
from fixtures_reports import TITLE, hostile_report, rich_report

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium not installed")
HOST_TITLE = "Host page"
PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{host_title}</title></head><body>
<citecheck-report id="full" src="{src}"><a id="fallback-full" href="https://example.org/r">Citation report (fallback)</a></citecheck-report>
<div class="citecheck-badge" id="badge" data-src="{src}"><span id="fallback-badge">Badge fallback</span></div>
<script src="widget.js"></script>
<script>
var clicked = false;
var timer = setInterval(function () {{
  var button = document.querySelector("#badge button");
  if (button && !clicked) {{ clicked = true; button.click(); }}
}}, 50);
setTimeout(function () {{
  clearInterval(timer);
  var probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({{pwned: !!window.__pwned, title: document.title}});
  document.body.appendChild(probe);
}}, 1500);
</script>
</body></html>
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        pass


class DomElements(HTMLParser):
    """Every element of a document as (tag, attributes), and all its text."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text_parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text_parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(self.text_parts)


def parse_dom(dom: str) -> DomElements:
    parser = DomElements()
    parser.feed(dom)
    return parser


def probe_of(dom: str) -> dict:
    start = dom.index('<pre id="probe">') + len('<pre id="probe">')
    end = dom.index("</pre>", start)
    return json.loads(html.unescape(dom[start:end]))


def chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--virtual-time-budget=5000", *extra, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, check=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A served folder with the widget, three reports and one page per scenario."""
    root = tmp_path_factory.mktemp("site")
    (root / "widget.js").write_text(widget_script(), encoding="utf-8")
    (root / "report.json").write_text(rich_report().model_dump_json(), encoding="utf-8")
    (root / "hostile.json").write_text(hostile_report().model_dump_json(), encoding="utf-8")
    future = rich_report().model_dump(mode="json") | {"schema_version": "2.0"}
    (root / "future.json").write_text(json.dumps(future), encoding="utf-8")
    for name, src in (("good", "report.json"), ("hostile", "hostile.json"),
                      ("future", "future.json"), ("missing", "absent.json")):
        (root / f"{name}.html").write_text(PAGE.format(src=src, host_title=HOST_TITLE),
                                           encoding="utf-8")
    handler = functools.partial(_Quiet, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def dump(site, tmp_path_factory):
    root, base = site
    cache: dict[str, str] = {}

    def load(page: str) -> str:
        if page not in cache:
            profile = tmp_path_factory.mktemp(f"profile-{page}")
            cache[page] = chromium(f"{base}/{page}.html", profile, "--dump-dom").stdout
        return cache[page]

    return load


def test_renders_fixture_report_and_badge(dump):
    dom = dump("good")
    parsed = parse_dom(dom)
    assert TITLE in parsed.text
    assert "fallback" not in parsed.text.lower()
    assert 'data-citecheck-state="ready"' in dom
    assert "References found 4/6" in parsed.text
    assert "Ileal-lymphoid-nodular hyperplasia" in parsed.text  # a cited work's title
    assert "Retracted" in parsed.text  # the retracted reference's badge
    assert "Cites 1 retracted work" in parsed.text  # the badge's retraction warning
    badge_panels = [a for tag, a in parsed.elements if a.get("class") == "cc-badge-panel"]
    assert len(badge_panels) == 1  # the badge expanded on click
    assert probe_of(dom) == {"pwned": False, "title": HOST_TITLE}


def test_hostile_report_runs_no_script(dump):
    dom = dump("hostile")
    parsed = parse_dom(dom)
    probe = probe_of(dom)
    assert probe == {"pwned": False, "title": HOST_TITLE}
    tags = [tag for tag, _ in parsed.elements]
    assert "img" not in tags and "svg" not in tags
    assert tags.count("script") == 2  # the widget and the page's probe, nothing from data
    assert not [a for _, a in parsed.elements if any(k.startswith("on") for k in a)]
    hrefs = [a.get("href") or "" for _, a in parsed.elements if "href" in a]
    assert all(h.startswith(("http://", "https://")) for h in hrefs)
    assert "<img src=x onerror=" in parsed.text  # shown as text, not dropped
    assert 'data-citecheck-state="ready"' in dom


@pytest.mark.parametrize("page", ["future", "missing"])
def test_fallback_kept_on_schema_mismatch_or_error(dump, page):
    dom = dump(page)
    parsed = parse_dom(dom)
    assert "Citation report (fallback)" in parsed.text
    assert "Badge fallback" in parsed.text
    assert dom.count('data-citecheck-state="error"') == 2
    assert TITLE not in parsed.text


def test_screenshot(site, tmp_path):
    _, base = site
    shot = tmp_path / "shot.png"
    chromium(f"{base}/good.html", tmp_path / "profile", f"--screenshot={shot}",
             "--window-size=1000,1600")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
