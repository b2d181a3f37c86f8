"""What differs between a printed reference and the work it was matched to."""

from __future__ import annotations

import logging

from citecheck.match.models import Difference
from citecheck.match.scoring import (
    CandidateProfile,
    PairScore,
    PrintedProfile,
    title_similarity,
)
from citecheck.match.settings import MatchThresholds

logger = logging.getLogger(__name__)


def find_differences(
    printed: PrintedProfile,
    profile: CandidateProfile,
    pair: PairScore,
    thresholds: MatchThresholds,
) -> list[Difference]:
    """Differences worth a reader's attention; absent fields are never a difference."""
    candidate, parsed = profile.candidate, printed.parsed
    found: list[Difference] = []
    printed_dois = set(parsed.dois)
    if printed_dois and candidate.doi and candidate.doi not in printed_dois:
        found.append(
            Difference(field="doi", printed=parsed.dois[0], found=candidate.doi)
        )
    if parsed.year and candidate.year and parsed.year != candidate.year:
        found.append(
            Difference(
                field="year", printed=str(parsed.year), found=str(candidate.year)
            )
        )
    if (
        profile.title_tokens
        and not pair.title_free
        and title_similarity(profile.title_norm, profile.title_tokens, printed)
        < thresholds.title_difference
    ):
        found.append(
            Difference(field="title", printed=parsed.title, found=candidate.title)
        )
    if pair.authors is not None and pair.authors < 0.6:
        found.append(
            Difference(
                field="authors",
                printed=", ".join(parsed.authors) or None,
                found=", ".join(candidate.authors[:5]) or None,
            )
        )
    if pair.venue is not None and pair.venue < 0.34:
        found.append(
            Difference(field="venue", printed=parsed.venue, found=candidate.venue)
        )
    if pair.volume == 0.0:
        found.append(
            Difference(field="volume", printed=parsed.volume, found=candidate.volume)
        )
    if pair.first_page == 0.0:
        found.append(
            Difference(field="pages", printed=parsed.pages, found=candidate.pages)
        )
    return found


def doi_title_mismatch(
    printed: PrintedProfile, profile: CandidateProfile, thresholds: MatchThresholds
) -> Difference | None:
    """A printed DOI whose record carries a title the printed string does not contain."""
    if not profile.title_tokens:
        return None
    similarity = title_similarity(profile.title_norm, profile.title_tokens, printed)
    if similarity >= thresholds.title_mismatch:
        return None
    return Difference(
        field="doi_title_mismatch",
        printed=printed.parsed.title,
        found=profile.candidate.title,
    )
