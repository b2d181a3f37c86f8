"""Benchmark: extraction speed against plain pdfplumber and pypdfium2, and worker memory.

Run: ``python bench/extract_speed.py [--limit N]`` (from the repository root).

On the same PDFs in the same run it measures pages per second of
- ``citecheck.text.extract_pdf`` (worker process start, per-glyph reading, hidden-text
  checks, layout, references and contexts: everything),
- plain ``pdfplumber`` ``page.extract_text()`` (in-process, pages closed as read),
- ``pypdfium2`` raw text (``get_text_range()``, in-process),
and prints the ratios. It then runs the worker alone on the PDF with the most pages and
reports its peak resident set size (``ru_maxrss`` from ``wait4``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pdfplumber
import pypdfium2 as pdfium

from citecheck.text import extract_pdf
from citecheck.text.extract import worker_command

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "B-pdfs-with-gold-references"


def time_citecheck(pdfs: list[Path]) -> tuple[float, int]:
    started = time.perf_counter()
    pages = 0
    for pdf in pdfs:
        pages += extract_pdf(pdf).artifact.pages or 0
    return time.perf_counter() - started, pages


def time_pdfplumber(pdfs: list[Path]) -> float:
    started = time.perf_counter()
    for pdf in pdfs:
        with pdfplumber.open(pdf) as document:
            for page in document.pages:
                page.extract_text()
                page.close()
    return time.perf_counter() - started


def time_pypdfium2(pdfs: list[Path]) -> float:
    started = time.perf_counter()
    for pdf in pdfs:
        document = pdfium.PdfDocument(pdf)
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
        document.close()
    return time.perf_counter() - started


def worker_peak_rss_mb(pdf: Path) -> float:
    """Peak RSS of one worker process reading ``pdf`` (Linux ru_maxrss is in KiB)."""
    command, env = worker_command(pdf, 1024)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N PDFs (0: all)")
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"corpus not found at {CORPUS}")
        return
    pdfs = sorted(CORPUS.rglob("*.pdf"))
    if args.limit:
        pdfs = pdfs[: args.limit]
    ours, pages = time_citecheck(pdfs)
    plumber = time_pdfplumber(pdfs)
    pdfium_seconds = time_pypdfium2(pdfs)
    print(f"PDFs {len(pdfs)}, pages {pages}")
    print(f"citecheck extract_pdf      {ours:7.2f} s  {pages / ours:8.1f} pages/s")
    print(f"pdfplumber extract_text    {plumber:7.2f} s  {pages / plumber:8.1f} pages/s")
    print(f"pypdfium2 get_text_range   {pdfium_seconds:7.2f} s  {pages / pdfium_seconds:8.1f} pages/s")
    print(f"speed vs pdfplumber        {plumber / ours:7.2f} x (goal >= 3)")
    print(f"time vs pypdfium2 raw      {ours / pdfium_seconds:7.2f} x slower (goal <= 2)")
    largest = max(pdfs, key=lambda pdf: len(pdfium.PdfDocument(pdf)))
    pages_largest = len(pdfium.PdfDocument(largest))
    print(f"worker peak RSS on {largest.name} ({pages_largest} pages): {worker_peak_rss_mb(largest):.0f} MB")


if __name__ == "__main__":
    main()
