"""A plain-text rendering of a report for the terminal."""
from __future__ import annotations

from .report import Report


def render_text(report: Report) -> str:
    out = []
    work = report.work
    out.append(work.title or report.input.doi or report.input.pdf or "(untitled)")
    if work.authors:
        names = ", ".join(a.name for a in work.authors[:6]) + (" et al." if len(work.authors) > 6 else "")
        out.append(names)
    meta = " · ".join(x for x in (work.venue, work.published, report.input.doi and f"doi:{report.input.doi}") if x)
    if meta:
        out.append(meta)
    out.append("")
    out.extend(f"* {line}" for line in report.summary)
    reg = report.registry
    out += ["", f"Registry: {reg.status}" + (f" ({reg.reason})" if reg.reason else "")]
    out += [f"  differs on {d.field}: Crossref {d.crossref!r} / OpenAlex {d.openalex!r}" for d in reg.differences]
    out += [f"  notice: {n.type} ({n.source}) {n.notice_doi or ''} {n.date or ''}".rstrip() for n in reg.notices]
    c = report.references.counts
    out += ["", f"References: printed {c.printed}, registry {c.registry}, linked {c.linked}, found {c.found}, "
            f"found with differences {c.found_with_differences}, not found {c.not_found}, "
            f"unchecked {c.unchecked}, registry only {c.registry_only}"]
    for item in report.references.items:
        flags = "".join((" [RETRACTED]" if item.retracted else "", " [self]" if item.self_citation else ""))
        label = item.title or item.printed or ""
        out.append(f"  {item.id} {item.status:<22} {item.doi or '-':<32} {label[:70]}{flags}")
    cb = report.cited_by
    out += ["", f"Cited by: {cb.count} (listed {cb.listed})"]
    out += [f"  {w.year or '----'} {w.cited_by_count or 0:>6}  {(w.title or '')[:80]}" for w in cb.items[:20]]
    claims = report.claims.outgoing + report.claims.incoming
    if claims:
        out += ["", "Claims:"]
        out += [f"  {c.id} {c.verdict:<20} p.{c.page or '?'} {c.quote[:90]}" for c in claims]
    if report.statistics.items:
        out += ["", "Statistics:"]
        out += [f"  {s.id} {s.kind:<15} {'ok ' if s.consistent else 'BAD' if s.consistent is False else ' ? '} {s.text[:80]}"
                for s in report.statistics.items]
    out += ["", "Stages:"]
    out += [f"  {s.name:<22} {s.status:<8} {s.reason or ''}" for s in report.stages]
    return "\n".join(out) + "\n"
