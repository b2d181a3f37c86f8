"""``citecheck serve DIR``: reports and the widget over HTTP, for sites that embed them.

Static and read-only: ``GET``/``HEAD`` of a ``*.json`` report (``application/json``) or a
``*.html`` report under DIR, and the widget script at ``/citecheck-widget.js``. Every answer
carries ``X-Content-Type-Options: nosniff`` and CORS for any origin (GET only); anything
else is 404 (no directory listing, no hidden files such as ``.part`` or ``.git``, nothing
that resolves outside DIR, symlinks included) or 405 for other methods.
"""
from __future__ import annotations

import json
import logging
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .errors import BadInputError
from .htmlreport import CSP as HTML_REPORT_CSP
from .widget import widget_script

logger = logging.getLogger(__name__)
WIDGET_PATHS = ("/citecheck-widget.js", "/widget.js")
CONTENT_TYPES = {".json": "application/json", ".html": "text/html; charset=utf-8"}
# Served bytes are data, never a page that runs anything (the HTML report has no script).
CSP = {".json": "default-src 'none'; frame-ancestors 'none'", ".html": HTML_REPORT_CSP,
       ".js": "default-src 'none'"}
MAX_FILE_BYTES = 50_000_000


def resolve_request_path(root: Path, url_path: str) -> Path | None:
    """The report file under ``root`` that ``url_path`` names, or None when it names nothing
    servable: traversal, a hidden name, a folder, a symlink out of ``root``, another type."""
    path = unquote(urlsplit(url_path).path)
    if "\x00" in path or "\\" in path:
        return None
    parts = [part for part in path.split("/") if part]
    if not parts or any(part in (".", "..") or part.startswith(".") for part in parts):
        return None
    try:
        candidate = root.joinpath(*parts).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return None
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    if candidate.suffix.lower() not in CONTENT_TYPES:
        return None
    return candidate


class ReportHandler(BaseHTTPRequestHandler):
    """One request; ``root`` is bound by :func:`make_server`."""

    server_version = "citecheck"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def __init__(self, *args, root: Path, **kwargs):
        self.root = root
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def do_OPTIONS(self) -> None:
        """CORS preflight: only GET is offered."""
        self.send_response(204)
        self._common_headers()
        self.send_header("Access-Control-Allow-Headers", "Accept")
        self.send_header("Access-Control-Max-Age", "86400")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _not_allowed(self) -> None:
        self._send_error(405, "method not allowed", extra={"Allow": "GET, HEAD, OPTIONS"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed

    def _serve(self, *, send_body: bool) -> None:
        if urlsplit(self.path).path in WIDGET_PATHS:
            body = widget_script().encode("utf-8")
            return self._send(200, body, "text/javascript; charset=utf-8", CSP[".js"], send_body)
        target = resolve_request_path(self.root, self.path)
        if target is None:
            return self._send_error(404, "not found", send_body=send_body)
        try:
            if target.stat().st_size > MAX_FILE_BYTES:
                return self._send_error(404, "not found", send_body=send_body)
            body = target.read_bytes()
        except OSError:
            return self._send_error(404, "not found", send_body=send_body)
        suffix = target.suffix.lower()
        return self._send(200, body, CONTENT_TYPES[suffix], CSP[suffix], send_body)

    def _send(self, status: int, body: bytes, content_type: str, csp: str, send_body: bool,
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self._common_headers()
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Security-Policy", csp)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _send_error(self, status: int, message: str, *, send_body: bool = True,
                    extra: dict[str, str] | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        self._send(status, body, "application/json", CSP[".json"], send_body, extra)

    def _common_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET")
        self.send_header("Referrer-Policy", "no-referrer")

    def log_message(self, format: str, *args) -> None:
        logger.info("%s %s", self.address_string(), format % args)


def make_server(directory: Path, *, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A threaded server for ``directory`` (not yet serving: call ``serve_forever``)."""
    root = Path(directory).resolve()
    if not root.is_dir():
        raise BadInputError(f"no such folder: {directory}")
    try:
        server = ThreadingHTTPServer((host, port), partial(ReportHandler, root=root))
    except OSError as error:
        raise BadInputError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    server.daemon_threads = True
    return server
