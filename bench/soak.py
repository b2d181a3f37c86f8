"""Soak run: 1,000 DOIs through ``citecheck batch`` against the simulated registry with
injected faults, uninterrupted and then with two kill -9s followed by resumes.

Run: ``python bench/soak.py [--dois 1000] [--jobs 4] [--seed 7]`` (from the repository root).

The simulator (``tests/simserver.py``) runs in this process on 127.0.0.1 and answers every
request of the batch subprocess; a seeded ``FaultMix`` replaces 5% of the answers with a
429 (``Retry-After: 1``), 3% with a 503, 1% with a hang and 1% with an HTML page. It also
advertises ``X-Rate-Limit-Limit``/``-Interval`` and ``x-concurrency-limit`` so the client
paces itself from headers. citecheck is pointed at it only through its ordinary settings
(``CITECHECK_*`` environment variables), with short timeouts so hangs cost seconds.

The circuit breaker (stop when ≥ ``CITECHECK_BREAKER_FAILURE_RATIO`` of the last 50 responses
failed) would trip at the default 10% on a 10% fault mix, by design. The ratio is set with
``--breaker-ratio`` (default 0.25; 1.01 switches the breaker off), and whenever the batch
stops, the same command is simply run again (that is the resume path); the number of such
breaker stops is printed. Because every report is read back, papers written while a
breaker was open (stage reason ``…circuit_open``) are counted too: a journal status ``ok``
only means that no stage *failed*.

Printed for each scenario: accounted/total, duplicates, outcomes and failure reasons (from
the journal and the reports' stage reasons), requests served and faults injected, peak RSS
of the batch process (``VmHWM``) and its RSS over time, wall time. At the end the journal of
the killed-and-resumed run is compared with the uninterrupted one.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from simserver import FaultMix, SimRegistry

FAULT_RATES = {"429": 0.05, "5xx": 0.03, "hang": 0.01, "html": 0.01}


class CountingMix(FaultMix):
    """The seeded mix, counting what it injected."""

    def __post_init__(self):
        super().__post_init__()
        self.injected: Counter = Counter()

    def draw(self):
        fault = super().draw()
        if fault is not None:
            label = "hang" if fault.kind == "hang" else (
                "html" if fault.status == 200 else str(fault.status))
            with self._lock:
                self.injected[label] += 1
        return fault


class MemorySampler:
    """Samples VmRSS/VmHWM of a process from /proc every ``interval`` seconds."""

    def __init__(self, pid: int, journal: Path, interval: float = 0.5):
        self.pid, self.journal, self.interval = pid, journal, interval
        self.samples: list[tuple[int, int]] = []  # (journal lines, RSS kB)
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            status = _proc_status(self.pid)
            if status:
                self.peak_kb = max(self.peak_kb, status.get("VmHWM", 0))
                self.samples.append((_line_count(self.journal), status.get("VmRSS", 0)))
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _proc_status(pid: int) -> dict[str, int]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


def _line_count(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except OSError:
        return 0


def batch_env(sim: SimRegistry, home: Path, breaker_ratio: float) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CITECHECK_") and k not in ("ANTHROPIC_API_KEY", "OPENALEX_API_KEY")}
    env.update({
        "CITECHECK_HOME": str(home),
        "CITECHECK_CROSSREF_BASE_URL": sim.url,
        "CITECHECK_OPENALEX_BASE_URL": sim.url,
        "CITECHECK_UNPAYWALL_BASE_URL": sim.url + "/unpaywall",
        "CITECHECK_MAILTO": "soak@example.org",
        "CITECHECK_CONNECT_TIMEOUT_S": "1",
        "CITECHECK_READ_TIMEOUT_S": "1",
        "CITECHECK_REQUEST_DEADLINE_S": "2",
        "CITECHECK_BACKOFF_BASE_S": "0.05",
        "CITECHECK_RETRY_AFTER_CAP_S": "5",
        "CITECHECK_BREAKER_FAILURE_RATIO": str(breaker_ratio),
        "PYTHONPATH": str(ROOT),
    })
    return env


def run_scenario(name: str, sim: SimRegistry, dois_file: Path, work: Path, *, jobs: int,
                 breaker_ratio: float, kill_at: tuple[float, ...] = ()) -> dict:
    """Run the batch to completion (re-running after kills and breaker stops)."""
    out, home = work / name / "out", work / name / "home"
    journal = out / "results.jsonl"
    total = sum(1 for line in dois_file.read_text().splitlines() if line.strip())
    command = [sys.executable, "-m", "citecheck", "-q", "batch", str(dois_file), "--out-dir",
               str(out), "--jobs", str(jobs), "--no-llm"]
    env = batch_env(sim, home, breaker_ratio)
    kills, runs, breaker_stops, peak_kb = [], 0, 0, 0
    samples: list[tuple[int, int]] = []
    pending_kills = list(kill_at)
    started = time.monotonic()
    while True:
        runs += 1
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        sampler = MemorySampler(process.pid, journal)
        stderr_tail = _drain(process)
        while process.poll() is None:
            if pending_kills and _line_count(journal) >= pending_kills[0] * total:
                time.sleep(0.05 + 0.3 * len(kills))  # land inside work, not on a line boundary
                process.send_signal(signal.SIGKILL)
                kills.append(_line_count(journal))
                pending_kills.pop(0)
                break
            time.sleep(0.02)
        process.wait()
        sampler.stop()
        peak_kb = max(peak_kb, sampler.peak_kb)
        samples.extend(sampler.samples)
        entries = _journal(journal)
        if len({e["key"] for e in entries}) >= total:
            break
        if process.returncode not in (0, -signal.SIGKILL):
            print(f"  [{name}] run {runs} exited {process.returncode}: {''.join(stderr_tail)[-300:]}")
        if process.returncode != -signal.SIGKILL:
            breaker_stops += 1
        if runs > 50:
            print(f"  [{name}] giving up after {runs} runs")
            break
    wall = time.monotonic() - started
    return {"name": name, "out": out, "entries": _journal(journal), "total": total,
            "kills": kills, "runs": runs, "breaker_stops": breaker_stops, "peak_kb": peak_kb,
            "samples": samples, "wall": wall}


def _drain(process: subprocess.Popen) -> list[str]:
    """Keep the child's stderr pipe from filling up; keep its last lines."""
    tail: list[str] = []

    def read() -> None:
        for raw in process.stderr:
            tail.append(raw.decode("utf-8", "replace"))
            del tail[:-20]

    threading.Thread(target=read, daemon=True).start()
    return tail


def _journal(path: Path) -> list[dict]:
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            entries.append({"key": None, "status": "torn"})
    return entries


def stage_reasons(out: Path, entries: list[dict]) -> tuple[Counter, int]:
    """Reasons of failed or partial stages in every written report (a journal status ``ok``
    only means that no stage *failed*), and how many papers have at least one."""
    reasons: Counter = Counter()
    papers = 0
    for entry in entries:
        if entry.get("report"):
            report = json.loads((out / entry["report"]).read_text())
            degraded = [s for s in report["stages"] if s["status"] in ("failed", "partial")]
            papers += bool(degraded)
            for stage in degraded:
                for part in (stage["reason"] or "unknown").split(";"):
                    reasons[f"{stage['name']}:{part}"] += 1
    return reasons, papers


def print_scenario(result: dict, served: int, injected: Counter) -> None:
    entries, total = result["entries"], result["total"]
    keys = Counter(e["key"] for e in entries)
    latest = {e["key"]: e for e in entries}
    duplicates = sum(n - 1 for n in keys.values() if n > 1)
    print(f"\n== {result['name']} ==")
    print(f"accounted/total: {len(latest)}/{total}; journal lines: {len(entries)}; "
          f"duplicates: {duplicates}; torn lines: {keys.get(None, 0)}")
    print(f"runs: {result['runs']} (kill -9 at journal lines {result['kills'] or '-'}; "
          f"breaker stops then resumed: {result['breaker_stops']})")
    print("outcomes:", dict(Counter(e["status"] for e in latest.values())))
    print("failed, by reason:", dict(Counter(e["reason"] for e in latest.values()
                                           if e["status"] == "failed")))
    print("partial, by failed stage:", dict(Counter(e["reason"] for e in latest.values()
                                                  if e["status"] == "partial")))
    reasons, degraded = stage_reasons(result["out"], list(latest.values()))
    print(f"papers whose report has a failed/partial stage: {degraded}; by stage:reason:",
          dict(reasons.most_common(8)))
    print(f"requests served: {served}; faults injected: {dict(injected)}")
    samples = result["samples"]
    marks = []
    for share in (0.1, 0.5, 0.9):
        at = next((rss for lines, rss in samples if lines >= share * total), None)
        if at:
            marks.append(f"{int(share * 100)}%: {at / 1024:.0f} MB")
    print(f"peak RSS of the batch process (VmHWM): {result['peak_kb'] / 1024:.0f} MB; "
          f"RSS at journal progress {', '.join(marks)}")
    print(f"wall time: {result['wall']:.1f} s")


def compare(clean: dict, killed: dict) -> None:
    a = {e["key"]: e for e in clean["entries"]}
    b = {e["key"]: e for e in killed["entries"]}
    fields = ("status", "reason", "registry", "registry_refs", "found", "not_found", "cited_by")
    same = [k for k in a if k in b and all(a[k].get(f) == b[k].get(f) for f in fields)]
    differ = [k for k in a if k in b and k not in same]
    print("\n== killed-and-resumed vs uninterrupted ==")
    print(f"same keys: {set(a) == set(b)} ({len(a)} vs {len(b)}); entries equal on {fields}: "
          f"{len(same)}/{len(a)}")
    changes = Counter(f"{a[k]['status']}:{a[k].get('reason')} -> {b[k]['status']}:{b[k].get('reason')}"
                      for k in differ)
    print("differences (status:reason, uninterrupted -> killed):", dict(changes.most_common(10)))
    both_ok = [k for k in same if a[k]["status"] == "ok"]
    identical = sum(1 for k in both_ok if _report(clean, a[k]) == _report(killed, b[k]))
    print(f"reports identical (without timings) where both ok: {identical}/{len(both_ok)}")


def _report(result: dict, entry: dict) -> dict:
    data = json.loads((result["out"] / entry["report"]).read_text())
    data.pop("generated_at", None)
    for stage in data.get("stages", []):
        stage.pop("seconds", None)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--breaker-ratio", type=float, default=0.25)
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp folder)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="citecheck-soak-") as temp:
        work = args.keep or Path(temp)
        work.mkdir(parents=True, exist_ok=True)
        dois_file = work / "dois.txt"
        dois_file.write_text("".join(f"10.5555/soak.{i}\n" for i in range(args.dois)))
        print(f"soak: {args.dois} DOIs, --jobs {args.jobs}, faults {FAULT_RATES}, seed {args.seed}, "
              f"breaker ratio {args.breaker_ratio}")
        results = []
        for name, kill_at in (("uninterrupted", ()), ("two-kills", (0.3, 0.65))):
            headers = {"X-Rate-Limit-Limit": "200", "X-Rate-Limit-Interval": "1s",
                       "x-concurrency-limit": "8"}
            with SimRegistry(headers=headers) as sim:
                mix = CountingMix(dict(FAULT_RATES), seed=args.seed)
                sim.mix = mix
                result = run_scenario(name, sim, dois_file, work, jobs=args.jobs,
                                      breaker_ratio=args.breaker_ratio, kill_at=kill_at)
                print_scenario(result, len(sim.requests), mix.injected)
                results.append(result)
        compare(*results)


if __name__ == "__main__":
    main()
