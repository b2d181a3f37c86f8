"""The pipeline on real recorded Crossref and OpenAlex responses (10.1073/pnas.1414271111).

Its Crossref record (69 references, a correction notice) and OpenAlex work (73 referenced
works, 138 citations) are recorded in ../shared/corpus; the batch look-ups of referenced
works and the citing-works page were not recorded, so the test serves empty pages for them
(marked as generated) and asserts only what the recorded bodies decide.
"""
import json

import jsonschema
import pytest

import citecheck
from citecheck.config import Settings
from citecheck.errors import ReplayMissError
from citecheck.http import HttpClient
from citecheck.report import report_json_schema
from replaykit import corpus_path, empty_openalex_list, write_entry

DOI = "10.1073/pnas.1414271111"
BODIES = "A-registry-responses/paper-qa/bodies"


@pytest.fixture()
def pnas_replay(tmp_path):
    folder = tmp_path / "replay"
    folder.mkdir()
    write_entry(folder, f"GET crossref:/works/{DOI}",
                file=corpus_path(f"{BODIES}/crossref/works~10.1073~pnas.1414271111.json"))
    write_entry(folder, f"GET openalex:/works/https://doi.org/{DOI}",
                file=corpus_path(f"{BODIES}/openalex/works~https-~~doi.org~10.1073~pnas.1414271111.json"))
    settings = Settings(home=tmp_path / "home")
    for _ in range(10):  # add a generated empty page for each unrecorded batch request
        try:
            citecheck.check(DOI, replay=folder, settings=settings)
            break
        except ReplayMissError as error:
            write_entry(folder, str(error).split(": ", 1)[1], body=empty_openalex_list(),
                        note="generated: not recorded in the corpus")
    return folder, settings


def test_registry_half_from_recorded_responses(pnas_replay):
    folder, settings = pnas_replay
    client = HttpClient(settings, replay_dir=folder)
    report = citecheck.check(DOI, replay=folder, settings=settings, http=client)
    jsonschema.Draft202012Validator(report_json_schema()).validate(json.loads(report.model_dump_json()))
    assert client.stats.counts["network"] == 0
    assert report.registry.status == "matched"
    assert report.registry.crossref and report.registry.openalex
    assert report.work.title.startswith("Developing functional musculoskeletal tissues")
    assert [n.type for n in report.registry.notices] == ["correction"]
    assert report.registry.notices[0].notice_doi == "10.1073/pnas.1507001112"
    assert report.registry.retracted is False
    assert report.references.counts.registry == 69
    assert len(report.references.items) == 69
    assert report.cited_by.count == 138
    assert report.cited_by.counts_by_year and report.cited_by.counts_by_year[-1].year >= 2024
    assert report.summary[0].startswith("The DOI matches its Crossref record")
    assert any("correction" in line for line in report.summary)
    names = [s.name for s in report.stages]
    assert names[:4] == ["resolve", "registry", "registry_references", "cited_by"]


def test_openalex_batches_respect_the_or_limit(pnas_replay):
    folder, _ = pnas_replay
    keys = [json.loads(p.read_text())["request"]["key"] for p in folder.rglob("*.json")]
    for key in keys:
        if "filter=" in key and "|" in key:
            values = key.split("filter=", 1)[1].split("&", 1)[0].split(":", 1)[1].split("|")
            assert len(values) <= 100


def test_unrecorded_request_fails_naming_it(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ReplayMissError, match="GET crossref:/works/10.1234/abc"):
        citecheck.check("10.1234/abc", replay=empty, settings=Settings(home=tmp_path))
