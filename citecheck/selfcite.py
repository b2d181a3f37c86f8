"""Self-citation: do two works share an author?

OpenAlex author ids and ORCIDs decide first; when a side has neither, the normalised family
name plus first initial is the fallback (a known source of false positives for common
names, so the identifier match is always preferred).
"""
from __future__ import annotations

from .metadata import family_key
from .report import Author


def _initial(name: str) -> str:
    words = name.replace(".", " ").split()
    return words[0][0].casefold() if len(words) > 1 else ""


def author_keys(authors: list[Author]) -> tuple[set[str], set[str]]:
    ids = {a.openalex_id for a in authors if a.openalex_id} | {a.orcid for a in authors if a.orcid}
    names = {f"{family_key(a.name)}|{_initial(a.name)}" for a in authors if family_key(a.name)}
    return ids, names


def is_self_citation(paper: tuple[set[str], set[str]], other: list[Author]) -> bool | None:
    """True/False, or ``None`` when the other work lists no authors."""
    if not other:
        return None
    paper_ids, paper_names = paper
    other_ids, other_names = author_keys(other)
    if paper_ids & other_ids:
        return True
    if paper_ids and other_ids and len(other_ids) >= len(other):
        return False
    return bool(paper_names & other_names)
