"""`make bench bots`: how strong is DumbBot?

Plays 100 short games (to the end of 1910, or a solo) in process, straight
through the adjudicator (`bots.local`: the same validation and phase
generators as over TCP, without the sockets - tests/test_bots_server.py
checks that such a game equals the same game played on the server), and
prints DumbBot's share of the supply centres:

* 50 games of one DumbBot against six RandBots,
* 50 games of one DumbBot against six HoldBots,

with DumbBot's power rotating over the seven powers.  A fair share is 1/7
(14 %) of the centres; the reference line is the same measurement for a
RandBot in DumbBot's seat.  Then one demo game (to 1910) is played over
loopback TCP on the real server, for the wall-clock cost of the wire.

Last, the small version of the LookaheadBot benchmark (`benchmarks.strength`,
docs/bots.md): one LookaheadBot against six DumbBots, 14 games to 1910, its
mean sum-of-squares score as a ratio of the DumbBots' and of a DumbBot's in
the same seat.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable

from bots.dumbbot import DumbBot
from bots.holdbot import HoldBot
from bots.local import play_game
from bots.randbot import RandBot
from bots.strategy import Strategy
from engine.variants import standard_map

GAMES_PER_FIELD = 50
LAST_YEAR = 1910


def centre_share(hero: Callable[[], Strategy], field: Callable[[], Strategy],
                 games: int = GAMES_PER_FIELD) -> tuple[float, int, float]:
    """(hero's mean share of all centres, hero's solos, seconds) over `games` games."""
    m = standard_map()
    total = len(m.supply_centres)
    shares = 0.0
    solos = 0
    started = time.perf_counter()
    for game in range(games):
        seat = m.powers[game % len(m.powers)]
        players = {p: (hero() if p == seat else field()) for p in m.powers}
        result = play_game(m, players, seed=game, max_year=LAST_YEAR)
        shares += result.centre_counts().get(seat, 0) / total
        solos += result.winner == seat
    return shares / games, solos, time.perf_counter() - started


def main() -> int:
    print(f"in-process games through the adjudicator (no TCP), {GAMES_PER_FIELD} per field, "
          f"to the end of {LAST_YEAR} or a solo; fair share = 1/7 = 14.3 %")
    rows: list[tuple[str, Callable[[], Strategy], Callable[[], Strategy]]] = [
        ("DumbBot vs 6 RandBot", DumbBot, RandBot),
        ("DumbBot vs 6 HoldBot", DumbBot, HoldBot),
        ("RandBot vs 6 RandBot (reference)", RandBot, RandBot),
    ]
    for label, hero, field in rows:
        share, solos, seconds = centre_share(hero, field)
        print(f"  {label:<34} centre share {share * 100:5.1f} %   solos {solos:2d}/"
              f"{GAMES_PER_FIELD}   ({seconds:.1f} s)", flush=True)
    _tcp_game()
    from benchmarks.strength import small

    small(echo=lambda line: print(line, flush=True))
    return 0


def _tcp_game() -> None:
    import tempfile
    from pathlib import Path

    import trio

    from bots.demo import play_demo
    from daide.cmd_demo import start_embedded_server
    from server.logconfig import configure_logging

    configure_logging(sys.stderr, json=False, level=logging.WARNING)

    with tempfile.TemporaryDirectory() as tmp:
        result = trio.run(lambda: play_demo(seed=1, max_years=LAST_YEAR - 1900,
                                            out_dir=Path(tmp),
                                            start_server=start_embedded_server))
    print(f"  one demo game over loopback TCP (real server): {result.seconds:.1f} s, "
          f"{result.watcher.result_text()}")


if __name__ == "__main__":
    sys.exit(main())
