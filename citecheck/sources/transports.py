"""Plugging habanero and pyalex into ``citecheck.http.HttpClient`` at their transport.

habanero calls the module-level ``httpx2.get`` and pyalex builds its own ``requests``
session; neither lets a caller pass a client. We replace exactly those two seams — the
``httpx2`` name inside habanero's request modules and pyalex's session factory — with
objects that send through the current ``HttpClient`` (a context variable, so threads in
a batch each use their own run's client). The libraries' URL building, validation and
parsing run unchanged; the network, cache, retries, limits and replay are ours.
"""
from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager

import httpx2
import requests

from ..http import HttpClient

_current: contextvars.ContextVar[tuple[HttpClient, str] | None] = contextvars.ContextVar(
    "citecheck_http_client", default=None)
_install_lock = threading.Lock()
_installed = False


@contextmanager
def using(client: HttpClient, base_url: str | None = None):
    """Route habanero/pyalex traffic made inside this block through ``client``."""
    _install()
    token = _current.set((client, base_url or ""))
    try:
        yield
    finally:
        _current.reset(token)


def _client() -> tuple[HttpClient, str]:
    current = _current.get()
    if current is None:
        raise RuntimeError("habanero/pyalex used outside citecheck.sources.transports.using()")
    return current


class _HabaneroHttpx:
    """Stands in for the ``httpx2`` module inside habanero; only ``get`` is ours."""

    def __getattr__(self, name):
        return getattr(httpx2, name)

    @staticmethod
    def get(url, params=None, headers=None, timeout=None, **_ignored):
        client, _ = _client()
        response = client.get(str(url), service="crossref", params=params, headers=headers)
        return httpx2.Response(response.status, headers=response.headers, content=response.body,
                               request=httpx2.Request("GET", response.url))


class _PolicyAdapter(requests.adapters.BaseAdapter):
    """A requests transport adapter that sends pyalex's requests through ``HttpClient``."""

    def send(self, request, **_kwargs):
        client, openalex_base = _client()
        url = request.url
        if openalex_base and url.startswith("https://api.openalex.org"):
            url = openalex_base.rstrip("/") + url[len("https://api.openalex.org"):]
        response = client.get(url, service="openalex", headers=dict(request.headers))
        result = requests.Response()
        result.status_code = response.status
        result.headers = requests.structures.CaseInsensitiveDict(response.headers)
        result._content = response.body
        result.url = response.url
        result.request = request
        result.encoding = "utf-8"
        return result

    def close(self):
        pass


def _policy_session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    adapter = _PolicyAdapter()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def _install() -> None:
    global _installed
    with _install_lock:
        if _installed:
            return
        import habanero.request
        import habanero.request_class
        import pyalex.api

        shim = _HabaneroHttpx()
        habanero.request.httpx2 = shim
        habanero.request_class.httpx2 = shim
        pyalex.api._get_requests_session = _policy_session
        _installed = True
