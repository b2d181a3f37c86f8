"""The pipeline: stages in one ordered tuple, each run with timing and its failure recorded.

Only a failed required stage (resolving the DOI, when there is no PDF to fall back on)
stops the stages after it, and they are recorded as skipped with the reason.
"""
from __future__ import annotations

import logging
import time

from .context import Context, StageResult
from .errors import BadInputError, CircuitOpenError, CitecheckError, ReplayMissError
from .report import Stage
from .stages.cited_by import CitedBy
from .stages.cited_texts import CitedTexts
from .stages.claims import Claims
from .stages.fulltext import FullText
from .stages.incoming import IncomingClaims
from .stages.linking import LinkReferences
from .stages.registry import RegistryCheck
from .stages.registry_references import RegistryReferences
from .stages.resolve import Resolve
from .stages.statistics import Statistics
from .summary import summarize

logger = logging.getLogger(__name__)

DEFAULT_STAGES = (Resolve, RegistryCheck, RegistryReferences, CitedBy, FullText, LinkReferences,
                  CitedTexts, Claims, IncomingClaims, Statistics)


def run_stages(ctx: Context, stages=DEFAULT_STAGES) -> None:
    blocked: str | None = None
    for stage_class in stages:
        stage = stage_class()
        started = time.monotonic()
        if blocked:
            result = StageResult("skipped", blocked)
        else:
            try:
                result = stage.run(ctx)
            except (BadInputError, CircuitOpenError, ReplayMissError):
                raise
            except CitecheckError as error:
                logger.warning("stage %s failed: %s", stage.name, error)
                result = StageResult("failed", error.reason)
            except Exception as error:  # a bug must not lose the rest of the report
                logger.exception("stage %s crashed", stage.name)
                result = StageResult("failed", f"internal_error:{type(error).__name__}")
        ctx.report.stages.append(Stage(name=stage.name, status=result.status, reason=result.reason,
                                       seconds=round(time.monotonic() - started, 3)))
        if (result.status == "failed" and getattr(stage, "required", False)
                and not ctx.pdf):
            blocked = f"{stage.name}_failed"
    ctx.report.summary = summarize(ctx.report)
