"""What the pipeline hands each stage: settings, services, inputs, shared data, the report."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .config import Settings
from .http import HttpClient
from .report import Report


@dataclass
class StageResult:
    status: Literal["ok", "partial", "skipped", "failed"]
    reason: str | None = None


@dataclass
class Options:
    no_llm: bool = False
    allow_private_urls: bool = False
    keep_artifacts: Path | None = None
    max_cited_by: int | None = None


@dataclass
class Context:
    settings: Settings
    http: HttpClient
    report: Report
    doi: str | None = None
    pdf: str | None = None
    options: Options = field(default_factory=Options)
    store: Any = None
    services: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
