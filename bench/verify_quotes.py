"""How often `citecheck verify` re-finds a quote taken from citecheck's own page text.

    python bench/verify_quotes.py [--max-pdfs N]

For each corpus PDF (../shared/corpus/B-…): citecheck's extraction (the text the judge's
passages are cut from) is split into sentences; every sentence of 30+ characters becomes an
evidence quote on its page; a report holding them is re-checked with ``verify_report``
against the PDF (named by its sha256 in a temporary folder, as a symlink: the corpus is not
copied). A quote the judge accepted should always be re-found; a miss is a false alarm of
``verify``. Prints per PDF and overall: quotes, re-found on the named page, the false-alarm
rate, and seconds.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = REPO.parent / "shared" / "corpus" / "B-pdfs-with-gold-references"

from citecheck.report import Artifact, Claim, Claims, Evidence, Report  # noqa: E402
from citecheck.text import extract_pdf, split_sentences  # noqa: E402
from citecheck.verify import verify_report  # noqa: E402


def corpus_pdfs(limit: int) -> list[Path]:
    names = sorted((CORPUS / "crminer-oa-articles" / "pdfs").glob("*.pdf"))
    names += sorted((CORPUS / "paper-qa-jctc" / "pdfs").glob("*.pdf"))
    names += sorted((CORPUS / "ssoar-exgoldstandard-en").rglob("*.pdf"))[:5]
    return names[:limit]


def bench_pdf(pdf: Path, folder: Path) -> tuple[int, int, float]:
    data = pdf.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    link = folder / f"{sha}.pdf"
    if not link.exists():
        link.symlink_to(pdf.resolve())
    extraction = extract_pdf(pdf)
    evidence = [Evidence(quote=s, page=page.number, artifact_sha256=sha)
                for page in extraction.pages for s in split_sentences(page.text) if len(s) >= 30]
    report = Report(artifacts=[Artifact(kind="pdf", sha256=sha, bytes=len(data),
                                        pages=extraction.artifact.pages)],
                    claims=Claims(outgoing=[Claim(id="claim-001", quote="bench",
                                                  verdict="supported", evidence=evidence)]))
    path = folder / f"{sha}.report.json"
    path.write_text(report.model_dump_json(), encoding="utf-8")
    started = time.perf_counter()
    result = verify_report(path, folder)
    seconds = time.perf_counter() - started
    found = sum(1 for c in result.checks if c.name.startswith("evidence[") and c.passed)
    return len(evidence), found, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-pdfs", type=int, default=10)
    args = parser.parse_args()
    pdfs = corpus_pdfs(args.max_pdfs)
    if not pdfs:
        sys.exit(f"corpus not found under {CORPUS}")
    total = found = 0
    seconds = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for pdf in pdfs:
            n, ok, s = bench_pdf(pdf, Path(tmp))
            total, found, seconds = total + n, found + ok, seconds + s
            print(f"{pdf.name[:48]:<48} quotes {n:>4}  re-found {ok:>4} ({ok / max(n, 1):6.1%})"
                  f"  verify {s:5.1f} s")
    print(f"ALL {len(pdfs)} PDFs: quotes {total}, re-found {found} ({found / max(total, 1):.1%}),"
          f" false alarms {total - found} ({(total - found) / max(total, 1):.1%}),"
          f" verify {seconds:.1f} s ({1000 * seconds / max(total, 1):.1f} ms/quote)")


if __name__ == "__main__":
    main()
