"""Crossref through habanero: the work by DOI, its registration agency, bibliographic search.

habanero is plugged into ``HttpClient`` (``transports``): politeness (mailto in the
User-Agent), retries, limits, cache and replay are applied underneath it.
"""
from __future__ import annotations

import logging

import habanero
import httpx2

from .. import __version__
from ..config import Settings
from ..doi import crossref_path
from ..errors import NotFoundError, SourceError
from ..http import HttpClient
from . import transports

logger = logging.getLogger(__name__)

NOTICE_TYPES = {
    "retraction": "retraction",
    "partial_retraction": "retraction",
    "removal": "withdrawal",
    "withdrawal": "withdrawal",
    "correction": "correction",
    "erratum": "correction",
    "corrigendum": "correction",
    "addendum": "correction",
    "clarification": "correction",
    "expression_of_concern": "expression_of_concern",
    "expression-of-concern": "expression_of_concern",
}


class CrossrefSource:
    def __init__(self, http: HttpClient, settings: Settings):
        self.http = http
        self.settings = settings
        self.client = habanero.Crossref(
            base_url=settings.crossref_base_url.rstrip("/"),
            mailto=settings.mailto or None,
            ua_string=f"citecheck/{__version__}",
            timeout=int(settings.request_deadline_s),
        )
        if not settings.mailto:
            logger.info("CITECHECK_MAILTO is not set: Crossref's public pool is used")

    def work(self, doi: str) -> dict:
        """The Crossref ``message`` for a DOI; ``NotFoundError`` when Crossref has no record."""
        with transports.using(self.http):
            try:
                result = self.client.works(ids=crossref_path(doi))
            except (httpx2.HTTPStatusError, habanero.RequestError) as error:
                status = _status_of(error)
                if status == 404:
                    raise NotFoundError(f"Crossref has no record of {doi}", status=404) from None
                raise SourceError(f"Crossref answered HTTP {status}", status=status) from None
            except RuntimeError as error:
                raise SourceError(f"Crossref request failed: {type(error).__name__}") from None
        if not isinstance(result, dict) or "message" not in result:
            raise SourceError("Crossref answered without a message", reason="bad_json")
        return result["message"]

    def agency(self, doi: str) -> str | None:
        """The registration agency's id (``crossref``, ``datacite``, …), asked once after a 404."""
        with transports.using(self.http):
            try:
                result = self.client.registration_agency(crossref_path(doi))
            except (httpx2.HTTPStatusError, habanero.RequestError, RuntimeError):
                return None
        if isinstance(result, list):
            result = result[0] if result else None
        return str(result).lower() if result else None

    def search_bibliographic(self, text: str, rows: int = 3) -> list[dict]:
        """Crossref ``query.bibliographic`` alone, a few rows (Crossref's advice for matching)."""
        with transports.using(self.http):
            try:
                result = self.client.works(query_bibliographic=text[:1000], limit=rows)
            except (httpx2.HTTPStatusError, habanero.RequestError, RuntimeError) as error:
                raise SourceError(f"Crossref search failed: {type(error).__name__}") from None
        return list(result.get("message", {}).get("items", []))


def _status_of(error: Exception) -> int | None:
    response = getattr(error, "response", None)
    if response is not None:
        return response.status_code
    code = getattr(error, "status_code", None)
    return int(code) if isinstance(code, int) else None


def notices_from_work(message: dict) -> list[dict]:
    """Retractions, corrections, expressions of concern and withdrawals, each kept apart.

    ``updated-by`` lists notices about this work (source ``publisher`` or
    ``retraction-watch``); ``update-to`` means this record *is* a notice about another work.
    """
    notices = []
    for relation, direction in (("updated-by", "about_this_work"), ("update-to", "this_is_notice")):
        for update in message.get(relation) or []:
            raw_type = str(update.get("type", "")).lower().replace(" ", "_")
            source = str(update.get("source", "publisher")).lower()
            notices.append({
                "type": NOTICE_TYPES.get(raw_type, "other"),
                "crossref_type": raw_type,
                "source": "retraction-watch" if "retraction" in source and "watch" in source
                else "publisher",
                "notice_doi": (update.get("DOI") or "").lower() or None,
                "date": _date_of(update.get("updated")),
                "direction": direction,
                "label": update.get("label"),
            })
    return notices


def _date_of(value) -> str | None:
    if not isinstance(value, dict):
        return None
    parts = (value.get("date-parts") or [[None]])[0]
    if not parts or parts[0] is None:
        return value.get("date-time")
    return "-".join(f"{int(p):02d}" if i else str(int(p)) for i, p in enumerate(parts))
