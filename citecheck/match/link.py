"""The linking job: printed references ↔ the paper's registry references, then search, then
one model read, with counts that always add up.

Order of decisions for each printed entry:
1. an identifier printed in it (DOI, arXiv id, PMID) that a registry reference carries;
2. text scores against the registry references, assigned one-to-one (optimal assignment);
3. the searcher (Crossref / OpenAlex), validated more strictly: ``found`` or
   ``found_with_differences`` (a printed DOI whose record has another title is the common
   pattern of a fabricated reference);
4. the classifier (one model read): a kind of work indexes do not list → ``unchecked``;
   a scholarly work → ``not_found``. Without a classifier: ``unchecked``, reason ``no_model``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from citecheck.match.assign import assign_one_to_one
from citecheck.match.candidates import Candidate
from citecheck.match.differences import doi_title_mismatch, find_differences
from citecheck.match.index import CandidateIndex
from citecheck.match.models import (
    COUNT_KEYS,
    LinkResult,
    ReferenceItem,
    ReferenceKindClassifier,
    ReferenceSearcher,
)
from citecheck.match.scoring import (
    CandidateProfile,
    PairScore,
    PrintedProfile,
    cached_profile,
    profile_candidate,
    profile_printed,
    score_pair,
)
from citecheck.match.settings import MatchThresholds

logger = logging.getLogger(__name__)

# Below this many printed × registry pairs every pair is scored; above it, retrieval first.
_SCORE_ALL_PAIRS = 40_000


def _item(
    number: int,
    printed: PrintedProfile,
    profile: CandidateProfile,
    pair: PairScore,
    *,
    status: str,
    matched_by: str,
    thresholds: MatchThresholds,
    reason: str | None = None,
) -> ReferenceItem:
    candidate = profile.candidate
    differences = find_differences(printed, profile, pair, thresholds)
    if status == "found" and differences:
        status = "found_with_differences"
    if status == "found_with_differences" and reason is None:
        reason = "differences"
    return ReferenceItem(
        id=f"ref-{number:03d}",
        printed=printed.parsed.printed,
        status=status,
        reason=reason,
        matched_by=matched_by,
        doi=candidate.doi,
        openalex_id=candidate.openalex_id,
        title=candidate.title,
        authors=candidate.authors,
        year=candidate.year,
        venue=candidate.venue,
        score=round(pair.score, 3),
        differences=differences,
        retracted=candidate.is_retracted,
        cited_by_count=candidate.cited_by_count,
        registry_key=candidate.registry_key,
    )


def _identifier_item(
    number: int,
    printed: PrintedProfile,
    profile: CandidateProfile,
    matched_by: str,
    thresholds: MatchThresholds,
    *,
    status: str,
) -> ReferenceItem:
    """An entry decided by a printed identifier; a title that disagrees is flagged."""
    pair = score_pair(printed, profile, thresholds)
    pair = pair.model_copy(update={"score": 1.0})
    mismatch = doi_title_mismatch(printed, profile, thresholds)
    if mismatch is None:
        return _item(
            number,
            printed,
            profile,
            pair,
            status=status,
            matched_by=matched_by,
            thresholds=thresholds,
        )
    item = _item(
        number,
        printed,
        profile,
        pair,
        status="found_with_differences",
        matched_by=matched_by,
        thresholds=thresholds,
        reason=f"{matched_by}_title_mismatch",
    )
    item.differences = [mismatch, *(d for d in item.differences if d.field != "title")]
    return item


def _identifier_key(printed: PrintedProfile) -> list[tuple[str, str]]:
    parsed = printed.parsed
    return (
        [("doi", d) for d in parsed.dois]
        + [("arxiv", a) for a in parsed.arxiv]
        + [("pmid", p) for p in parsed.pmid]
    )


def _identifiers_of(candidate: Candidate) -> list[tuple[str, str]]:
    keys = []
    if candidate.doi:
        keys.append(("doi", candidate.doi))
    if candidate.arxiv:
        keys.append(("arxiv", candidate.arxiv.lower()))
    if candidate.pmid:
        keys.append(("pmid", candidate.pmid))
    return keys


def _text_pairs(
    printed: list[PrintedProfile],
    rows: list[int],
    profiles: list[CandidateProfile],
    cols: list[int],
    thresholds: MatchThresholds,
) -> dict[tuple[int, int], PairScore]:
    """Scores of the (printed, registry) pairs worth considering."""
    pairs: dict[tuple[int, int], PairScore] = {}
    if len(rows) * len(cols) <= _SCORE_ALL_PAIRS:
        wanted = {row: cols for row in rows}
    else:
        index = CandidateIndex([profiles[c].candidate for c in cols])
        hits = index.top(
            [printed[r].parsed.printed for r in rows], thresholds.retrieve_limit
        )
        wanted = {
            row: [cols[h] for h in found] for row, found in zip(rows, hits, strict=True)
        }
    for row, columns in wanted.items():
        for col in columns:
            pairs[(row, col)] = score_pair(printed[row], profiles[col], thresholds)
    return pairs


def _unambiguous(
    chosen: dict[int, int],
    edges: dict[tuple[int, int], float],
    pairs: dict[tuple[int, int], PairScore],
    thresholds: MatchThresholds,
) -> dict[int, int]:
    """Assigned pairs minus the weak ones that another registry entry or printed entry rivals.

    A weak pair (author, venue and year agree, nothing else) is only trusted when it is the
    one fit: two papers by one author in one venue and year cannot be told apart.
    """
    rival_of_row: dict[int, list[float]] = {}
    rival_of_col: dict[int, list[float]] = {}
    for (row, col), score in edges.items():
        rival_of_row.setdefault(row, []).append(score)
        rival_of_col.setdefault(col, []).append(score)
    kept = {}
    for row, col in chosen.items():
        pair = pairs[(row, col)]
        if pair.weak:
            bar = edges[(row, col)] - thresholds.search_margin
            if (
                sum(s >= bar for s in rival_of_row[row]) > 1
                or sum(s >= bar for s in rival_of_col[col]) > 1
            ):
                continue
        kept[row] = col
    return kept


def best_search_hit(
    printed: PrintedProfile, hits: Sequence[Candidate], thresholds: MatchThresholds
) -> tuple[CandidateProfile, PairScore, str] | None:
    """The validated hit among search results, with how it was decided, or None.

    A hit carrying a printed identifier decides; otherwise the best-scoring hit backed by its
    title or its numbers (not ``weak``) must reach ``search_accept`` and beat every other
    hit with another DOI by ``search_margin``.
    """
    keys = set(_identifier_key(printed))
    scored = [(cached_profile(c), c) for c in hits]
    for profile, candidate in scored:
        shared = keys.intersection(_identifiers_of(candidate))
        if shared:
            return (
                profile,
                score_pair(printed, profile, thresholds),
                sorted(shared)[0][0],
            )
    ranked = sorted(
        ((score_pair(printed, p, thresholds), p) for p, _ in scored),
        key=lambda x: -x[0].score,
    )
    # A hit compared on a single field (a bare title) is too weak to accept from a search.
    eligible = [
        (pair, p) for pair, p in ranked if pair.veto is None and pair.fields >= 2
    ]
    strong = [(pair, p) for pair, p in eligible if not pair.weak]
    if not strong:
        return None
    best_pair, best = strong[0]
    if best_pair.score < thresholds.search_accept:
        return None
    rivals = [
        pair.score
        for pair, p in eligible
        if p is not best and p.candidate.doi != best.candidate.doi
    ]
    if rivals and best_pair.score - rivals[0] < thresholds.search_margin:
        return None
    return best, best_pair, "title_free" if best_pair.title_free else "search"


def _search(
    number: int,
    printed: PrintedProfile,
    searcher: ReferenceSearcher,
    thresholds: MatchThresholds,
) -> ReferenceItem | None:
    try:
        hits = searcher.search(printed.parsed.printed, printed.parsed)
    except Exception as exc:  # recorded in the item, never dropped
        logger.warning("search failed for ref-%03d: %s", number, type(exc).__name__)
        return ReferenceItem(
            id=f"ref-{number:03d}",
            printed=printed.parsed.printed,
            status="unchecked",
            reason="search_failed",
            note=type(exc).__name__,
        )
    decided = best_search_hit(printed, hits, thresholds)
    if decided is None:
        return None
    profile, pair, matched_by = decided
    if matched_by in ("doi", "arxiv", "pmid"):
        return _identifier_item(
            number, printed, profile, matched_by, thresholds, status="found"
        )
    return _item(
        number,
        printed,
        profile,
        pair,
        status="found",
        matched_by=matched_by,
        thresholds=thresholds,
    )


def _classify(
    number: int,
    printed: str,
    classifier: ReferenceKindClassifier | None,
    searched: bool,
) -> ReferenceItem:
    base = {"id": f"ref-{number:03d}", "printed": printed}
    if classifier is None:
        return ReferenceItem(**base, status="unchecked", reason="no_model")
    try:
        verdict, detail = classifier.classify(printed)
    except Exception as exc:  # recorded in the item, never dropped
        logger.warning(
            "reference-kind model failed for ref-%03d: %s", number, type(exc).__name__
        )
        return ReferenceItem(
            **base, status="unchecked", reason="model_error", note=type(exc).__name__
        )
    if verdict == "not_indexed_kind":
        return ReferenceItem(
            **base, status="unchecked", reason=detail or "not_indexed_kind"
        )
    if verdict == "scholarly":
        reason = "not_in_registry_or_index" if searched else "not_in_registry"
        return ReferenceItem(**base, status="not_found", reason=reason, note=detail)
    return ReferenceItem(
        **base,
        status="unchecked",
        reason="model_unrecognised_answer",
        note=f"{verdict}: {detail}"[:300],
    )


def link_references(
    printed: list[str],
    registry: list[Candidate],
    *,
    searcher: ReferenceSearcher | None = None,
    classifier: ReferenceKindClassifier | None = None,
    thresholds: MatchThresholds = MatchThresholds(),
) -> LinkResult:
    """Link printed references to the registry, search the rest, classify what is left.

    Returns items in input order (``ref-001``…), the registry references no printed entry
    took, and counts in which linked + found + found_with_differences + not_found +
    unchecked equals the number printed.
    """
    profiles_printed = [profile_printed(p) for p in printed]
    profiles_registry = [profile_candidate(c) for c in registry]
    items: dict[int, ReferenceItem] = {}
    used: set[int] = set()

    registry_by_key: dict[tuple[str, str], int] = {}
    for col, candidate in enumerate(registry):
        for key in _identifiers_of(candidate):
            registry_by_key.setdefault(key, col)
    for row, profile in enumerate(profiles_printed):
        for kind, value in _identifier_key(profile):
            col = registry_by_key.get((kind, value))
            if col is not None and col not in used:
                used.add(col)
                items[row] = _identifier_item(
                    row + 1,
                    profile,
                    profiles_registry[col],
                    kind,
                    thresholds,
                    status="linked",
                )
                break

    rows = [r for r in range(len(printed)) if r not in items]
    cols = [c for c in range(len(registry)) if c not in used and registry[c].has_text()]
    pairs = _text_pairs(profiles_printed, rows, profiles_registry, cols, thresholds)
    edges = {
        key: pair.score
        for key, pair in pairs.items()
        if pair.veto is None and pair.score >= thresholds.registry_accept
    }
    for row, col in _unambiguous(
        assign_one_to_one(edges), edges, pairs, thresholds
    ).items():
        used.add(col)
        pair = pairs[(row, col)]
        items[row] = _item(
            row + 1,
            profiles_printed[row],
            profiles_registry[col],
            pair,
            status="linked",
            matched_by="title_free" if pair.title_free else "text",
            thresholds=thresholds,
        )

    for row, profile in enumerate(profiles_printed):
        if row in items:
            continue
        if searcher is not None and (
            found := _search(row + 1, profile, searcher, thresholds)
        ):
            items[row] = found
        else:
            items[row] = _classify(
                row + 1, printed[row], classifier, searcher is not None
            )

    ordered = [items[row] for row in range(len(printed))]
    counts = {"printed": len(printed), "registry": len(registry)}
    counts.update({key: sum(i.status == key for i in ordered) for key in COUNT_KEYS})
    registry_only = [registry[c] for c in range(len(registry)) if c not in used]
    return LinkResult(items=ordered, registry_only=registry_only, counts=counts)
