"""`python -m benchmarks tournament [--games N] [--year-limit Y]`: Ray against a local run.

The same DumbBot tournament (seven DumbBots a game, ``N`` games, default
200, to the end of 1900 + ``Y``, default 10) is played twice on this
machine, two games at a time each:

* **local** - `tournament.runner.run_tournament` with ``--parallel 2``: one
  embedded server, the bots in the same process;
* **Ray** - `tournament.cluster.run_tournament_ray` on a local Ray of 2 CPUs
  (2 worker processes), started as ``daide tournament --ray`` starts it (on
  127.0.0.1 only: `tournament.cluster.LOOPBACK_ENV`), each game a task with
  its own embedded server, results streamed back into the store, progress
  polled as the CLI does.

Printed per run: games per minute (games over the wall-clock time of the
play, Ray's start-up excluded and shown apart) and the *per-game
overhead*: the time of the two game slots not spent inside a game,
``(wall x 2 - sum of game seconds) / games`` - for Ray that is the
task's dispatch, the worker's server start and stop, the result's way
back and any slot left idle; for the local run, the joining under one lock
and the slot waiting for the next game.  Then Ray's rate as a share of the
local rate (the target: at least 90 %, i.e. at most 10 % overhead).

The two runs share a 2-core machine with whatever else runs on it: run it
on a quiet machine, and read the ratio, not the absolute figures.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Figures:
    games: int
    wall: float
    game_seconds: float
    """Sum of the games' own durations (from the store)."""
    slots: int

    @property
    def per_minute(self) -> float:
        return self.games * 60 / self.wall

    @property
    def overhead(self) -> float:
        """Seconds per game of the slots' time outside any game."""
        return (self.wall * self.slots - self.game_seconds) / self.games


def _game_seconds(db: Path) -> tuple[int, float]:
    with sqlite3.connect(db) as conn:
        n, total = conn.execute("SELECT COUNT(*), COALESCE(SUM(seconds), 0) FROM tournament_games"
                                " WHERE status = 'finished'").fetchone()
    conn.close()
    return int(n), float(total)


def _config(out: Path, games: int, years: int):  # type: ignore[no-untyped-def]
    from tournament.config import TournamentConfig, parse_bots

    return TournamentConfig(bots=parse_bots("dumbbot"), games=games, seed=1, parallel=2,
                            year_limit=years, out=out)


def run_local(out: Path, games: int, years: int) -> Figures:
    import trio

    from tournament.runner import run_tournament

    config = _config(out, games, years)
    began = time.monotonic()
    run = trio.run(run_tournament, config)
    wall = time.monotonic() - began
    assert run.complete, "the local run did not finish every game"
    n, seconds = _game_seconds(config.db_path)
    return Figures(n, wall, seconds, 2)


def run_ray(out: Path, games: int, years: int) -> tuple[Figures, float]:
    """(figures of the play, seconds Ray took to start)."""
    from tournament.cluster import connected, require_ray, run_tournament_ray

    # The local Ray `daide tournament --ray` starts, on the loopback only
    # (tournament.cluster.LOOPBACK_ENV), started here to time its start apart.
    ray = require_ray(None)
    config = _config(out, games, years)
    began = time.monotonic()
    with connected(ray, None, 2):
        started = time.monotonic() - began
        began = time.monotonic()
        run = run_tournament_ray(config, None, on_progress=lambda p: None)
        wall = time.monotonic() - began
    assert run is not None and run.complete, "the Ray run did not finish every game"
    n, seconds = _game_seconds(config.db_path)
    return Figures(n, wall, seconds, 2), started


def _line(label: str, f: Figures) -> str:
    return (f"  {label:<22} {f.per_minute:6.1f} games/min  ({f.games} games in {f.wall:6.1f} s;"
            f" mean game {f.game_seconds / f.games:5.2f} s; per-game overhead"
            f" {f.overhead * 1000:5.0f} ms)")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks tournament")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--year-limit", type=int, default=10)
    args, _names = parser.parse_known_args(sys.argv[1:])
    from tournament.cluster import ClusterError, require_ray

    try:
        require_ray(None)  # imported as for the local Ray of the run: on the loopback
    except ClusterError:
        print("  Ray is not installed: pip install -e '.[cluster]'")
        return 1
    from server.logconfig import configure_logging

    print(f"{args.games} games of seven DumbBots to the end of {1900 + args.year_limit}, "
          "two at a time", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with (root / "bench.log").open("w") as log:
            configure_logging(log, json=True, level=logging.WARNING)
            local = run_local(root / "local", args.games, args.year_limit)
            print(_line("local --parallel 2", local), flush=True)
            on_ray, started = run_ray(root / "ray", args.games, args.year_limit)
            print(_line("Ray, 2 workers", on_ray) + f"  + Ray start {started:.1f} s", flush=True)
    share = on_ray.per_minute / local.per_minute
    print(f"  Ray / local: {share * 100:.0f} % of the local rate (target >= 90 %: "
          f"{'met' if share >= 0.9 else 'MISSED'}); Ray's per-game overhead "
          f"{on_ray.overhead * 1000:.0f} ms = {on_ray.overhead * 100 / (on_ray.game_seconds / on_ray.games):.1f} "
          "% of a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
