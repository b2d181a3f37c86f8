"""A simulated Crossref/OpenAlex registry on 127.0.0.1 for fault tests and soak runs.

Tests start it in a thread (``with SimRegistry() as sim``) and point citecheck at it through
its ordinary settings (``crossref_base_url`` / ``openalex_base_url`` = ``sim.url``). It answers:

* Crossref ``/works/{doi}`` and ``/works/{doi}/agency``; OpenAlex ``/works/https://doi.org/{doi}``,
  ``/works/doi:{doi}`` and ``/works?filter=openalex_id:…|…``, ``doi:…|…``, ``cites:W…`` (cursor
  paged). Bodies come from the recorded corpus (``../shared/corpus``, read in place) when a DOI
  is recorded there, otherwise from small generated JSON derived from the DOI.
* Unpaywall ``/v2/{doi}`` (or ``/unpaywall/{doi}``): a generated closed-access record.
* A PDF host under ``/files/…``: bodies put in ``sim.files[path] = (body, content_type)``; open
  access locations pointing at it are added to the generated OpenAlex work of a DOI with
  ``sim.oa_locations[doi] = [url, …]`` (the first one is ``best_oa_location``).
* Faults, scripted per request (``sim.script(match, [fault, …])``, consumed in order) or mixed in
  at random with a seed (``sim.mix``): any status with any headers (429 with ``Retry-After`` in
  seconds, HTTP-date, huge or absent), 5xx, connection resets, hangs, 1-byte-per-interval
  trickles, HTML pages, truncated JSON, empty bodies, missing ``Content-Type``, redirects,
  oversize and gzip-bomb bodies, and added latency.

Every request is logged (method, path, query, headers) so tests can count what reached the
"network". Paths may carry a ``/crossref`` or ``/openalex`` prefix to force the routing; without
one the service is told apart by the path shape, so both base URLs can be the same.
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import json
import random
import re
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Self
from urllib.parse import parse_qsl, unquote, urlsplit

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
REGISTRY = CORPUS / "A-registry-responses"


@dataclass
class Fault:
    """One scripted answer. ``kind``: respond | reset | hang | trickle | delay."""

    kind: str = "respond"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # None: the normal body for the request
    seconds: float = 0.0
    content_type: str | None = "application/json"


def respond(status: int = 200, body: bytes | str | None = None, *, headers: dict | None = None,
            content_type: str | None = "application/json") -> Fault:
    data = body.encode() if isinstance(body, str) else body
    return Fault("respond", status, dict(headers or {}), data, content_type=content_type)


def too_many(retry_after: str | float | None = None, *, html: bool = False,
             body: str | None = None) -> Fault:
    """A 429, with ``Retry-After`` as given (seconds, an HTTP-date string, or absent)."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    if html:
        return respond(429, HTML_429, headers=headers, content_type="text/html; charset=utf-8")
    return respond(429, body or '{"status":"error","message":"Too Many Requests"}', headers=headers)


def http_date(seconds_from_now: float) -> str:
    return formatdate(time.time() + seconds_from_now, usegmt=True)


def server_error(status: int = 503) -> Fault:
    return respond(status, "<html><body><h1>Service Unavailable</h1></body></html>",
                   content_type="text/html")


def reset() -> Fault:
    """Read the request, then close the socket with RST (SO_LINGER 0)."""
    return Fault("reset")


def hang(seconds: float = 30.0) -> Fault:
    """Read the request and never answer (until ``seconds`` pass or the server stops)."""
    return Fault("hang", seconds=seconds)


def trickle(body: bytes | None = None, *, interval: float = 1.0) -> Fault:
    """Send the headers, then the body one byte every ``interval`` seconds."""
    return Fault("trickle", body=body, seconds=interval)


def delay(seconds: float) -> Fault:
    """The normal answer after ``seconds``."""
    return Fault("delay", seconds=seconds)


def html_page(status: int = 200) -> Fault:
    return respond(status, HTML_PAGE, content_type="text/html; charset=utf-8")


def truncated(status: int = 200) -> Fault:
    return respond(status, b'{"status":"ok","message":{"DOI":"10.1/x","title":["Tru')


def empty(status: int = 200) -> Fault:
    return respond(status, b"")


def no_content_type(body: bytes = b"Service temporarily unavailable") -> Fault:
    return respond(200, body, content_type=None)


def redirect(location: str, status: int = 301) -> Fault:
    return respond(status, b"", headers={"Location": location}, content_type=None)


def oversize(size: int) -> Fault:
    """A valid-looking JSON body of ``size`` bytes."""
    filler = b" " * max(0, size - 20)
    return respond(200, b'{"status":"ok",' + filler + b'"x":1}')


def gzip_bomb(decoded_size: int) -> Fault:
    """A small gzip body that decodes to ``decoded_size`` bytes."""
    return respond(200, gzip.compress(b" " * decoded_size, compresslevel=9),
                   headers={"Content-Encoding": "gzip"})


HTML_429 = ("<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head><body>"
            "<h1>Too Many Requests</h1><p>Please slow down.</p></body></html>")
HTML_PAGE = ("<!DOCTYPE html><html><head><title>Just a moment...</title></head>"
             "<body><p>Checking your browser before accessing the API.</p></body></html>")


@dataclass
class Rule:
    pattern: re.Pattern
    faults: deque
    repeat: bool = False


@dataclass
class FaultMix:
    """Random faults for soak runs: ``rates`` maps a fault factory's name to a probability."""

    rates: dict[str, float]
    seed: int = 0

    def __post_init__(self):
        self._random = random.Random(self.seed)
        self._lock = threading.Lock()
        self._makers = {"429": lambda: too_many("1"), "5xx": lambda: server_error(503),
                        "hang": lambda: hang(30), "html": lambda: html_page(200),
                        "reset": reset, "truncated": truncated}

    def draw(self) -> Fault | None:
        with self._lock:
            roll = self._random.random()
        for name, rate in self.rates.items():
            if roll < rate:
                return self._makers[name]()
            roll -= rate
        return None


@dataclass
class SeenRequest:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    service: str
    raw_path: str
    at: float  # time.monotonic() when it arrived


class SimRegistry:
    """The server; use as a context manager. ``url`` is the base URL for both registries."""

    def __init__(self, *, latency_s: float = 0.0, headers: dict[str, str] | None = None,
                 cited_by_count: int = 7, not_found: set[str] | None = None):
        self.latency_s = latency_s
        self.extra_headers = dict(headers or {})
        self.cited_by_count = cited_by_count
        self.not_found = {d.lower() for d in (not_found or set())}
        self.agencies: dict[str, str] = {}
        self.files: dict[str, tuple[bytes, str | None]] = {}
        self.oa_locations: dict[str, list[str]] = {}
        # Cursor paging: opaque cursors carry '+', '/' and '=' (as OpenAlex's base64 ones do)
        # and must come back exactly; with a TTL a cursor unused for that long is refused.
        self.opaque_cursors = False
        self.cursor_ttl_s: float | None = None
        self._cursors: dict[str, tuple[int, float]] = {}
        self.mix: FaultMix | None = None
        self.requests: list[SeenRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._rules: list[Rule] = []
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._corpus = _corpus_index()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle --------------------------------------------------------------------------
    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"sim": self})
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # scripting --------------------------------------------------------------------------
    def script(self, match: str, faults: list[Fault], *, repeat: bool = False) -> None:
        """Answer the next requests whose path+query matches ``match`` (regex) with ``faults``,
        in order; with ``repeat`` the list cycles forever."""
        with self._lock:
            self._rules.append(Rule(re.compile(match), deque(faults), repeat))

    def next_fault(self, target: str) -> Fault | None:
        with self._lock:
            for rule in self._rules:
                if rule.faults and rule.pattern.search(target):
                    fault = rule.faults.popleft()
                    if rule.repeat:
                        rule.faults.append(fault)
                    return fault
        return self.mix.draw() if self.mix else None

    # observation ------------------------------------------------------------------------
    def log(self, request: SeenRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def count(self, *, service: str | None = None, contains: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests
                       if (service is None or r.service == service)
                       and (contains is None or contains in r.raw_path))

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()

    # normal answers ---------------------------------------------------------------------
    def answer(self, service: str, path: str, query: dict[str, str]) -> tuple[int, bytes, str]:
        if service == "crossref":
            return self._crossref(path, query)
        if service == "unpaywall":
            return self._unpaywall(path)
        if service == "files":
            body, ctype = self.files.get(path, (b"Not found", "text/plain"))
            return (200 if path in self.files else 404), body, ctype
        return self._openalex(path, query)

    def _unpaywall(self, path: str) -> tuple[int, bytes, str]:
        """A closed-access record: no PDF host to visit, so runs stay on 127.0.0.1."""
        doi = re.sub(r"^/(v2/)?", "", path).lower()
        if doi in self.not_found:
            return 404, _dump({"error": True, "message": "not found"}), "application/json"
        return 200, _dump({"doi": doi, "is_oa": False, "oa_status": "closed",
                           "best_oa_location": None, "oa_locations": []}), "application/json"

    def _crossref(self, path: str, query: dict) -> tuple[int, bytes, str]:
        if path.rstrip("/") == "/works":
            return 200, _dump({"status": "ok", "message-type": "work-list",
                               "message": {"total-results": 0, "items": []}}), "application/json"
        doi = path[len("/works/"):].lower()
        if doi.endswith("/agency"):
            doi = doi[: -len("/agency")]
            agency = self.agencies.get(doi, "crossref")
            return 200, _dump({"status": "ok", "message-type": "work-agency", "message": {
                "DOI": doi, "agency": {"id": agency, "label": agency.title()}}}), "application/json"
        if doi in self.not_found or doi in self.agencies:
            return 404, b"Resource not found.", "text/plain"
        recorded = self._corpus.get(("crossref", doi))
        if recorded is not None:
            return 200, recorded.read_bytes(), "application/json"
        return 200, _dump({"status": "ok", "message-type": "work", "message": crossref_work(doi)}), \
            "application/json"

    def _issue_cursor(self, offset: int) -> str:
        cursor = f"IlsxMDAuMF0i+{offset}/Wz0=" if self.opaque_cursors else str(offset)
        with self._lock:
            self._cursors[cursor] = (offset, time.monotonic())
        return cursor

    def _cursor_offset(self, cursor: str) -> int | None:
        """The offset of a cursor this server issued and that has not expired; else None."""
        if cursor == "*":
            return 0
        with self._lock:
            issued = self._cursors.get(cursor)
        if issued is None:
            return None if self.opaque_cursors or self.cursor_ttl_s is not None else int(cursor)
        offset, at = issued
        if self.cursor_ttl_s is not None and time.monotonic() - at >= self.cursor_ttl_s:
            return None
        return offset

    def _openalex(self, path: str, query: dict) -> tuple[int, bytes, str]:
        if path.startswith("/works/"):
            ident = path[len("/works/"):]
            doi = re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", ident, flags=re.IGNORECASE).lower()
            if doi in self.not_found:
                return 404, _dump({"error": "Not found"}), "application/json"
            recorded = self._corpus.get(("openalex", doi))
            if recorded is not None:
                return 200, recorded.read_bytes(), "application/json"
            return 200, _dump(self.openalex_work(doi=doi)), "application/json"
        listing = self._openalex_list(query)
        if listing is None:
            return 400, _dump({"error": "Invalid query parameters error.",
                               "message": "cursor is expired or invalid"}), "application/json"
        return 200, _dump(listing), "application/json"

    def _openalex_list(self, query: dict) -> dict | None:
        per_page = int(query.get("per-page") or 25)
        filters = dict(part.split(":", 1) for part in query.get("filter", "").split(",") if ":" in part)
        if "cites" in filters:
            if "page" in query:  # basic paging (OpenAlex: up to 10,000 results)
                offset = (int(query["page"]) - 1) * per_page
            else:
                offset = self._cursor_offset(query.get("cursor", "*"))
            if offset is None:
                return None
            count = self.cited_by_count
            results = [self.openalex_work(ident=f"W9{i:07d}", cites=filters["cites"])
                       for i in range(offset, min(count, offset + per_page))]
            end = offset + len(results)
            nxt = self._issue_cursor(end) if end < count else None
            return {"meta": {"count": count, "per_page": per_page, "next_cursor": nxt},
                    "results": results}
        results = []
        for key in ("openalex_id", "ids.openalex", "doi"):
            for value in filter(None, filters.get(key, "").split("|")):
                if key == "doi":
                    results.append(self.openalex_work(doi=value.lower()))
                else:
                    results.append(self.openalex_work(ident=value.rsplit("/", 1)[-1]))
        results = results[:per_page]
        return {"meta": {"count": len(results), "per_page": per_page}, "results": results}

    def openalex_work(self, *, doi: str | None = None, ident: str | None = None,
                      cites: str | None = None) -> dict:
        """A generated OpenAlex work; for a DOI it agrees with ``crossref_work`` of that DOI."""
        facts = _facts(doi or ident or "")
        ident = ident or f"W{facts['number'] % 10**10}"
        doi = doi or f"10.5555/sim.{ident.lower()}"
        locations = [{"pdf_url": url, "landing_page_url": None, "is_oa": True}
                     for url in self.oa_locations.get(doi, [])]
        oa = {"best_oa_location": locations[0], "locations": locations} if locations else {}
        return {
            **oa,
            "id": f"https://openalex.org/{ident}", "doi": f"https://doi.org/{doi}",
            "title": facts["title"], "display_name": facts["title"],
            "publication_year": facts["year"], "type": "article",
            "authorships": [{"author": {"id": f"https://openalex.org/A{facts['number'] % 9999}",
                                        "display_name": f"Ada {facts['family']}", "orcid": None},
                             "institutions": []}],
            "primary_location": {"source": {"display_name": "Journal of Simulation"}},
            "biblio": {"volume": "1", "issue": "1", "first_page": "1", "last_page": "9"},
            "ids": {"openalex": f"https://openalex.org/{ident}", "doi": f"https://doi.org/{doi}"},
            "is_retracted": False,
            "cited_by_count": facts["number"] % 50 if cites else self.cited_by_count,
            "counts_by_year": [] if cites else [{"year": 2024, "cited_by_count": self.cited_by_count}],
            "referenced_works": [] if cites else [f"https://openalex.org/W8{i:07d}" for i in range(3)],
        }


def _facts(seed: str) -> dict:
    number = int(hashlib.sha256(seed.encode()).hexdigest()[:8], 16)
    return {"number": number, "title": f"Simulated work {seed}", "year": 2000 + number % 25,
            "family": f"Author{number % 97}"}


def crossref_work(doi: str) -> dict:
    facts = _facts(doi)
    return {
        "DOI": doi, "type": "journal-article", "title": [facts["title"]],
        "author": [{"given": "Ada", "family": facts["family"], "sequence": "first"}],
        "container-title": ["Journal of Simulation"], "publisher": "Simulated Press",
        "published": {"date-parts": [[facts["year"], 1, 1]]},
        "reference-count": 2,
        "reference": [{"key": "r1", "DOI": f"10.5555/ref.{facts['number'] % 1000}.1"},
                      {"key": "r2", "unstructured": "A. Nobody. An unlinked reference. 1999."}],
    }


def _dump(data) -> bytes:
    return json.dumps(data).encode()


def _corpus_index() -> dict[tuple[str, str], Path]:
    """(service, doi) → recorded single-work body, from the corpus ``works_index.csv``."""
    index_file = REGISTRY / "works_index.csv"
    if not index_file.exists():
        return {}
    found = {}
    with index_file.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["service"] in ("crossref", "openalex") and "__" not in row["file"]:
                found.setdefault((row["service"], row["doi"].lower()), REGISTRY / row["file"])
    return found


def route(path: str, query: dict) -> tuple[str, str]:
    """(service, path without a routing prefix)."""
    if path.startswith("/files/"):
        return "files", path
    for prefix in ("crossref", "openalex", "unpaywall"):
        if path.startswith(f"/{prefix}/") or path == f"/{prefix}":
            return prefix, path[len(prefix) + 1:] or "/"
    if path.startswith("/v2/"):
        return "unpaywall", path
    if re.match(r"^/works/10\.", path):
        return "crossref", path
    if path.rstrip("/") == "/works" and any(k.startswith("query") or k == "rows" for k in query):
        return "crossref", path
    return "openalex", path


class _QuietServer(ThreadingHTTPServer):
    """Resets and abandoned connections are the point here, not errors worth printing."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class _Handler(BaseHTTPRequestHandler):
    sim: SimRegistry
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes

    def log_message(self, format, *args):  # quiet: tests read sim.requests instead
        pass

    def do_GET(self):
        self.sim.enter()
        try:
            self._answer()
        finally:
            self.sim.leave()

    def _answer(self) -> None:
        parts = urlsplit(self.path)
        query_list = parse_qsl(parts.query, keep_blank_values=True)
        query = dict(query_list)
        path = unquote(parts.path)
        service, inner = route(path, query)
        self.sim.log(SeenRequest("GET", inner, query_list, dict(self.headers.items()), service,
                                 self.path, time.monotonic()))
        fault = self.sim.next_fault(self.path)
        if self.sim.latency_s:
            self.sim.stopping.wait(self.sim.latency_s)
        if fault is None or fault.kind == "delay":
            if fault is not None:
                self.sim.stopping.wait(fault.seconds)
            status, body, ctype = self.sim.answer(service, inner, query)
            return self._send(status, body, ctype, {})
        if fault.kind == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return None
        if fault.kind == "hang":
            self.close_connection = True
            self.sim.stopping.wait(fault.seconds)
            return None
        if fault.kind == "trickle":
            body = fault.body if fault.body is not None else self.sim.answer(service, inner, query)[1]
            return self._trickle(body, fault.seconds)
        body = fault.body if fault.body is not None else self.sim.answer(service, inner, query)[1]
        return self._send(fault.status, body, fault.content_type, fault.headers)

    def _send(self, status: int, body: bytes, ctype: str | None, headers: dict) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for name, value in {**self.sim.extra_headers, **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            self.close_connection = True

    def _trickle(self, body: bytes, interval: float) -> None:
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.flush()
            for index in range(len(body)):
                if self.sim.stopping.is_set():
                    return
                self.wfile.write(body[index:index + 1])
                self.wfile.flush()
                self.sim.stopping.wait(interval)
        except OSError:
            return

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
