"""The I/O floor yardstick of `python -m benchmarks server` plays its phases over TCP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
