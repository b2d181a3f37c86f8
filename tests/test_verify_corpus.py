"""verify re-finds quotes cut from citecheck's own extraction of a real corpus PDF."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from citecheck.report import Artifact, Claim, Claims, Evidence, Report
from citecheck.verify import verify_report

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
PDF = CORPUS / "B-pdfs-with-gold-references/crminer-oa-articles/pdfs/10.7717_peerj.8746.pdf"


@pytest.mark.skipif(not PDF.exists(), reason="corpus PDF not available")
def test_quotes_from_the_extraction_are_refound(tmp_path):
    text = pytest.importorskip("citecheck.text")
    data = PDF.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    (tmp_path / f"{sha}.pdf").symlink_to(PDF)  # named by hash, not copied
    extraction = text.extract_pdf(PDF)
    evidence = [Evidence(quote=s, page=page.number, artifact_sha256=sha)
                for page in extraction.pages if 2 <= page.number <= 4
                for s in text.split_sentences(page.text) if len(s) >= 30]
    assert len(evidence) > 30
    report = Report(artifacts=[Artifact(kind="pdf", sha256=sha, bytes=len(data),
                                        pages=extraction.artifact.pages)],
                    claims=Claims(outgoing=[Claim(id="claim-001", quote="q", evidence=evidence)]))
    path = tmp_path / "report.json"
    path.write_text(report.model_dump_json(), encoding="utf-8")
    result = verify_report(path, tmp_path)
    quotes = [c for c in result.checks if c.name.startswith("evidence[")]
    refound = sum(c.passed for c in quotes) / len(quotes)
    assert refound >= 0.95, [c.message for c in quotes if not c.passed][:5]
    assert all(c.passed for c in result.checks if not c.name.startswith("evidence["))
    # The same quotes do not verify on the wrong page.
    for item in evidence:
        item.page = 1
    path.write_text(report.model_dump_json(), encoding="utf-8")
    moved = verify_report(path, tmp_path)
    wrong = [c for c in moved.checks if c.name.startswith("evidence[")]
    assert sum(c.passed for c in wrong) / len(wrong) < 0.1
