"""Open-access PDFs: choosing locations, and downloading them under a strict guard.

Each hop (redirects included) is checked by ``netguard`` and the connection goes to the
address that was checked (urllib3 pool on the IP, with SNI and certificate checks for the
real host name), so a DNS answer cannot change between check and connect. No cookies,
credentials or proxies; at most ``max_redirects`` hops; decoded bytes counted against a
cap; a total deadline; the ``%PDF-`` magic decides, never Content-Type.
"""
from __future__ import annotations

import hashlib
import logging
import re
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import urllib3

from .. import __version__
from ..config import Settings
from ..errors import BlockedDestinationError, SourceError
from ..netguard import check_url, resolve_checked
from ..recording import Recorder, Replay
from ..redaction import redact_url

logger = logging.getLogger(__name__)
REDIRECTS = (301, 302, 303, 307, 308)


@dataclass
class FetchedPDF:
    url: str
    final_url: str
    body: bytes
    sha256: str
    retrieved_at: str


def pdf_candidates(openalex_work: dict | None, unpaywall: dict | None = None,
                   crossref_work: dict | None = None) -> list[str]:
    """Candidate PDF URLs in order: OpenAlex best location, other locations, landing-page
    patterns of repositories with predictable PDF links, Unpaywall, then the publisher's
    text-mining PDF links deposited in Crossref (``link``; the download decides if open)."""
    urls: list[str] = []
    work = openalex_work or {}
    locations = [work.get("best_oa_location") or {}] + list(work.get("locations") or [])
    for loc in locations:
        if loc and loc.get("pdf_url"):
            urls.append(loc["pdf_url"])
    for loc in locations:
        landing = (loc or {}).get("landing_page_url") or ""
        derived = pdf_from_landing(landing)
        if derived:
            urls.append(derived)
    if unpaywall:
        for loc in [unpaywall.get("best_oa_location") or {}] + list(unpaywall.get("oa_locations") or []):
            if loc and loc.get("url_for_pdf"):
                urls.append(loc["url_for_pdf"])
    for link in (crossref_work or {}).get("link") or []:
        if str(link.get("content-type", "")).startswith("application/pdf") and link.get("URL"):
            urls.append(link["URL"])
    return [u for u in dict.fromkeys(urls) if u.startswith(("http://", "https://"))]


def pdf_from_landing(url: str) -> str | None:
    if m := re.search(r"arxiv\.org/abs/([^?#\s]+)", url):
        return f"https://arxiv.org/pdf/{m.group(1)}"
    if m := re.search(r"(PMC\d+)", url):
        if "ncbi.nlm.nih.gov" in url or "europepmc.org" in url:
            return f"https://www.ncbi.nlm.nih.gov/pmc/articles/{m.group(1)}/pdf/"
    if re.search(r"(bio|med)rxiv\.org/content/10\.1101/", url) and not url.endswith(".pdf"):
        return url.rstrip("/") + ".full.pdf"
    return None


class PDFFetcher:
    def __init__(self, settings: Settings, *, allow_private: bool = False, replay_dir=None,
                 record_dir=None, resolver=socket.getaddrinfo, store=None):
        self.settings = settings
        self.store = store
        self.allow_private = allow_private
        self.replay = Replay(replay_dir) if replay_dir else None
        self.recorder = Recorder(record_dir) if record_dir else None
        self.resolver = resolver

    def fetch(self, url: str) -> FetchedPDF:
        check_url(url)  # malformed or non-http(s) URLs are refused before anything else
        key = "GET pdf:" + _host_path(url)
        if self.replay is not None:
            recorded = self.replay.get(key)
            body = recorded.body
            final = url
        elif (cached := self._cached(key)) is not None:
            final, body = cached
        else:
            final, body = self._download(url)
            self._remember(key, url, final, body)
            if self.recorder is not None:
                self.recorder.save("pdf", key, redact_url(url), 200,
                                   {"content-type": "application/pdf"}, body)
        if not body.startswith(b"%PDF-"):
            kind = "html" if body.lstrip()[:1] == b"<" else "other"
            raise SourceError(f"not a PDF ({kind}) at {redact_url(final)}", reason="not_pdf")
        return FetchedPDF(url=url, final_url=final, body=body,
                          sha256=hashlib.sha256(body).hexdigest(),
                          retrieved_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat())

    def _cache_dir(self) -> Path:
        return Path(self.settings.home) / "pdfs"

    def _cached(self, key: str) -> tuple[str, bytes] | None:
        """A PDF fetched before from this URL: the store maps the URL to the file's sha256,
        and the file lives in ``CITECHECK_HOME/pdfs/<sha256>.pdf`` (checked on read)."""
        if self.store is None:
            return None
        hit = self.store.get_response(key)
        if hit is None:
            return None
        sha = hit[2].decode("ascii", "replace")
        path = self._cache_dir() / f"{sha}.pdf"
        if not path.is_file():
            return None
        body = path.read_bytes()
        if hashlib.sha256(body).hexdigest() != sha:
            return None
        return hit[3], body

    def _remember(self, key: str, url: str, final: str, body: bytes) -> None:
        if self.store is None or not body.startswith(b"%PDF-"):
            return
        sha = hashlib.sha256(body).hexdigest()
        folder = self._cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sha}.pdf"
        if not path.exists():
            tmp = path.with_suffix(".part")
            tmp.write_bytes(body)
            tmp.replace(path)
        self.store.put_response(key, redact_url(final), 200, {"content-type": "text/x-sha256"},
                                sha.encode("ascii"))

    def _download(self, url: str) -> tuple[str, bytes]:
        settings = self.settings
        deadline = time.monotonic() + settings.pdf_deadline_s
        current = url
        for _hop in range(settings.max_redirects + 1):
            scheme, host, port = check_url(current)
            address = resolve_checked(host, port, allow_private=self.allow_private,
                                      resolver=self.resolver)
            status, location, body = self._get_once(scheme, host, port, address, current, deadline)
            if status in REDIRECTS and location:
                current = urljoin(current, location)
                continue
            if status != 200:
                raise SourceError(f"HTTP {status} for {redact_url(current)}", reason="http_error",
                                  status=status)
            return current, body
        raise SourceError(f"more than {settings.max_redirects} redirects", reason="too_many_redirects")

    def _get_once(self, scheme, host, port, address, url, deadline):
        settings = self.settings
        remaining = max(0.1, deadline - time.monotonic())
        timeout = urllib3.Timeout(connect=min(settings.connect_timeout_s, remaining),
                                  read=min(settings.read_timeout_s, remaining))
        if scheme == "https":
            pool = urllib3.HTTPSConnectionPool(address, port, server_hostname=host,
                                               assert_hostname=host, timeout=timeout, retries=False)
        else:
            pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False)
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"Host": host if port in (80, 443) else f"{host}:{port}",
                   "User-Agent": f"citecheck/{__version__}", "Accept": "application/pdf,*/*;q=0.5"}
        try:
            response = pool.urlopen("GET", path, headers=headers, redirect=False, retries=False,
                                    preload_content=False, decode_content=True)
        except urllib3.exceptions.TimeoutError:
            raise SourceError(f"timeout fetching {redact_url(url)}", reason="timeout") from None
        except urllib3.exceptions.HTTPError as error:
            raise SourceError(f"cannot fetch {redact_url(url)}: {type(error).__name__}",
                              reason="upstream_error") from None
        try:
            if response.status in REDIRECTS:
                return response.status, response.headers.get("location"), b""
            chunks, size = [], 0
            while True:
                if time.monotonic() > deadline:
                    raise SourceError("PDF download deadline exceeded", reason="timeout")
                chunk = response.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > settings.max_pdf_bytes:
                    raise SourceError(f"PDF larger than {settings.max_pdf_bytes} bytes",
                                      reason="too_large")
                chunks.append(chunk)
            return response.status, None, b"".join(chunks)
        except urllib3.exceptions.HTTPError as error:
            raise SourceError(f"broken download: {type(error).__name__}", reason="upstream_error") from None
        finally:
            response.release_conn()
            pool.close()


def _host_path(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc.lower() + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


__all__ = ["FetchedPDF", "PDFFetcher", "pdf_candidates", "pdf_from_landing", "BlockedDestinationError"]
