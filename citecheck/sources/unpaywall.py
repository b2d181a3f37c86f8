"""Unpaywall: open-access locations for a DOI (only when a contact e-mail is configured)."""
from __future__ import annotations

from urllib.parse import quote

from ..config import Settings
from ..errors import ConfigError, NotFoundError
from ..http import HttpClient


class UnpaywallSource:
    def __init__(self, http: HttpClient, settings: Settings):
        self.http = http
        self.settings = settings

    @property
    def available(self) -> bool:
        return bool(self.settings.mailto)

    def record(self, doi: str) -> dict:
        if not self.settings.mailto:
            raise ConfigError("Unpaywall needs CITECHECK_MAILTO (a contact e-mail)")
        url = f"{self.settings.unpaywall_base_url.rstrip('/')}/{quote(doi, safe='/')}"
        response = self.http.get(url, service="unpaywall", params={"email": self.settings.mailto})
        if response.status == 404:
            raise NotFoundError(f"Unpaywall has no record of {doi}", status=404)
        return response.json()
