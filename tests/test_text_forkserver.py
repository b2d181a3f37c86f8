"""The fork server that starts extraction workers: isolation, recovery and threads."""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdfgen

from citecheck.text import extract_pdf, forkserver


@pytest.fixture()
def fresh_server(monkeypatch: pytest.MonkeyPatch):
    """This test's own thread-local servers, closed afterwards."""
    local = threading.local()
    monkeypatch.setattr(forkserver, "_local", local)
    yield local
    server = getattr(local, "server", None)
    if server is not None:
        server.close()


@pytest.fixture(scope="module")
def one_column(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pdfgen.make_one_column_numbered(tmp_path_factory.mktemp("fork") / "one.pdf")


def test_a_killed_server_is_replaced(fresh_server, one_column: Path) -> None:
    assert extract_pdf(one_column).status == "ok"
    first = fresh_server.server
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait()
    extraction = extract_pdf(one_column)
    assert extraction.status == "ok" and len(extraction.references) == 5
    assert fresh_server.server is not first


def test_a_crashing_worker_leaves_the_server_serving(fresh_server, one_column: Path, tmp_path: Path) -> None:
    truncated = pdfgen.make_truncated(tmp_path / "cut.pdf", one_column, keep=0.3)
    assert extract_pdf(truncated).status == "failed"
    server = fresh_server.server
    assert extract_pdf(one_column).status == "ok"
    assert fresh_server.server is server and server.usable()


def test_threads_get_their_own_servers_and_right_results(fresh_server, tmp_path: Path) -> None:
    one = pdfgen.make_one_column_numbered(tmp_path / "one.pdf")
    two = pdfgen.make_two_column_author_year(tmp_path / "two.pdf")
    servers: set[int] = set()

    def read(path: Path) -> tuple[str, int]:
        extraction = extract_pdf(path)
        servers.add(forkserver._local.server.process.pid)
        return extraction.status, len(extraction.references)

    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(read, [one, two] * 6))
    assert results == [("ok", 5), ("ok", 5)] * 6
    assert 1 < len(servers) <= 3


def test_a_forked_process_does_not_share_the_parents_server(fresh_server, one_column: Path) -> None:
    assert extract_pdf(one_column).status == "ok"
    parent_server = fresh_server.server
    pid = os.fork()
    if pid == 0:  # the child: a new server of its own, the parent's left alone
        code = 1
        try:
            ok = extract_pdf(one_column).status == "ok"
            code = 0 if ok and forkserver._local.server is not parent_server else 1
            forkserver._local.server.close()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert parent_server.usable() and extract_pdf(one_column).status == "ok"
