"""Speed and size of the HTML page and the embedded JSON for a large report.

    python bench/html_render.py [--refs 1000] [--cited-by 5000] [--claims 300]

Builds a synthetic report (hostile strings in every title, so escaping is on the hot path),
renders it with ``render_html`` and serialises it with ``script_safe_json``; prints the median
of 5 runs in milliseconds and the page size. Also times ``verify``'s count checks on it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from citecheck.embed import script_safe_json  # noqa: E402
from citecheck.htmlreport import render_html  # noqa: E402
from citecheck.report import (CitedBy, CitingWork, Claim, Claims, Evidence, RefCounts,  # noqa: E402
                              RefItem, References, Report)
from citecheck.verify import count_checks  # noqa: E402

HOSTILE = "<img src=x onerror=alert(1)> & </script> \u2028"
STATUSES = ("linked", "found", "found_with_differences", "not_found", "unchecked")


def big_report(refs: int, cited_by: int, claims: int) -> Report:
    items = [RefItem(id=f"ref-{i:04d}", status=STATUSES[i % 5], printed=f"Printed {i}",
                     doi=f"10.1000/{i}", year=2000 + i % 25, cited_by_count=i,
                     authors=["Doe, J.", "Roe, R."], self_citation=i % 17 == 0,
                     retracted=i % 101 == 0) for i in range(refs)]
    for item in items:
        item.title = f"{HOSTILE} reference {item.id}"
    counts = RefCounts(printed=refs, retracted=sum(1 for r in items if r.retracted),
                       self_citations=sum(1 for r in items if r.self_citation),
                       **{s: sum(1 for r in items if r.status == s) for s in STATUSES})
    citing = [CitingWork(doi=f"10.2000/{i}", year=2020, cited_by_count=cited_by - i,
                         authors=["Poe, E."]) for i in range(cited_by)]
    for work in citing:
        work.title = HOSTILE
    claim_list = [Claim(id=f"claim-{i:03d}", quote=f"Claim {i} [{i % refs}].", page=1 + i % 20,
                        cited_ref_ids=[f"ref-{i % refs:04d}"], verdict="supported",
                        evidence=[Evidence(quote=f"Evidence {i}", page=2, artifact_sha256="0" * 64)],
                        model="model", prompt="support_check@1") for i in range(claims)]
    report = Report(references=References(status="ok", counts=counts, items=items),
                    cited_by=CitedBy(status="ok", count=cited_by, listed=cited_by, items=citing),
                    claims=Claims(status="ok", outgoing=claim_list))
    report.work.title = HOSTILE
    return report


def median_ms(function, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(1000 * (time.perf_counter() - started))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refs", type=int, default=1000)
    parser.add_argument("--cited-by", type=int, default=5000)
    parser.add_argument("--claims", type=int, default=300)
    args = parser.parse_args()
    report = big_report(args.refs, args.cited_by, args.claims)
    page = render_html(report)
    data = script_safe_json(report)
    print(f"report: {args.refs} references, {args.cited_by} citing works, {args.claims} claims")
    print(f"render_html       {median_ms(lambda: render_html(report)):8.1f} ms  "
          f"page {len(page.encode()) / 1e6:.2f} MB")
    print(f"script_safe_json  {median_ms(lambda: script_safe_json(report)):8.1f} ms  "
          f"json {len(data.encode()) / 1e6:.2f} MB")
    print(f"verify counts     {median_ms(lambda: count_checks(report)):8.1f} ms  "
          f"{sum(c.passed for c in count_checks(report))}/{len(count_checks(report))} pass")
    print(f"raw '<img' in page outside the data block: {page.split('citecheck-data')[0].count('<img')}")


if __name__ == "__main__":
    main()
