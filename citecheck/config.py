"""All configuration in one place: environment variables ``CITECHECK_*``,
``ANTHROPIC_API_KEY`` and ``OPENALEX_API_KEY``.

Keys are ``SecretStr`` and are registered for redaction as soon as settings load.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import platformdirs
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from .redaction import register_secret


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CITECHECK_", extra="ignore")

    home: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir("citecheck")),
        description="Directory of the SQLite store and the PDF cache (CITECHECK_HOME).",
    )
    mailto: str | None = Field(
        default=None,
        description="Contact e-mail for the Crossref polite pool and Unpaywall. Never logged.",
    )
    openalex_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENALEX_API_KEY", "CITECHECK_OPENALEX_API_KEY"),
        description="OpenAlex API key (required by OpenAlex since 2026).",
    )
    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("ANTHROPIC_API_KEY", "CITECHECK_ANTHROPIC_API_KEY"),
        description="Anthropic API key for the claim judge; without it claims are not judged.",
    )
    judge_model: str = Field(default="claude-sonnet-4-6", description="Model of the claim judge.")
    llm_timeout_s: float = Field(default=60.0, description="Per-call timeout of the model API.")
    llm_max_retries: int = Field(default=2, description="SDK retries of a failed model call.")

    crossref_base_url: str = Field(default="https://api.crossref.org",
                                   description="Crossref REST API base URL.")
    openalex_base_url: str = Field(default="https://api.openalex.org",
                                   description="OpenAlex API base URL.")
    unpaywall_base_url: str = Field(default="https://api.unpaywall.org/v2",
                                    description="Unpaywall API base URL.")

    connect_timeout_s: float = Field(default=10.0, description="TCP connect timeout.")
    read_timeout_s: float = Field(default=30.0, description="Socket read timeout.")
    request_deadline_s: float = Field(default=60.0,
                                      description="Total deadline of one request, body included.")
    max_attempts: int = Field(default=4, description="Attempts per request on 429/5xx/errors.")
    backoff_base_s: float = Field(default=1.0, description="First backoff delay; doubles per try.")
    retry_after_cap_s: float = Field(
        default=120.0, description="Longest Retry-After honoured; beyond it: rate_limited.")
    breaker_window: int = Field(default=50, description="Recent responses the breaker looks at.")
    breaker_failure_ratio: float = Field(default=0.10,
                                         description="Failure share that opens the breaker.")
    max_json_bytes: int = Field(default=50_000_000, description="Cap on one API response body.")
    max_pdf_bytes: int = Field(default=50_000_000, description="Cap on one downloaded PDF.")
    max_redirects: int = Field(default=5, description="Redirect hops followed for a PDF.")
    pdf_deadline_s: float = Field(default=120.0, description="Total deadline of one PDF download.")

    max_cited_fulltexts: int = Field(
        default=10, description="Cited works whose open PDF is fetched to check claims against.")
    max_incoming_papers: int = Field(
        default=5, description="Citing works whose open PDF is read for claims about this paper.")
    max_cited_by: int = Field(default=200, description="Citing works listed (true total kept).")
    openalex_batch_size: int = Field(default=50, description="Ids per OpenAlex OR-filter (≤100).")
    parse_timeout_s: float = Field(default=120.0, description="Wall-clock limit of PDF parsing.")
    parse_memory_mb: int = Field(default=1536, description="Address-space cap of the PDF worker.")

    def model_post_init(self, __context) -> None:
        register_secret(self.mailto)
        for key in (self.openalex_api_key, self.anthropic_api_key):
            if key is not None:
                register_secret(key.get_secret_value())

    @property
    def db_path(self) -> Path:
        return self.home / "citecheck.sqlite3"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
