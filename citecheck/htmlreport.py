"""One self-contained HTML page for a report: readable, printable, no external requests.

Every third-party string goes through :func:`html.escape` (also in attributes); only http(s)
URLs become links. A Content-Security-Policy ``<meta>`` forbids scripts, remote styles,
fonts and images, so even a mistake in escaping could not run code or leak a request. The
report itself is embedded as ``<script type="application/json" id="citecheck-data">`` (a
data block, never executed) through :func:`citecheck.embed.script_safe_json`.
"""
from __future__ import annotations

import html
import logging
from collections import Counter
from collections.abc import Iterable

from .embed import script_safe_json
from .plaintext import safe_http_url
from .doi import doi_url
from .report import CitingWork, Claim, RefItem, Report, StatItem

logger = logging.getLogger(__name__)

VERDICT_TEXT = {
    "supported": "The cited source says what the claim attributes to it.",
    "partially_supported": "The source backs part of the claim, not all of it — or backs it "
                           "for a different population, condition or comparison.",
    "not_supported": "The cited source does not say what the claim attributes to it.",
    "contradicted": "The cited source says the opposite of what the claim attributes to it.",
    "not_checkable": "This claim could not be checked.",
}
STATUS_TEXT = {
    "linked": "linked", "found": "found", "found_with_differences": "found, with differences",
    "not_found": "not found", "unchecked": "not checked", "registry_only": "in the registry only",
}
FOUND_STATUSES = ("linked", "found", "found_with_differences")
ABOUT = (
    "Registry, retraction, cites and statistics results are computed, not judged, with one "
    "exception: a printed reference that no index lists is read once by a model before it "
    "counts as a citation error.",
    "Claims are extracted from the text and each cited source is checked, with a model’s "
    "help, for whether it says what the claim relies on. A quote the model returns is kept "
    "only when it appears verbatim in the source; each verdict names the file read (its "
    "SHA-256), the page, the model and the prompt version. Those verdicts can be wrong — read "
    "the claim’s quote and the cited source before relying on one.",
    "Statistics and arithmetic are recomputed from the paper’s own numbers, not judged.",
    "Anyone holding the files listed under “Provenance” can re-check this report with "
    "“citecheck verify”.",
)
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")
CSS = """
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--ok:#1a7f37;--warn:#9a6700;
--bad:#cf222e;--info:#0969da}
*{box-sizing:border-box}
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:60rem;padding:1.5rem}
h1{font-size:1.6rem;line-height:1.25;margin:.4rem 0}h2{font-size:1.25rem;margin-top:2.2rem;
border-bottom:1px solid var(--line);padding-bottom:.25rem}h3{font-size:1.05rem;margin:1.4rem 0 .4rem}
.headline{font-size:1.1rem;font-weight:600;background:#f6f8fa;border-left:4px solid var(--info);
padding:.6rem .9rem}.muted,.meta{color:var(--muted);font-size:.9rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;border:1px solid currentColor;
border-radius:1rem;padding:0 .5rem;margin-right:.3rem;white-space:nowrap}
.ok{color:var(--ok)}.warn{color:var(--warn)}.bad{color:var(--bad)}.info{color:var(--info)}
.signals{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:.75rem}
.signal{border:1px solid var(--line);border-radius:.4rem;padding:.6rem .8rem;
overflow-wrap:anywhere}
.signal b{display:block;font-size:1.05rem}
.claim,.ref{border-top:1px solid var(--line);padding:.7rem 0;break-inside:avoid}
blockquote{margin:.4rem 0;padding:.2rem .8rem;border-left:3px solid var(--line)}
.evidence blockquote{border-color:var(--ok)}code,.sha{font-family:ui-monospace,monospace;
font-size:.8rem;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;
border-bottom:1px solid var(--line);padding:.3rem .4rem;vertical-align:top}
dl.meta-list{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.meta-list dt{font-weight:600}dl.meta-list dd{margin:0;overflow-wrap:anywhere}
a{color:var(--info)}
@media print{body{max-width:none;padding:0;font-size:11pt}.headline{background:none}
a{color:inherit;text-decoration:none}h2{break-after:avoid}.claim,.ref,.signal{break-inside:avoid}
a[href]::after{content:" <" attr(href) ">";font-size:.75rem;overflow-wrap:anywhere}}
"""


def e(value: object) -> str:
    """Escape any value for HTML text or a quoted attribute; ``None`` becomes ``""``."""
    return "" if value is None else html.escape(str(value), quote=True)


def link(url: str | None, label: str | None = None) -> str:
    """An ``<a>`` only for an http(s) URL; anything else is shown as escaped text."""
    safe = safe_http_url(url)
    text = e(label if label is not None else url)
    if not safe:
        return text
    return f'<a href="{e(safe)}" rel="noopener noreferrer nofollow">{text}</a>'


def doi_link(doi: str | None) -> str:
    if not doi:
        return ""
    return link(doi_url(doi), f"doi:{doi}")


def badge(text: str, tone: str) -> str:
    return f'<span class="badge {e(tone)}">{e(text)}</span>'


def render_html(report: Report) -> str:
    """The whole page (see the module docstring)."""
    work = report.work
    title = work.title or report.input.doi or report.input.pdf or "Untitled work"
    parts = [
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">', '<link rel="icon" href="data:,">',
        f"<title>{e(title)} — citecheck report</title>", f"<style>{CSS}</style>", "</head>",
        "<body>", _header(report, title), _signals(report), _claims(report),
        _statistics(report), _citations(report), _cited_by(report), _metadata(report),
        _provenance(report), _about(report),
        '<script type="application/json" id="citecheck-data">'
        f"{script_safe_json(report.model_dump(mode='json'))}</script>",
        "</body>", "</html>",
    ]
    return "\n".join(parts) + "\n"


def _header(report: Report, title: str) -> str:
    work = report.work
    headline = report.summary[0] if report.summary else _fallback_headline(report)
    more = "".join(f"<li>{e(line)}</li>" for line in report.summary[1:])
    flags = []
    if report.registry.retracted or any(n.type == "retraction" for n in report.registry.notices):
        flags.append(badge("Retracted", "bad"))
    if work.open_access.status and work.open_access.status != "closed":
        flags.append(badge(f"Open access ({work.open_access.status})", "ok"))
    authors = ", ".join(e(a.name) for a in work.authors[:8])
    if len(work.authors) > 8:
        authors += ", et al."
    meta = " · ".join(x for x in (e(work.venue), e(work.published),
                                  doi_link(work.ids.doi or report.input.doi)) if x)
    return (f'<header><p class="headline">{e(headline)}</p>'
            f"{f'<ul>{more}</ul>' if more else ''}<h1>{e(title)}</h1>"
            f"<p>{''.join(flags)}</p><p>{authors}</p><p class=\"meta\">{meta}</p>"
            f"{f'<p>{e(work.abstract)}</p>' if work.abstract else ''}</header>")


def _fallback_headline(report: Report) -> str:
    counts = report.references.counts
    found = sum(getattr(counts, s) for s in FOUND_STATUSES)
    if counts.printed:
        return f"{found} of the {counts.printed} printed references were found in a registry."
    return f"Registry status: {report.registry.status}."


def verdict_counts(claims: Iterable[Claim]) -> Counter:
    return Counter(c.verdict for c in claims)


def _signals(report: Report) -> str:
    reg, refs, stats = report.registry, report.references, report.statistics
    counts = refs.counts
    notices = "".join(f"<li>{e(n.type.replace('_', ' '))} ({e(n.source)}) "
                      f"{doi_link(n.notice_doi)} {e(n.date)}</li>" for n in reg.notices)
    diffs = "".join(f"<li>{e(d.field)}: Crossref “{e(d.crossref)}”, OpenAlex “{e(d.openalex)}”"
                    "</li>" for d in reg.differences)
    tone = {"matched": "ok", "mismatch": "warn", "not_found": "bad"}.get(reg.status, "muted")
    registry = (f'<div class="signal"><span class="muted">Registry</span>'
                f'<b class="{tone}">{e(reg.status.replace("_", " "))}</b>'
                f"{e(reg.agency)} {e(reg.reason)}"
                f"{f'<ul>{diffs}</ul>' if diffs else ''}"
                f"{f'<p>Notices:</p><ul>{notices}</ul>' if notices else '<p>No notices.</p>'}</div>")
    found = sum(getattr(counts, s) for s in FOUND_STATUSES)
    if counts.printed:
        cites_line = f"{found} of {counts.printed} found"
        detail = (f"{counts.not_found} not found, {counts.unchecked} not checked, "
                  f"{counts.found_with_differences} with differences")
    else:
        cites_line = f"{counts.registry} in the registry"
        detail = e(refs.reason) or "no printed reference list was read"
    cites = (f'<div class="signal"><span class="muted">Cites</span><b>{e(cites_line)}</b>'
             f"{e(detail)}<br>{counts.retracted} retracted · self-citations: "
             f"{counts.self_citations}</div>")
    checked = [s for s in stats.items if s.consistent is not None]
    bad = sum(1 for s in checked if s.consistent is False)
    errors = sum(1 for s in checked if s.decision_error)
    statistics = (f'<div class="signal"><span class="muted">Statistics</span>'
                  f'<b class="{"bad" if bad else "ok" if checked else "muted"}">'
                  f"{f'{bad} of {len(checked)} inconsistent' if checked else 'none checked'}"
                  f"</b>{errors} decision errors"
                  f"{f' · {e(stats.reason)}' if stats.reason else ''}</div>")
    verdicts = verdict_counts(report.claims.outgoing + report.claims.incoming)
    verdict_list = ", ".join(f"{n} {e(v.replace('_', ' '))}" for v, n in sorted(verdicts.items()))
    claims = (f'<div class="signal"><span class="muted">Claims</span>'
              f"<b>{sum(verdicts.values())} checked</b>{verdict_list or e(report.claims.reason)}"
              "</div>")
    cited = (f'<div class="signal"><span class="muted">Cited by</span>'
             f"<b>{report.cited_by.count}</b>{report.cited_by.listed} listed</div>")
    return (f'<section id="signals"><h2>Integrity signals</h2><div class="signals">'
            f"{registry}{cites}{statistics}{claims}{cited}</div></section>")


def _claims(report: Report) -> str:
    refs = {r.id: r for r in report.references.items}
    out = ['<section id="claims"><h2>Verification</h2><h3>Claims the paper makes</h3>']
    out += [_claim(c, refs) for c in report.claims.outgoing] or [_empty(report.claims.reason)]
    out.append("<h3>Claims other papers make about this one</h3>"
               '<p class="muted">Each is checked against this paper’s own text.</p>')
    out += [_claim(c, refs) for c in report.claims.incoming] or [_empty(report.claims.reason)]
    out.append("</section>")
    return "".join(out)


def _empty(reason: str | None) -> str:
    from .summary import plain_reason

    words = plain_reason(reason)
    return f'<p class="muted">None checked{f": {e(words)}" if words else ""}.</p>'


def _claim(claim: Claim, refs: dict[str, RefItem]) -> str:
    tone = {"supported": "ok", "partially_supported": "warn", "not_supported": "bad",
            "contradicted": "bad"}.get(claim.verdict, "muted")
    head = badge(claim.verdict.replace("_", " "), tone)
    if claim.dimension:
        head += badge(f"differs in {claim.dimension}", "warn")
    explain = VERDICT_TEXT[claim.verdict] + (f" Reason: {claim.reason}." if claim.reason else "")
    cited = ", ".join(e(refs[i].title or refs[i].printed or i) if i in refs else e(i)
                      for i in claim.cited_ref_ids)
    where = " · ".join(x for x in (f"page {e(claim.page)}" if claim.page else "",
                                   f"from {doi_link(claim.citing_doi)}" if claim.citing_doi else "",
                                   f"cites {cited}" if cited else "",
                                   doi_link(claim.cited_doi)) if x)
    evidence = "".join(
        f'<div class="evidence"><blockquote>“{e(ev.quote)}”</blockquote><p class="meta">'
        f"page {e(ev.page) or '?'} · artifact <span class=\"sha\">{e(ev.artifact_sha256) or 'none'}"
        "</span></p></div>" for ev in claim.evidence)
    model = (f'<p class="meta">Judged by {e(claim.model)} with prompt {e(claim.prompt)}'
             f"{f' (sha256 {e(claim.prompt_sha256)})' if claim.prompt_sha256 else ''}</p>"
             if claim.model else "")
    rationale = f"<p>{e(claim.rationale)}</p>" if claim.rationale else ""
    return (f'<article class="claim" id="{e(claim.id)}"><p>{head}<span class="muted">'
            f"{e(explain)}</span></p><blockquote>“{e(claim.quote)}”</blockquote>"
            f'<p class="meta">{where}</p>{rationale}{evidence}{model}</article>')


def _statistics(report: Report) -> str:
    stats = report.statistics
    if not stats.items:
        return (f'<section id="statistics"><h2>Statistics self-check</h2>'
                f"{_empty(stats.reason or stats.status)}</section>")
    rows = "".join(
        f"<tr><td>{e(s.kind.replace('_', ' '))}</td><td>{e(s.text)}</td><td>{e(s.page)}</td>"
        f"<td>{e(s.reported)}</td><td>{e(s.recomputed)}</td><td>{_stat_result(s)}</td></tr>"
        for s in stats.items)
    return ('<section id="statistics"><h2>Statistics self-check</h2><p class="muted">'
            "Percentages, sums, differences and test statistics recomputed from the paper’s "
            "own numbers.</p><table><thead><tr><th>Kind</th><th>As printed</th><th>Page</th>"
            "<th>Reported</th><th>Recomputed</th><th>Result</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></section>")


def _stat_result(item: StatItem) -> str:
    if item.consistent is None:
        result = badge("not checked", "muted")
    else:
        result = badge("consistent", "ok") if item.consistent else badge("inconsistent", "bad")
    return result + (badge("decision error", "bad") if item.decision_error else "")


def _work_line(work: RefItem | CitingWork, title: str | None) -> str:
    """Title, then authors (year) · venue · DOI · citations, as in the seed page."""
    authors, cited_by = work.authors, work.cited_by_count
    names = ", ".join(e(a) for a in authors[:6]) + (", et al." if len(authors) > 6 else "")
    bits = [x for x in (names + (f" ({work.year})" if work.year else ""), e(work.venue),
                        doi_link(work.doi), f"Cited by {cited_by:,}" if cited_by is not None
                        else "") if x]
    return (f"<div>{f'<strong>{e(title)}</strong>' if title else ''}</div>"
            f'<div class="meta">{" · ".join(bits)}</div>')


def _ref(item: RefItem) -> str:
    flags = ""
    if item.retracted:
        flags += badge("Retracted", "bad")
    if item.self_citation:
        flags += badge("Self-citation", "info")
    tone = {"found_with_differences": "warn", "not_found": "bad"}.get(item.status, "muted")
    flags += badge(STATUS_TEXT[item.status], tone)
    diffs = "".join(f"<li>{e(d.field)}: printed “{e(d.printed)}”, registry “{e(d.registry)}”</li>"
                    for d in item.differences)
    printed = (f'<div class="meta">Printed: {e(item.printed)}</div>'
               if item.printed and item.title else "")
    return (f'<div class="ref" id="{e(item.id)}">{flags}'
            f"{_work_line(item, item.title or item.printed)}"
            f"{printed}{f'<ul>{diffs}</ul>' if diffs else ''}</div>")


def _citations(report: Report) -> str:
    refs = report.references
    listed = sorted((r for r in refs.items if r.status in FOUND_STATUSES + ("registry_only",)),
                    key=lambda r: -(r.cited_by_count or 0))
    unlinked = [r for r in refs.items if r.status in ("not_found", "unchecked")]
    out = [f'<section id="citations"><h2>Citations</h2><h3>Cites ({len(listed)})</h3>']
    out += [_ref(r) for r in listed] or [_empty(refs.reason)]
    out.append(f"<h3>Printed but not linked ({len(unlinked)})</h3><ul>")
    out += [f"<li>{e(r.printed or r.title or r.id)} {badge(STATUS_TEXT[r.status], 'muted')}"
            f"{_reason(r.reason)}</li>"
            for r in unlinked]
    out.append("</ul></section>")
    return "".join(out)


def _reason(reason: str | None) -> str:
    return f' <span class="muted">{e(reason)}</span>' if reason else ""


def _citing(work: CitingWork) -> str:
    flags = (badge("Retracted", "bad") if work.retracted else "") + (
        badge("Self-citation", "info") if work.self_citation else "")
    return f'<div class="ref">{flags}{_work_line(work, work.title)}</div>'


def _cited_by(report: Report) -> str:
    section = report.cited_by
    items = sorted(section.items, key=lambda w: -(w.cited_by_count or 0))
    years = " · ".join(f"{y.year}: {y.cited_by_count}"
                       for y in sorted(section.counts_by_year, key=lambda y: -y.year))
    body = "".join(_citing(w) for w in items) or _empty(section.reason)
    return (f'<section id="cited-by"><h2>Cited by ({section.count})</h2><p class="muted">'
            f"Sorted by citations; {section.listed} listed{f'. By year: {years}' if years else ''}"
            f"</p>{body}</section>")


def _metadata(report: Report) -> str:
    work = report.work
    ids = work.ids
    affiliations = sorted({a for author in work.authors for a in author.affiliations})
    rows = [
        ("Authors", "; ".join(e(a.name) + (f" ({link(a.orcid, 'ORCID')})" if a.orcid else "")
                              for a in work.authors)),
        ("Affiliations", "; ".join(e(a) for a in affiliations)),
        ("Venue", e(work.venue)), ("Publisher", e(work.publisher)),
        ("Published", e(work.published)), ("Volume", e(work.volume)), ("Issue", e(work.issue)),
        ("Pages", e(work.pages)), ("ISSN", e(", ".join(work.issn))),
        ("DOI", doi_link(ids.doi)), ("OpenAlex", e(ids.openalex)), ("PMID", e(ids.pmid)),
        ("PMCID", e(ids.pmcid)), ("Type", e(work.type)), ("Language", e(work.language)),
        ("Cited by", e(work.cited_by_count)), ("References", e(work.references_count)),
        ("Open access", e(" · ".join(x for x in (work.open_access.status,
                                                  work.open_access.license) if x))),
        ("Locations", "<br>".join(link(u) for u in work.open_access.locations)),
        ("Funders", e("; ".join(work.funders))), ("Topics", e("; ".join(work.topics))),
        ("Keywords", e(", ".join(work.keywords))),
    ]
    items = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in rows if value)
    return f'<section id="metadata"><h2>Metadata</h2><dl class="meta-list">{items}</dl></section>'


def _provenance(report: Report) -> str:
    artifacts = "".join(
        f"<tr><td>{e(a.kind)}</td><td>{link(a.url) or 'local file'}</td>"
        f'<td class="sha">{e(a.sha256)}</td><td>{e(a.bytes)}</td><td>{e(a.pages)}</td>'
        f"<td>{e(a.retrieved_at)}</td></tr>" for a in report.artifacts)
    stages = "".join(f"<tr><td>{e(s.name)}</td><td>{e(s.status)}</td><td>{e(s.reason)}</td>"
                     f"<td>{s.seconds:.1f} s</td></tr>" for s in report.stages)
    return ('<section id="provenance"><h2>Provenance</h2><h3>Files read</h3><table><thead><tr>'
            "<th>Kind</th><th>URL</th><th>SHA-256</th><th>Bytes</th><th>Pages</th>"
            f"<th>Retrieved</th></tr></thead><tbody>{artifacts}</tbody></table>"
            "<h3>Stages</h3><table><thead><tr><th>Stage</th><th>Status</th><th>Reason</th>"
            f"<th>Time</th></tr></thead><tbody>{stages}</tbody></table></section>")


def _about(report: Report) -> str:
    paragraphs = "".join(f"<p>{e(p)}</p>" for p in ABOUT)
    generator = report.generator
    return (f'<section id="about"><h2>About these checks</h2>{paragraphs}<p class="meta">'
            f"Generated by {e(generator.name)} {e(generator.version)} at "
            f"{e(report.generated_at)}; report schema {e(report.schema_version)}.</p></section>")
