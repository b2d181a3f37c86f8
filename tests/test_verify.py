"""verify_report against a real PDF artifact made with reportlab."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from citecheck.errors import BadInputError
from citecheck.verify import (fallback_normalize, format_verify_result, quote_match,
                              verify_report)
from fixtures_reports import verifiable_report


def write(report, folder: Path) -> Path:
    path = folder / "report.json"
    path.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return path


@pytest.fixture
def consistent(tmp_path):
    artifacts = tmp_path / "artifacts"
    report = verifiable_report(artifacts)
    return report, artifacts, tmp_path


def failed(result) -> dict[str, str]:
    return {c.name: c.reason for c in result.checks if not c.passed}


def test_consistent_report_passes(consistent):
    report, artifacts, folder = consistent
    result = verify_report(write(report, folder), artifacts)
    assert result.ok, format_verify_result(result)
    names = [c.name for c in result.checks]
    sha = report.artifacts[0].sha256
    assert f"artifact[{sha}]" in names and f"artifact_pages[{sha}]" in names
    assert "evidence[claim-001#1]" in names and "evidence[claim-002#1]" in names
    assert "count[references.printed]" in names and "order[cited_by.items]" in names
    text = format_verify_result(result)
    assert text.endswith(f"{len(result.checks)} passed, 0 failed\n")
    assert json.loads(result.model_dump_json())["ok"] is True


def test_tampered_file_fails_hash_and_its_quotes(consistent):
    report, artifacts, folder = consistent
    (pdf,) = artifacts.iterdir()
    data = bytearray(pdf.read_bytes())
    data[len(data) // 2] ^= 0x01  # one flipped bit, same size
    pdf.write_bytes(bytes(data))
    result = verify_report(write(report, folder), artifacts)
    sha = report.artifacts[0].sha256
    assert failed(result) == {f"artifact[{sha}]": "hash_mismatch",
                              "evidence[claim-001#1]": "artifact_unverified",
                              "evidence[claim-002#1]": "artifact_unverified"}


def test_wrong_hash_in_report_fails(consistent):
    report, artifacts, folder = consistent
    report.artifacts[0].sha256 = "1" * 64
    result = verify_report(write(report, folder), artifacts)
    assert failed(result)[f"artifact[{'1' * 64}]"] == "missing_file"
    assert not result.ok


def test_missing_quote_fails(consistent):
    report, artifacts, folder = consistent
    report.claims.outgoing[0].evidence[0].quote = "Vaccination reduced admissions by 24 percent"
    result = verify_report(write(report, folder), artifacts)
    assert failed(result) == {"evidence[claim-001#1]": "quote_not_found"}


def test_quote_on_the_wrong_page_fails(consistent):
    report, artifacts, folder = consistent
    report.claims.outgoing[0].evidence[0].page = 2
    report.claims.outgoing[1].evidence[0].page = 9
    result = verify_report(write(report, folder), artifacts)
    assert failed(result) == {"evidence[claim-001#1]": "quote_not_found",
                              "evidence[claim-002#1]": "page_out_of_range"}


def test_wrong_counts_fail(consistent):
    report, artifacts, folder = consistent
    report.references.counts.found += 1
    report.references.counts.self_citations = 0
    report.cited_by.listed = 7
    report.cited_by.items.reverse()
    result = verify_report(write(report, folder), artifacts)
    assert failed(result) == {"count[references.found]": "count_mismatch",
                              "count[references.printed]": "count_mismatch",
                              "count[references.self_citations]": "count_mismatch",
                              "count[cited_by.listed]": "count_mismatch",
                              "order[cited_by.items]": "not_sorted"}


def test_evidence_without_artifact_fails(consistent):
    report, artifacts, folder = consistent
    report.claims.outgoing[0].evidence[0].artifact_sha256 = None
    result = verify_report(write(report, folder), artifacts)
    assert failed(result) == {"evidence[claim-001#1]": "no_artifact"}


def test_bad_inputs_raise(tmp_path):
    with pytest.raises(BadInputError):
        verify_report(tmp_path / "absent.json", tmp_path)
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(BadInputError):
        verify_report(tmp_path / "bad.json", tmp_path)
    (tmp_path / "ok.json").write_text("{}", encoding="utf-8")
    with pytest.raises(BadInputError):
        verify_report(tmp_path / "ok.json", tmp_path / "no-such-folder")


@pytest.mark.parametrize("quote, text, how", [
    ("signi\ufb01cant  effect", "a significant\neffect here", "verbatim after normalisation"),
    ("the self-report scale was used", "the self-\nreport scale was used",
     "verbatim ignoring spaces and hyphens"),
    ("not in the text at all", "something else", None),
    ("", "anything", None),
])
def test_quote_match(quote, text, how):
    from citecheck.verify import quote_normalizer

    assert quote_match(quote, text, quote_normalizer()) == how


def test_fallback_normaliser():
    assert fallback_normalize(" a\ufb01\n\tb ") == "afi b"
