"""Resolve the DOI: the Crossref record (habanero) and the OpenAlex work (pyalex)."""
from __future__ import annotations

import logging
from typing import ClassVar

from ..context import Context, StageResult
from ..errors import NotFoundError, ReplayMissError, SourceError
from ..metadata import build_work

logger = logging.getLogger(__name__)


class Resolve:
    name: ClassVar[str] = "resolve"
    required: ClassVar[bool] = True

    def run(self, ctx: Context) -> StageResult:
        if not ctx.doi:
            return StageResult("skipped", "no_doi")
        crossref, openalex = ctx.services["crossref"], ctx.services["openalex"]
        registry = ctx.report.registry
        problems = []
        try:
            ctx.data["crossref_work"] = crossref.work(ctx.doi)
            registry.crossref = True
            registry.agency = "crossref"
        except NotFoundError:
            agency = crossref.agency(ctx.doi)
            registry.agency = agency
            problems.append("not_crossref" if agency and agency != "crossref" else "crossref_not_found")
        except ReplayMissError:
            raise
        except SourceError as error:
            problems.append(f"crossref_{error.reason}")
        try:
            ctx.data["openalex_work"] = openalex.work(ctx.doi)
            registry.openalex = True
        except NotFoundError:
            problems.append("openalex_not_found")
        except ReplayMissError:
            raise
        except SourceError as error:
            problems.append(f"openalex_{error.reason}")
        crossref_work, openalex_work = ctx.data.get("crossref_work"), ctx.data.get("openalex_work")
        if crossref_work is None and openalex_work is None:
            registry.status = "not_found" if all("not_found" in p or p == "not_crossref"
                                                 for p in problems) else "not_checked"
            registry.reason = ";".join(problems)
            return StageResult("failed", registry.reason)
        ctx.report.work = build_work(ctx.doi, crossref_work, openalex_work)
        return StageResult("partial", ";".join(problems)) if problems else StageResult("ok")
