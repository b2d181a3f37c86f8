"""Batch: failed papers recorded once, --retry-failed, papers that keep killing the run,
disk full and unwritable output folders stop cleanly with a consistent journal."""
import errno
import json
import os
import shutil
import subprocess
import sys

import pytest
from test_batch import journal, synthetic_replay
from typer.testing import CliRunner

from citecheck import journal as journal_module
from citecheck.batch import MAX_INTERRUPTED, STARTED, BatchRunner, OutputError
from citecheck.journal import Journal
from citecheck.cli import app
from citecheck.config import Settings
from citecheck.context import Options


def runner_for(out, replay, **kwargs):
    return BatchRunner(out, settings=Settings(home=out.parent / "home"), options=Options(), jobs=2,
                       replay=replay, **kwargs)


def test_batch_failed_paper_is_recorded_once_and_not_retried(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 2)
    lines = [*dois, "10.9999/never.recorded"]
    out = tmp_path / "out"
    first = runner_for(out, replay).run(lines)
    assert (first.done, first.failed) == (2, 1)
    again = runner_for(out, replay).run(lines)
    assert (again.skipped, again.failed, again.done) == (3, 0, 0)
    failed = [e for e in journal(out) if e["status"] == "failed"]
    assert len(failed) == 1 and failed[0]["reason"] == "not_recorded" and failed[0]["report"] is None


def test_batch_retry_failed_runs_only_the_failed_papers_again(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 3)
    out = tmp_path / "out"
    runner_for(out, replay).run(dois[:2] + ["10.5555/batch.late"])
    synthetic_replay_one(replay, "10.5555/batch.late")
    retried = runner_for(out, replay, retry_failed=True).run(dois[:2] + ["10.5555/batch.late"])
    assert (retried.skipped, retried.done, retried.failed) == (2, 1, 0)
    summary = (out / "summary.csv").read_text().splitlines()
    assert len(summary) == 4 and sum("10.5555/batch.late,ok" in row for row in summary) == 1


def synthetic_replay_one(folder, doi):
    """Record a paper that was missing, as if the service had come back."""
    from replaykit import write_entry

    write_entry(folder, f"GET crossref:/works/{doi}", note="generated", body={
        "status": "ok", "message": {"DOI": doi, "title": ["Late"], "type": "journal-article"}})
    write_entry(folder, f"GET openalex:/works/https://doi.org/{doi}", note="generated", body={
        "id": "https://openalex.org/W1", "doi": f"https://doi.org/{doi}", "title": "Late",
        "referenced_works": [], "cited_by_count": 0})


def test_batch_paper_that_keeps_killing_the_run_is_failed_not_restarted(tmp_path):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 2)
    out = tmp_path / "out"
    out.mkdir()
    (out / STARTED).write_text((dois[0] + "\n") * MAX_INTERRUPTED + dois[1] + "\n")
    result = runner_for(out, replay).run(dois)
    entries = {e["key"]: e for e in journal(out)}
    assert entries[dois[0]]["status"] == "failed"
    assert entries[dois[0]]["reason"] == "interrupted_repeatedly"
    assert entries[dois[1]]["status"] == "ok"  # interrupted once: simply run again
    assert result.failed == 1 and not (out / STARTED).exists()


def enospc():
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def half_line_then_enospc(monkeypatch, after: int):
    calls = {"n": 0}
    real = Journal._write

    def write(self, data):
        calls["n"] += 1
        if calls["n"] > after:
            real(self, data[: len(data) // 2])
            raise enospc()
        real(self, data)
    monkeypatch.setattr(Journal, "_write", write)


def fsync_enospc(monkeypatch, after: int):
    calls = {"n": 0}
    real = os.fsync

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] > after:
            raise enospc()
        real(fd)
    monkeypatch.setattr(journal_module.os, "fsync", fsync)


@pytest.mark.parametrize("fault", [half_line_then_enospc, fsync_enospc])
def test_batch_disk_full_stops_cleanly_with_a_consistent_journal(tmp_path, monkeypatch, fault):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 12)
    out = tmp_path / "out"
    with monkeypatch.context() as patch:
        fault(patch, 5)
        result = runner_for(out, replay).run(dois)
    assert result.stopped and "No space left on device" in result.stopped
    raw = (out / "results.jsonl").read_bytes()
    assert raw.endswith(b"\n") or raw == b""
    entries = journal(out)  # every line parses: no torn line left behind
    assert 0 < len(entries) < 12
    for entry in entries:
        assert json.loads((out / entry["report"]).read_text())["input"]["doi"] == entry["doi"]
    assert not list(out.rglob("*.part"))
    resumed = runner_for(out, replay).run(dois)
    assert resumed.stopped is None
    keys = [e["key"] for e in journal(out)]
    assert sorted(keys) == sorted(dois) and len(keys) == 12


def test_cli_batch_disk_full_is_one_line_exit_1(tmp_path, monkeypatch):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 6)
    listing = tmp_path / "dois.txt"
    listing.write_text("\n".join(dois) + "\n")
    monkeypatch.setenv("CITECHECK_HOME", str(tmp_path / "home"))
    half_line_then_enospc(monkeypatch, 2)
    result = CliRunner().invoke(app, ["batch", str(listing), "--out-dir", str(tmp_path / "out"),
                                      "--replay", str(replay)])
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("citecheck: batch stopped: cannot write to") and "No space" in last
    assert "Traceback" not in result.output


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder nobody may write into, root included (chattr +i when running as root)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(
                ["chattr", "+i", str(folder)], check=False, capture_output=True).returncode != 0:
            pytest.skip("running as root without chattr +i: cannot make a read-only folder")
        yield folder
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)


def test_batch_unwritable_out_dir_raises_output_error(tmp_path, read_only_dir):
    replay = tmp_path / "replay"
    dois = synthetic_replay(replay, 1)
    with pytest.raises(OutputError, match="cannot write to"):
        runner_for(read_only_dir / "out", replay).run(dois)


def test_cli_batch_unwritable_out_dir_is_one_line_exit_2(tmp_path, read_only_dir):
    replay = tmp_path / "replay"
    listing = tmp_path / "dois.txt"
    listing.write_text("\n".join(synthetic_replay(replay, 1)) + "\n")
    env = {**os.environ, "CITECHECK_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "citecheck", "batch", str(listing), "--out-dir",
                           str(read_only_dir), "--replay", str(replay)],
                          check=False, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citecheck: cannot write to")
