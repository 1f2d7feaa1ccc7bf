"""The I/O floor yardstick of `python -m benchmarks server` plays its phases over TCP."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import io_floor

ROOT = Path(__file__).resolve().parent.parent


def test_the_floor_server_answers_every_sub_and_announces_every_phase() -> None:
    # measure() reads exactly one THX per SUB and one announcement per player
    # per phase; a missing or short frame ends it with an error (30 s timeout).
    user, system = io_floor.measure(games=2, phases=40)
    assert user >= 0 and system >= 0


def test_the_command_prints_the_floor() -> None:
    done = subprocess.run([sys.executable, "-m", "benchmarks.io_floor", "--games", "1",
                           "--phases", "20"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("I/O floor: ") and "ms CPU per phase" in done.stdout
    assert "Traceback" not in done.stderr


def _valgrind() -> None:
    """Skip without valgrind (or fail under DAIDE_REQUIRE_VALGRIND=1, set by .ci/run)."""
    if shutil.which("valgrind") and shutil.which("callgrind_control"):
        return
    problem = "valgrind is not installed (Debian: apt-get install valgrind)"
    if os.environ.get("DAIDE_REQUIRE_VALGRIND") == "1":
        pytest.fail(problem + " (DAIDE_REQUIRE_VALGRIND=1)")
    pytest.skip(problem)


def test_instructions_are_counted_per_phase_and_steady() -> None:
    # The callgrind meter counts the floor server's own instructions in the window
    # only: twice the phases, about the same count per phase (start-up excluded).
    _valgrind()
    short, _ = io_floor.measure(games=1, phases=20, instructions=True)
    long, _ = io_floor.measure(games=1, phases=40, instructions=True)
    assert 50_000 < short < 5_000_000          # a trio wake-up is tens of thousands
    assert abs(long - short) / short < 0.15, (short, long)


def test_counting_without_valgrind_is_a_one_line_error(tmp_path: Path) -> None:
    # A PATH without valgrind: the benchmark says what is missing, no traceback.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    done = subprocess.run([sys.executable, "-m", "benchmarks", "server", "--instructions"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": str(bin_dir)})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "server instructions: counting instructions needs valgrind" in done.stdout
    assert "apt-get install valgrind" in done.stdout
    assert "Traceback" not in done.stderr
