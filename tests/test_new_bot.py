"""`daide new-bot`: the project it writes passes its own test in a fresh folder.

The generated test runs `daide check-bot` on the generated bot (every
scenario), so this is also a real check of a bot written the way the README
says, by someone outside the project's tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import daide, one_error_line


def test_the_new_bot_passes_its_own_test_in_a_fresh_folder(tmp_path: Path) -> None:
    project = tmp_path / "mine"
    done = daide("new-bot", "greedy_bot", "--dir", str(project))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in project.iterdir()) == [
        "README.md", "greedy_bot.py", "test_greedy_bot.py"]
    bot = (project / "greedy_bot.py").read_text(encoding="utf-8")
    assert "class GreedyBot:" in bot and "from bots." in bot
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert "daide tournament --bots greedy_bot,dumbbot,randbot,holdbot" in readme
    assert '--external "greedy_bot=python $PWD/greedy_bot.py --host {host} --port {port}"' in readme
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_bad_names_and_used_folders_are_one_line_errors(tmp_path: Path) -> None:
    assert "bot name '9lives'" in one_error_line(daide("new-bot", "9lives", "--dir",
                                                        str(tmp_path / "x")), "new-bot")
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine", encoding="utf-8")
    assert f"{used} exists and is not an empty folder" in one_error_line(
        daide("new-bot", "bot", "--dir", str(used)), "new-bot")
