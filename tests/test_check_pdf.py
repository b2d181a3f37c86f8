"""``check --pdf`` on corpus PDFs: the full-text half of the report without network."""
import json

from typer.testing import CliRunner

import citecheck
from citecheck.cli import app
from citecheck.config import Settings
from replaykit import corpus_path

PEERJ = "B-pdfs-with-gold-references/crminer-oa-articles/pdfs/10.7717_peerj.8746.pdf"


def test_manuscript_pdf_gets_references_claims_and_statistics(tmp_path):
    pdf = corpus_path(PEERJ)
    empty = tmp_path / "replay"
    empty.mkdir()
    report = citecheck.check(pdf=str(pdf), replay=empty, settings=Settings(home=tmp_path))
    stages = {s.name: s for s in report.stages}
    assert stages["resolve"].status == "skipped" and stages["fulltext"].status == "ok"
    counts = report.references.counts
    assert counts.printed >= 35
    assert (counts.linked + counts.found + counts.found_with_differences + counts.not_found
            + counts.unchecked) == counts.printed
    assert all(i.reason for i in report.references.items if i.status == "unchecked")
    assert report.artifacts[0].sha256 and report.artifacts[0].pages >= 5
    assert report.claims.outgoing, "citing sentences are listed as claims"
    assert all(c.verdict == "not_checkable" and c.reason for c in report.claims.outgoing)
    assert report.statistics.status != "skipped"


def test_bad_pdf_inputs_exit_2_with_one_line(tmp_path):
    runner = CliRunner()
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    html = tmp_path / "page.pdf"
    html.write_text("<html>challenge</html>")
    for args in (["check", "--pdf", str(tmp_path / "missing.pdf")], ["check", "--pdf", str(empty)],
                 ["check", "--pdf", str(html)], ["extract", str(html)], ["check", "not-a-doi"],
                 ["check", "10.1000/x\u2010y"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.output


def test_schema_command_prints_the_schema():
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "Report"
