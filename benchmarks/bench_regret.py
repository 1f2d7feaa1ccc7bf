"""RegretBot's CPU per phase at its default budget (issue 30: median and 95th
percentile, within the 1 s budget).

Plays RegretBot in process (`bots.local.play_game`, the same validation and
phase generators as over TCP) on one seat of the standard map against a
mixed field - two LookaheadBots, two DumbBots, a RandBot and a HoldBot,
dealt by the game's seed - seat ``g mod 7`` in game ``g``, to 1905, and
reads the CPU seconds of every phase's search from `RegretBot.reports`
(`time.process_time`, as the budget counts it).  Prints the median, the
95th percentile and the maximum per phase kind and over all phases, and the
share of phases the budget cut short.

    python -m benchmarks regret [--games N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from bots.dumbbot import DumbBot
from bots.holdbot import HoldBot
from bots.local import play_game
from bots.lookahead import LookaheadBot
from bots.randbot import RandBot
from bots.regret import RegretBot, RegretReport
from bots.strategy import Strategy
from engine.variants import standard_map

LAST_YEAR = 1905


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def play(games: int) -> list[RegretReport]:
    game_map = standard_map()
    reports: list[RegretReport] = []
    for g in range(games):
        field: list[Strategy] = [LookaheadBot(), LookaheadBot(), DumbBot(), DumbBot(),
                                 RandBot(), HoldBot()]
        random.Random(f"bench_regret/{g}").shuffle(field)
        hero = RegretBot()
        hero_power = game_map.powers[g % len(game_map.powers)]
        players: dict[str, Strategy] = {}
        for power in game_map.powers:
            players[power] = hero if power == hero_power else field.pop()
        game = play_game(game_map, players, seed=g, max_year=LAST_YEAR)
        if game.rejections:
            raise RuntimeError(f"game {g}: refused orders {game.rejections[:3]}")
        reports.extend(hero.reports)
    return reports


def _line(label: str, reports: list[RegretReport]) -> str:
    seconds = [r.seconds for r in reports]
    cut = sum(1 for r in reports if r.stopped is not None)
    return (f"{label:<11} {len(seconds):>5} phases  median {statistics.median(seconds) * 1000:6.0f} ms"
            f"  p95 {_percentile(seconds, 0.95) * 1000:6.0f} ms"
            f"  max {max(seconds) * 1000:6.0f} ms"
            f"  adjudications {statistics.mean(r.iterations for r in reports):6.0f}"
            f"  cut by the budget {cut}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks regret")
    parser.add_argument("--games", type=int, default=3)
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    reports = play(args.games)
    budget = RegretBot().budget
    print(f"RegretBot, default budget {budget}, {args.games} game(s) to {LAST_YEAR}, "
          "one seat against LookaheadBots, DumbBots, a RandBot and a HoldBot:")
    for kind in ("movement", "retreat", "adjustment"):
        of_kind = [r for r in reports if r.kind == kind]
        if of_kind:
            print("  " + _line(kind, of_kind))
    print("  " + _line("all", reports))
    worst = max(r.seconds for r in reports)
    limit = budget.seconds
    if limit is not None:
        within = "within" if worst <= limit else "OVER"
        print(f"  slowest phase {worst:.3f} s: {within} the {limit:g} s budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
