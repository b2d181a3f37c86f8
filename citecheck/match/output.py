"""Outputs of ``citecheck refs``: one JSON object per printed line, or a readable table."""

from __future__ import annotations

import logging
import textwrap

from citecheck.match.models import LinkResult

logger = logging.getLogger(__name__)


def refs_output(result: LinkResult) -> list[dict]:
    """One ``{printed, status, doi, openalex_id, score, differences}`` per input line, in order."""
    return [
        {
            "printed": item.printed,
            "status": item.status,
            "doi": item.doi,
            "openalex_id": item.openalex_id,
            "score": item.score,
            "differences": [d.model_dump() for d in item.differences],
        }
        for item in result.items
    ]


def format_refs_text(result: LinkResult, width: int = 100) -> str:
    """A plain-text table: id, status, score, DOI, the printed text and any differences."""
    lines = [f"{'id':<8} {'status':<23} {'score':>5}  {'doi / reason'}", "-" * width]
    for item in result.items:
        score = f"{item.score:.2f}" if item.score is not None else "  -  "
        target = item.doi or item.openalex_id or (item.reason or "")
        lines.append(f"{item.id:<8} {item.status:<23} {score:>5}  {target}")
        printed = " ".join(item.printed.split())
        lines.extend(
            "         " + part for part in textwrap.wrap(printed, width - 9)[:3]
        )
        for difference in item.differences:
            lines.append(
                f"         ! {difference.field}: printed {difference.printed!r}, "
                f"found {difference.found!r}"
            )
    counts = result.counts
    lines.append("-" * width)
    lines.append(
        f"{counts['printed']} printed: {counts['linked']} linked, {counts['found']} found, "
        f"{counts['found_with_differences']} found with differences, "
        f"{counts['not_found']} not found, {counts['unchecked']} unchecked; "
        f"{len(result.registry_only)} registry references not printed"
    )
    return "\n".join(lines)
