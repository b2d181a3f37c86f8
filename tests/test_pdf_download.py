"""Guarded PDF download against a local server (--allow-private-urls lifts only the
address check, so the loopback server is reachable and everything else is still enforced)."""
import gzip
import http.server
import threading

import pytest

from citecheck.config import Settings
from citecheck.errors import BlockedDestinationError, SourceError
from citecheck.sources.pdfs import PDFFetcher, pdf_candidates, pdf_from_landing

PDF = b"%PDF-1.4\n" + b"0" * 2000 + b"\n%%EOF\n"


class Handler(http.server.BaseHTTPRequestHandler):
    seen_headers: list = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        Handler.seen_headers.append(dict(self.headers))
        if self.path == "/paper.pdf":
            self._send(200, PDF, "application/octet-stream")
        elif self.path == "/challenge":
            self._send(200, b"<html><body>Just a moment...</body></html>", "application/pdf")
        elif self.path.startswith("/loop"):
            n = int(self.path.removeprefix("/loop") or 0)
            self.send_response(302)
            self.send_header("Location", f"/loop{n + 1}")
            self.end_headers()
        elif self.path == "/to-metadata":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data")
            self.end_headers()
        elif self.path == "/to-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
        elif self.path == "/huge":
            self.send_response(200)  # no Content-Length: the body ends when the socket closes
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"%PDF-1.4\n" + b"x" * 300_000)
            self.close_connection = True
        elif self.path == "/bomb":
            body = gzip.compress(b"%PDF-1.4\n" + b"\0" * 5_000_000)
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self._send(404, b"no", "text/plain")

    def _send(self, status, body, ctype):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def fetcher(**overrides):
    settings = Settings(max_pdf_bytes=200_000, pdf_deadline_s=10, **overrides)
    return PDFFetcher(settings, allow_private=True)


def test_pdf_is_fetched_by_magic_not_content_type(server):
    fetched = fetcher().fetch(f"{server}/paper.pdf")
    assert fetched.body == PDF and len(fetched.sha256) == 64
    assert not any("Cookie" in h or "Authorization" in h for h in Handler.seen_headers)


def test_html_at_a_pdf_url_is_not_pdf(server):
    with pytest.raises(SourceError) as error:
        fetcher().fetch(f"{server}/challenge")
    assert error.value.reason == "not_pdf"


def test_redirect_loop_stops_at_the_cap(server):
    with pytest.raises(SourceError) as error:
        fetcher().fetch(f"{server}/loop0")
    assert error.value.reason == "too_many_redirects"


def test_redirect_hops_are_checked(server):
    with pytest.raises(BlockedDestinationError):
        PDFFetcher(Settings(), allow_private=False).fetch(f"{server}/paper.pdf")
    with pytest.raises(BlockedDestinationError):
        fetcher().fetch(f"{server}/to-file")


def test_size_cap_counts_bytes_not_content_length(server):
    with pytest.raises(SourceError) as error:
        fetcher().fetch(f"{server}/huge")
    assert error.value.reason == "too_large"


def test_gzip_bomb_is_capped_on_decoded_bytes(server):
    with pytest.raises(SourceError) as error:
        fetcher().fetch(f"{server}/bomb")
    assert error.value.reason == "too_large"


def test_location_choice_order():
    work = {"best_oa_location": {"pdf_url": "https://a.org/best.pdf"},
            "locations": [{"landing_page_url": "https://arxiv.org/abs/2101.00001v2"},
                          {"landing_page_url": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC9709791/"},
                          {"pdf_url": "javascript:alert(1)"}]}
    assert pdf_candidates(work) == ["https://a.org/best.pdf", "https://arxiv.org/pdf/2101.00001v2",
                                    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC9709791/pdf/"]
    assert pdf_from_landing("https://www.biorxiv.org/content/10.1101/2022.10.10.511571v2") \
        == "https://www.biorxiv.org/content/10.1101/2022.10.10.511571v2.full.pdf"


def test_second_fetch_comes_from_the_disk_cache(server, tmp_path):
    from citecheck.store import Store

    before = len(Handler.seen_headers)
    settings = Settings(home=tmp_path, max_pdf_bytes=200_000)
    store = Store(tmp_path / "db.sqlite3")
    first = PDFFetcher(settings, allow_private=True, store=store).fetch(f"{server}/paper.pdf")
    second = PDFFetcher(settings, allow_private=True, store=store).fetch(f"{server}/paper.pdf")
    assert first.sha256 == second.sha256
    assert (tmp_path / "pdfs" / f"{first.sha256}.pdf").is_file()
    assert len(Handler.seen_headers) == before + 1
