"""The lines a person reads first, in plain words, computed from the report's sections."""
from __future__ import annotations

from .report import Report


REASONS = {
    "no_model": "no model is configured (set ANTHROPIC_API_KEY)",
    "crossref_dns_error": "Crossref could not be reached (no network?)",
    "openalex_dns_error": "OpenAlex could not be reached (no network?)",
    "no_full_text": "the paper's full text was not read",
    "no_open_access_copy": "no open-access copy of the paper was found",
    "pdf_not_recorded": "the recording holds no PDF of the paper",
    "not_pdf": "the open-access link did not give a PDF",
    "blocked_destination": "the PDF link pointed at a refused address",
    "no_open_cited_full_text": "no open full text of a cited work was at hand",
    "incoming": "claims of citing papers",
    "no_open_citing_full_text": "no citing paper has an open full text",
    "citing_pdfs_unavailable": "the citing papers' PDFs could not be read",
}


def plain_reason(reason: str | None) -> str:
    """A machine reason (``a:b;c``) in words, for people."""
    if not reason:
        return ""
    words = []
    for part in reason.replace(":", ";").split(";"):
        part = part.strip()
        if part and part != "needs_full_text":
            words.append(REASONS.get(part, part.replace("_", " ")))
    return "; ".join(dict.fromkeys(words))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def summarize(report: Report) -> list[str]:
    lines = []
    reg = report.registry
    refs = report.references
    counts = refs.counts
    if reg.status == "matched":
        head = "The DOI matches its Crossref record"
    elif reg.status == "mismatch":
        fields = ", ".join(d.field for d in reg.differences)
        head = f"Crossref and OpenAlex disagree on this DOI's {fields}"
    elif reg.status == "not_found":
        agency = f" (registered with {reg.agency})" if reg.agency and reg.agency != "crossref" else ""
        head = f"The DOI has no Crossref record{agency}"
    else:
        head = "The registries were not checked" + (f" ({plain_reason(reg.reason)})" if reg.reason else "")
    if counts.printed:
        found = counts.linked + counts.found + counts.found_with_differences
        head += (f"; {found} of the {counts.printed} references it cites were found in a "
                 "registry or an index")
        head += (f" ({counts.unchecked} could not be checked)." if counts.unchecked else ".")
    elif counts.registry:
        head += f"; the registries list {_plural(counts.registry, 'reference')} it cites."
    else:
        head += "."
    lines.append(head)
    for notice in reg.notices:
        if notice.direction == "about_this_work":
            label = notice.type.replace("_", " ")
            detail = f" ({notice.notice_doi})" if notice.notice_doi else ""
            lines.append(f"A {label} notice is registered for this work{detail}, source: {notice.source}.")
    if counts.found_with_differences:
        lines.append(f"{_plural(counts.found_with_differences, 'printed reference')} differ from "
                     "the registry record they point to.")
    if counts.not_found:
        lines.append(f"{_plural(counts.not_found, 'printed reference')} could not be found in any "
                     "registry or index.")
    if counts.retracted:
        lines.append(f"It cites {_plural(counts.retracted, 'retracted work')}.")
    if counts.self_citations:
        lines.append(f"{_plural(counts.self_citations, 'reference')} share an author with this paper.")
    cited = report.cited_by
    if cited.status != "skipped":
        lines.append(f"Cited by {_plural(cited.count, 'work')} in OpenAlex"
                     + (f" ({cited.listed} listed)." if cited.listed < cited.count else "."))
    verdicts = [c.verdict for c in report.claims.outgoing + report.claims.incoming]
    if verdicts:
        checked = [v for v in verdicts if v != "not_checkable"]
        lines.append(f"{_plural(len(verdicts), 'citing sentence')} found; {len(checked)} judged "
                     "against the cited text.")
    elif report.claims.reason:
        lines.append(f"Claims were not checked: {plain_reason(report.claims.reason)}.")
    stats = report.statistics
    if stats.items:
        bad = [i for i in stats.items if i.consistent is False]
        lines.append(f"Self-check: {len(stats.items)} reported numbers recomputed, "
                     f"{len(bad)} inconsistent.")
    elif stats.status in ("skipped", "no_full_text"):
        lines.append("The statistics self-check needs the paper's full text.")
    return lines
