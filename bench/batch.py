"""Batch at scale against the simulated registry: throughput against the rate ceiling, limit
violations seen by the server, peak memory by list size, and kill -9 / resume.

Run:  /work/venv/bin/python bench/batch.py [--dois 1000] [--jobs 8] [--limit 50]
                                           [--latency 0.02] [--memory-sizes 250,500]

Every run is the real command, ``python -m citecheck -q batch LIST --out-dir DIR --no-llm``, in a
child process pointed at ``tests/simserver.py`` (started here on 127.0.0.1, generated answers,
``X-Rate-Limit-Limit: LIMIT`` and ``X-Rate-Limit-Interval: 1s`` on every response, LATENCY
seconds added to each answer). The server logs every request's arrival time, so:

* throughput: requests per second of the busiest service (the one with the most requests per
  paper: OpenAlex) between its first and last request, as a fraction of LIMIT (the ceiling);
  also papers per second over the whole wall time, child start-up included;
* violations: for each service, requests that were the LIMIT+1-th within a sliding 1-second
  window, and calendar seconds (from the first request) with more than LIMIT requests;
* peak memory: the child's maximum RSS (``wait4``) for each list size;
* kill -9: the same list in a fresh folder, the child killed with SIGKILL after 40 % of the
  journal, then the same command again; its journal and reports are compared with the
  uninterrupted run's (volatile fields such as ``generated_at`` dropped).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from simserver import SimRegistry

VOLATILE = {"generated_at", "retrieved_at", "seconds", "fingerprint"}


def sliding_violations(times: list[float], limit: int) -> tuple[int, int]:
    """(requests beyond ``limit`` in the 1-second window ending at them, busiest window)."""
    times = sorted(times)
    start = excess = busiest = 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        in_window = end - start + 1
        busiest = max(busiest, in_window)
        excess += in_window > limit
    return excess, busiest


def fixed_window_violations(times: list[float], limit: int) -> int:
    if not times:
        return 0
    first = min(times)
    per_second: dict[int, int] = defaultdict(int)
    for at in times:
        per_second[int(at - first)] += 1
    return sum(count > limit for count in per_second.values())


def command(listing: Path, out: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "citecheck", "-q", "batch", str(listing), "--out-dir", str(out),
            "--jobs", str(jobs), "--no-llm"]


def child_env(sim: SimRegistry, home: Path) -> dict[str, str]:
    return {**os.environ, "CITECHECK_HOME": str(home), "CITECHECK_CROSSREF_BASE_URL": sim.url,
            "CITECHECK_OPENALEX_BASE_URL": sim.url,
            "CITECHECK_UNPAYWALL_BASE_URL": sim.url + "/unpaywall",
            "CITECHECK_MAILTO": "bench@example.org"}


def run_child(cmd: list[str], env: dict, *, kill_at_lines: int | None = None,
              journal: Path | None = None) -> tuple[int, float, float]:
    """(exit status or -9, wall seconds, peak RSS MiB) of one batch run."""
    started = time.monotonic()
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_at_lines is not None:
        while process.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= kill_at_lines:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.02)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode("utf-8", "replace").strip()
    process.stderr.close()
    if process.returncode not in (0, -signal.SIGKILL):
        raise SystemExit(f"batch failed ({process.returncode}): {stderr}")
    return process.returncode, time.monotonic() - started, usage.ru_maxrss / 1024


def measure_run(sim: SimRegistry, workdir: Path, name: str, dois: list[str], jobs: int,
                limit: int) -> dict:
    listing = workdir / f"{name}.txt"
    listing.write_text("\n".join(dois) + "\n")
    sim.reset_log()
    _, wall, rss = run_child(command(listing, workdir / name, jobs),
                             child_env(sim, workdir / f"home-{name}"))
    per_service: dict[str, list[float]] = defaultdict(list)
    for request in list(sim.requests):
        per_service[request.service].append(request.at)
    services = {}
    for service, times in sorted(per_service.items()):
        span = max(times) - min(times)
        excess, busiest = sliding_violations(times, limit)
        services[service] = {"requests": len(times), "per_paper": len(times) / len(dois),
                             "rate": (len(times) - 1) / span if span else 0.0,
                             "sliding_violations": excess, "busiest_second": busiest,
                             "fixed_window_violations": fixed_window_violations(times, limit)}
    return {"dois": len(dois), "wall_s": wall, "rss_mib": rss, "services": services,
            "journal": read_journal(workdir / name)}


def read_journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def neutral(value):
    if isinstance(value, dict):
        return {k: neutral(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [neutral(v) for v in value]
    return value


def compare_outputs(killed: Path, clean: Path) -> dict:
    killed_entries, clean_entries = read_journal(killed), read_journal(clean)
    killed_by_key = {e["key"]: neutral(e) for e in killed_entries}
    clean_by_key = {e["key"]: neutral(e) for e in clean_entries}
    same_reports = 0
    for key, entry in killed_by_key.items():
        if entry.get("report") and clean_by_key.get(key, {}).get("report"):
            a = neutral(json.loads((killed / entry["report"]).read_text()))
            b = neutral(json.loads((clean / clean_by_key[key]["report"]).read_text()))
            same_reports += a == b
    return {"lines": len(killed_entries), "duplicates": len(killed_entries) - len(killed_by_key),
            "missing": len(set(clean_by_key) - set(killed_by_key)),
            "entries_equal": sum(killed_by_key.get(k) == v for k, v in clean_by_key.items()),
            "reports_equal": same_reports,
            "summary_equal": sorted((killed / "summary.csv").read_text().splitlines())
            == sorted((clean / "summary.csv").read_text().splitlines())}


def kill_and_resume(sim: SimRegistry, workdir: Path, dois: list[str], jobs: int,
                    clean: Path) -> dict:
    listing = workdir / "kill.txt"
    listing.write_text("\n".join(dois) + "\n")
    out, env = workdir / "killed", child_env(sim, workdir / "home-killed")
    cmd = command(listing, out, jobs)
    code, first_wall, _ = run_child(cmd, env, kill_at_lines=int(len(dois) * 0.4),
                                    journal=out / "results.jsonl")
    before = (out / "results.jsonl").read_bytes().count(b"\n")
    sim.reset_log()
    _, resume_wall, _ = run_child(cmd, env)
    resumed_requests = len(sim.requests)
    return {"killed": code == -signal.SIGKILL, "lines_before_kill": before,
            "first_wall_s": first_wall, "resume_wall_s": resume_wall,
            "resume_requests": resumed_requests, **compare_outputs(out, clean)}


def print_run(label: str, run: dict, limit: int) -> None:
    busiest = max(run["services"].items(), key=lambda item: item[1]["requests"])
    name, figures = busiest
    print(f"{label}: {run['dois']} DOIs in {run['wall_s']:.1f} s "
          f"({run['dois'] / run['wall_s']:.2f} papers/s), peak RSS {run['rss_mib']:.0f} MiB")
    print(f"  throughput: {name} {figures['rate']:.2f} req/s of a {limit} req/s ceiling = "
          f"{figures['rate'] / limit:.3f}; papers/s ceiling {limit / figures['per_paper']:.2f}, "
          f"achieved over the whole run {run['dois'] / run['wall_s'] / (limit / figures['per_paper']):.3f}")
    for service, f in run["services"].items():
        print(f"  {service:9s} {f['requests']:6d} requests ({f['per_paper']:.2f}/paper), "
              f"{f['rate']:.2f} req/s, busiest 1 s window {f['busiest_second']}, "
              f"sliding-window violations {f['sliding_violations']}, "
              f"fixed-window violations {f['fixed_window_violations']}")
    statuses = defaultdict(int)
    for entry in run["journal"]:
        statuses[entry["status"]] += 1
    print(f"  journal: {dict(statuses)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--memory-sizes", default="250,500")
    args = parser.parse_args()
    headers = {"X-Rate-Limit-Limit": str(args.limit), "X-Rate-Limit-Interval": "1s"}
    dois = [f"10.5555/bench.{i}" for i in range(args.dois)]
    print(f"simulated registry: latency {args.latency * 1000:.0f} ms, "
          f"X-Rate-Limit-Limit {args.limit}, X-Rate-Limit-Interval 1s; jobs {args.jobs}")
    with tempfile.TemporaryDirectory(prefix="citecheck-bench-batch-") as tmp, \
            SimRegistry(latency_s=args.latency, headers=headers) as sim:
        workdir = Path(tmp)
        full = measure_run(sim, workdir, "full", dois, args.jobs, args.limit)
        print_run("uninterrupted", full, args.limit)
        memory = {args.dois: full["rss_mib"]}
        for size in sorted(int(s) for s in args.memory_sizes.split(",") if s):
            run = measure_run(sim, workdir, f"mem{size}", dois[:size], args.jobs, args.limit)
            memory[size] = run["rss_mib"]
            print_run(f"memory run {size}", run, args.limit)
        print("peak RSS by list size: " + ", ".join(
            f"{size} DOIs {rss:.0f} MiB" for size, rss in sorted(memory.items())))
        resume = kill_and_resume(sim, workdir, dois, args.jobs, workdir / "full")
        left = args.dois - resume["lines_before_kill"]
        print(f"kill -9 after {resume['lines_before_kill']} of {args.dois} journal lines "
              f"(killed: {resume['killed']}); the resume checked the {left} left in "
              f"{resume['resume_wall_s']:.1f} s with {resume['resume_requests']} requests "
              f"({resume['resume_requests'] / max(left, 1):.2f} per paper, all services)")
        print(f"  journal lines {resume['lines']}, duplicates {resume['duplicates']}, missing "
              f"{resume['missing']}, entries equal to the uninterrupted run "
              f"{resume['entries_equal']}/{args.dois}, reports equal {resume['reports_equal']}/"
              f"{args.dois}, summary.csv equal {resume['summary_equal']}")


if __name__ == "__main__":
    main()
