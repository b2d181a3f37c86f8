"""`check DOI` with its full text, on real recorded material: the Crossref record of
10.7717/peerj.8746 (41 deposited references and a text-mining PDF link, recorded by crminer)
and the article's PDF, both read from ../shared/corpus. OpenAlex was not recorded for it: the
test serves a 404 (generated) so the run shows how citecheck proceeds on Crossref alone."""
import json

import jsonschema

import citecheck
from citecheck.config import Settings
from citecheck.errors import ReplayMissError
from citecheck.report import report_json_schema
from replaykit import corpus_path, empty_openalex_list, write_entry

DOI = "10.7717/peerj.8746"


def test_printed_references_are_linked_to_the_deposited_list(tmp_path):
    folder = tmp_path / "replay"
    folder.mkdir()
    write_entry(folder, f"GET crossref:/works/{DOI}", file=corpus_path(
        "A-registry-responses/crminer/bodies/crossref/works~10.7717~peerj.8746.json"))
    write_entry(folder, f"GET openalex:/works/https://doi.org/{DOI}", status=404,
                body={"error": "Not found"}, note="generated: OpenAlex was not recorded")
    write_entry(folder, "GET pdf:peerj.com/articles/8746.pdf", file=corpus_path(
        "B-pdfs-with-gold-references/crminer-oa-articles/pdfs/10.7717_peerj.8746.pdf"),
        headers={"content-type": "application/pdf"})
    settings = Settings(home=tmp_path / "home")
    for _ in range(60):
        try:
            report = citecheck.check(DOI, replay=folder, settings=settings)
            break
        except ReplayMissError as error:
            key = str(error).split(": ", 1)[1]
            body = ({"status": "ok", "message": {"items": []}} if key.startswith("GET crossref")
                    else empty_openalex_list())
            write_entry(folder, key, body=body, note="generated: not recorded")
    jsonschema.Draft202012Validator(report_json_schema()).validate(json.loads(report.model_dump_json()))
    stages = {s.name: s for s in report.stages}
    assert stages["fulltext"].status == "ok"
    assert report.registry.crossref and not report.registry.openalex
    counts = report.references.counts
    assert counts.printed == 41 and counts.registry == 41
    assert counts.linked == 41 and counts.registry_only == 0
    assert report.summary[0] == ("The DOI matches its Crossref record; 41 of the 41 references it "
                                 "cites were found in a registry or an index.")
    linked = [i for i in report.references.items if i.status == "linked"]
    assert linked[0].doi == "10.1016/j.baae.2015.07.004"
    assert report.artifacts[0].url == "https://peerj.com/articles/8746.pdf"
    assert report.claims.outgoing and report.statistics.status == "ok"
