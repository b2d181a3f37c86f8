"""Batch progress: a rich bar on stderr only when it is a terminal and -q is off."""
import os
import pty
import select
import subprocess
import sys

from test_batch import synthetic_replay


def run_cli(tmp_path, *, quiet: bool, terminal: bool) -> str:
    replay = tmp_path / "replay"
    if not replay.exists():
        dois = synthetic_replay(replay, 4)
        (tmp_path / "dois.txt").write_text("\n".join([*dois, "not a doi"]) + "\n")
    out = tmp_path / f"out-{quiet}-{terminal}"
    command = [sys.executable, "-m", "citecheck", *(["-q"] if quiet else []), "batch",
               str(tmp_path / "dois.txt"), "--out-dir", str(out), "--replay", str(replay)]
    env = {**os.environ, "CITECHECK_HOME": str(tmp_path / "home"), "COLUMNS": "120"}
    if not terminal:
        done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0
        return done.stderr
    master, slave = pty.openpty()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert process.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_batch_progress_bar_on_a_terminal_shows_counts(tmp_path):
    text = run_cli(tmp_path, quiet=False, terminal=True)
    assert "checked" in text and "5/5" in text and "0 failed, 1 invalid" in text and "ETA" in text


def test_batch_progress_silent_under_quiet_even_on_a_terminal(tmp_path):
    assert run_cli(tmp_path, quiet=True, terminal=True).strip() == ""


def test_batch_progress_silent_when_stderr_is_not_a_terminal(tmp_path):
    lines = run_cli(tmp_path, quiet=False, terminal=False).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("5 DOIs: 4 checked")
