"""External bots, and bots that fail: the game goes on, the failure is reported.

One game, seven contestants, four of them external programs behind the
tournament's relay (`tournament.proxy`):

* ``extdumb`` - ``python -m daide bot dumbbot``: a well-behaved external bot;
* ``crash``   - exits (status 3) at its first order phase of 1902;
* ``hang``    - blocks at its first order phase of 1902 (connected, silent);
* ``sleeper`` - starts but never connects.

The server's own phase records must show each failing power ordering until
its failure and never after (civil disorder: the server fills in the
defaults), and the tournament must report each failure by kind.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import trio

from server.logconfig import configure_logging
from server.store import Store
from tournament.config import TournamentConfig, parse_bots
from tournament.report import write_report
from tournament.runner import run_tournament
from tournament.store import TournamentStore

FAULTY = Path(__file__).resolve().parent / "tournament_faulty_bot.py"


def externals() -> list[str]:
    py = sys.executable
    return [
        f"extdumb={py} -m daide bot dumbbot --host {{host}} --port {{port}} --seed {{seed}}",
        f"crash={py} {FAULTY} crash {{host}} {{port}}",
        f"hang={py} {FAULTY} hang {{host}} {{port}}",
        f"sleeper={py} -c 'import time; time.sleep(60)' {{port}}",
    ]


async def test_failing_external_bots_leave_their_powers_in_civil_disorder(tmp_path: Path) -> None:
    configure_logging(sys.stderr, json=True, level=logging.WARNING)
    cfg = TournamentConfig(
        bots=parse_bots("extdumb,crash,hang,sleeper,dumbbot,randbot,holdbot", externals()),
        games=1, seed=7, year_limit=3, parallel=1, out=tmp_path, move_timeout=1.0,
        join_timeout=4.0, disorder_grace=0.5, time_limit=20.0)
    started = trio.current_time()
    run = await run_tournament(cfg)
    elapsed = trio.current_time() - started
    assert run.complete and run.played == 1

    store = TournamentStore.open(cfg.db_path)
    (game,) = store.games(run.tournament_id)
    failures = {f.bot: f for _, f in store.failures(run.tournament_id)}
    report = write_report(cfg, store, run.tournament_id)
    store.close()
    power_of = {s.bot: s.power for s in game.seats}
    assert game.status == "finished"
    assert game.ending == "draw", (
        f"the game ended by its {game.ending} at {game.end_turn}: the server must play on "
        "without powers in civil disorder (no deadlines: after disorder_grace)")
    assert game.end_turn is not None and game.end_turn.endswith("1903")
    assert set(failures) == {"crash", "hang", "sleeper"}
    assert failures["crash"].kind == "crash" and "exit status 3" in failures["crash"].detail
    assert failures["hang"].kind == "hang"
    assert failures["hang"].detail.startswith("no complete orders for SPR 1902 after 1 s (MIS (")
    assert failures["sleeper"].kind == "join"
    assert all(f.power == power_of[bot] for bot, f in failures.items())

    server = Store.open(cfg.db_path)
    try:
        record = server.game(game.server_game_id)  # type: ignore[arg-type]
        names = {s.power: s.client_name for s in record.seats}
        phases = server.phases(record.id)
    finally:
        server.close()
    # The relay seated the external bots by name; the sleeper's seat went to a stand-in.
    assert names[power_of["extdumb"]] == f"{power_of['extdumb']}:DumbBot#T1.G1.1"
    assert names[power_of["crash"]] == f"{power_of['crash']}:FaultyBot#T1.G1.1"
    assert names[power_of["sleeper"]] == f"{power_of['sleeper']}:civil-disorder#T1.G1.1"
    moves = [p for p in phases if p.seq > 0 and p.turn.split()[0] in ("SPR", "FAL")]
    assert [p.turn for p in moves] == ["SPR 1901", "FAL 1901", "SPR 1902", "FAL 1902",
                                       "SPR 1903", "FAL 1903"]
    for phase in moves:
        early = phase.turn.endswith("1901")
        assert (power_of["crash"] in phase.orders) == early, phase.turn
        assert (power_of["hang"] in phase.orders) == early, phase.turn
        assert power_of["sleeper"] not in phase.orders
        assert power_of["extdumb"] in phase.orders
    assert "| hang | hang | no complete orders for SPR 1902" in report.text
    assert (tmp_path / "logs" / f"game1-{power_of['crash']}-crash.log").exists()
    # Process start-ups, a 4 s join timeout, a 1 s hang timeout: no long waits.
    assert elapsed < 30
