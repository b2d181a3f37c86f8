"""Benchmark of the statistics self-check (issue #6).

Run: /work/venv/bin/python bench/stats.py [--no-fp]

1. statcheck's four test papers (PDF and HTML) against their per-test gold
   (``manually_extracted_stats_testpapers.csv``): results extracted, and agreement on
   consistent / inconsistent / decision error for the results matched.
2. statcheck's 227 hand-extracted results from 8 real papers (``manually_extracted_stats.csv``).
   The papers themselves are not in the corpus, so extraction is measured on each row's
   ``raw_result`` (the text the coder copied from the paper, PDF damage included): a row counts
   as extracted when a result with the same test, degrees of freedom, value, p comparison and p
   is read from it (a row whose test type the coder left blank matches any test). Reported
   for all rows and for the rows statcheck itself extracts (``extract_apa = 1``); the 24 rows with a coded ``error``/``decision_error`` are also
   compared on consistency.
3. False positives: every item flagged inconsistent in the text of the corpus PDFs under
   ``B-pdfs-with-gold-references`` is listed for a person to check by hand (text from
   ``citecheck.text.extract_pdf`` when it exists, else pdfplumber).
   Items read by the GRIM, shared-value and df-from-N readers are listed too, flagged or not.
4. The same over the 6,123 sentence sets and claims of ``D-citation-support/citation-integrity``
   (biomedical prose, rich in "n/N (x%)"), which PDFs in B rarely contain.
5. GRIM on simulated Likert data: real means never flagged; random means flagged at the rate
   the granularity predicts.
"""
from __future__ import annotations

import argparse
import csv
import html
import json
import math
import random
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pdfplumber

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled
from citecheck.stats import (
    StatisticsResult,
    StatItem,
    check_pages,
    check_text,
)
from citecheck.stats.grim import grim_consistent
from citecheck.stats.numbers import Printed

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
STATCHECK = CORPUS / "E-statcheck" / "statcheck" / "inst" / "test_materials"
PDF_CORPUS = CORPUS / "B-pdfs-with-gold-references"
TYPE_MAP = {"t": "t", "f": "F", "r": "r", "z": "z", "chi2": "chi2"}


def gold_type(raw: str) -> str:
    lowered = raw.strip().lower()
    return "Q" if lowered.startswith("q") else TYPE_MAP.get(lowered, lowered)


def read_csv(path: Path) -> list[dict[str, str]]:
    # The hand-coded CSV mixes encodings; it spells the byte 0xBC ("¼", a damaged "=") as "<bc>".
    text = path.read_bytes().decode("utf-8", errors="replace").replace("<bc>", "\u00bc")
    return list(csv.DictReader(text.splitlines(keepends=True), delimiter=";"))


def as_float(raw: str) -> float | None:
    raw = raw.strip().strip('"')
    return float(raw) if raw else None


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        elif tag in ("p", "br", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_text(path: Path) -> str:
    parser = _TextOnly()
    parser.feed(path.read_bytes().decode("cp1252", errors="replace"))
    return html.unescape(re.sub(r"[ \t\r]+", " ", "".join(parser.parts)))


def pdf_pages(path: Path) -> list[tuple[int, str]]:
    try:
        from citecheck.text import (
            extract_pdf,  # the project's extractor, when it exists
        )
    except ImportError:
        extract_pdf = None
    if extract_pdf is not None:
        try:
            document = extract_pdf(path.read_bytes())
        except Exception as error:  # noqa: BLE001 - any extractor failure: fall back
            print(f"  (citecheck.text.extract_pdf raised on {path.name}: {error!r}; pdfplumber)")
        else:
            if document.status != "failed":
                return [(page.number, page.text) for page in document.pages]
            print(f"  (citecheck.text.extract_pdf failed on {path.name}: {document.reason}; "
                  "pdfplumber)")
    with pdfplumber.open(path) as pdf:
        return [(i, page.extract_text() or "") for i, page in enumerate(pdf.pages, start=1)]


def same_result(item: StatItem, row: dict[str, str]) -> bool:
    expected = gold_type(row["test_type"])
    if item.kind != "test_statistic" or (expected and item.statistic != expected):
        return False
    gold_value = as_float(row["test_value"])
    if item.value is None or gold_value is None or not math.isclose(item.value, gold_value):
        return False
    for ours, theirs in ((item.df1, row["df1"]), (item.df2, row["df2"])):
        gold = as_float(theirs)
        if gold is not None and (ours is None or not math.isclose(ours, gold)):
            return False
    p_comparison = row["p_comparison"].strip('"')
    if p_comparison.lower() == "ns":
        return item.p_comparison == "ns"
    gold_p = as_float(row["p"])
    return item.p_comparison == p_comparison and gold_p is not None and (
        item.p_reported is not None and math.isclose(item.p_reported, gold_p)
    )


def is_new_reader(item: StatItem) -> bool:
    """Items only the issue-#6 follow-up reads: GRIM, shared values, df from N."""
    note = item.note or ""
    return item.kind == "grim" or any(
        marker in note for marker in ("sharing this statistic", "from the printed N", "no df")
    )


def describe(item: StatItem) -> str:
    verdict = "consistent" if item.consistent else "INCONSISTENT"
    return (f"[{item.kind}] {item.text!r}: reported {item.reported}, recomputed "
            f"{item.recomputed:.4g}, {verdict}" + (f" ({item.note})" if item.note else ""))


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f}%" if whole else f"{part}/0"


def bench_test_papers() -> None:
    print("== 1. statcheck test papers (PDF + HTML) vs per-test gold")
    gold = read_csv(STATCHECK / "test_dir" / "manually_extracted_stats_testpapers.csv")
    by_file: dict[str, list[dict[str, str]]] = {}
    for row in gold:
        by_file.setdefault(row["file_name"].replace(".html", ".htm"), []).append(row)
    found = consistent_agree = decision_agree = spurious = total = 0
    for path in sorted((STATCHECK / "test_dir").glob("Paper*")):
        if path.suffix not in (".pdf", ".htm"):
            continue
        pages = pdf_pages(path) if path.suffix == ".pdf" else [(1, html_text(path))]
        result = check_pages(pages)
        tests = [item for item in result.items if item.kind == "test_statistic"]
        rows = by_file.get(path.name, [])
        total += len(rows)
        unmatched = list(tests)
        for row in rows:
            match = next((item for item in unmatched if same_result(item, row)), None)
            if match is None:
                print(f"  MISSED {path.name}: {row['raw_result']!r}")
                continue
            unmatched.remove(match)
            found += 1
            gold_error = row["error_1tail"].strip() == "1"
            gold_decision = row["decision_error_1tail"].strip() == "1"
            consistent_agree += match.consistent == (not gold_error)
            decision_agree += bool(match.decision_error) == gold_decision
            if match.consistent == gold_error or bool(match.decision_error) != gold_decision:
                print(f"  DISAGREE {path.name}: {match.text!r} consistent={match.consistent} "
                      f"decision_error={match.decision_error}; gold error={gold_error} "
                      f"decision_error={gold_decision}")
        for item in unmatched:
            spurious += 1
            print(f"  EXTRA {path.name}: {item.text!r}")
        print(f"  {path.name:28s} gold {len(rows)}  read {len(tests)}  other items "
              f"{len(result.items) - len(tests)}")
    print(f"  extracted:               {pct(found, total)}  (results not in gold: {spurious})")
    print(f"  consistent/inconsistent: {pct(consistent_agree, found)} agree with gold")
    print(f"  decision errors:         {pct(decision_agree, found)} agree with gold")
    overall = found + consistent_agree + decision_agree
    print(f"  overall agreement:       {pct(overall, 3 * total)} (extraction + both flags)")


def bench_hand_extracted() -> None:
    print("== 2. statcheck hand-extracted results from 8 real papers (read from raw_result)")
    rows = read_csv(STATCHECK / "manually_extracted_stats.csv")
    counted = {"all": [0, 0], "extract_apa=1": [0, 0], "pdf_conversion_issues=1": [0, 0]}
    flags_agree = flags_total = decision_agree = 0
    misses: list[str] = []
    for row in rows:
        items = check_text(row["raw_result"]).items
        hit = next((item for item in items if same_result(item, row)), None)
        groups = ["all"]
        if row["extract_apa"].strip() == "1":
            groups.append("extract_apa=1")
        if row["pdf_conversion_issues"].strip() == "1":
            groups.append("pdf_conversion_issues=1")
        for group in groups:
            counted[group][1] += 1
            counted[group][0] += hit is not None
        if hit is None:
            misses.append(f"{row['test_type']:>8s} apa={row['extract_apa']} {row['raw_result']!r}")
        if hit is not None and row["error"].strip() in ("0", "1"):
            flags_total += 1
            flags_agree += hit.consistent == (row["error"].strip() == "0")
            decision_agree += bool(hit.decision_error) == (row["decision_error"].strip() == "1")
    for group, (hits, total) in counted.items():
        print(f"  extracted, {group:24s} {pct(hits, total)}")
    print(f"  coded rows: consistency agrees {pct(flags_agree, flags_total)}, "
          f"decision error agrees {pct(decision_agree, flags_total)}")
    print(f"  not extracted ({len(misses)}):")
    for miss in misses:
        print(f"    {miss}")


def bench_false_positives() -> None:
    print("== 3. items flagged inconsistent in the corpus PDFs (check each by hand)")
    paths = sorted(PDF_CORPUS.rglob("*.pdf"))
    totals: dict[str, int] = {}
    flagged: list[tuple[str, StatItem]] = []
    newly_read: list[tuple[str, StatItem]] = []
    started = time.perf_counter()
    pages_read = 0
    check_seconds = 0.0
    for path in paths:
        pages = pdf_pages(path)
        pages_read += len(pages)
        check_started = time.perf_counter()
        result: StatisticsResult = check_pages(pages)
        check_seconds += time.perf_counter() - check_started
        for key, value in result.counts.items():
            totals[key] = totals.get(key, 0) + value
        flagged += [(str(path.relative_to(PDF_CORPUS)), item) for item in result.items
                    if not item.consistent]
        newly_read += [(str(path.relative_to(PDF_CORPUS)), item) for item in result.items
                       if is_new_reader(item)]
    seconds = time.perf_counter() - started
    print(f"  {len(paths)} PDFs, {pages_read} pages, {seconds:.1f} s in all, of which the check "
          f"{check_seconds:.2f} s ({1000 * check_seconds / max(pages_read, 1):.2f} ms/page)")
    print(f"  items: {totals}")
    print(f"  flagged inconsistent: {len(flagged)}")
    for name, item in flagged:
        print(f"  - {name} p.{item.page} [{item.kind}] {item.text!r}: reported {item.reported}, "
              f"recomputed {item.recomputed:.4g}" + (f" ({item.note})" if item.note else ""))
    print(f"  read by the GRIM / shared-value / df-from-N readers (flagged or not): "
          f"{len(newly_read)}")
    for name, item in newly_read:
        print(f"  - {name} p.{item.page} {describe(item)}")


def bench_sentences() -> None:
    print("== 4. items flagged inconsistent in the citation-integrity sentences and claims")
    base = CORPUS / "D-citation-support" / "citation-integrity" / "data" / "Citation-Integrity"
    if not base.exists():
        print("  (not available)")
        return
    texts: list[str] = []
    for line in (base / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        texts.append(" ".join(json.loads(line).get("abstract") or []))
    for name in ("claims_train.jsonl", "claims_dev.jsonl", "claims_test.jsonl"):
        for line in (base / name).read_text(encoding="utf-8").splitlines():
            texts.append(json.loads(line).get("claim", ""))
    started = time.perf_counter()
    results = [check_text(text) for text in texts]
    seconds = time.perf_counter() - started
    kinds: dict[str, int] = {}
    flagged = [item for result in results for item in result.items if not item.consistent]
    for result in results:
        for item in result.items:
            kinds[item.kind] = kinds.get(item.kind, 0) + 1
    characters = sum(len(text) for text in texts)
    print(f"  {len(texts)} texts, {characters / 1e6:.1f} M characters, {seconds:.1f} s")
    print(f"  items: {kinds}")
    print(f"  flagged inconsistent: {len(flagged)}")
    for item in flagged:
        print(f"  - [{item.kind}] {item.text!r}: reported {item.reported}, "
              f"recomputed {item.recomputed:.4g}" + (f" ({item.note})" if item.note else ""))
    newly_read = [item for result in results for item in result.items if is_new_reader(item)]
    print(f"  read by the GRIM / shared-value / df-from-N readers (flagged or not): "
          f"{len(newly_read)}")
    for item in newly_read:
        print(f"  - {describe(item)}")


def bench_grim_simulated(trials: int = 20000, seed: int = 6) -> None:
    """GRIM on simulated data: means of real integer answers must never be flagged, and random
    2-decimal means must be flagged at the rate the granularity predicts (1 - N*k/100)."""
    print("== 5. GRIM on simulated integer data (Likert 1-7, N*k < 100)")
    rng = random.Random(seed)
    false_flags = flagged_random = expected = 0.0
    for _ in range(trials):
        size, items = rng.randint(5, 60), rng.choice((1, 1, 2, 3))
        if size * items >= 100:
            size = 99 // items
        answers = [rng.randint(1, 7) for _ in range(size * items)]
        true_mean = Printed(round(sum(answers) / len(answers) + 1e-12, 2), 2)
        false_flags += not grim_consistent(true_mean, size * items)[0]
        random_mean = Printed(rng.randint(100, 700) / 100, 2)
        flagged_random += not grim_consistent(random_mean, size * items)[0]
        expected += 1 - size * items / 100
    print(f"  {trials} simulated means of real data flagged: {int(false_flags)} (must be 0)")
    print(f"  random 2-decimal means flagged: {pct(int(flagged_random), trials)} "
          f"(granularity predicts {100 * expected / trials:.1f}%)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-fp", action="store_true", help="skip the corpus PDF scan")
    args = parser.parse_args()
    if not STATCHECK.exists():
        print(f"corpus not found at {STATCHECK}", file=sys.stderr)
        return 2
    bench_test_papers()
    bench_hand_extracted()
    if not args.no_fp:
        bench_false_positives()
    bench_sentences()
    bench_grim_simulated()
    return 0


if __name__ == "__main__":
    sys.exit(main())
