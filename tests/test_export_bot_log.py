"""`daide export GAME --bot-log POWER`: one power's side of a stored game, explained.

A real game over TCP from a retreat position (DATC 6.H.1): Turkey's bot
ignores its retreat, Austria's plays; the log of each, read from the
database by the real `daide export`, says what was sent, what was accepted,
what was missing when the phase was processed and what the rules did, and
every result of the power's own orders in words.
"""

from __future__ import annotations

from pathlib import Path

from tests.broken_bots import ForeignUnits, NoRetreats, play_with
from tests.cli_helpers import daide, one_error_line

START = ("NOW ( SUM 1901 ) ( AUS FLT TRI MRT ( ADR ALB ) ) ( AUS AMY SER ) "
         "( TUR FLT GRE MRT ( ALB ( BUL SCS ) ) ) ( ITA AMY VEN ) ( ITA AMY TRI ) ( ITA FLT GRE ) "
         "( ITA FLT AEG )")


async def test_the_bot_log_explains_a_missing_retreat_and_the_results(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    await play_with(db, {"TUR": NoRetreats()}, start=START, max_year=1901, rtl=1, mtl=1)

    turkey = daide("export", "1", "--db", str(db), "--bot-log", "tur")
    assert turkey.returncode == 0, turkey.stderr
    lines = turkey.stdout.splitlines()
    assert lines[0] == "# game 1 (standard), TUR: 'TUR:bot' version '1.0'; finished"
    assert "received HLO ( TUR ) ( passcode ) ( ( LVL 0 ) ( MTL 1 ) ( RTL 1 ) )" in lines
    assert ("  missing  MIS ( TUR FLT GRE MRT ( ALB ( BUL SCS ) ) ) when the phase was "
            "processed: no order was accepted for these units; they were disbanded") in lines
    assert "  received ORD ( SUM 1901 ) ( ( TUR FLT GRE ) DSB ) ( SUC ): succeeded" in lines
    assert lines[-2] == "received DRW" and lines[-1].startswith("received SMR ")
    # Nothing of another power's orders, and never a passcode.
    assert "AUS FLT TRI ) DSB ) ( SUC )" not in turkey.stdout

    austria = daide("export", "1", "--db", str(db), "--bot-log", "AUS")
    assert "  sent     ( AUS FLT TRI ) DSB  (accepted)" in austria.stdout.splitlines()
    assert "  received ORD ( SUM 1901 ) ( ( AUS FLT TRI ) DSB ) ( SUC ): succeeded" \
        in austria.stdout.splitlines()
    assert "FAL 1901:" in austria.stdout and "  owed no orders" not in austria.stdout.split(
        "FAL 1901:")[1].split("\n\n")[0]
    stranger = daide("export", "1", "--db", str(db), "--bot-log", "XYZ")
    assert "XYZ is not a power of game 1 (AUS, ENG, FRA, GER, ITA, RUS, TUR)" in one_error_line(
        stranger, "export")
    assert one_error_line(daide("export", "9", "--db", str(db), "--bot-log", "FRA"), "export")


def test_a_power_not_in_the_game_is_a_one_line_error(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    missing = daide("export", "1", "--db", str(db), "--bot-log", "FRA")
    assert one_error_line(missing, "export").endswith(f"no database at {db}")


async def test_the_bot_log_explains_each_refused_order(tmp_path: Path) -> None:
    # A bot that orders units it does not have: every such order is refused (NYU/NSU),
    # stored, and explained in its author's log.
    db = tmp_path / "games.db"
    await play_with(db, {"FRA": ForeignUnits()}, max_year=1901, mtl=1, rtl=1, btl=1)
    france = daide("export", "1", "--db", str(db), "--bot-log", "FRA")
    assert france.returncode == 0, france.stderr
    refused = [line for line in france.stdout.splitlines() if "(refused: " in line]
    assert refused, france.stdout
    assert all(line.startswith("  sent     ( ") for line in refused)
    assert not any("are not stored" in line for line in france.stdout.splitlines())
    assert any("(refused: NYU (not your unit" in line or "(refused: NSU (" in line
               for line in refused), refused
    england = daide("export", "1", "--db", str(db), "--bot-log", "ENG")
    assert "(refused: " not in england.stdout
