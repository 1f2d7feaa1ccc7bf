"""How strong is LookaheadBot?  One copy against fields of sample bots.

Games are played in process, straight through the adjudicator
(`bots.local.play_game`: the same order validation and phase generators as
over TCP; tests/test_bots_server.py checks that such a game equals the same
game played on the server).  Fields:

* ``dumbbot`` - one LookaheadBot against six DumbBots;
* ``randbot`` - one LookaheadBot against six RandBots;
* ``mixed``   - one LookaheadBot, three DumbBots and three RandBots (the
  others' seats dealt by the game's seed).

Game ``g`` (from 0) seats LookaheadBot on power ``g mod 7``, so every power
is played in turn, with seed ``g``.  The *reference* of each game is the same
game (same seed, same field) with a DumbBot in LookaheadBot's seat - what
DumbBot itself scores there.  Scores are sum of squares
(`tournament.scoring`); intervals are bootstrap intervals over games
(`tournament.stats`): the mean per seat, and the head-to-head difference
per game between LookaheadBot and the mean of the field's DumbBots (or
RandBots).  Centre counts are kept at the end of every year, for the plot.

Run the full benchmark (the figures of docs/bots.md)::

    nice -n 10 python -m benchmarks.strength --games 70 --last-year 1920 \\
        --budget 1000it --jobs 2 --svg docs/bots-centres.svg

``python -m benchmarks bots`` plays a small version (`small`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bots.budget import Budget
from bots.dumbbot import DumbBot
from bots.local import play_game
from bots.lookahead import LookaheadBot
from bots.randbot import RandBot
from bots.strategy import Strategy
from engine.variants import standard_map
from tournament.plots import centre_chart
from tournament.scoring import SYSTEMS
from tournament.stats import (
    HeadToHead,
    Interval,
    ScoredGame,
    head_to_head,
    ratio_interval,
    result_of,
)

HERO = "lookahead"
FIELDS: dict[str, tuple[str, ...]] = {
    "dumbbot": ("dumbbot",) * 6,
    "randbot": ("randbot",) * 6,
    "mixed": ("dumbbot",) * 3 + ("randbot",) * 3,
}
FIRST_YEAR = 1901
SOS = SYSTEMS["sos"]


@dataclass(frozen=True)
class StrengthGame:
    """One game: who sat where, the end, centres by year, the hero's search times."""

    field: str
    game: int
    hero_is_lookahead: bool
    lineup: tuple[tuple[str, str], ...]
    centres: tuple[tuple[str, int], ...]
    units: tuple[tuple[str, int], ...]
    winner: str | None
    by_year: tuple[tuple[int, tuple[tuple[str, int], ...]], ...]
    """(year, centres per power at the end of that year); year FIRST_YEAR - 1 = start."""
    phase_seconds: tuple[float, ...]
    phase_iterations: tuple[int, ...]
    last_year: int
    """The year of the last phase played (the solo's year, for a solo)."""

    @property
    def seat(self) -> str:
        return next(p for p, b in self.lineup if b == HERO or (b == "dumbbot*"))

    def scored(self) -> ScoredGame:
        result = result_of(dict(self.centres), dict(self.units), self.winner)
        return ScoredGame(self.game, self.lineup, result)


def _make(kind: str, budget: Budget) -> Strategy:
    if kind == HERO:
        return LookaheadBot(budget)
    return DumbBot() if kind.startswith("dumbbot") else RandBot()


def lineup_of(field: str, game: int, powers: Sequence[str], hero: str = HERO
              ) -> tuple[tuple[str, str], ...]:
    """Seats of one game: the hero on power ``game mod 7``, the field dealt by seed."""
    seat = powers[game % len(powers)]
    others = list(FIELDS[field])
    random.Random(f"strength/{field}/{game}").shuffle(others)
    seats = {seat: hero}
    for power in powers:
        if power != seat:
            seats[power] = others.pop()
    return tuple(sorted(seats.items()))


def play_one(task: tuple[str, int, bool, int, str]) -> StrengthGame:
    """Play one game (a picklable task for the worker pool)."""
    field, game, lookahead, last_year, budget_text = task
    m = standard_map()
    budget = Budget.parse(budget_text)
    lineup = lineup_of(field, game, m.powers, HERO if lookahead else "dumbbot*")
    players = {p: _make(b, budget) for p, b in lineup}
    by_year: list[tuple[int, tuple[tuple[str, int], ...]]] = []
    played = [FIRST_YEAR]

    def on_phase(state) -> None:  # type: ignore[no-untyped-def]
        played[0] = state.phase.year
        if state.phase.season == "SPR":
            counts = state.centre_counts()
            by_year.append((state.phase.year - 1,
                            tuple((p, counts.get(p, 0)) for p in m.powers)))

    result = play_game(m, players, seed=game, max_year=last_year, on_phase=on_phase)
    counts = result.centre_counts()
    final = tuple((p, counts.get(p, 0)) for p in m.powers)
    last = by_year[-1][0] if by_year else FIRST_YEAR - 1
    for year in range(last + 1, last_year + 1):
        by_year.append((year, final))
    units = {p: len(result.state.units_of(p)) for p in m.powers}
    hero = next((s for s in players.values() if isinstance(s, LookaheadBot)), None)
    reports = hero.reports if hero is not None else []
    return StrengthGame(field, game, lookahead, lineup, final, tuple(sorted(units.items())),
                      result.winner, tuple(by_year),
                      tuple(r.seconds for r in reports), tuple(r.iterations for r in reports),
                      played[0])


def play_all(tasks: Sequence[tuple[str, int, bool, int, str]], jobs: int,
             progress: Callable[[StrengthGame], None] | None = None) -> list[StrengthGame]:
    """Every task, on `jobs` worker processes; results in task order."""
    out: list[StrengthGame] = []
    if jobs <= 1:
        for task in tasks:
            record = play_one(task)
            out.append(record)
            if progress:
                progress(record)
        return out
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for record in pool.imap(play_one, tasks):
            out.append(record)
            if progress:
                progress(record)
    return out


@dataclass(frozen=True)
class FieldSummary:
    field: str
    games: int
    hero: Interval
    """LookaheadBot's mean sum-of-squares score."""
    rivals: Interval
    """Mean score per seat of the field's bots of the first kind (DumbBot or RandBot)."""
    rival_kind: str
    reference: Interval
    """DumbBot's mean score in LookaheadBot's seat, in the same games otherwise."""
    duel: HeadToHead
    solos: int
    solo_year: float | None
    """Mean year of LookaheadBot's solos."""
    reference_solos: int
    reference_solo_year: float | None
    hero_centres: float
    reference_centres: float


def summarise(field: str, records: Sequence[StrengthGame], references: Sequence[StrengthGame],
              resamples: int = 2000) -> FieldSummary:
    rng = random.Random(f"strength/{field}/bootstrap")
    games = [r.scored() for r in records]
    rival = FIELDS[field][0]

    def clusters(gs: Sequence[ScoredGame], bot: str) -> list[tuple[float, int]]:
        out = []
        for g in gs:
            seats = g.seats_of(bot)
            if seats:
                scores = g.scores(SOS)
                out.append((sum(scores[p] for p in seats), len(seats)))
        return out

    refs = [r.scored() for r in references]
    duel = head_to_head(games, [HERO, rival], SOS, seed=0, resamples=resamples)[0]
    return FieldSummary(
        field=field, games=len(games),
        hero=ratio_interval(clusters(games, HERO), rng, resamples, 0.95),
        rivals=ratio_interval(clusters(games, rival), rng, resamples, 0.95),
        rival_kind=rival,
        reference=ratio_interval(clusters(refs, "dumbbot*"), rng, resamples, 0.95),
        duel=duel,
        solos=sum(1 for r in records if r.winner == r.seat),
        solo_year=_mean([r.last_year for r in records if r.winner == r.seat]),
        reference_solos=sum(1 for r in references if r.winner == r.seat),
        reference_solo_year=_mean([r.last_year for r in references if r.winner == r.seat]),
        hero_centres=sum(dict(r.centres)[r.seat] for r in records) / len(records),
        reference_centres=sum(dict(r.centres)[r.seat] for r in references) / len(references))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _solos(count: int, games: int, year: float | None) -> str:
    return f"solos {count}/{games}" + (f" (mean year {year:.1f})" if year is not None else "")


def centres_by_year(records: Sequence[StrengthGame], who: Callable[[StrengthGame, str], bool]
                    ) -> list[tuple[int, float]]:
    """Mean centres per seat at the end of each year, over the seats `who` picks."""
    sums: dict[int, list[int]] = {}
    for record in records:
        for year, counts in record.by_year:
            for power, n in counts:
                if who(record, power):
                    sums.setdefault(year, []).append(n)
    return [(year, sum(v) / len(v)) for year, v in sorted(sums.items())]


def year_table(records: Sequence[StrengthGame], references: Sequence[StrengthGame]
               ) -> list[tuple[int, float, float, float]]:
    """(year, LookaheadBot, its DumbBot rivals, DumbBot in its seat): mean centres."""
    columns = (centres_by_year(records, lambda r, p: p == r.seat),
               centres_by_year(records, lambda r, p: p != r.seat),
               centres_by_year(references, lambda r, p: p == r.seat))
    return [(year, la, db, ref) for (year, la), (_, db), (_, ref) in zip(*columns, strict=True)]


def centre_plot(table: Sequence[tuple[int, float, float, float]], games: int) -> str:
    """SVG of `year_table`: one line per column (`tournament.plots.centre_chart`)."""
    history = []
    first, last = table[0][0], table[-1][0]
    for year, la, db, ref in table:
        # centre_chart marks the x axis at spring entries: every fourth year.
        season = "SPR" if (year - first) % 4 == 0 or year == last else "FAL"
        history.append((f"{season} {year}", {"1": la, "2": db, "3": ref}))
    players = {"1": "LookaheadBot", "2": "rival DumbBots", "3": "DumbBot in seat"}
    svg = centre_chart(history, players,  # type: ignore[arg-type]
                       title=f"Mean centres by year, 1 LookaheadBot vs 6 DumbBots "
                             f"({games} games)")
    return svg.replace("phase (years marked at spring)", "year (centres at its end)")


def phase_times(records: Sequence[StrengthGame]) -> dict[str, float]:
    seconds = sorted(s for r in records for s in r.phase_seconds)
    iterations = [i for r in records for i in r.phase_iterations]
    if not seconds:
        return {"phases": 0}
    return {"phases": len(seconds), "mean": sum(seconds) / len(seconds),
            "p95": seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
            "max": seconds[-1], "iterations": sum(iterations) / len(iterations)}


def report_lines(summary: FieldSummary) -> list[str]:
    s = summary
    d = s.duel.difference
    ratio_rivals = s.hero.mean / s.rivals.mean if s.rivals.mean > 0 else float("inf")
    ratio_ref = s.hero.mean / s.reference.mean if s.reference.mean > 0 else float("inf")
    return [
        f"field {s.field}: {s.games} games",
        f"  LookaheadBot  mean SoS {s.hero.mean:6.1f}  [{s.hero.low:.1f}, {s.hero.high:.1f}]"
        f"  {_solos(s.solos, s.games, s.solo_year)}  mean final centres {s.hero_centres:.1f}",
        f"  {s.rival_kind:<12}  mean SoS {s.rivals.mean:6.1f}  [{s.rivals.low:.1f}, "
        f"{s.rivals.high:.1f}]  (per seat, same games)   ratio {ratio_rivals:.1f}x",
        f"  DumbBot in LookaheadBot's seat (reference games): mean SoS {s.reference.mean:.1f}"
        f"  [{s.reference.low:.1f}, {s.reference.high:.1f}]  mean final centres "
        f"{s.reference_centres:.1f}  "
        f"{_solos(s.reference_solos, s.games, s.reference_solo_year)}   ratio {ratio_ref:.1f}x",
        f"  head-to-head LookaheadBot - {s.rival_kind} per game: {d.mean:+.1f}"
        f"  95 % [{d.low:+.1f}, {d.high:+.1f}]  better in {s.duel.first_better}/"
        f"{s.duel.games}" + ("  (excludes 0)" if d.excludes(0.0) else "  (includes 0)"),
    ]


def run(fields: Sequence[str], games: int, last_year: int, budget: str, jobs: int,
        svg: str | None = None, echo: Callable[[str], None] = print,
        progress: bool = False) -> dict[str, FieldSummary]:
    started = time.perf_counter()
    out: dict[str, FieldSummary] = {}
    count = {"done": 0}

    def tick(record: StrengthGame) -> None:
        count["done"] += 1
        if progress:
            echo(f"  [{count['done']}/{2 * games}] {record.field} game {record.game} "
                 f"{'LA' if record.hero_is_lookahead else 'ref'} {record.seat} "
                 f"{dict(record.centres)[record.seat]} centres"
                 + (f", solo {record.winner}" if record.winner else ""))

    for field in fields:
        # One field after the other, each summarised as soon as it is played.
        count["done"] = 0
        tasks = [(field, g, lookahead, last_year, budget)
                 for lookahead in (True, False) for g in range(games)]
        records = play_all(tasks, jobs, tick)
        heroes = [r for r in records if r.field == field and r.hero_is_lookahead]
        refs = [r for r in records if r.field == field and not r.hero_is_lookahead]
        out[field] = summary = summarise(field, heroes, refs)
        for line in report_lines(summary):
            echo(line)
        t = phase_times(heroes)
        if t["phases"]:
            echo(f"  LookaheadBot CPU per phase ({budget}): mean {t['mean'] * 1000:.0f} ms, "
                 f"p95 {t['p95'] * 1000:.0f} ms, max {t['max'] * 1000:.0f} ms over "
                 f"{t['phases']:.0f} phases; {t['iterations']:.0f} adjudications per phase")
        if svg and field == "dumbbot":
            table = year_table(heroes, refs)
            with open(svg, "w", encoding="utf-8") as f:
                f.write(centre_plot(table, len(heroes)))
            echo(f"  centre plot written to {svg}")
            for year, la, db, ref in table:
                echo(f"    {year}: LookaheadBot {la:5.2f}  its DumbBots {db:5.2f}  "
                     f"DumbBot in the seat {ref:5.2f}")
    echo(f"  ({time.perf_counter() - started:.0f} s wall, {jobs} job(s))")
    return out


def small(echo: Callable[[str], None] = print) -> None:
    """The `python -m benchmarks bots` version: 14 games to 1910 against DumbBots."""
    echo("LookaheadBot (budget 600it) vs 6 DumbBots, 14 games to 1910, "
         "each power twice; reference: DumbBot in its seat")
    run(["dumbbot"], games=14, last_year=1910, budget="600it", jobs=1, echo=echo)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.strength",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--fields", default="dumbbot,randbot,mixed")
    parser.add_argument("--games", type=int, default=70)
    parser.add_argument("--last-year", type=int, default=1920)
    parser.add_argument("--budget", default="1000it")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--svg", default=None, help="write the centre plot here")
    args = parser.parse_args(argv)
    fields = [f for f in args.fields.split(",") if f]
    for field in fields:
        if field not in FIELDS:
            parser.error(f"unknown field {field!r}: {', '.join(FIELDS)}")
    Budget.parse(args.budget)
    print(f"LookaheadBot budget {args.budget}; {args.games} games per field to "
          f"{args.last_year}; sum-of-squares scores, 95 % bootstrap intervals", flush=True)
    run(fields, args.games, args.last_year, args.budget, args.jobs, args.svg,
        echo=lambda line: print(line, flush=True), progress=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
