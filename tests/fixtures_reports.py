"""Builders of Report objects for the HTML, widget and verify tests.

``rich_report`` exercises every section of the report with consistent counts.
``hostile_report`` puts script payloads where third-party text goes; the strings are set after
validation, so they reach the renderers unchanged (as they would from a report.json written by
another tool), and the renderers' own escaping is what is under test.
``write_cited_pdf`` makes the PDF whose text the rich report's evidence quotes come from.
"""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

from citecheck.report import (
    Artifact, Author, CitedBy, CitingWork, Claim, Claims, Difference, Evidence, Ids, Notice,
    OpenAccess, RefCounts, RefItem, References, Registry, Report, Stage, Statistics, StatItem,
    Work, YearCount,
)

TITLE = "Genome-scale language models reveal viral evolutionary dynamics"
CITED_PAGES: list[list[str]] = [
    [
        "Results from the cohort study",
        "Vaccination reduced hospital admissions by 42 percent among adults",
        "over 65 years of age in the first winter after the campaign.",
    ],
    [
        "Discussion",
        "The effect was statistically significant in every region we examined,",
        "but we did not measure transmission in children.",
    ],
]
# Quotes as a model would return them: a ligature and joined lines, found verbatim after
# normalisation on the page named in the evidence.
QUOTE_PAGE_1 = ("Vaccination reduced hospital admissions by 42 percent among adults over 65 "
                "years of age")
QUOTE_PAGE_2 = "The effect was statistically signi\ufb01cant in every region we examined"
PAYLOAD_TITLE = "<img src=x onerror=\"document.title='pwned';window.__pwned=1\">"
PAYLOAD_DOI = "10.1000/x</script><script>document.title='pwned';window.__pwned=1</script>"
PLACEHOLDER_SHA = "0" * 64


def write_cited_pdf(path: Path | None = None) -> bytes:
    """A two-page PDF of ``CITED_PAGES`` (deterministic bytes); written to ``path`` if given."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4, invariant=1)
    for lines in CITED_PAGES:
        y = 780
        for line in lines:
            pdf.drawString(60, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    data = buffer.getvalue()
    if path is not None:
        path.write_bytes(data)
    return data


def _references() -> References:
    items = [
        RefItem(id="ref-001", printed="Devlin J, et al. BERT. 2019.", status="linked",
                doi="10.18653/v1/n19-1423", title="BERT: Pre-training of Deep Bidirectional "
                "Transformers", authors=["Devlin, J.", "Chang, M.-W."], year=2019,
                venue="NAACL", score=0.98, cited_by_count=73173, sources=["crossref"]),
        RefItem(id="ref-002", printed="Jumper J, et al. Nature 2021;596:583.", status="linked",
                doi="10.1038/s41586-021-03819-2", title="Highly accurate protein structure "
                "prediction with AlphaFold", authors=["Jumper, J."], year=2021, venue="Nature",
                score=0.97, cited_by_count=43764, self_citation=True),
        RefItem(id="ref-003", printed="Wakefield AJ. Lancet 1998;351:637.", status="found",
                doi="10.1016/s0140-6736(97)11096-0", title="Ileal-lymphoid-nodular hyperplasia",
                authors=["Wakefield, A. J."], year=1998, venue="The Lancet", score=0.91,
                retracted=True, cited_by_count=3000),
        RefItem(id="ref-004", printed="Kaplan J. Scaling laws. 2021.",
                status="found_with_differences", doi="10.48550/arxiv.2001.08361",
                title="Scaling Laws for Neural Language Models", year=2020, score=0.84,
                differences=[{"field": "year", "printed": "2021", "registry": "2020"}]),
        RefItem(id="ref-005", printed="Bradley T. GPU Performance Analysis. 2012.",
                status="not_found", reason="no_candidate"),
        RefItem(id="ref-006", printed="Top500. June 2022 list.", status="unchecked",
                reason="not_a_research_work"),
        RefItem(id="ref-007", status="registry_only", reason="not_printed",
                doi="10.1101/2022.08.08.22278553", title="A registry-only reference"),
    ]
    counts = RefCounts(printed=6, registry=5, linked=2, found=1, found_with_differences=1,
                       not_found=1, unchecked=1, registry_only=1, retracted=1, self_citations=1)
    return References(status="ok", counts=counts, items=items)


def _cited_by() -> CitedBy:
    items = [
        CitingWork(doi="10.1038/s41586-023-05881-4", title="Foundation models for generalist "
                   "medical artificial intelligence", authors=["Moor, M."], year=2023,
                   venue="Nature", cited_by_count=2028),
        CitingWork(doi="10.1126/science.ado9336", title="Sequence modeling and design from "
                   "molecular to genome scale with Evo", authors=["Nguyen, E."], year=2024,
                   venue="Science", cited_by_count=580, self_citation=True),
        CitingWork(doi="10.1021/acscentsci.3c01275", title="Machine learning-assisted enzyme "
                   "engineering", year=2024, cited_by_count=268),
    ]
    return CitedBy(status="ok", count=120, listed=3, self_citations=1, items=items,
                   counts_by_year=[YearCount(year=2024, cited_by_count=35),
                                   YearCount(year=2023, cited_by_count=14)])


def _claims(sha: str) -> Claims:
    common = {"model": "claude-sonnet-4-5", "prompt": "support_check@1",
              "prompt_sha256": "f" * 64}
    outgoing = [
        Claim(id="claim-001", quote="Vaccination cut admissions by 42% in older adults [3].",
              page=2, cited_ref_ids=["ref-003"], cited_doi="10.1016/s0140-6736(97)11096-0",
              verdict="supported", rationale="The source reports the same reduction.",
              evidence=[Evidence(quote=QUOTE_PAGE_1, page=1, artifact_sha256=sha)], **common),
        Claim(id="claim-002", quote="The effect held in all regions and age groups [3].",
              page=3, cited_ref_ids=["ref-003"], verdict="partially_supported",
              dimension="population", rationale="Regions yes; children were not measured.",
              evidence=[Evidence(quote=QUOTE_PAGE_2, page=2, artifact_sha256=sha)], **common),
        Claim(id="claim-003", quote="GPU profiling is routine [5].", page=4,
              cited_ref_ids=["ref-005"], verdict="not_checkable", reason="no_open_full_text"),
    ]
    incoming = [
        Claim(id="claim-004", quote="GenSLM outperformed earlier nucleotide models (15).",
              citing_doi="10.1126/science.ado9336", cited_doi="10.1000/genslm",
              verdict="contradicted", rationale="The paper reports the opposite ranking.",
              **common),
    ]
    return Claims(status="ok", outgoing=outgoing, incoming=incoming)


def _statistics() -> Statistics:
    items = [
        StatItem(id="stat-001", kind="test_statistic", text="t(28) = 2.20, p < .05", page=5,
                 reported="p < .05", recomputed=0.036, consistent=True, decision_error=False),
        StatItem(id="stat-002", kind="percentage", text="17 of 40 (52%)", page=6,
                 reported=52, recomputed=42.5, consistent=False, decision_error=None),
    ]
    return Statistics(status="ok", items=items)


def rich_report(*, artifact_sha256: str = PLACEHOLDER_SHA, artifact_bytes: int = 1234,
                artifact_pages: int = 2) -> Report:
    """A report with every section filled and counts that add up."""
    work = Work(
        title=TITLE,
        authors=[Author(name="Zvyagin, M.", orcid="https://orcid.org/0000-0002-1825-0097",
                        affiliations=["Argonne National Laboratory"]),
                 Author(name="Brace, A.", affiliations=["University of Chicago"])],
        venue="The International Journal of High Performance Computing Applications",
        publisher="SAGE Publications", published="2023-10-27", volume="37", issue="6",
        pages="683-705", issn=["1094-3420"], type="journal-article", language="en",
        abstract="We build genome-scale language models of SARS-CoV-2.",
        open_access=OpenAccess(status="green", license="cc-by-nc-nd",
                               locations=["https://www.biorxiv.org/content/10.1101/2022.10.10"]),
        ids=Ids(doi="10.1000/genslm", openalex="W4387994442", pmcid="PMC9709791"),
        cited_by_count=120, references_count=57,
        counts_by_year=[YearCount(year=2024, cited_by_count=35)],
        funders=["Exascale Computing Project"], topics=["Genomics"], keywords=["SARS-CoV-2"],
    )
    registry = Registry(
        status="matched", agency="crossref", crossref=True, openalex=True,
        differences=[Difference(field="published", crossref="2023-10-27", openalex="2023-10-26")],
        notices=[Notice(type="correction", source="publisher", notice_doi="10.1000/genslm.corr",
                        date="2024-01-05")],
    )
    artifact = Artifact(kind="pdf", url="https://example.org/cited.pdf", sha256=artifact_sha256,
                        bytes=artifact_bytes, pages=artifact_pages,
                        retrieved_at="2025-01-01T00:00:00Z", hidden_text_chars=0)
    return Report(
        input={"doi": "10.1000/genslm"}, work=work, registry=registry,
        references=_references(), cited_by=_cited_by(), claims=_claims(artifact_sha256),
        statistics=_statistics(), artifacts=[artifact],
        stages=[Stage(name="resolve", status="ok", seconds=0.4),
                Stage(name="claims", status="partial", reason="no_open_full_text", seconds=3.1)],
        summary=["The DOI matches its Crossref record; 4 of the 6 references it cites were "
                 "found in a registry or an index.", "1 cited work has been retracted."],
    )


def verifiable_report(artifacts_dir: Path) -> Report:
    """``rich_report`` whose artifact is a real PDF saved as ``<sha256>.pdf`` in the folder."""
    data = write_cited_pdf()
    sha = hashlib.sha256(data).hexdigest()
    artifacts_dir.mkdir(parents=True, exist_ok=True)
    (artifacts_dir / f"{sha}.pdf").write_bytes(data)
    return rich_report(artifact_sha256=sha, artifact_bytes=len(data))


def hostile_report() -> Report:
    """A rich report with script payloads in every kind of third-party string."""
    report = rich_report()
    report.input.doi = PAYLOAD_DOI
    report.work.title = PAYLOAD_TITLE
    report.work.venue = "<!-- <script>document.title='pwned'</script>"
    report.work.ids.doi = PAYLOAD_DOI
    report.work.authors[0].name = "<script>window.__pwned=1</script>"
    report.work.open_access.locations = ["javascript:document.title='pwned'"]
    report.work.authors[0].orcid = "javascript:window.__pwned=1"
    report.summary = [PAYLOAD_TITLE]
    first = report.references.items[0]
    first.title, first.doi, first.printed = PAYLOAD_TITLE, PAYLOAD_DOI, "</textarea>" + PAYLOAD_TITLE
    report.cited_by.items[0].title = PAYLOAD_TITLE
    report.cited_by.items[0].doi = PAYLOAD_DOI
    claim = report.claims.outgoing[0]
    claim.quote = PAYLOAD_TITLE
    claim.rationale = "\u2028" + PAYLOAD_TITLE + "\u2029"
    claim.evidence[0].quote = "<svg onload=\"window.__pwned=1\">"
    report.statistics.items[0].text = PAYLOAD_TITLE
    report.artifacts[0].url = "javascript:window.__pwned=1"
    return report
