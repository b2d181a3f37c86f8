"""The report contract (../DESIGN.md): pydantic models are the single source of truth.

``citecheck schema`` prints ``Report.model_json_schema(mode="serialization")``; the same
schema ships as ``citecheck/report.schema.json`` and a test fails when they drift.
Readers ignore unknown fields; a minor ``schema_version`` only adds fields.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from . import __version__
from .plaintext import safe_http_url, to_plain_text

SCHEMA_VERSION = "1.0"

Text = Annotated[str, AfterValidator(to_plain_text)]
OptText = Annotated[str | None, AfterValidator(to_plain_text)]
Url = Annotated[str | None, AfterValidator(safe_http_url)]
StageStatus = Literal["ok", "partial", "skipped", "failed"]
Verdict = Literal["supported", "partially_supported", "not_supported", "contradicted",
                  "not_checkable"]
RefStatus = Literal["linked", "found", "found_with_differences", "not_found", "unchecked",
                    "registry_only"]


class Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Generator(Model):
    name: str = "citecheck"
    version: str = __version__


class InputSpec(Model):
    doi: str | None = None
    pdf: str | None = None


class Author(Model):
    name: Text
    orcid: str | None = None
    openalex_id: str | None = None
    affiliations: list[Text] = Field(default_factory=list)


class OpenAccess(Model):
    status: str | None = None
    license: str | None = None
    locations: list[Url] = Field(default_factory=list)


class Ids(Model):
    doi: str | None = None
    openalex: str | None = None
    pmid: str | None = None
    pmcid: str | None = None


class YearCount(Model):
    year: int
    cited_by_count: int


class Work(Model):
    title: OptText = None
    authors: list[Author] = Field(default_factory=list)
    venue: OptText = None
    publisher: OptText = None
    published: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    issn: list[str] = Field(default_factory=list)
    type: str | None = None
    language: str | None = None
    abstract: OptText = None
    open_access: OpenAccess = Field(default_factory=OpenAccess)
    ids: Ids = Field(default_factory=Ids)
    cited_by_count: int | None = None
    references_count: int | None = None
    counts_by_year: list[YearCount] = Field(default_factory=list)
    funders: list[Text] = Field(default_factory=list)
    topics: list[Text] = Field(default_factory=list)
    keywords: list[Text] = Field(default_factory=list)


class Difference(Model):
    field: str
    crossref: OptText = None
    openalex: OptText = None


class Notice(Model):
    type: Literal["retraction", "correction", "expression_of_concern", "withdrawal", "other"]
    source: Literal["retraction-watch", "publisher", "openalex"]
    notice_doi: str | None = None
    date: str | None = None
    direction: Literal["about_this_work", "this_is_notice"] = "about_this_work"
    label: OptText = None


class Registry(Model):
    status: Literal["matched", "mismatch", "not_found", "not_checked"] = "not_checked"
    reason: str | None = None
    agency: str | None = None
    crossref: bool = False
    openalex: bool = False
    differences: list[Difference] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)
    retracted: bool = False


class RefCounts(Model):
    printed: int = 0
    registry: int = 0
    linked: int = 0
    found: int = 0
    found_with_differences: int = 0
    not_found: int = 0
    unchecked: int = 0
    registry_only: int = 0
    retracted: int = 0
    self_citations: int = 0


class RefDifference(Model):
    field: str
    printed: OptText = None
    registry: OptText = None


class RefItem(Model):
    id: str
    printed: OptText = None
    page: int | None = None
    status: RefStatus
    reason: str | None = None
    doi: str | None = None
    openalex_id: str | None = None
    title: OptText = None
    authors: list[Text] = Field(default_factory=list)
    year: int | None = None
    venue: OptText = None
    score: float | None = None
    differences: list[RefDifference] = Field(default_factory=list)
    self_citation: bool | None = None
    retracted: bool | None = None
    cited_by_count: int | None = None
    sources: list[str] = Field(default_factory=list)


class References(Model):
    status: StageStatus = "skipped"
    reason: str | None = None
    counts: RefCounts = Field(default_factory=RefCounts)
    items: list[RefItem] = Field(default_factory=list)


class CitingWork(Model):
    doi: str | None = None
    openalex_id: str | None = None
    title: OptText = None
    authors: list[Text] = Field(default_factory=list)
    year: int | None = None
    venue: OptText = None
    cited_by_count: int | None = None
    self_citation: bool | None = None
    retracted: bool | None = None


class CitedBy(Model):
    status: StageStatus = "skipped"
    reason: str | None = None
    count: int = 0
    listed: int = 0
    counts_by_year: list[YearCount] = Field(default_factory=list)
    self_citations: int = 0
    items: list[CitingWork] = Field(default_factory=list)


class Evidence(Model):
    quote: Text
    page: int | None = None
    artifact_sha256: str | None = None


class Candidate(Model):
    text: Text
    page: int | None = None
    score: float | None = None
    artifact_sha256: str | None = None


class Claim(Model):
    id: str
    quote: Text
    page: int | None = None
    citing_doi: str | None = None
    cited_ref_ids: list[str] = Field(default_factory=list)
    cited_doi: str | None = None
    verdict: Verdict = "not_checkable"
    dimension: Literal["population", "condition", "comparison", "quantity", "scope",
                       "hedging"] | None = None
    reason: str | None = None
    rationale: OptText = None
    evidence: list[Evidence] = Field(default_factory=list)
    candidates: list[Candidate] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    model: str | None = None
    prompt: str | None = None
    prompt_sha256: str | None = None


class Claims(Model):
    status: StageStatus = "skipped"
    reason: str | None = None
    outgoing: list[Claim] = Field(default_factory=list)
    incoming: list[Claim] = Field(default_factory=list)


class StatItem(Model):
    model_config = ConfigDict(extra="allow")
    id: str
    kind: str
    text: Text
    page: int | None = None
    reported: str | float | int | None = None
    recomputed: str | float | int | None = None
    consistent: bool | None = None
    decision_error: bool | None = None


class Statistics(Model):
    status: str = "skipped"
    reason: str | None = None
    items: list[StatItem] = Field(default_factory=list)


class Artifact(Model):
    kind: Literal["pdf", "json"]
    url: Url = None
    sha256: str
    bytes: int
    pages: int | None = None
    retrieved_at: str | None = None
    hidden_text_chars: int | None = None


class Stage(Model):
    name: str
    status: StageStatus
    reason: str | None = None
    seconds: float = 0.0


def utc_now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class Report(Model):
    schema_version: str = SCHEMA_VERSION
    generator: Generator = Field(default_factory=Generator)
    generated_at: str = Field(default_factory=utc_now)
    input: InputSpec = Field(default_factory=InputSpec)
    work: Work = Field(default_factory=Work)
    registry: Registry = Field(default_factory=Registry)
    references: References = Field(default_factory=References)
    cited_by: CitedBy = Field(default_factory=CitedBy)
    claims: Claims = Field(default_factory=Claims)
    statistics: Statistics = Field(default_factory=Statistics)
    artifacts: list[Artifact] = Field(default_factory=list)
    stages: list[Stage] = Field(default_factory=list)
    summary: list[Text] = Field(default_factory=list)


def report_json_schema() -> dict:
    schema = Report.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://citecheck.invalid/report/{SCHEMA_VERSION}/schema.json"
    return schema
