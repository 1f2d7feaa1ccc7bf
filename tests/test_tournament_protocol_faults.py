"""The tournament report's protocol faults per bot (`tournament.faults`).

The phases processed with a power's orders missing are read from the server's
store of a real game (over TCP, from a DATC 6.H.1 retreat position: Turkey's
bot ignores its retreat); the refused orders and the messages answered HUH or
REJ come from the server's store - for an external program too, in a real
`daide tournament` - and the seats' problem counts and the failures from the
tournament's own; a bot with any is marked, and each faulty seat is linked to
its replay, its bot log and its output log.
"""

from __future__ import annotations

import sys
from pathlib import Path

from server.store import Store
from tests.broken_bots import ForeignUnits, NoRetreats, past_sub, play_with
from tests.cli_helpers import daide
from tests.server_helpers import POWERS
from tournament.faults import bot_faults, external_logs, fault_lines
from tournament.store import Failure, SeatResult, StoredGame

START = ("NOW ( SUM 1901 ) ( AUS FLT TRI MRT ( ADR ALB ) ) ( AUS AMY SER ) "
         "( TUR FLT GRE MRT ( ALB ( BUL SCS ) ) ) ( ITA AMY VEN ) ( ITA AMY TRI ) ( ITA FLT GRE ) "
         "( ITA FLT AEG )")


async def test_faults_are_counted_per_bot_marked_and_linked(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    await play_with(db, {"TUR": NoRetreats()}, start=START, max_year=1901, rtl=1, mtl=1)

    bot_of = {p: "noretreat" if p == "TUR" else "holdbot" for p in POWERS}
    seats = tuple(SeatResult(p, bot_of[p], 3, 3, True, 2 if p == "ENG" else 0) for p in POWERS)
    game = StoredGame(number=1, seed=0, status="finished", attempts=1, server_game_id=1,
                      seconds=1.0, ending="draw", end_turn="WIN 1901", winner=None, history=(),
                      note=None, seats=seats)
    failures = [(1, Failure("TUR", "noretreat", "hang", "no complete orders for SUM 1901"))]
    logs = tmp_path / "out" / "logs"
    logs.mkdir(parents=True)
    (logs / "game1-TUR-noretreat.log").write_text("$ bot\n", encoding="utf-8")

    faults = bot_faults(["holdbot", "noretreat"], [game], failures, db)
    by_bot = {f.bot: f for f in faults}
    assert (by_bot["noretreat"].seats, by_bot["noretreat"].missing,
            by_bot["noretreat"].failures) == (1, 1, 1)
    assert (by_bot["holdbot"].seats, by_bot["holdbot"].refused, by_bot["holdbot"].missing) == (6, 2, 0)
    assert by_bot["noretreat"].marked and by_bot["holdbot"].marked
    # The ranking table's cell of each bot.
    assert by_bot["noretreat"].summary == "! 1 missing, 1 failures ([below](#protocol-faults))"
    assert by_bot["holdbot"].summary == "! 2 refused ([below](#protocol-faults))"

    lines = fault_lines(faults, {1: "replays/game-1.html"},
                        external_logs([game], logs, tmp_path / "out"))
    assert "| noretreat | 1 | 0 | 1 | 1 | ! |" in lines
    assert ("- noretreat, game 1 as TUR: orders missing in SUM 1901; hang: no complete orders "
            "for SUM 1901 ([replay](replays/game-1.html) [log](logs/game1-TUR-noretreat.log))"
            in lines)
    assert "- holdbot, game 1 as ENG: 2 refused or not understood ([replay](replays/game-1.html))" \
        in lines


def test_a_clean_field_has_no_faults(tmp_path: Path) -> None:
    seats = tuple(SeatResult(p, "holdbot", 3, 3, True, 0) for p in POWERS)
    game = StoredGame(number=1, seed=0, status="finished", attempts=1, server_game_id=None,
                      seconds=1.0, ending="draw", end_turn="WIN 1901", winner=None, history=(),
                      note=None, seats=seats)
    lines = fault_lines(bot_faults(["holdbot"], [game], [], tmp_path / "absent.db"), {}, {})
    assert "| holdbot | 7 | 0 | 0 | 0 |  |" in lines and lines[-1] == "No faults."
    assert bot_faults(["holdbot"], [game], [], tmp_path / "absent.db")[0].summary == "none"


async def test_an_external_programs_refused_orders_come_from_the_servers_store(
        tmp_path: Path) -> None:
    # France orders units it does not have; its seat reports no problems of its own,
    # as an external program's does: the refusals the server stored count.
    db = tmp_path / "games.db"
    await play_with(db, {"FRA": ForeignUnits()}, max_year=1901, mtl=1, rtl=1, btl=1)
    seats = tuple(SeatResult(p, "external" if p == "FRA" else "holdbot", 3, 3, True, 0)
                  for p in POWERS)
    game = StoredGame(number=1, seed=0, status="finished", attempts=1, server_game_id=1,
                      seconds=1.0, ending="draw", end_turn="WIN 1901", winner=None, history=(),
                      note=None, seats=seats)
    by_bot = {f.bot: f for f in bot_faults(["holdbot", "external"], [game], [], db)}
    assert by_bot["external"].refused >= 2 and by_bot["external"].marked
    assert set(by_bot["external"].notes) <= {"NYU", "NSU"} and by_bot["external"].notes
    assert by_bot["holdbot"].refused == 0 and not by_bot["holdbot"].marked
    row = next(line for line in fault_lines(list(by_bot.values()), {}, {})
               if line.startswith("| external |"))
    assert "(NYU " in row or "(NSU " in row, row


def test_an_external_programs_huh_and_rej_are_counted_from_the_servers_store(
        tmp_path: Path) -> None:
    # `daide tournament` with an external program that sends, before its orders of each
    # phase, a SUB breaking the grammar and a SUB for a turn long past: the server answers
    # HUH and REJ, stores them, and the report counts them in its faults column.
    garbage = f"garbage={sys.executable} -m tests.broken_bots garbage --host {{host}} --port {{port}}"
    out = tmp_path / "out"
    run = daide("tournament", "--bots", "garbage,holdbot", "--external", garbage,
                "--games", "1", "--year-limit", "1", "--parallel", "1", "--out", str(out),
                "--no-progress", "--move-timeout", "20", timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    report = (out / "report.md").read_text(encoding="utf-8")

    store = Store.open_readonly(out / "tournament.db")
    try:
        names = {s.power: s.client_name for s in store.game(1).seats}
        refusals = store.refusals(1)
    finally:
        store.close()
    powers = sorted(p for p, name in names.items() if ":SendsGarbage" in name)
    assert powers and len(powers) < len(POWERS)
    assert {r.power for r in refusals} == set(powers)
    huh = sum(r.answer == "HUH" for r in refusals)
    rej = sum(r.answer == "REJ" for r in refusals)
    # Each garbage seat orders in SPR and FAL 1901: two of each.
    assert (huh, rej, len(refusals)) == (2 * len(powers), 2 * len(powers), 4 * len(powers))
    assert f"| garbage | {len(powers)} | {huh + rej} (HUH {huh}, REJ {rej}) | 0 | 0 | ! |" \
        in report.splitlines(), report
    assert f"| holdbot | {len(POWERS) - len(powers)} | 0 | 0 | 0 |  |" in report.splitlines()
    seat = next(line for line in report.splitlines()
                if line.startswith(f"- garbage, game 1 as {powers[0]}: "))
    assert f"[bot log](bot-logs/game1-{powers[0]}.txt)" in seat, seat
    bot_log = (out / "bot-logs" / f"game1-{powers[0]}.txt").read_text(encoding="utf-8")
    assert f"  sent     {past_sub(powers[0])}  (refused: REJ (orders for a turn" in bot_log
    assert "(not understood: HUH (" in bot_log
