"""Running the real `daide` program in a subprocess, for the CLI tests.

Every CLI test checks what a person sees: the exit status, no Python
traceback, and the one line that says what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

DAIDE = [sys.executable, "-m", "daide"]


def daide(*args: str, cwd: Path | None = None, input: bytes | None = None,
          timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``daide ARGS`` to its end; stdout and stderr as text."""
    done = subprocess.run([*DAIDE, *args], cwd=cwd, input=input, capture_output=True,
                          timeout=timeout)
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


def one_error_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The single ``daide COMMAND: error: ...`` line of a failed run (asserted so)."""
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"daide {command}: error: "), lines[0]
    return lines[0]


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    """Start ``daide ARGS`` in the background (text pipes, line-buffered)."""
    return subprocess.Popen([*DAIDE, *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)


def wait_for_line(process: subprocess.Popen[str], stream: IO[str], pattern: str,
                  timeout: float = 60) -> tuple[str, list[str]]:
    """Read ``stream`` of ``process`` until a line matches ``pattern``; (that line,
    every line read).  A process still silent after ``timeout`` seconds is killed,
    so a test never hangs on it."""
    seen: list[str] = []
    regex = re.compile(pattern)
    watchdog = threading.Timer(timeout, process.kill)
    watchdog.start()
    try:
        while line := stream.readline():
            seen.append(line)
            if regex.search(line):
                return line, seen
    finally:
        watchdog.cancel()
    raise AssertionError(f"no line matching {pattern!r} in:\n{''.join(seen)}")


@contextmanager
def serving(db: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """`daide serve --port 0 --db DB` running; yields (process, port); stopped with SIGTERM."""
    server = start("serve", "--port", "0", "--db", str(db), "--log-json", *extra)
    try:
        assert server.stderr is not None
        line, _ = wait_for_line(server, server.stderr, '"event": "listening"')
        yield server, int(json.loads(line)["port"])
    finally:
        if server.poll() is None:
            server.terminate()
        try:
            server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()


@contextmanager
def read_only_dir(path: Path) -> Iterator[Path]:
    """A directory nobody - root included - may create files in.

    Root ignores permission bits, so as root the directory is made immutable
    (``chattr +i``, refused to root too); other users get mode 0555.
    """
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        path.chmod(0o555)
        try:
            yield path
        finally:
            path.chmod(0o755)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)],
                                        capture_output=True).returncode != 0:
        pytest.skip("environment: running as root where `chattr +i` is unavailable, "
                    "so no directory is read-only to this process")
    try:
        yield path
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)
