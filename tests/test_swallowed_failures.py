"""The autouse fixture of tests/conftest.py: a test during which the server
logged ``game_step_failed`` or ``connection_failed`` fails, unless it is
marked ``expects_server_failure``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio

from server.deadline import PhaseClock
from tests.server_helpers import POWERS, start_game, start_server

ROOT = Path(__file__).resolve().parent.parent

INNER = '''
import structlog
import pytest

log = structlog.get_logger("server.game")

def test_unmarked():
    log.error("game_step_failed", step="_handle")

@pytest.mark.expects_server_failure
def test_marked():
    log.error("connection_failed")

def test_quiet():
    log.info("phase_processed")
'''


def test_an_unmarked_test_fails_when_the_server_swallowed_a_failure(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import no_swallowed_server_failures  # noqa: F401\n")
    (tmp_path / "test_inner.py").write_text(INNER)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rE",
         "-W", "ignore::pytest.PytestUnknownMarkWarning", str(tmp_path)],
        cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    # Every body passes; the unmarked test's teardown reports the failure.
    assert "3 passed, 1 error" in done.stdout
    assert "ERROR test_inner.py::test_unmarked - Failed: the server logged game_step_fail" \
        in done.stdout


@pytest.mark.expects_server_failure
async def test_a_failing_step_costs_one_event_and_is_logged(
        nursery: trio.Nursery, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    clients = await start_game(port)
    # A bug in what answering a request calls (the phase clock, interpreted
    # also when the game's modules are compiled), once.
    remaining = PhaseClock.remaining
    failures: list[str] = []

    def broken(clock: PhaseClock) -> float | None:
        if not failures:
            failures.append("a bug")
            raise RuntimeError("a bug")
        return remaining(clock)

    monkeypatch.setattr(PhaseClock, "remaining", broken)
    await clients["ENG"].send("TME")             # lost to the bug, logged
    await clients["ENG"].send("NOW")             # the game goes on
    # No REJ (TME) came first: the bug ended that step, and only that step.
    assert (await clients["ENG"].receive()).startswith("NOW ( SPR 1901 )")
    assert failures == ["a bug"]
    for power in POWERS:
        await clients[power].close()
