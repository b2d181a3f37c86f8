"""Accuracy and speed of reference matching, offline, on the shared corpus.

Run:  /work/venv/bin/python bench/match.py [--quick] [--errors FILE]

(b) Crossref reference-matching evaluation (Tkaczyk, MIT): the pool of 7,498 target works is
    built by parsing the *clean APA strings* of ``dataset-apa.json`` with an APA layout regex
    (authors, year, title ending in ".", "?" or "!", venue, volume(issue), pages; a body with
    no title is read as venue, volume(issue), pages) and the gold DOI; the noisy,
    title-scrambled and title-less variants of the same works are then matched against the
    whole pool, each string on its own (search mode: retrieval + validation, the setting of
    Crossref's own matcher) and, separately, as one batch against the pool treated as a
    registry (one-to-one assignment). Figures are printed for the development half (even
    indexes, used to choose thresholds) and the held-out half (odd indexes).
    The 2,000 real strings: their gold DOIs are not in the pool (checked), so every link to
    the pool is a wrong link; printed DOIs are compared with the gold DOI.
(a) PDFs with publisher-deposited Crossref reference lists: printed entries extracted with
    ``citecheck.text.extract_pdf`` (when it exists) linked against candidates built from the
    deposited list; the list's DOIs are the gold.
(c) biblio-glutton (kermitt2, Apache-2.0): 17,015 reference strings as GROBID extracted them
    from PMC PDFs (line breaks, hyphenation), gold DOI from the PMC NLM XML. The set ships no
    metadata of the target works, so the pool has one record per distinct DOI (16,803) built
    from GROBID's parse of the *first* string citing it (article title, first author, journal,
    volume, first page; year found in that string). Only the held-out half (odd indexes) is
    searched, three ways: (1) target present — for most strings the record was parsed from the
    same string, so this measures telling 16,803 close neighbours (same journals) apart under
    PDF noise, not parsing robustness; (2) the subset whose record came from *another* string
    citing the same DOI (an independent print of the same work); (3) target removed (the gold
    DOI dropped from the hits): every link is a wrong link, which measures never inventing one.
    108 strings are printed identically under two gold DOIs (stale NLM DOIs): figures are
    also given without them, since no matcher can be right on both.
Speed: references matched per second against pools of 100 and 10,000 candidates.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from citecheck.identifiers import find_dois, find_year  # noqa: E402
from citecheck.match import (  # noqa: E402
    Candidate,
    MatchThresholds,
    best_search_hit,
    candidate_from_crossref_reference,
    link_references,
)
from citecheck.match.index import CandidateIndex  # noqa: E402
from citecheck.match.refparse import family_name, normalize_text  # noqa: E402
from citecheck.match.scoring import profile_printed  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
EVAL = (
    CORPUS
    / "C-reference-strings"
    / "crossref-reference-matching-evaluation"
    / "analyses"
)
ARTIFICIAL = EVAL / "2_unstructured_artificial_evaluation" / "data" / "datasets"
REAL = EVAL / "3_unstructured_real_evaluation" / "data" / "unstructured_sbmv.json"
GOLD_PDFS = CORPUS / "B-pdfs-with-gold-references"
GLUTTON = (
    CORPUS
    / "C-reference-strings"
    / "biblio-glutton"
    / "doc"
    / "references-doi-matching.json.gz"
)
VARIANTS = ("apa-noise", "degraded_title_scrambled", "elsevier-without-titles")

_APA = re.compile(
    r"^(?P<authors>.*?)\s*\((?P<year>\d{4}|n\.d\.)[a-z]?\)\.\s+(?P<body>.*)$"
)
_APA_BODY = re.compile(
    r"^(?P<title>.*[.?!])\s+(?P<venue>[^.]*?)"
    r"(?:,\s+(?P<volume>[^,()]+?)(?:\((?P<issue>[^)]*)\))?)?(?:,\s+(?P<pages>[^,]+?))?\.?$"
)
# A body with no title: "Hyperfine Interactions, 119(1/4), 207–212."
_APA_NO_TITLE = re.compile(
    r"^(?P<venue>[^.,?!:]+),\s+(?P<volume>\d[^,()]*?)(?:\((?P<issue>[^)]*)\))?"
    r"(?:,\s+(?P<pages>[^,]+?))?\.?$"
)
_ROMAN_PAGES = re.compile(r"[ivxlc]+(?:-[ivxlc]+)?", re.IGNORECASE)
_APA_AUTHOR = re.compile(r"(?:^|,\s|&\s)([^,&]+?),\s(?:[A-Z][^\s,]*\.[\s-]?)+")


def load(name: str) -> list[dict]:
    """A synthetic dataset; the few null strings (7 APA, 1 Elsevier) become empty strings."""
    data = json.loads((ARTIFICIAL / f"dataset-{name}.json").read_text())["dataset"]
    for row in data:
        row["ref_string"] = row["ref_string"] or ""
    return data


def pool_candidate(ref_string: str, doi: str) -> Candidate:
    """A pool record from one clean APA string (the evaluation ships no metadata)."""
    match = _APA.match(ref_string or "")
    if not match:
        return Candidate(
            doi=doi, unstructured=ref_string or None, source="candidates-file"
        )
    authors = [family_name(a) or a for a in _APA_AUTHOR.findall(match.group("authors"))]
    year = int(match.group("year")) if match.group("year").isdigit() else None
    text = match.group("body")
    if not authors:  # APA puts the title first when there are no authors
        text = f"{match.group('authors').rstrip('.')}. {text}"
    body = (_APA_NO_TITLE.match(text) if authors else None) or _APA_BODY.match(text)
    fields = body.groupdict() if body else {"title": text}
    if fields.get("title"):
        fields["title"] = fields["title"].rstrip(".")
    volume, pages = fields.get("volume"), fields.get("pages")
    if volume and not pages and re.fullmatch(r"\w+\s*[–-]\s*\w+", volume):
        volume, pages = None, volume  # "Venue, 115–146." has pages and no volume
    if volume and not re.search(r"\d", volume):
        volume = None
    if pages:
        pages = pages.replace("–", "-").replace(" ", "")
    return Candidate(
        doi=doi,
        title=fields.get("title"),
        authors=[a for a in authors if a],
        year=year,
        venue=fields.get("venue") or None,
        volume=volume,
        issue=fields.get("issue"),
        pages=pages
        if pages and (re.search(r"\d", pages) or _ROMAN_PAGES.fullmatch(pages))
        else None,
        source="candidates-file",
    )


class PoolSearcher:
    """A stand-in for Crossref search: retrieval over a fixed pool."""

    def __init__(self, pool: list[Candidate], limit: int) -> None:
        self.index = CandidateIndex(pool)
        self.limit = limit

    def search(self, printed: str, parsed=None) -> list[Candidate]:
        return [
            self.index.candidates[i] for i in self.index.top([printed], self.limit)[0]
        ]


def twin_dois(pool: list[Candidate]) -> set[str]:
    """DOIs whose record has the same title, year and first author as a record with another DOI."""
    groups: dict[tuple, set[str]] = {}
    for c in pool:
        if c.title:
            key = (
                normalize_text(c.title),
                c.year,
                normalize_text(c.authors[0]) if c.authors else "",
            )
            groups.setdefault(key, set()).add(c.doi)
    return {doi for dois in groups.values() if len(dois) > 1 for doi in dois}


def tally(predicted: list[str | None], gold: list[str | None]) -> dict:
    right = sum(p is not None and p == g for p, g in zip(predicted, gold))
    wrong = sum(p is not None and p != g for p, g in zip(predicted, gold))
    positives = sum(g is not None for g in gold)
    linked = right + wrong
    return {
        "n": len(gold),
        "right": right,
        "wrong": wrong,
        "none": len(gold) - linked,
        "precision": right / linked if linked else float("nan"),
        "recall": right / positives if positives else float("nan"),
    }


def show(label: str, t: dict) -> None:
    print(
        f"  {label:<42} n={t['n']:>5}  right={t['right']:>5}  wrong={t['wrong']:>3}  "
        f"none={t['none']:>4}  P={t['precision']:.4f}  R={t['recall']:.4f}"
    )


def search_mode(strings, pool_searcher, thresholds) -> list[str | None]:
    out = []
    for text in strings:
        decided = best_search_hit(
            profile_printed(text), pool_searcher.search(text), thresholds
        )
        out.append(decided[0].candidate.doi if decided else None)
    return out


def bench_crossref_eval(
    quick: bool, errors: list[str], thresholds: MatchThresholds, *, run: bool = True
) -> list[Candidate]:
    """Part (b); with ``run`` False only the pool is built (for the speed part)."""
    apa = load("apa")
    pool = [pool_candidate(x["ref_string"], x["target_gt"]["DOI"]) for x in apa]
    if not run:
        return pool
    print(
        "(b) Crossref reference-matching evaluation — pool of 7,498 works from clean APA strings"
    )
    parsed_ok = sum(bool(c.title and c.authors and c.year) for c in pool)
    print(
        f"  pool records: {len(pool)} ({parsed_ok} with title, authors and year parsed)"
    )
    searcher = PoolSearcher(pool, thresholds.retrieve_limit)
    twins = twin_dois(pool)
    print(
        f"  pool DOIs with a same-metadata twin under another DOI (undecidable): {len(twins)}"
    )
    step = 5 if quick else 1
    for variant in VARIANTS:
        data = load(variant)
        started = time.perf_counter()
        rows = list(range(0, len(data), step))
        strings = [data[i]["ref_string"] for i in rows]
        gold = [data[i]["target_gt"]["DOI"] for i in rows]
        predicted = search_mode(strings, searcher, thresholds)
        seconds = time.perf_counter() - started
        dev = [k for k, i in enumerate(rows) if i % 2 == 0]
        test = [k for k, i in enumerate(rows) if i % 2 == 1]
        for label, subset in (
            ("dev", dev),
            ("held-out", test),
            ("all", range(len(rows))),
        ):
            show(
                f"search {variant} [{label}]",
                tally([predicted[k] for k in subset], [gold[k] for k in subset]),
            )
        missed_twins = sum(p is None and g in twins for p, g in zip(predicted, gold))
        wrong_twins = sum(
            p is not None and p != g and g in twins for p, g in zip(predicted, gold)
        )
        print(
            f"    {len(rows) / seconds:.0f} strings/s; gold has a twin: {missed_twins} of the "
            f"misses, {wrong_twins} of the wrong"
        )
        for k, p in enumerate(predicted):
            if p is not None and p != gold[k]:
                errors.append(
                    f"WRONG search {variant}\t{strings[k]}\tgold={gold[k]}\tgot={p}"
                )
            elif p is None:
                errors.append(f"MISSED search {variant}\t{strings[k]}\tgold={gold[k]}")
    # Registry mode: the variants as one printed list against the pool as the registry.
    for variant in VARIANTS:
        data = load(variant)[: 1500 if quick else None]
        started = time.perf_counter()
        result = link_references(
            [x["ref_string"] for x in data], pool, thresholds=thresholds
        )
        seconds = time.perf_counter() - started
        predicted = [i.doi if i.status == "linked" else None for i in result.items]
        show(
            f"registry {variant}",
            tally(predicted, [x["target_gt"]["DOI"] for x in data]),
        )
        print(f"    {len(data) / seconds:.0f} strings/s")
        for item, x in zip(result.items, data):
            if item.doi and item.doi != x["target_gt"]["DOI"]:
                errors.append(
                    f"WRONG registry {variant}\t{item.printed}\tgold={x['target_gt']['DOI']}\tgot={item.doi}\tscore={item.score}"
                )

    real = json.loads(REAL.read_text())["dataset"]
    gold = [x["target_gt"]["DOI"] for x in real]
    in_pool = {c.doi for c in pool}
    assert not (set(filter(None, gold)) & in_pool), (
        "real gold DOIs unexpectedly in the pool"
    )
    predicted = search_mode([x["ref_string"] for x in real], searcher, thresholds)
    false_links = [(x, p) for x, p in zip(real, predicted) if p is not None]
    print(
        f"  real strings (2,000; 806 without DOI) against the pool (no right answer there):"
        f" {len(false_links)} links invented "
        f"({sum(x['target_gt']['DOI'] is None for x, _ in false_links)} on the 806)"
    )
    for x, p in false_links:
        errors.append(
            f"INVENTED real\t{x['ref_string']}\tgold={x['target_gt']['DOI']}\tgot={p}"
        )
    printed_doi = [(find_dois(x["ref_string"]) or [None])[0] for x in real]
    with_doi = [(p, g) for p, g in zip(printed_doi, gold) if p]
    print(
        f"  real strings with a printed DOI: {len(with_doi)}; equal to gold: "
        f"{sum(p == g for p, g in with_doi)}; gold none: {sum(g is None for _, g in with_doi)}"
    )
    crossref = tally([x["target_test"]["DOI"] for x in real], gold)
    show("Crossref SBMV on the 2,000 (baseline)", crossref)
    return pool


def bench_pdfs(errors: list[str], thresholds: MatchThresholds) -> None:
    print("(a) PDFs with deposited Crossref reference lists")
    try:
        from citecheck.text import extract_pdf  # type: ignore[attr-defined]
    except ImportError:
        print("  skipped: citecheck.text.extract_pdf is not available yet")
        return
    for gold_file in sorted(GOLD_PDFS.glob("*/gold_references/*.json")):
        deposit = json.loads(gold_file.read_text())
        pdf = (
            gold_file.parent.parent
            / "pdfs"
            / gold_file.name.replace(".crossref-references.json", "")
        )
        pdf = next(gold_file.parent.parent.glob(f"pdfs/{pdf.name}*.pdf"))
        extracted = extract_pdf(pdf.read_bytes()) if callable(extract_pdf) else None
        references = (
            extracted.references
            if hasattr(extracted, "references")
            else extracted["references"]
        )
        printed = [
            r.printed if hasattr(r, "printed") else r["printed"] for r in references
        ]
        registry = [candidate_from_crossref_reference(r) for r in deposit["reference"]]
        started = time.perf_counter()
        result = link_references(printed, registry, thresholds=thresholds)
        seconds = time.perf_counter() - started
        gold_dois = {c.doi for c in registry if c.doi}
        linked = [i for i in result.items if i.status == "linked" and i.doi]
        text_only = sum(
            1 for c in registry if c.doi and not c.title and not c.unstructured
        )
        if len(printed) == len(registry):
            # Deposits follow the printed order: same position = the right deposit.
            placed = sum(
                i.registry_key == registry[k].registry_key
                for k, i in enumerate(result.items)
                if i.status == "linked"
            )
            position = f", linked to the deposit at the same position {placed}/{result.counts['linked']}"
        else:
            position = ", counts differ (no position check)"
        print(
            f"  {pdf.name}: printed {len(printed)}, deposited {len(registry)} "
            f"({len(gold_dois)} DOIs, {text_only} DOI-only), linked {result.counts['linked']}, "
            f"linked with DOI {len(linked)}/{len(gold_dois)}, registry-only "
            f"{len(result.registry_only)}{position}, {seconds:.2f} s"
        )
        for item in result.items:
            if item.status != "linked":
                errors.append(f"UNLINKED {pdf.name}\t{item.printed}")


def glutton_candidate(row: dict) -> Candidate:
    """A pool record from GROBID's parse of one biblio-glutton string (no other metadata ships)."""
    return Candidate(
        doi=row["doi"].lower(),
        title=row.get("atitle") or None,
        authors=[row["firstAuthor"]] if row.get("firstAuthor") else [],
        year=find_year(row["reference"]),
        venue=row.get("jtitle") or None,
        volume=row.get("volume") or None,
        pages=row.get("firstPage") or None,
        source="candidates-file",
    )


def bench_glutton(quick: bool, errors: list[str], thresholds: MatchThresholds) -> None:
    print(
        "(c) biblio-glutton — 17,015 PDF-extracted strings, pool parsed from the strings"
    )
    if not GLUTTON.exists():
        print(f"  skipped: {GLUTTON} not found")
        return
    data = [
        x for x in json.loads(gzip.decompress(GLUTTON.read_bytes())) if x.get("doi")
    ]
    pool: dict[str, Candidate] = {}
    source_row: dict[str, int] = {}
    for k, row in enumerate(data):
        doi = row["doi"].lower()
        if doi not in pool:
            pool[doi], source_row[doi] = glutton_candidate(row), k
    gold_of: dict[str, set[str]] = {}
    for row in data:
        gold_of.setdefault(" ".join(row["reference"].split()), set()).add(
            row["doi"].lower()
        )
    conflicting = {text for text, dois in gold_of.items() if len(dois) > 1}
    print(
        f"  strings with a gold DOI: {len(data)}; pool records (distinct DOIs): {len(pool)}; "
        f"strings printed identically with another gold DOI (stale NLM DOIs): {len(conflicting)}"
    )
    searcher = PoolSearcher(list(pool.values()), thresholds.retrieve_limit + 1)
    rows = [k for k in range(1, len(data), 2)][:: 5 if quick else 1]
    present, independent, removed = [], [], []
    started = time.perf_counter()
    for k in rows:
        text, gold = data[k]["reference"], data[k]["doi"].lower()
        profile = profile_printed(text)
        hits = searcher.search(text)
        decided = best_search_hit(
            profile, hits[: thresholds.retrieve_limit], thresholds
        )
        got = decided[0].candidate.doi if decided else None
        present.append((got, gold))
        if source_row[gold] != k:
            independent.append((got, gold))
        decided = best_search_hit(
            profile, [h for h in hits if h.doi != gold], thresholds
        )
        invented = decided[0].candidate.doi if decided else None
        removed.append(invented)
        if got is not None and got != gold:
            errors.append(
                f"WRONG glutton\t{' '.join(text.split())}\tgold={gold}\tgot={got}"
            )
        elif got is None:
            errors.append(f"MISSED glutton\t{' '.join(text.split())}\tgold={gold}")
        if invented is not None:
            errors.append(
                f"INVENTED glutton\t{' '.join(text.split())}\tgold={gold}\tgot={invented}"
            )
    seconds = time.perf_counter() - started
    show("search glutton target present [held-out]", tally(*zip(*present)))
    clean = [
        pg
        for pg, k in zip(present, rows)
        if " ".join(data[k]["reference"].split()) not in conflicting
    ]
    show("  same, without conflicting gold", tally(*zip(*clean)))
    show("search glutton record from another string", tally(*zip(*independent)))
    links = sum(p is not None for p in removed)
    unique = [
        p
        for p, k in zip(removed, rows)
        if " ".join(data[k]["reference"].split()) not in conflicting
    ]
    print(
        f"  target removed: {links} links invented on {len(removed)} strings "
        f"({links / len(removed):.4f}); without conflicting gold "
        f"{sum(p is not None for p in unique)} on {len(unique)}; {len(rows) / seconds:.0f} strings/s"
    )


def bench_speed(pool: list[Candidate], thresholds: MatchThresholds) -> None:
    print("Speed (references matched per second)")
    noisy = load("apa-noise")
    for size, printed_n in ((100, 100), (10_000, 1_000)):
        registry = list(pool[:size])
        while len(registry) < size:  # 7,498 real records, then copies with other DOIs
            base = pool[len(registry) % len(pool)]
            registry.append(
                base.model_copy(update={"doi": f"{base.doi}-copy{len(registry)}"})
            )
        printed = [x["ref_string"] for x in noisy[:printed_n]]
        started = time.perf_counter()
        link_references(printed, registry, thresholds=thresholds)
        seconds = time.perf_counter() - started
        print(
            f"  registry mode, pool {size:>6}: {printed_n / seconds:8.0f} refs/s "
            f"({printed_n} printed in {seconds:.2f} s, index build included)"
        )
        searcher = PoolSearcher(registry, thresholds.retrieve_limit)
        started = time.perf_counter()
        search_mode(printed[:300], searcher, thresholds)
        seconds = time.perf_counter() - started
        print(f"  search mode,   pool {size:>6}: {300 / seconds:8.0f} refs/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="every 5th string only")
    parser.add_argument("--errors", default="/tmp/citecheck-bench-match-errors.tsv")
    parser.add_argument(
        "--parts",
        default="eval,glutton,pdfs,speed",
        help="comma-separated subset of: eval, glutton, pdfs, speed",
    )
    args = parser.parse_args()
    if not EVAL.exists():
        sys.exit(f"corpus not found at {EVAL}")
    thresholds = MatchThresholds()
    errors: list[str] = []
    parts = set(args.parts.split(","))
    if parts & {"eval", "speed"}:
        pool = bench_crossref_eval(args.quick, errors, thresholds, run="eval" in parts)
    if "glutton" in parts:
        bench_glutton(args.quick, errors, thresholds)
    if "pdfs" in parts:
        bench_pdfs(errors, thresholds)
    if "speed" in parts:
        bench_speed(pool, thresholds)
    Path(args.errors).write_text("\n".join(errors) + "\n")
    kinds = Counter(e.split("\t", 1)[0] for e in errors)
    print(f"errors written to {args.errors}: {dict(kinds)}")


if __name__ == "__main__":
    main()
