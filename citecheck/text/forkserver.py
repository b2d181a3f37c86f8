"""A warm parent for extraction workers: it imports once and forks one child per PDF.

Starting ``python -m citecheck.text.worker`` afresh costs about 75 ms of CPU per PDF
(interpreter, pypdfium2's ctypes bindings, pdfium's initialisation), a quarter of the whole
extraction time on a typical paper. The fork server is started the way the worker was (no
credentials in its environment, ``-S``), imports the worker and pdfium once, and for each
PDF forks a child that caps its own address space, reads the PDF and exits. The child is
as isolated as a fresh worker: its own process and limits, killed alone on a timeout, its
crash or abort seen by the server as its exit status.

Protocol, one request at a time, one line each way:
parent → server ``{"pdf": PATH, "memory_mb": N, "out": PATH, "err": PATH}`` (JSON);
server → parent ``started PID`` as soon as the child runs, then ``exited CODE MAXRSS_KB``
(``CODE`` as in :attr:`subprocess.Popen.returncode`: a negative signal number when killed).
The child writes the worker's JSON to ``out`` and its stderr to ``err``.

Each thread of the parent gets its own server (servers run requests one at a time), and
so does a process forked from the parent; a server exits when its stdin closes, that is
when its parent exits.
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

__all__ = ["ServerGone", "WorkerOutcome", "run_in_fork_server"]

_STARTUP_GRACE_S = 30.0


class ServerGone(RuntimeError):
    """The fork server died or stopped answering; a new one is started next time."""


@dataclass(frozen=True)
class WorkerOutcome:
    """How one forked worker ended: exit code (None: killed at the deadline), output, stderr."""

    returncode: int | None
    stdout: bytes
    stderr: str
    max_rss_kb: int


class _ForkServer:
    """The parent's handle on one server process (see the module docstring)."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self._buffer = b""
        self.owner_pid = os.getpid()

    def usable(self) -> bool:
        """Running, and ours: a process forked from the parent must not share its pipes."""
        return self.owner_pid == os.getpid() and self.process.poll() is None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def _read_line(self, deadline: float | None) -> str | None:
        """The server's next line, or None when ``deadline`` (monotonic) passes first."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise ServerGone("fork server closed its output")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("ascii")

    def run(self, pdf: Path, memory_mb: int, timeout_s: float, directory: Path) -> WorkerOutcome:
        out, err = directory / "worker.out", directory / "worker.err"
        request = {"pdf": str(pdf), "memory_mb": memory_mb, "out": str(out), "err": str(err)}
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ServerGone(f"fork server not listening: {error}") from error
        deadline = time.monotonic() + timeout_s
        # A new server imports pdfium before it answers: that time is not the worker's.
        started = self._read_line(deadline + _STARTUP_GRACE_S)
        if not started or not started.startswith("started "):
            raise ServerGone(f"unexpected fork server answer: {started!r}")
        pid = int(started.split()[1])
        exited = self._read_line(deadline)
        timed_out = exited is None
        if timed_out:
            os.kill(pid, signal.SIGKILL)
            exited = self._read_line(None)
        if not exited or not exited.startswith("exited "):
            raise ServerGone(f"unexpected fork server answer: {exited!r}")
        _, code, max_rss = exited.split()
        return WorkerOutcome(
            returncode=None if timed_out else int(code),
            stdout=out.read_bytes() if out.exists() else b"",
            stderr=err.read_text("utf-8", "replace") if err.exists() else "",
            max_rss_kb=int(max_rss),
        )


_local = threading.local()


def run_in_fork_server(
    pdf: Path, *, memory_mb: int, timeout_s: float, directory: Path, command: list[str], env: dict[str, str]
) -> WorkerOutcome:
    """Read ``pdf`` in a child of this thread's fork server (started with ``command``/``env``).

    Output files go to ``directory``. A server that died is replaced; if it dies during
    this request, :class:`ServerGone` is raised.
    """
    server: _ForkServer | None = getattr(_local, "server", None)
    if server is None or not server.usable():
        server = _local.server = _ForkServer(command, env)
    try:
        return server.run(pdf, memory_mb, timeout_s, directory)
    except ServerGone:
        _local.server = None
        server.close()
        raise


def _run_child(request: dict[str, object]) -> None:
    """In the forked child: redirect stdio to the request's files, run the worker, exit."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for fd, key in ((1, "out"), (2, "err")):
            target = os.open(str(request[key]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        from citecheck.text import worker

        code = worker.main([str(request["pdf"]), str(request["memory_mb"])])
    except BaseException:  # noqa: BLE001  the child must always end through os._exit below
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    """The server loop: one request line in, one forked child, two answer lines out."""
    import pypdfium2  # noqa: F401  loaded here once, inherited by every child

    from citecheck.text import worker  # noqa: F401

    answers = os.fdopen(os.dup(1), "w")
    for line in sys.stdin:
        request = json.loads(line)
        answers.flush()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            answers.close()
            _run_child(request)
        answers.write(f"started {pid}\n")
        answers.flush()
        _, status, usage = os.wait4(pid, 0)
        answers.write(f"exited {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}\n")
        answers.flush()


if __name__ == "__main__":
    serve()
