"""Benchmark: extraction speed against plain pdfplumber and pypdfium2, and worker memory.

Run: ``python bench/extract_speed.py [--limit N]`` (from the repository root).

On the same PDFs in the same run it measures pages per second of
- ``citecheck.text.extract_pdf`` (worker process start, per-glyph reading, hidden-text
  checks, layout, references and contexts: everything),
- plain ``pdfplumber`` ``page.extract_text()`` (in-process, pages closed as read),
- ``pypdfium2`` raw text (``get_text_range()``, in-process),
and prints the ratios. It then runs the worker alone on the PDF with the most pages and
reports its peak resident set size (``ru_maxrss`` from ``wait4``).

``--breakdown`` adds where citecheck's time goes, in CPU seconds (timings on a shared
machine vary; CPU time varies less): worker start-up (interpreter and imports: the
worker's CPU on the shortest PDF minus the same reading done in-process), the worker's
reading (glyphs, hidden text, layout; run in-process), and the parent's part (references,
contexts, page text). ``--profile N`` prints the N functions with the most own time inside
the worker's reading (cProfile, in-process).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pdfplumber
import pypdfium2 as pdfium

from citecheck.text import extract_pdf
from citecheck.text.extract import (
    Artifact,
    build_extraction,
    fork_server_command,
    worker_command,
)
from citecheck.text.forkserver import run_in_fork_server
from citecheck.text.worker import extract_file

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
    """Peak RSS of the forked worker reading ``pdf``, as production runs it (Linux: KiB)."""
    command, env = fork_server_command()
    with tempfile.TemporaryDirectory() as directory:
        outcome = run_in_fork_server(
            pdf, memory_mb=1024, timeout_s=600, directory=Path(directory), command=command, env=env
        )
    return outcome.max_rss_kb / 1024


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def fork_overhead_ms(pdf: Path) -> float:
    """Wall time of reading ``pdf`` through the fork server minus reading it in-process."""
    extract_pdf(pdf)  # starts this thread's server
    started = time.perf_counter()
    for _ in range(10):
        extract_pdf(pdf)
    forked = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(10):
        build_extraction(Artifact(sha256="0" * 64, bytes=0), extract_file(str(pdf))["pages"])
    return (forked - (time.perf_counter() - started)) * 100


def print_breakdown(pdfs: list[Path], pages: int) -> None:
    """CPU seconds of worker start-up, worker reading and the parent's part, over ``pdfs``."""
    smallest = min(pdfs, key=lambda pdf: len(pdfium.PdfDocument(pdf)))
    started = _cpu_seconds()
    for _ in range(10):
        command, env = worker_command(smallest, 1024)
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
    in_process = _cpu_seconds()
    for _ in range(10):
        extract_file(str(smallest))
    startup = (2 * in_process - started - _cpu_seconds()) / 10
    started = _cpu_seconds()
    results = [extract_file(str(pdf)) for pdf in pdfs]
    reading = _cpu_seconds() - started
    started = _cpu_seconds()
    for result in results:
        build_extraction(Artifact(sha256="0" * 64, bytes=0), result["pages"])
    parent = _cpu_seconds() - started
    print(f"fresh worker start-up      {startup * 1000:7.1f} ms CPU per PDF ({startup * len(pdfs):.2f} s for all;"
          " the fork server pays it once per thread)")
    print(f"fork server per PDF        {fork_overhead_ms(smallest):7.1f} ms wall (fork, files, JSON)")
    print(f"worker reading             {reading:7.2f} s CPU  {pages / reading:8.1f} pages/s")
    print(f"parent (refs, contexts)    {parent:7.2f} s CPU  {pages / parent:8.1f} pages/s")


def print_profile(pdfs: list[Path], top: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for pdf in pdfs:
        extract_file(str(pdf))
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N PDFs (0: all)")
    parser.add_argument("--breakdown", action="store_true", help="CPU time by part (see the module docstring)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N functions of the worker")
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
    if args.breakdown:
        print_breakdown(pdfs, pages)
    if args.profile:
        print_profile(pdfs, args.profile)


if __name__ == "__main__":
    main()
