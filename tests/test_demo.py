"""The offline demo: ``citecheck check 10.1177/10943420231201154 --replay fixtures/genslms``.

The replay folder is reconstructed from public metadata (fixtures/genslms/README.md); these
tests pin what the report built from it must say. That it must say it offline, through the
real pipeline, is the point of the demo.
"""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

import citecheck
from citecheck.cli import app
from citecheck.config import Settings
from citecheck.http import HttpClient
from citecheck.report import report_json_schema

DOI = "10.1177/10943420231201154"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "genslms"
TITLE = "GenSLMs: Genome-scale language models reveal SARS-CoV-2 evolutionary dynamics"


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> Settings:
    return Settings(home=tmp_path_factory.mktemp("home"), mailto=None, openalex_api_key=None,
                    anthropic_api_key=None)


@pytest.fixture(scope="module")
def demo(settings):
    """The report and the HTTP client that served it (replay only)."""
    client = HttpClient(settings, replay_dir=FIXTURE)
    # replay= as well: it also routes the PDF fetcher to the folder (no PDF there: a miss).
    report = citecheck.check(DOI, replay=FIXTURE, settings=settings, http=client)
    return report, client


def item_with_doi(items, doi: str):
    return next(item for item in items if item.doi == doi)


def validate(document: dict) -> None:
    jsonschema.Draft202012Validator(report_json_schema()).validate(document)


def test_demo_cli_prints_a_schema_valid_report(tmp_path, monkeypatch):
    monkeypatch.setenv("CITECHECK_HOME", str(tmp_path))
    monkeypatch.delenv("CITECHECK_MAILTO", raising=False)
    result = CliRunner().invoke(app, ["check", DOI, "--replay", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    validate(document)
    assert document["work"]["title"] == TITLE
    assert document["registry"]["status"] == "matched"
    assert document["summary"][0].startswith("The DOI matches its Crossref record")


def test_demo_cli_text_format_names_the_paper(tmp_path, monkeypatch):
    monkeypatch.setenv("CITECHECK_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["check", DOI, "--replay", str(FIXTURE), "--format", "text"])
    assert result.exit_code == 0, result.output
    assert TITLE in result.stdout
    assert "The DOI matches its Crossref record" in result.stdout


def test_demo_api_makes_no_network_request(demo):
    report, client = demo
    validate(json.loads(report.model_dump_json()))
    assert client.stats.counts["network"] == 0
    assert client.stats.counts["cache"] == 0
    assert client.stats.counts["replay"] == 6  # 2 works, 2 + 1 batches, 1 citing page


def test_demo_work_metadata(demo):
    work = demo[0].work
    assert work.title == TITLE
    assert work.venue == "The International Journal of High Performance Computing Applications"
    assert (work.publisher, work.published) == ("SAGE Publications", "2023-10-27")
    assert (work.volume, work.issue, work.pages) == ("37", "6", "683-705")
    assert set(work.issn) == {"0890-2720", "1094-3420", "1741-2846"}
    assert work.ids.openalex == "W4387994442"
    assert len(work.authors) == 36
    assert work.authors[0].name == "M. Zvyagin"
    assert work.authors[-1].name == "Arvind Ramanathan"
    assert work.cited_by_count == 120
    assert work.open_access.status == "green"
    assert work.funders == ["Exascale Computing Project"]
    assert "SARS-CoV-2 and COVID-19 Research" in work.topics
    assert work.abstract.startswith("We seek to transform how new and emergent variants")
    assert "<" not in work.abstract  # JATS stripped


def test_demo_registry_matches(demo):
    registry = demo[0].registry
    assert registry.status == "matched"
    assert registry.crossref and registry.openalex and registry.agency == "crossref"
    assert registry.differences == [] and registry.notices == []
    assert registry.retracted is False


def test_demo_references_list_the_cited_works(demo):
    refs = demo[0].references
    counts = refs.counts
    assert counts.registry == len(refs.items) == 76
    assert counts.registry_only == counts.registry  # no PDF: nothing printed was linked
    assert counts.linked + counts.found + counts.found_with_differences + counts.not_found \
        + counts.unchecked == counts.printed == 0
    by_doi = {item.doi: item for item in refs.items if item.doi}
    alphafold = by_doi["10.1038/s41586-021-03819-2"]
    assert alphafold.title == "Highly accurate protein structure prediction with AlphaFold"
    assert (alphafold.year, alphafold.venue, alphafold.cited_by_count) == (2021, "Nature", 43764)
    assert alphafold.sources == ["crossref", "openalex"]
    assert alphafold.self_citation is False
    unlinked = by_doi["10.1101/2022.08.08.22278553"]  # printed with a DOI OpenAlex lacks
    assert unlinked.sources == ["crossref"] and unlinked.openalex_id is None
    assert sum(1 for item in refs.items if item.sources == ["crossref"]) == 14
    assert [item.title for item in refs.items if item.sources == ["openalex"]] == [
        "Advances in Neural Information Processing Systems 29"]
    assert counts.retracted == 0


def test_demo_self_citations_follow_shared_authors(demo):
    refs = demo[0].references
    flagged = {item.doi for item in refs.items if item.self_citation}
    assert refs.counts.self_citations == len(flagged) == 10
    assert {"10.1109/tpami.2021.3095381",  # ProtTrans: C. Dallago
            "10.1109/hipc.2018.00014",  # DeepHyper: V. Vishwanath
            "10.1109/ccgrid.2013.99",  # Swift/T: I. T. Foster
            "10.3389/fbinf.2022.1020189"} <= flagged  # Wallace et al.: J. J. Davis, R. L. Stevens
    assert "10.1162/tacl_a_00300" not in flagged  # SpanBERT shares no author
    # The CSBJ version lists no authors in the seed: unknown, not "no".
    assert item_with_doi(refs.items, "10.1016/j.csbj.2022.11.014").self_citation is None


def test_demo_cited_by_sorted_with_counts_by_year(demo):
    cited = demo[0].cited_by
    assert cited.count == 120 and cited.listed == len(cited.items) == 5
    assert cited.status == "partial" and cited.reason == "listed_first_5"
    counts = [item.cited_by_count for item in cited.items]
    assert counts == sorted(counts, reverse=True) and counts[0] == 2028
    assert cited.items[0].doi == "10.1038/s41586-023-05881-4"  # Moor et al., Nature 2023
    assert {(c.year, c.cited_by_count) for c in cited.counts_by_year} == {
        (2023, 14), (2024, 35), (2025, 40), (2026, 30)}
    assert [item.self_citation for item in cited.items].count(True) == cited.self_citations == 1


def test_demo_summary_reads_like_the_headline(demo):
    summary = demo[0].summary
    assert summary[0] == ("The DOI matches its Crossref record; the registries list 76 "
                          "references it cites.")
    assert "10 references share an author with this paper." in summary
    assert "Cited by 120 works in OpenAlex (5 listed)." in summary


def test_demo_stages_say_what_did_not_run(demo):
    stages = {stage.name: stage for stage in demo[0].stages}
    for name in ("resolve", "registry", "registry_references", "cited_by"):
        assert stages[name].status == "ok", name
    assert stages["fulltext"].status == "skipped"
    assert stages["fulltext"].reason == "pdf_not_recorded"


def test_every_fixture_entry_is_labelled_reconstructed():
    entries = sorted(FIXTURE.rglob("*.json"))
    assert len(entries) == 6
    for path in entries:
        entry = json.loads(path.read_text(encoding="utf-8"))
        assert "reconstructed from public metadata" in entry["note"], path.name
        assert "not recorded" in entry["note"]
    readme = (FIXTURE / "README.md").read_text(encoding="utf-8")
    assert "reconstructed from public metadata, not recorded" in readme
