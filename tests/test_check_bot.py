"""`daide check-bot`: real bot programs against the checker's scripted games, over real TCP.

* the project's HoldBot, RandBot, DumbBot and LookaheadBot (``daide bot NAME``)
  pass every check (exit status 0, a JSON report that says so);
* each deliberately broken bot of `tests.broken_bots` gets a failing report
  (exit status 1) whose FAIL line names its fault;
* David Norman's DumbBot, when a binary is given in ``DAIDE_DUMBBOT``, runs
  to the end and gets a report (whatever it finds);
* bad arguments are one-line errors.

The checks of one program run as separate processes started together (a
module fixture), so the file takes about as long as its slowest check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_helpers import DAIDE, daide, one_error_line

ROOT = Path(__file__).resolve().parent.parent
BOT = [sys.executable, "-m", "daide", "bot"]
ADDRESS = ["--host", "{host}", "--port", "{port}"]

GOOD = {
    "holdbot": [*BOT, "holdbot", *ADDRESS],
    "randbot": [*BOT, "randbot", *ADDRESS],
    "dumbbot": [*BOT, "dumbbot", *ADDRESS],
    "lookahead": [*BOT, "lookahead", "--budget", "30it", *ADDRESS],
}

# fault -> (the scenarios that show it, the FAIL line that must name it)
BROKEN = {
    "no-map": ("join-at-once", "FAIL    YES (MAP): never answered the server's MAP with YES (MAP"),
    "foreign-units": ("join-at-once", "FAIL    every SUB answered MBV: 4 order(s) refused - "),
    "no-retreats": ("retreat-nowhere", "FAIL    a retreat with nowhere to go (MRT ( )): SUM 1901: "
                                       "orders incomplete at the deadline, still owed "
                                       "MIS ( TUR AMY GRE MRT ( ) )"),
    "no-builds": ("builds", "FAIL    builds owed: WIN 1901: orders incomplete at the deadline, "
                            "still owed MIS ( -2 )"),
    "crash-on-adm": ("robustness", "FAIL    an ADM line: the bot left after an ADM line (the "
                                   "program ended with exit status 1)"),
    "leaves-on-press": ("robustness", "FAIL    press at a level the bot did not ask for: the bot "
                                      "left after press at a level the bot did not ask for"),
}


def _start(tmp: Path, name: str, options: list[str], command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([*DAIDE, "check-bot", *options, "--json", str(tmp / f"{name}.json"),
                             "--", *command], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, subprocess.Popen[str]]]]:
    """Every check of this file, started at once (they mostly wait on sockets and pacing)."""
    tmp = tmp_path_factory.mktemp("check-bot")
    running: dict[str, subprocess.Popen[str]] = {}
    for name, command in GOOD.items():
        running[name] = _start(tmp, name, ["--parallel", "3"], command)
    for fault, (scenarios, _) in BROKEN.items():
        # The default join timeout for every one, the bot that never completes its join
        # too: twelve programs start here at once, and on a loaded 2-core machine a
        # Python program can take more than 3 s to send its IM.
        running[fault] = _start(tmp, fault, ["--only", scenarios, "--deadline", "2",
                                             "--join-timeout", "10"],
                                [sys.executable, "-m", "tests.broken_bots", fault, *ADDRESS])
    # A game with press (level 10): the unasked press injected is then free text (level 8000).
    running["level-10"] = _start(tmp, "level-10", ["--level", "10", "--only", "robustness"],
                                 GOOD["dumbbot"])
    yield tmp, running
    # Close every pipe, read or not: a run of some of these tests leaves checks unread.
    for process in running.values():
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()


def _finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=240)
    return process.returncode, out, err


@pytest.mark.parametrize("name", list(GOOD))
def test_the_projects_bots_pass_every_check(
        checks: tuple[Path, dict[str, subprocess.Popen[str]]], name: str) -> None:
    tmp, running = checks
    status, out, err = _finish(running[name])
    assert "Traceback" not in err, err
    assert status == 0, out
    report = json.loads((tmp / f"{name}.json").read_text(encoding="utf-8"))
    assert report["passed"] is True and report["counts"]["fail"] == 0
    assert report["counts"]["not run"] == 0 and len(report["scenarios"]) == 11
    by_name = {c["name"]: c for c in report["checks"]}
    # Every phase kind was reached and ordered.
    for check in ("a movement phase", "a retreat with a dislodged unit that has options",
                  "a retreat with nowhere to go (MRT ( ))", "builds owed",
                  "a build owed with no free home centre", "removals owed",
                  "two years of modern"):
        assert by_name[check]["status"] == "pass", by_name[check]
    assert by_name["comes back with IAM after a dropped connection"]["status"] == "pass"
    assert by_name["time to complete orders"]["summary"].startswith("median ")
    # The text report shows the exact messages behind a check.
    assert "passed: " in out.splitlines()[-1]
    retreat = by_name["a retreat with nowhere to go (MRT ( ))"]["messages"]
    assert any("server < NOW ( SUM 1901 )" in m and "TUR AMY GRE MRT ( )" in m for m in retreat)
    assert any("bot    > SUB" in m and "( TUR AMY GRE ) DSB" in m for m in retreat)


@pytest.mark.parametrize("fault", list(BROKEN))
def test_a_broken_bot_gets_a_failing_report_naming_its_fault(
        checks: tuple[Path, dict[str, subprocess.Popen[str]]], fault: str) -> None:
    tmp, running = checks
    status, out, err = _finish(running[fault])
    assert "Traceback" not in err, err
    assert status == 1, out
    expected = BROKEN[fault][1]
    assert any(line.strip().startswith(expected.strip()) for line in out.splitlines()), out
    assert out.splitlines()[-1].startswith("FAILED: ")
    report = json.loads((tmp / f"{fault}.json").read_text(encoding="utf-8"))
    assert report["passed"] is False
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert failed and all(c["advice"] and "\n" not in c["summary"] for c in failed)


def test_the_foreign_units_are_reported_with_their_orders_and_notes(
        checks: tuple[Path, dict[str, subprocess.Popen[str]]]) -> None:
    tmp, running = checks
    _finish(running["foreign-units"])
    report = json.loads((tmp / "foreign-units.json").read_text(encoding="utf-8"))
    [check] = [c for c in report["checks"] if c["name"] == "every SUB answered MBV"]
    notes = check["messages"]
    assert any(m.endswith("HLD: NYU (not your unit: the unit (or the waiving power) is "
                          "someone else's)") for m in notes), notes
    assert any("( FRA AMY BOH ) HLD: NSU (no such unit" in m for m in notes), notes


def test_at_a_press_level_the_unasked_press_is_of_a_higher_level(
        checks: tuple[Path, dict[str, subprocess.Popen[str]]]) -> None:
    tmp, running = checks
    status, out, _ = _finish(running["level-10"])
    assert status == 0, out
    report = json.loads((tmp / "level-10.json").read_text(encoding="utf-8"))
    [press] = [c for c in report["checks"] if c["name"] == "press at a level the bot did not ask for"]
    assert press["status"] == "pass"
    assert any("checker< FRM ( ENG ) ( ITA ) ( 'free text press, level 8000' )" in m
               for m in press["messages"]), press


@pytest.mark.skipif(not os.environ.get("DAIDE_DUMBBOT"),
                    reason="set DAIDE_DUMBBOT to David Norman's DumbBot binary (or a command "
                           "line with {host} and {port}) to check it")
def test_david_normans_dumbbot_runs_to_the_end_and_gets_a_report(tmp_path: Path) -> None:
    given = os.environ["DAIDE_DUMBBOT"]
    command = given if "{port}" in given else f"{given} -s{{host}} -p{{port}}"
    done = daide("check-bot", "--parallel", "3", "--json", str(tmp_path / "dumbbot.json"),
                 "--", *command.split(), timeout=600)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1)
    report = json.loads((tmp_path / "dumbbot.json").read_text(encoding="utf-8"))
    assert report["checks"] and report["passed"] == (done.returncode == 0)


@pytest.mark.parametrize(("args", "fault"), [
    ([], "no bot command: give it after --, with {host} and {port}"),
    (["--", "mybot", "--host", "{host}"], "the bot command must contain {port}"),
    (["--only", "joining", "--", "mybot", "{port}"], "unknown scenario joining: choose from "),
    (["--variant", "atlantis", "--", "mybot", "{port}"], "unknown variant 'atlantis'"),
    (["--level", "5", "--", "mybot", "{port}"], "level 5 is not a DAIDE press level"),
])
def test_bad_arguments_are_one_line_errors(args: list[str], fault: str) -> None:
    done = daide("check-bot", *args)
    assert done.returncode == 1
    assert fault in one_error_line(done, "check-bot")


def test_a_command_that_cannot_start_fails_joining_in_one_line(tmp_path: Path) -> None:
    done = daide("check-bot", "--only", "join-at-once", "--join-timeout", "2", "--",
                 str(tmp_path / "no-such-bot"), "{port}")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "FAIL    the program starts and connects: cannot start " in done.stdout
