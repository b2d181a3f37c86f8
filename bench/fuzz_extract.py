"""Fuzzing of the PDF extraction wrapper, on demand and for longer than CI does.

Run: ``python bench/fuzz_extract.py --minutes N [--workers 4] [--seed 1] [--save DIR]``
(from the repository root).

It applies the mutations of ``tests/test_fuzz_extract.py`` (truncation, byte flips, spliced
PDF tokens, extra nested FlateDecode layers, a dropped xref, repeated chunks) to the same
seed PDFs and runs each case through ``citecheck.text.extract_pdf`` (the sandboxed worker,
with a wall-clock and a memory limit). An outcome is either an ``Extraction`` with a
classified status/reason or a *finding* (an exception, or an unclassified result). It
prints counts by outcome and by mutation, cases per second, and every finding; with
``--save`` the bytes of each finding are written there for reproduction. Exit code 1 when
there was a finding.
"""
from __future__ import annotations

import argparse
import hashlib
import random
import sys
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_fuzz_extract import SEEDS, check_outcome, mutate

from citecheck.text import extract_pdf


def run_case(case: int, base_seed: int, timeout_s: float, memory_mb: int) -> tuple[str, list[str], bytes, str]:
    rng = random.Random(base_seed * 1_000_003 + case)
    data, applied = mutate(SEEDS[rng.randrange(len(SEEDS))], rng)
    try:
        label = check_outcome(extract_pdf(data, timeout_s=timeout_s, memory_mb=memory_mb))
        return label, applied, data, ""
    except Exception:  # noqa: BLE001 - a finding: recorded and printed, the run goes on
        return "FINDING", applied, data, traceback.format_exc(limit=4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=10.0, help="worker wall-clock limit (s)")
    parser.add_argument("--memory-mb", type=int, default=512, help="worker address-space limit")
    parser.add_argument("--save", type=Path, help="folder for the bytes of each finding")
    args = parser.parse_args()

    outcomes: Counter = Counter()
    by_mutation: Counter = Counter()
    findings: list[tuple[int, list[str], str, str]] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + args.minutes * 60
    next_case = iter(range(10**9))
    started = time.monotonic()

    def worker() -> None:
        while time.monotonic() < stop_at:
            with lock:
                case = next(next_case)
            label, applied, data, trace = run_case(case, args.seed, args.timeout, args.memory_mb)
            with lock:
                outcomes[label] += 1
                for kind in applied:
                    by_mutation[(kind, "finding" if label == "FINDING" else "classified")] += 1
                if label == "FINDING":
                    digest = hashlib.sha256(data).hexdigest()[:16]
                    findings.append((case, applied, digest, trace))
                    if args.save:
                        args.save.mkdir(parents=True, exist_ok=True)
                        (args.save / f"finding-{digest}.pdf").write_bytes(data)

    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        for _ in range(args.workers):
            pool.submit(worker)
    elapsed = time.monotonic() - started
    total = sum(outcomes.values())
    print(f"cases: {total} in {elapsed:.0f} s ({total / elapsed:.1f}/s, {args.workers} workers, "
          f"{len(SEEDS)} seed PDFs, seed {args.seed})")
    print("outcomes:")
    for label, count in outcomes.most_common():
        print(f"  {label:<28} {count}")
    print("mutations applied (classified / finding):")
    for kind in sorted({k for k, _ in by_mutation}):
        print(f"  {kind:<12} {by_mutation[(kind, 'classified')]:>6} / {by_mutation[(kind, 'finding')]}")
    print(f"findings: {len(findings)}")
    for case, applied, digest, trace in findings[:20]:
        print(f"--- case {case} ({'+'.join(applied)}), sha256 {digest}\n{trace}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
