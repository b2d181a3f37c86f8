"""``--engine ray``: the batch's per-paper work as Ray tasks (optional extra ``ray``).

The driver (``batch.BatchRunner``) still reads the list, writes every report and the journal,
and resumes exactly as with the local engine; only ``check_paper`` runs in Ray workers. The
services' rate limits hold across all workers because each service's
:class:`~citecheck.ratelimit.AdaptiveLimiter` lives in one Ray actor: a worker's HttpClient
asks the actor for a slot before each request and hands it the response headers, so the
limits still adapt to what the service advertises. A task that kills its worker is recorded
as failed (``worker_crashed``) and not retried by Ray.
"""
from __future__ import annotations

import contextlib
import importlib.util
import logging
import threading
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .http import HttpClient
from .ratelimit import DEFAULT_LIMITS, AdaptiveLimiter, Limits
from .store import Store

if TYPE_CHECKING:
    from .batch import BatchRunner, PaperOutcome

logger = logging.getLogger(__name__)
# The services citecheck's HttpClient talks to; any other service keeps a per-worker limiter.
SHARED_SERVICES = ("crossref", "openalex", "unpaywall")
# Threads of a limiter actor: callers block in it while they wait for a slot.
ACTOR_THREADS = 128


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


class LimiterService:
    """One service's limiter, run inside a threaded Ray actor and shared by every worker."""

    def __init__(self, service: str):
        self.service = service
        self._limiter = AdaptiveLimiter(DEFAULT_LIMITS.get(service, DEFAULT_LIMITS["pdf"]))
        self._held: dict[str, contextlib.ExitStack] = {}
        self._lock = threading.Lock()

    def acquire(self) -> str:
        """Block until a request may start (spacing and concurrency); return a slot token."""
        stack = contextlib.ExitStack()
        stack.enter_context(self._limiter.slot())
        token = uuid.uuid4().hex
        with self._lock:
            self._held[token] = stack
        return token

    def release(self, token: str) -> None:
        with self._lock:
            stack = self._held.pop(token, None)
        if stack is not None:
            stack.close()

    def update(self, headers: Mapping[str, str]) -> None:
        self._limiter.update(headers)

    def slow_down(self) -> None:
        self._limiter.slow_down()

    def recovered(self) -> None:
        self._limiter.recovered()

    def limits(self) -> Limits:
        return self._limiter.limits


class RemoteLimiter:
    """The AdaptiveLimiter interface HttpClient uses, answered by a ``LimiterService`` actor."""

    def __init__(self, actor):
        self._actor = actor

    @contextlib.contextmanager
    def slot(self):
        import ray

        token = ray.get(self._actor.acquire.remote())
        try:
            yield
        finally:
            self._actor.release.remote(token)

    def update(self, headers: Mapping[str, str]) -> None:
        self._actor.update.remote(dict(headers))

    def slow_down(self) -> None:
        self._actor.slow_down.remote()

    def recovered(self) -> None:
        self._actor.recovered.remote()

    @property
    def limits(self) -> Limits:
        import ray

        return ray.get(self._actor.limits.remote())


class SharedLimitHttpClient(HttpClient):
    """HttpClient whose per-service limiters are the shared actors."""

    def __init__(self, *args, actors: Mapping[str, object], **kwargs):
        super().__init__(*args, **kwargs)
        self._actors = dict(actors)

    def limiter(self, service: str):
        actor = self._actors.get(service)
        if actor is None:
            return super().limiter(service)
        return RemoteLimiter(actor)


# One client (and store) per worker process and batch run, reused by the tasks it runs.
_worker_clients: dict[str, tuple[SharedLimitHttpClient, Store | None]] = {}


def _run_paper(run_id: str, doi: str, settings, options, replay, actors) -> PaperOutcome:
    from .batch import check_paper

    if run_id not in _worker_clients:
        store = None if replay else Store(settings.db_path)
        http = SharedLimitHttpClient(settings, store=store, replay_dir=replay, actors=actors)
        _worker_clients.clear()  # a worker serves one run at a time; drop older runs' clients
        _worker_clients[run_id] = (http, store)
    http, store = _worker_clients[run_id]
    return check_paper(doi, settings=settings, options=options, replay=replay, store=store,
                       http=http)


class RayEngine:
    """The batch Engine on Ray: connects to ``RAY_ADDRESS`` or starts a local instance
    unless Ray is already initialised, and shuts down only what it started."""

    def __init__(self, runner: BatchRunner):
        import ray

        self._ray = ray
        self._runner = runner
        self._started_ray = not ray.is_initialized()
        if self._started_ray:
            ray.init(include_dashboard=False, logging_level=logging.WARNING)
        actor_class = ray.remote(num_cpus=0, max_concurrency=ACTOR_THREADS)(LimiterService)
        self._actors = {service: actor_class.remote(service) for service in SHARED_SERVICES}
        self._task = ray.remote(max_retries=0)(_run_paper)
        self._run_id = uuid.uuid4().hex
        self._dois: dict[object, str] = {}

    def submit(self, doi: str):
        runner = self._runner
        runner.mark_started(doi)
        ref = self._task.remote(self._run_id, doi, runner.settings, runner.options,
                                runner.replay, self._actors)
        self._dois[ref] = doi
        return ref

    def collect(self, pending: set, *, all_of_them: bool):
        from .batch import PaperOutcome

        if not pending:
            return [], set()
        refs = list(pending)
        ready, rest = self._ray.wait(refs, num_returns=len(refs) if all_of_them else 1)
        results = []
        for ref in ready:
            doi = self._dois.pop(ref)
            try:
                results.append((doi, self._ray.get(ref)))
            except self._ray.exceptions.TaskCancelledError:
                continue
            except self._ray.exceptions.RayError as error:
                logger.warning("paper %s: Ray task failed: %s", doi, type(error).__name__)
                results.append((doi, PaperOutcome({"status": "failed",
                                                   "reason": "worker_crashed"})))
        return results, set(rest)

    def cancel(self, pending: set) -> None:
        for ref in pending:
            self._ray.cancel(ref)

    def close(self) -> None:
        for actor in self._actors.values():
            self._ray.kill(actor)
        if self._started_ray:
            self._ray.shutdown()
