"""Batch: streamed input, invalid lines recorded, duplicates collapsed, resume after kill -9."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from citecheck.batch import BatchRunner
from citecheck.journal import repair_journal
from citecheck.config import Settings
from citecheck.context import Options
from replaykit import write_entry


def synthetic_replay(folder: Path, n: int) -> list[str]:
    """Generated (not recorded) minimal Crossref/OpenAlex answers for n DOIs."""
    dois = []
    for i in range(n):
        doi = f"10.5555/batch.{i}"
        dois.append(doi)
        note = "generated for the batch test"
        write_entry(folder, f"GET crossref:/works/{doi}", note=note, body={
            "status": "ok", "message": {"DOI": doi, "title": [f"Paper {i}"], "type": "journal-article",
                                        "author": [{"given": "Ada", "family": f"Author{i}"}],
                                        "issued": {"date-parts": [[2020]]}}})
        write_entry(folder, f"GET openalex:/works/https://doi.org/{doi}", note=note, body={
            "id": f"https://openalex.org/W{1000 + i}", "doi": f"https://doi.org/{doi}",
            "title": f"Paper {i}", "publication_year": 2020, "cited_by_count": 0,
            "authorships": [{"author": {"display_name": f"Ada Author{i}"}}], "referenced_works": []})
    return dois


def run_batch(out: Path, replay: Path, lines: list[str]):
    runner = BatchRunner(out, settings=Settings(home=out / "home"), options=Options(), jobs=2,
                         replay=replay)
    return runner.run(lines)


def journal(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_batch_records_every_line_once(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 3)
    lines = [dois[0], "", "# a comment", "garbage line", dois[1], dois[0].upper(),
             f"https://doi.org/{dois[2]}", "10.9999/unrecorded"]
    result = run_batch(tmp_path / "out", replay, lines)
    entries = journal(tmp_path / "out")
    assert result.total == 5 and result.done == 3 and result.invalid == 1 and result.failed == 1
    assert sorted(e["status"] for e in entries) == ["failed", "invalid", "ok", "ok", "ok"]
    assert len({e["key"] for e in entries}) == len(entries)
    assert (tmp_path / "out" / "summary.csv").read_text().count("\n") == 6
    again = run_batch(tmp_path / "out", replay, lines)
    assert again.skipped == 5 and again.done == 0 and len(journal(tmp_path / "out")) == 5


def test_torn_last_line_is_repaired(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"key": "a", "status": "ok"}\n{"key": "b", "sta')
    repair_journal(path)
    assert path.read_bytes() == b'{"key": "a", "status": "ok"}\n'


def test_kill_9_then_resume_gives_the_uninterrupted_result(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 60)
    listing = tmp_path / "dois.txt"
    listing.write_text("\n".join(dois) + "\n")
    env = {**os.environ, "CITECHECK_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "citecheck", "-q", "batch", str(listing), "--out-dir",
               str(tmp_path / "killed"), "--replay", str(replay), "--jobs", "2"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal_path = tmp_path / "killed" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if journal_path.exists() and journal_path.read_text().count("\n") >= 5:
            break
        time.sleep(0.01)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait()
    before = journal_path.read_text().count("\n")
    assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    run_batch(tmp_path / "clean", replay, dois)
    killed, clean = journal(tmp_path / "killed"), journal(tmp_path / "clean")
    assert before < 60 or process.returncode == 0
    assert len(killed) == len({e["key"] for e in killed}) == 60
    assert {e["key"]: e["status"] for e in killed} == {e["key"]: e["status"] for e in clean}
    for entry in killed:
        report = json.loads((tmp_path / "killed" / entry["report"]).read_text())
        assert report["input"]["doi"] == entry["doi"]


def test_a_paper_degraded_by_a_service_problem_is_partial_and_retried_on_request(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 2)
    import json as _json
    for entry_file in (replay / "openalex").glob("*.json"):
        entry = _json.loads(entry_file.read_text())
        if dois[1] in entry["request"]["key"]:
            entry["response"] = {"status": 503, "headers": {"content-type": "text/html"},
                                 "text": "<html>busy</html>"}
            entry_file.write_text(_json.dumps(entry))
    out = tmp_path / "out"
    run_batch(out, replay, dois)
    entries = {e["key"]: e for e in journal(out)}
    assert entries[dois[0]]["status"] == "ok"
    assert entries[dois[1]]["status"] == "partial"
    assert "resolve:openalex_" in entries[dois[1]]["reason"]
    again = BatchRunner(out, settings=Settings(home=out / "home"), options=Options(), jobs=1,
                        replay=replay, retry_failed=True).run(dois)
    assert again.skipped == 1
