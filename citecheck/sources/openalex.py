"""OpenAlex through pyalex: the work, referenced works in batches, citing works by cursor.

pyalex's own retries are switched off (``max_retries = 0``) because ``HttpClient`` already
retries with backoff; two layers would multiply attempts. Its timeouts, which default to
none, are replaced by ours at the transport.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager

import pyalex
import requests
from pyalex import Works

from .. import __version__
from ..config import Settings
from ..doi import openalex_filter_value
from ..errors import NotFoundError, SourceError
from ..http import HttpClient
from . import transports

logger = logging.getLogger(__name__)

REFERENCE_FIELDS = ["id", "doi", "title", "display_name", "publication_year", "authorships",
                    "primary_location", "biblio", "is_retracted", "cited_by_count", "ids", "type",
                    "best_oa_location"]
CITING_FIELDS = ["id", "doi", "title", "display_name", "publication_year", "authorships",
                 "primary_location", "cited_by_count", "is_retracted", "best_oa_location", "type"]
MAX_OR_VALUES = 100
BASIC_PAGING_LIMIT = 10_000


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        logger.warning(message)


@contextmanager
def _classified(what: str):
    """pyalex raises requests' HTTPError, its own QueryError, or a JSON error on an HTML
    body; each becomes a ``SourceError`` with a reason (a 401 names the key variable)."""
    try:
        yield
    except requests.HTTPError as error:
        status = error.response.status_code if error.response is not None else None
        if status == 404:
            raise NotFoundError(f"OpenAlex has no {what}", status=404) from None
        if status in (401, 403) and error.response is not None and b"key" in error.response.content.lower():
            raise SourceError("OpenAlex refused the API key: check OPENALEX_API_KEY",
                              reason="bad_api_key", status=status) from None
        raise SourceError(f"OpenAlex {what}: HTTP {status}", status=status) from None
    except pyalex.api.QueryError as error:
        if "api key" in str(error).lower():
            raise SourceError("OpenAlex refused the API key: check OPENALEX_API_KEY",
                              reason="bad_api_key", status=401) from None
        raise SourceError(f"OpenAlex {what}: query rejected", reason="query_error",
                          status=400) from None
    except (ValueError, KeyError, TypeError):
        raise SourceError(f"OpenAlex {what}: unusable answer", reason="bad_json") from None


class OpenAlexSource:
    def __init__(self, http: HttpClient, settings: Settings):
        self.http = http
        self.settings = settings
        self.batch_size = max(1, min(settings.openalex_batch_size, MAX_OR_VALUES))
        pyalex.config.api_key = (settings.openalex_api_key.get_secret_value()
                                 if settings.openalex_api_key else None)
        pyalex.config.email = settings.mailto or None
        pyalex.config.user_agent = f"citecheck/{__version__}"
        pyalex.config.max_retries = 0
        if settings.openalex_api_key is None and not http.replay:
            _warn_once("OPENALEX_API_KEY is not set: OpenAlex requires a key since 2026 and may "
                       "refuse requests")

    def _using(self):
        return transports.using(self.http, self.settings.openalex_base_url)

    def work(self, doi: str) -> dict:
        with self._using(), _classified(f"work for {doi}"):
            work = Works()["https://doi.org/" + doi]
        if not isinstance(work, dict) or not work.get("id"):
            raise SourceError("OpenAlex answered without a work", reason="bad_json")
        return dict(work)

    def works_by_ids(self, ids: list[str], fields: list[str] | None = None) -> list[dict]:
        """Works for OpenAlex ids in OR-filter batches (≤100 each), ``select`` limited."""
        short = list(dict.fromkeys(i.rsplit("/", 1)[-1] for i in ids if i))
        return self._batched("openalex_id", short, fields or REFERENCE_FIELDS)

    def works_by_dois(self, dois: list[str], fields: list[str] | None = None) -> list[dict]:
        batchable = [d for d in dois if openalex_filter_value(d) is not None]
        works = self._batched("doi", batchable, fields or REFERENCE_FIELDS)
        for doi in dois:
            if openalex_filter_value(doi) is None:
                try:
                    works.append(self.work(doi))
                except NotFoundError:
                    continue
        return works

    def _batched(self, key: str, values: list[str], fields: list[str]) -> list[dict]:
        works: list[dict] = []
        with self._using():
            for start in range(0, len(values), self.batch_size):
                chunk = values[start:start + self.batch_size]
                with _classified("batch"):
                    page = (Works().filter(**{key: "|".join(chunk)}).select(fields)
                            .get(per_page=min(len(chunk), MAX_OR_VALUES)))
                works.extend(dict(w) for w in page)
        return works

    def citing_works(self, openalex_id: str, cap: int) -> tuple[int, list[dict]]:
        """(true total, up to ``cap`` citing works sorted by their own citations).

        Cursor paging; if OpenAlex refuses a cursor (they expire after a few minutes unused)
        the listing continues from the saved position with basic ``page=`` paging, which
        OpenAlex allows up to 10,000 results, skipping works already listed."""
        short = openalex_id.rsplit("/", 1)[-1]
        works: list[dict] = []
        total = 0
        per_page = max(1, min(cap, MAX_OR_VALUES))
        with self._using():
            query = (Works().filter(cites=short).sort(cited_by_count="desc").select(CITING_FIELDS))
            try:
                with _classified("citing works"):
                    for page in query.paginate(method="cursor", per_page=per_page, n_max=None):
                        total = getattr(page, "meta", {}).get("count", total) or total
                        works.extend(dict(w) for w in page)
                        if len(works) >= cap or len(page) < per_page:
                            return max(total, len(works)), works[:cap]
            except SourceError as error:
                if error.status != 400 or not works:
                    raise
                logger.info("OpenAlex refused a cursor after %d works; continuing by page",
                            len(works))
                total = self._continue_by_page(query, works, per_page, cap, total)
        return max(total, len(works)), works[:cap]

    @staticmethod
    def _continue_by_page(query, works: list[dict], per_page: int, cap: int, total: int) -> int:
        seen = {w.get("id") for w in works}
        page_number = len(works) // per_page + 1
        while len(works) < cap and page_number * per_page <= BASIC_PAGING_LIMIT:
            with _classified("citing works"):
                page = query.get(page=page_number, per_page=per_page)
            total = getattr(page, "meta", {}).get("count", total) or total
            works.extend(dict(w) for w in page if w.get("id") not in seen)
            seen.update(w.get("id") for w in page)
            if len(page) < per_page:
                break
            page_number += 1
        return total

    def search(self, text: str, rows: int = 3) -> list[dict]:
        with self._using():
            with _classified("search"):
                page = Works().search(text[:300]).select(REFERENCE_FIELDS).get(per_page=rows)
        return [dict(w) for w in page]
