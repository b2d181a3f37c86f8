"""Benchmark: printed references found by ``citecheck.text.extract_pdf`` against gold lists.

Run: ``python bench/extract_refs.py [--misses FILE]`` (from the repository root).

Gold, from ../shared/corpus/B-pdfs-with-gold-references:
- ssoar-exgoldstandard-en: 916 hand-checked printed strings (30 PDFs);
- cermine: test1 reference strings (one per line), test2 JATS mixed-citations;
- crminer-oa-articles and paper-qa-jctc: the publishers' deposited Crossref lists.

Matching: a gold string matches an extracted entry when their normalised forms (letters
and digits only, lower case, labels removed) have a rapidfuzz ratio >= 85; each entry
matches at most one gold item (best first). A Crossref item matches an extracted entry
that prints its DOI, or, when the item has author/year/title, one that contains the
surname and year and the title (partial ratio >= 85). A DOI-only Crossref item whose DOI
is not printed is matched by position (the n-th entry, shifted by the offset of the last
item matched on content), because the list order is the printed order. Recall = matched gold / gold; precision = matched entries / entries.
Misses (gold not found, entries matching nothing) go to the misses file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from citecheck.text import extract_pdf

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "B-pdfs-with-gold-references"
THRESHOLD = 85


@dataclass
class Score:
    gold: int = 0
    found: int = 0
    extracted: int = 0
    correct: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.gold += other.gold
        self.found += other.found
        self.extracted += other.extracted
        self.correct += other.correct
        self.misses += other.misses

    def line(self, name: str) -> str:
        recall = self.found / self.gold if self.gold else 0.0
        precision = self.correct / self.extracted if self.extracted else 0.0
        return (
            f"{name:28s} gold {self.gold:5d}  extracted {self.extracted:5d}  "
            f"recall {recall:.3f}  precision {precision:.3f}"
        )


def canonical(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"^\s*(?:\[\d+\]|\(\d+\)|\d+\.?)\s+", "", text)
    return re.sub(r"[^a-z0-9]+", "", text)


def match_strings(name: str, gold: list[str], extracted: list[str]) -> Score:
    score = Score(gold=len(gold), extracted=len(extracted))
    gold_keys = [canonical(g) for g in gold]
    extracted_keys = [canonical(e) for e in extracted]
    pairs = sorted(
        ((fuzz.ratio(g, e), gi, ei) for gi, g in enumerate(gold_keys) for ei, e in enumerate(extracted_keys)),
        reverse=True,
    )
    used_gold: set[int] = set()
    used_extracted: set[int] = set()
    for ratio, gi, ei in pairs:
        if ratio < THRESHOLD:
            break
        if gi in used_gold or ei in used_extracted:
            continue
        used_gold.add(gi)
        used_extracted.add(ei)
    score.found = score.correct = len(used_gold)
    score.misses += [f"{name}\tMISSED\t{gold[i]}" for i in range(len(gold)) if i not in used_gold]
    score.misses += [f"{name}\tEXTRA\t{extracted[i]}" for i in range(len(extracted)) if i not in used_extracted]
    return score


def match_crossref(name: str, gold: list[dict], extracted: list[str]) -> Score:
    score = Score(gold=len(gold), extracted=len(extracted))
    lowered = [e.lower() for e in extracted]
    folded = [canonical(e) for e in extracted]
    used: set[int] = set()
    offset = 0  # printed index minus gold index at the last anchored match
    for position, item in enumerate(gold):
        hit = None
        doi = (item.get("DOI") or "").lower()
        if doi:
            hit = next((i for i, e in enumerate(lowered) if i not in used and doi in e.replace(" ", "")), None)
        if hit is None and (item.get("author") or item.get("unstructured")):
            surname = canonical(item.get("author", "")) or None
            year = item.get("year")
            title = canonical(item.get("article-title") or item.get("volume-title") or item.get("unstructured") or "")
            for i, key in enumerate(folded):
                if i in used or (surname and surname not in key) or (year and year not in key):
                    continue
                if not title or fuzz.partial_ratio(title, key) >= THRESHOLD:
                    hit = i
                    break
        anchored = hit is not None
        if hit is None and doi and not (item.get("author") or item.get("unstructured")):
            # Not printed with its DOI: align by order, shifted like the last anchor.
            guess = position + offset
            if 0 <= guess < len(extracted) and guess not in used:
                hit = guess
        if hit is None:
            score.misses.append(f"{name}\tMISSED\t{json.dumps(item, ensure_ascii=False)}")
            continue
        if anchored:
            offset = hit - position
        used.add(hit)
    score.found = score.correct = len(used)
    score.misses += [f"{name}\tEXTRA\t{extracted[i]}" for i in range(len(extracted)) if i not in used]
    return score


def jats_strings(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return [" ".join("".join(node.itertext()).split()) for node in root.iter("mixed-citation")]


def printed(pdf: Path) -> list[str]:
    extraction = extract_pdf(pdf)
    if extraction.status == "failed":
        print(f"  {pdf.name}: {extraction.reason} {extraction.detail}", file=sys.stderr)
    return [(f"{r.label}. " if r.label else "") + r.printed for r in extraction.references]


def run(misses_file: Path) -> None:
    if not CORPUS.exists():
        print(f"corpus not found at {CORPUS}")
        return
    sources: dict[str, Score] = {}
    started = time.perf_counter()

    ssoar = CORPUS / "ssoar-exgoldstandard-en"
    total = Score()
    for pdf in sorted((ssoar / "1-pdfs").glob("*.pdf")):
        gold_file = ssoar / "4-References_extracted_from_Layout" / f"{pdf.stem}.csv"
        gold = [line.strip() for line in gold_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        score = match_strings(f"ssoar/{pdf.stem}", gold, printed(pdf))
        print(score.line(f"  ssoar/{pdf.stem}"))
        total.add(score)
    sources["ssoar (916 strings)"] = total

    cermine = CORPUS / "cermine"
    test1 = [line for line in (cermine / "gold" / "test1.refs.txt").read_text().splitlines() if line.strip()]
    sources["cermine/test1"] = match_strings("cermine/test1", test1, printed(cermine / "pdfs" / "test1.pdf"))
    sources["cermine/test2"] = match_strings(
        "cermine/test2", jats_strings(cermine / "gold" / "test2-content.xml"), printed(cermine / "pdfs" / "test2.pdf")
    )

    for folder in ("crminer-oa-articles", "paper-qa-jctc"):
        for gold_file in sorted((CORPUS / folder / "gold_references").glob("*.json")):
            stem = gold_file.name.replace(".crossref-references.json", "")
            pdf = next((CORPUS / folder / "pdfs").glob(f"{stem}*.pdf"))
            gold = json.loads(gold_file.read_text())["reference"]
            sources[f"{folder}/{stem}"] = match_crossref(stem, gold, printed(pdf))

    overall = Score()
    misses: list[str] = []
    print()
    for name, score in sources.items():
        print(score.line(name))
        overall.add(score)
        misses += score.misses
    print(overall.line("OVERALL"))
    print(f"seconds {time.perf_counter() - started:.1f}")
    misses_file.write_text("\n".join(misses) + "\n", encoding="utf-8")
    print(f"misses written to {misses_file} ({len(misses)} lines)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", type=Path, default=Path(tempfile.gettempdir()) / "extract_refs.misses.tsv")
    run(parser.parse_args().misses)
