"""HTTP policy for the registry APIs, in one place.

Timeouts (connect, read, and a total deadline that also bounds slow trickles), retries
with exponential backoff and jitter on 429/5xx/connection errors honouring
``Retry-After`` up to a cap, no retries on other 4xx, per-service adaptive rate limits
(``ratelimit``), a circuit breaker over recent responses, size caps, classification of
non-JSON error bodies, the SQLite response cache, and record/replay. The libraries
(habanero, pyalex) are plugged in at their transport (``sources.transports``) so their own
request building and parsing run unchanged on top of this policy.
"""
from __future__ import annotations

import email.utils
import json
import logging
import random
import socket
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import requests

from .config import Settings
from .errors import CircuitOpenError, RateLimitedError, SourceError
from .ratelimit import DEFAULT_LIMITS, AdaptiveLimiter
from .recording import Recorder, Replay
from .redaction import SECRET_PARAMS, redact, redact_url

logger = logging.getLogger(__name__)
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# Services that always answer JSON on success: a 2xx body that does not parse (an HTML
# challenge page, a truncated or empty body) is classified here, retried, and never
# cached, instead of surfacing later as a JSONDecodeError inside habanero/pyalex.
JSON_SERVICES = frozenset({"crossref", "openalex", "unpaywall"})
CACHEABLE_STATUSES = frozenset({200, 404})
# The body is handed on decoded, so these would describe bytes nobody sees (and make
# httpx decode it a second time).
_DECODED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    url: str
    source: str = "network"  # network | cache | replay

    def json(self):
        """The parsed body; HTML, empty and truncated bodies become a classified error."""
        ctype = self.headers.get("content-type", "")
        if not self.body.strip():
            raise SourceError(f"empty body from {redact_url(self.url)}", reason="empty_body",
                              status=self.status)
        try:
            return json.loads(self.body)
        except ValueError:
            kind = "html_body" if "html" in ctype or self.body.lstrip()[:1] == b"<" else "bad_json"
            raise SourceError(f"{kind} (HTTP {self.status}) from {redact_url(self.url)}",
                              reason=kind, status=self.status) from None


def request_key(method: str, service: str, url: str) -> str:
    """Method, service, path and sorted query without credentials: the cache/replay key."""
    parts = urlsplit(url)
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if k.lower() not in SECRET_PARAMS)
    readable = "&".join(f"{k}={v}" for k, v in query)
    tail = unquote(parts.path) + ("?" + readable if query else "")
    return f"{method} {service}:{tail}"


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``Retry-After`` (delta-seconds or HTTP-date); ``None`` if absent/bad."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class CircuitBreaker:
    """Opens when at least ``ratio`` of the last ``window`` responses failed."""

    def __init__(self, window: int, ratio: float, min_samples: int = 10):
        self._outcomes: deque[bool] = deque(maxlen=window)
        self._ratio, self._min = ratio, min(min_samples, window)
        self._lock = threading.Lock()

    def record(self, failed: bool) -> None:
        with self._lock:
            self._outcomes.append(failed)

    def check(self, service: str) -> None:
        with self._lock:
            n = len(self._outcomes)
            failures = sum(self._outcomes)
        if n >= self._min and failures / n >= self._ratio:
            raise CircuitOpenError(
                f"{service}: {failures} of the last {n} requests failed; stopping to protect "
                "the service (circuit breaker)")


@dataclass
class HttpStats:
    counts: Counter = field(default_factory=Counter)



class HttpClient:
    """GETs against the registry APIs with the whole policy applied."""

    def __init__(self, settings: Settings, *, store=None, replay_dir=None, record_dir=None,
                 session: requests.Session | None = None, sleep=time.sleep):
        self.settings = settings
        self.store = store
        self.replay = Replay(replay_dir) if replay_dir else None
        self.recorder = Recorder(record_dir) if record_dir else None
        self._session = session or requests.Session()
        self._session.trust_env = False  # no .netrc credentials, no proxy surprises
        self._sleep = sleep
        self._limiters: dict[str, AdaptiveLimiter] = {}
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lock = threading.Lock()
        self.stats = HttpStats()

    def limiter(self, service: str) -> AdaptiveLimiter:
        with self._lock:
            if service not in self._limiters:
                limits = DEFAULT_LIMITS.get(service, DEFAULT_LIMITS["pdf"])
                self._limiters[service] = AdaptiveLimiter(limits)
            return self._limiters[service]

    def breaker(self, service: str) -> CircuitBreaker:
        with self._lock:
            if service not in self._breakers:
                self._breakers[service] = CircuitBreaker(self.settings.breaker_window,
                                                         self.settings.breaker_failure_ratio)
            return self._breakers[service]

    def get(self, url: str, *, service: str, params: dict | None = None,
            headers: dict | None = None, use_cache: bool = True) -> Response:
        if params:
            query = [(k, v) for k, v in params.items() if v is not None]
            url = url + ("&" if "?" in url else "?") + urlencode(query, doseq=True)
        key = request_key("GET", service, url)
        if self.replay is not None:
            rec = self.replay.get(key)
            self.stats.counts["replay"] += 1
            return Response(rec.status, rec.headers, rec.body, url, source="replay")
        if use_cache and self.store is not None:
            hit = self.store.get_response(key)
            if hit is not None:
                self.stats.counts["cache"] += 1
                status, cached_headers, body, _ = hit
                return Response(status, cached_headers, body, url, source="cache")
        response = self._fetch_with_retries(url, service, headers or {})
        if self.recorder is not None:
            self.recorder.save(service, key, redact_url(url), response.status,
                               response.headers, response.body)
        if use_cache and self.store is not None and response.status in CACHEABLE_STATUSES:
            self.store.put_response(key, redact_url(url), response.status,
                                    _storable_headers(response.headers), response.body)
        return response

    def _fetch_with_retries(self, url: str, service: str, headers: dict) -> Response:
        settings = self.settings
        limiter, breaker = self.limiter(service), self.breaker(service)
        last_error: SourceError | None = None
        for attempt in range(settings.max_attempts):
            breaker.check(service)
            try:
                with limiter.slot():
                    response = self._fetch_once(url, service, headers)
            except SourceError as error:
                breaker.record(True)
                last_error = error
                if not error.retryable:
                    raise
                self._sleep(self._backoff(attempt))
                continue
            failed = response.status >= 400 and response.status != 404
            breaker.record(failed)
            limiter.update(response.headers)
            if response.status not in RETRY_STATUSES and not _is_soft_rate_limit(response):
                limiter.recovered()
                return response
            if response.status == 429 and _is_daily_budget(response):
                raise RateLimitedError(f"{service}: daily request budget exhausted",
                                       reason="daily_limit", status=429)
            wait = parse_retry_after(response.headers.get("retry-after"))
            if response.status == 429 or _is_soft_rate_limit(response):
                limiter.slow_down()
                if wait is not None and wait > settings.retry_after_cap_s:
                    raise RateLimitedError(
                        f"{service}: asked to wait {wait:.0f}s (cap {settings.retry_after_cap_s:.0f}s)",
                        status=response.status)
                last_error = RateLimitedError(f"{service}: HTTP {response.status} after "
                                              f"{attempt + 1} attempts", status=response.status)
            else:
                last_error = SourceError(f"{service}: HTTP {response.status} after "
                                         f"{attempt + 1} attempts", reason="upstream_error",
                                         status=response.status)
            if attempt + 1 < settings.max_attempts:
                delay = self._backoff(attempt)
                self._sleep(min(max(delay, wait or 0.0) + random.uniform(0, 0.5),
                                settings.retry_after_cap_s))
        assert last_error is not None
        raise last_error

    def _backoff(self, attempt: int) -> float:
        return self.settings.backoff_base_s * (2 ** attempt) * random.uniform(0.8, 1.2)

    def _fetch_once(self, url: str, service: str, headers: dict) -> Response:
        """One request (following same-host redirects) under the total deadline and byte cap."""
        settings = self.settings
        deadline = time.monotonic() + settings.request_deadline_s
        current = url
        for _hop in range(4):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SourceError(f"{service}: deadline exceeded", reason="timeout", retryable=True)
            logger.debug("GET %s", redact_url(current))
            self.stats.counts["network"] += 1
            try:
                # Through the adapter, not Session.send: the session reads a 3xx body in full
                # (to release the socket) before we could cap it.
                prepared = self._session.prepare_request(
                    requests.Request("GET", current, headers=headers))
                raw = self._session.get_adapter(current).send(
                    prepared, stream=True,
                    timeout=(settings.connect_timeout_s, min(settings.read_timeout_s, remaining)))
            except requests.Timeout:
                raise SourceError(f"{service}: timeout", reason="timeout", retryable=True) from None
            except requests.RequestException as error:
                if _is_name_resolution_failure(error):
                    # Not a blip of the service: retrying in seconds cannot help (offline).
                    raise SourceError(f"{service}: cannot resolve the host (no network?)",
                                      reason="dns_error") from None
                raise SourceError(f"{service}: connection error ({type(error).__name__})",
                                  reason="upstream_error", retryable=True) from None
            try:
                body = _read_capped(raw, deadline, settings.max_json_bytes, service)
            finally:
                raw.close()
            response_headers = {k.lower(): v for k, v in raw.headers.items()
                                if k.lower() not in _DECODED_HEADERS}
            if raw.status_code in (301, 302, 303, 307, 308) and "location" in response_headers:
                target = requests.compat.urljoin(current, response_headers["location"])
                if urlsplit(target).netloc != urlsplit(url).netloc or not target.startswith("https://") and url.startswith("https://"):
                    raise SourceError(f"{service}: redirect off the API host refused",
                                      reason="blocked_destination")
                current = target
                continue
            response = Response(raw.status_code, response_headers, body, current)
            if service in JSON_SERVICES and 200 <= response.status < 300:
                _require_json(response)
            return response
        raise SourceError(f"{service}: too many redirects", reason="too_many_redirects")


def _read_capped(raw: requests.Response, deadline: float, cap: int, service: str) -> bytes:
    chunks, size = [], 0
    stream = raw.raw
    try:
        while True:
            if time.monotonic() > deadline:
                raise SourceError(f"{service}: deadline exceeded while reading",
                                  reason="timeout", retryable=True)
            # requests opens the stream with decode_content=False: decode here so the body is
            # usable and the cap counts decoded bytes (gzip bombs).
            chunk = stream.read1(65536, decode_content=True)
            if not chunk:
                break
            size += len(chunk)
            if size > cap:
                raise SourceError(f"{service}: response larger than {cap} bytes", reason="too_large")
            chunks.append(chunk)
    except (requests.RequestException, OSError, ValueError) as error:
        if isinstance(error, SourceError):
            raise
        reason = "timeout" if "timed out" in str(error).lower() else "upstream_error"
        raise SourceError(f"{service}: {reason} while reading ({type(error).__name__})",
                          reason=reason, retryable=True) from None
    except Exception as error:  # urllib3 protocol/decoding errors
        if isinstance(error, SourceError):
            raise
        raise SourceError(f"{service}: bad response body ({type(error).__name__})",
                          reason="upstream_error", retryable=True) from None
    return b"".join(chunks)


def _require_json(response: Response) -> None:
    try:
        response.json()
    except SourceError as error:
        error.retryable = True
        raise


def _is_name_resolution_failure(error: Exception) -> bool:
    """True when the name lookup itself failed (urllib3's NameResolutionError, EAI_NONAME)."""
    seen, cause = set(), error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if type(cause).__name__ == "NameResolutionError" or (
                isinstance(cause, socket.gaierror) and cause.errno == socket.EAI_NONAME):
            return True
        cause = cause.__cause__ or cause.__context__ or (cause.args[0] if cause.args and
                                                          isinstance(cause.args[0], Exception) else None)
    return False


def _is_soft_rate_limit(response: Response) -> bool:
    """OpenAlex answers 403 with a rate-limit message when it wants callers to slow down."""
    return response.status == 403 and b"rate" in response.body[:2000].lower()


def _is_daily_budget(response: Response) -> bool:
    text = response.body[:2000].lower()
    return b"daily" in text or b"budget" in text or b"credits" in text


def _storable_headers(headers: dict) -> dict:
    return {k: redact(v) for k, v in headers.items() if k in ("content-type", "location")}
