"""Outgoing and incoming claims through the whole pipeline, offline.

Three generated PDFs (the paper, a work it cites, a work citing it) and generated registry
answers are served from a replay folder; a scripted judge quotes the passages it is shown.
Everything here is generated for the test, nothing is recorded.
"""
import base64

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

import citecheck
from citecheck.config import Settings
from citecheck.errors import ReplayMissError
from citecheck.judge import ScriptedJudge, Verdict
from replaykit import empty_openalex_list, write_entry

PAPER, CITED, CITING = "10.5555/paper.1", "10.5555/cited.2", "10.5555/citing.3"
TITLE = "Set-aside fields and the decline of cereal aphids"


def pdf(path, lines):
    canvas = Canvas(str(path), pagesize=A4)
    y = 800
    for line in lines:
        canvas.setFont("Helvetica", 10)
        canvas.drawString(60, y, line)
        y -= 14
    canvas.showPage()
    canvas.save()
    return path.read_bytes()


def put_pdf(folder, host_path, body):
    write_entry(folder, f"GET pdf:{host_path}", headers={"content-type": "application/pdf"},
                body=None, note="generated")
    import json
    for entry_file in (folder / "pdf").glob("*.json"):
        entry = json.loads(entry_file.read_text())
        if entry["request"]["key"] == f"GET pdf:{host_path}":
            entry["response"].pop("json", None)
            entry["response"]["base64"] = base64.b64encode(body).decode()
            entry_file.write_text(json.dumps(entry))


def build(folder, tmp_path):
    paper = pdf(tmp_path / "paper.pdf", [
        TITLE, "", "Introduction",
        "Aphid numbers fell by 40% in set-aside fields compared with conventional fields [1].",
        "Natural enemies were more abundant near field margins [1].", "",
        "References",
        "[1] Cited A, Other B. Aphid decline under set-aside management. J Test Ecol. 2020;1:1-9.",
        "doi:10.5555/cited.2",
        "[2] Else C. Field margins and predators. J Test Ecol. 2019;3:10-19.",
        "[3] Third D. Cereal pests in Europe. Crop Prot. 2018;5:20-29."])
    cited = pdf(tmp_path / "cited.pdf", [
        "Aphid decline under set-aside management", "", "Results",
        "Aphid numbers were 40% lower in set-aside fields than in conventional fields.",
        "Ladybirds were counted twice a week during the season."])
    citing = pdf(tmp_path / "citing.pdf", [
        "A later study", "", "Introduction",
        "Set-aside management reduces aphid numbers in cereals [1].", "",
        "References",
        f"[1] Paper P. {TITLE}. J Test. 2023;2:1-9. doi:10.5555/paper.1",
        "[2] Else C. Field margins and predators. J Test Ecol. 2019;3:10-19.",
        "[3] Third D. Cereal pests in Europe. Crop Prot. 2018;5:20-29."])
    write_entry(folder, f"GET crossref:/works/{PAPER}", note="generated", body={"message": {
        "DOI": PAPER, "title": [TITLE], "author": [{"given": "Pat", "family": "Paper"}],
        "issued": {"date-parts": [[2023]]}, "type": "journal-article",
        "reference": [{"key": "r1", "DOI": CITED, "unstructured": "Cited A. Aphid decline. 2020."}]}})
    write_entry(folder, f"GET openalex:/works/https://doi.org/{PAPER}", note="generated", body={
        "id": "https://openalex.org/W1", "doi": f"https://doi.org/{PAPER}", "title": TITLE,
        "publication_year": 2023, "cited_by_count": 1, "referenced_works": ["https://openalex.org/W2"],
        "authorships": [{"author": {"id": "https://openalex.org/A1", "display_name": "Pat Paper"}}],
        "best_oa_location": {"pdf_url": "https://example.org/paper.pdf"}})
    put_pdf(folder, "example.org/paper.pdf", paper)
    put_pdf(folder, "example.org/cited.pdf", cited)
    put_pdf(folder, "example.org/citing.pdf", citing)
    cited_work = {"id": "https://openalex.org/W2", "doi": f"https://doi.org/{CITED}",
                  "title": "Aphid decline under set-aside management", "publication_year": 2020,
                  "authorships": [{"author": {"id": "https://openalex.org/A2", "display_name": "A Cited"}}],
                  "best_oa_location": {"pdf_url": "https://example.org/cited.pdf"}}
    citing_work = {"id": "https://openalex.org/W3", "doi": f"https://doi.org/{CITING}",
                   "title": "A later study", "publication_year": 2024, "cited_by_count": 0,
                   "authorships": [{"author": {"id": "https://openalex.org/A3", "display_name": "Z Later"}}],
                   "best_oa_location": {"pdf_url": "https://example.org/citing.pdf"}}
    return cited_work, citing_work


def quoting_judge():
    def answer(request):
        passage = request.passages[0]
        return Verdict(verdict="supported", rationale="The passage states it.",
                       evidence=[{"passage_id": passage.id, "quote": passage.text[:60]}])
    return ScriptedJudge(default=answer)


def test_outgoing_and_incoming_claims(tmp_path):
    folder = tmp_path / "replay"
    folder.mkdir()
    cited_work, citing_work = build(folder, tmp_path)
    settings = Settings(home=tmp_path / "home")
    for _ in range(20):
        try:
            report = citecheck.check(PAPER, replay=folder, settings=settings, judge=quoting_judge())
            break
        except ReplayMissError as error:
            key = str(error).split(": ", 1)[1]
            if "openalex_id:W2" in key:
                body = {"meta": {"count": 1}, "results": [cited_work]}
            elif "cites:W1" in key:
                body = {"meta": {"count": 1, "next_cursor": None}, "results": [citing_work]}
            elif key.startswith("GET crossref"):
                body = {"status": "ok", "message": {"items": []}}
            else:
                body = empty_openalex_list()
            write_entry(folder, key, body=body, note="generated")
    stages = {s.name: s.status for s in report.stages}
    assert stages["fulltext"] == "ok" and stages["cited_texts"] == "ok"
    assert report.references.counts.printed == 3
    assert report.references.items[0].status == "linked"
    assert report.references.items[0].doi == CITED
    outgoing = report.claims.outgoing
    assert len(outgoing) == 2
    assert all(c.verdict == "supported" and c.evidence for c in outgoing)
    assert all(c.evidence[0].artifact_sha256 == report.artifacts[1].sha256 for c in outgoing)
    assert all(c.cited_doi == CITED for c in outgoing)
    incoming = report.claims.incoming
    assert len(incoming) == 1 and incoming[0].citing_doi == CITING
    assert incoming[0].verdict == "supported"
    assert incoming[0].evidence[0].artifact_sha256 == report.artifacts[0].sha256
    assert {c.id for c in outgoing + incoming} == {"claim-001", "claim-002", "claim-003"}
    assert len(report.artifacts) == 3


def test_without_a_model_claims_are_listed_with_candidates(tmp_path):
    folder = tmp_path / "replay"
    folder.mkdir()
    cited_work, citing_work = build(folder, tmp_path)
    settings = Settings(home=tmp_path / "home")
    for _ in range(20):
        try:
            report = citecheck.check(PAPER, replay=folder, settings=settings)
            break
        except ReplayMissError as error:
            key = str(error).split(": ", 1)[1]
            body = ({"meta": {"count": 1}, "results": [cited_work]} if "openalex_id:W2" in key else
                    {"meta": {"count": 1, "next_cursor": None}, "results": [citing_work]} if "cites:W1" in key else
                    {"status": "ok", "message": {"items": []}} if key.startswith("GET crossref") else
                    empty_openalex_list())
            write_entry(folder, key, body=body, note="generated")
    assert report.claims.outgoing
    assert all(c.verdict == "not_checkable" and c.reason == "no_model" for c in report.claims.outgoing)
    assert all(c.candidates for c in report.claims.outgoing)
