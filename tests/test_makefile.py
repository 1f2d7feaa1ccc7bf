"""The Makefile's two installs: `make demo` installs the project alone and plays
at once (no extras, no mypyc build); `make test` installs every extra and the
compiled build, also after a `make demo`.

Read from ``make -n`` (what make would run, nothing run) against the real
Makefile, with the virtual environment moved to a temporary directory.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def would_run(venv: Path, *args: str) -> list[str]:
    """The commands `make -n ARGS` prints with .venv at ``venv``."""
    done = subprocess.run(["make", "--no-print-directory", "-n", "-C", str(ROOT),
                           f"VENV={venv}", *args],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "MAKEFLAGS": ""})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def fake_venv(tmp_path: Path, *stamps: str) -> Path:
    """A venv made earlier, with these stamp files, newer than pyproject.toml."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    later = time.time() + 3600
    for name in ("bin/python", *stamps):
        (venv / name).touch()
        os.utime(venv / name, (later, later))
    return venv


def pip_installs(commands: list[str]) -> list[str]:
    """The requirement of each `pip install` command."""
    return [shlex.split(c)[-1] for c in commands if " -m pip " in c and " install " in c]


def all_extras() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(pyproject["project"]["optional-dependencies"])


def test_the_demo_on_a_fresh_clone_installs_the_project_alone_and_compiles_nothing(
        tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    commands = would_run(venv, "demo")
    assert commands[0].endswith(f"-m venv {venv}")
    assert pip_installs(commands) == ["."]           # -e .: no extra
    assert not any("compile_native" in c for c in commands)
    assert commands[-1] == f"{venv}/bin/daide demo --pace 0.3"
    # pip's version notice is off: no noise in the demo's first screen
    assert all("--disable-pip-version-check" in c and "--quiet" in c
               for c in commands if " -m pip " in c)


def test_demo_args_reach_the_demo(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path, ".installed-base")
    assert would_run(venv, "demo", "DEMO_ARGS=--pace 0 --stay") == [
        f"{venv}/bin/daide demo --pace 0 --stay"]


def test_make_test_after_the_demo_installs_every_extra_and_the_compiled_build(
        tmp_path: Path) -> None:
    venv = fake_venv(tmp_path, ".installed-base")
    commands = would_run(venv, "test")
    assert not any(" -m venv " in c for c in commands)     # the demo's venv is kept
    (requirement,) = pip_installs(commands)
    assert requirement.startswith(".[") and requirement.endswith("]")
    assert set(requirement[2:-1].split(",")) == all_extras()
    assert any(c.startswith(f"{venv}/bin/python tools/compile_native.py") for c in commands)
    assert commands[-1] == f"{venv}/bin/python -m pytest -q"


def test_the_demo_after_make_test_installs_nothing_more(tmp_path: Path) -> None:
    # the full install (make install, make test) marks the demo's install done too ...
    fresh = tmp_path / "fresh"
    commands = would_run(fresh, "install")
    touches = [c.split()[1:] for c in commands if c.startswith("touch ")]
    assert [f"{fresh}/.installed", f"{fresh}/.installed-base"] in touches
    # ... so a demo after it goes straight to the game
    venv = fake_venv(tmp_path, ".installed", ".installed-base")
    assert would_run(venv, "demo") == [f"{venv}/bin/daide demo --pace 0.3"]
