"""Per-bot means with confidence intervals, per-power breakdown, head-to-head.

The unit of sampling is the *game*: the seven scores of one game are not
independent (most systems are zero-sum), and with fewer than seven bots one
bot holds several seats of the same game.  So every interval here is a
cluster bootstrap: resample whole games with replacement (``resamples``
times, from a generator seeded with the tournament seed, so a report is
reproducible), recompute the statistic, and take the 2.5th and 97.5th
percentiles (for the default 95 % level).

* A bot's mean is its total score over its total seats (a ratio estimator:
  a bot with three seats in a game weighs that game three times).
* The course of each (bot, power) - mean centres at the end of each year and
  how many of its seats were eliminated - shows where a bot collapses, which
  a mean score hides (`courses`).
* Head-to-head compares two bots in the games both played: per game, the
  mean score of A's seats against the mean of B's seats - who did better,
  how often, and the mean difference with its interval.  An interval that
  excludes 0 is the report's "better with 95 % confidence".
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournament.scoring import GameResult, Scores, ScoringSystem
from tournament.store import StoredGame

DEFAULT_RESAMPLES = 2000
DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class ScoredGame:
    """A finished game of the tournament: who sat where, and how it ended."""

    number: int
    lineup: tuple[tuple[str, str], ...]
    """(power, bot) for every power."""
    result: GameResult

    def scores(self, system: ScoringSystem) -> Scores:
        return system.score(self.result)

    def seats_of(self, bot: str) -> tuple[str, ...]:
        return tuple(p for p, b in self.lineup if b == bot)

    def bot_mean(self, bot: str, scores: Scores) -> float:
        seats = self.seats_of(bot)
        return sum(scores[p] for p in seats) / len(seats)


@dataclass(frozen=True)
class Interval:
    """A point estimate and its bootstrap interval."""

    mean: float
    low: float
    high: float

    def excludes(self, value: float) -> bool:
        return value < self.low or value > self.high


@dataclass(frozen=True)
class BotSummary:
    """One bot over the whole tournament, under one scoring system."""

    bot: str
    games: int
    seats: int
    score: Interval
    solos: int
    """Seats that won outright."""
    draws: int
    """Seats in a shared result (a draw among survivors)."""
    losses: int
    """Seats outside the result (eliminated, or beaten by someone's solo)."""
    mean_centres: float


@dataclass(frozen=True)
class HeadToHead:
    """Bot ``first`` against bot ``second`` in the games both played."""

    first: str
    second: str
    games: int
    first_better: int
    equal: int
    second_better: int
    difference: Interval
    """Mean of (first's per-game mean score - second's)."""


def percentile_interval(estimate: float, samples: list[float], level: float) -> Interval:
    """``estimate`` with the percentile interval of the bootstrap ``samples``."""
    if not samples:
        return Interval(estimate, estimate, estimate)
    ordered = sorted(samples)
    tail = (1.0 - level) / 2.0
    low = ordered[max(0, math.floor(tail * len(ordered)))]
    high = ordered[min(len(ordered) - 1, math.ceil((1.0 - tail) * len(ordered)) - 1)]
    return Interval(estimate, min(low, estimate), max(high, estimate))


def ratio_interval(totals: Sequence[tuple[float, int]], rng: random.Random,
                   resamples: int, level: float) -> Interval:
    """Bootstrap interval of sum(total) / sum(count) over clusters ``(total, count)``."""
    n = len(totals)
    estimate = sum(t for t, _ in totals) / sum(c for _, c in totals)
    if n < 2:
        return Interval(estimate, estimate, estimate)
    samples = []
    for _ in range(resamples):
        picks = rng.choices(totals, k=n)
        samples.append(sum(t for t, _ in picks) / sum(c for _, c in picks))
    return percentile_interval(estimate, samples, level)


def bot_summaries(games: Sequence[ScoredGame], bots: Sequence[str], system: ScoringSystem, *,
                  seed: int = 0, resamples: int = DEFAULT_RESAMPLES,
                  level: float = DEFAULT_LEVEL) -> list[BotSummary]:
    """Every bot that played, best mean first (ties by name)."""
    rng = random.Random(f"tournament/{seed}/bootstrap/{system.key}")
    scored = [(g, g.scores(system)) for g in games]
    out = []
    for bot in bots:
        clusters: list[tuple[float, int]] = []
        solos = draws = losses = centres = 0
        for game, scores in scored:
            seats = game.seats_of(bot)
            if not seats:
                continue
            clusters.append((sum(scores[p] for p in seats), len(seats)))
            shared = game.result.draw_powers
            for power in seats:
                centres += game.result.count(power)
                if power not in shared:
                    losses += 1
                elif game.result.winner:
                    solos += 1
                else:
                    draws += 1
        if not clusters:
            continue
        seats_total = sum(c for _, c in clusters)
        out.append(BotSummary(bot, len(clusters), seats_total,
                              ratio_interval(clusters, rng, resamples, level),
                              solos, draws, losses, centres / seats_total))
    return sorted(out, key=lambda s: (-round(s.score.mean, 9), s.bot))


def per_power(games: Sequence[ScoredGame], system: ScoringSystem
              ) -> dict[tuple[str, str], tuple[int, float]]:
    """(bot, power) -> (seats, mean score) over the games played."""
    sums: dict[tuple[str, str], list[float]] = {}
    for game in games:
        scores = game.scores(system)
        for power, bot in game.lineup:
            sums.setdefault((bot, power), []).append(scores[power])
    return {key: (len(v), sum(v) / len(v)) for key, v in sums.items()}


@dataclass(frozen=True)
class PowerCourse:
    """How one bot fared with one power over the finished games."""

    seats: int
    eliminated: int
    """Seats that did not survive (no centre and no unit left at the end)."""
    centres: Mapping[int, float]
    """Year -> mean centres once that year is over; a game over sooner counts
    with its final centres (a power eliminated then, with none)."""


def courses(games: Sequence[StoredGame]) -> dict[tuple[str, str], PowerCourse]:
    """(bot, power) -> its `PowerCourse`, over the finished games with a history
    (the centre counts at the start of every phase)."""
    finished = [g for g in games if g.status == "finished" and g.history]
    ends = [_year_ends(g.history) for g in finished]
    years = sorted({year for end in ends for year in end})
    # (bot, power) -> per seat: its centres after each of `years`, and whether it survived
    seats: dict[tuple[str, str], list[tuple[list[int], bool]]] = {}
    for game, at_end in zip(finished, ends, strict=True):
        last = game.history[-1][1]
        for seat in game.seats:
            centres = [at_end.get(year, last).get(seat.power, 0) for year in years]
            seats.setdefault((seat.bot, seat.power), []).append((centres, seat.survived))
    return {key: PowerCourse(len(rows), sum(not survived for _, survived in rows),
                             {y: sum(c[i] for c, _ in rows) / len(rows)
                              for i, y in enumerate(years)})
            for key, rows in seats.items()}


def _year_ends(history: Sequence[tuple[str, Mapping[str, int]]]
               ) -> dict[int, Mapping[str, int]]:
    """Year -> the centre counts once that year is over, from a history whose turns
    are named as the server names them (``WIN 1901``).  Centres change hands at the
    end of the autumn, so the counts of a winter turn are its year's, and those of
    any other turn the year before's (a year with no adjustment has no winter turn:
    the next spring shows it).  The starting position is no year's end."""
    first = int(history[0][0].rsplit(" ", 1)[-1])
    out: dict[int, Mapping[str, int]] = {}
    for turn, counts in history:
        season, _, year = turn.rpartition(" ")
        over = int(year) if season == "WIN" else int(year) - 1
        if over >= first:
            out[over] = counts
    return out


def head_to_head(games: Sequence[ScoredGame], bots: Sequence[str], system: ScoringSystem, *,
                 seed: int = 0, resamples: int = DEFAULT_RESAMPLES,
                 level: float = DEFAULT_LEVEL) -> list[HeadToHead]:
    """Every pair of ``bots`` (in the given order, first before second) that met."""
    rng = random.Random(f"tournament/{seed}/h2h/{system.key}")
    scored = [(g, g.scores(system)) for g in games]
    out = []
    for i, first in enumerate(bots):
        for second in bots[i + 1:]:
            diffs = [g.bot_mean(first, s) - g.bot_mean(second, s) for g, s in scored
                     if g.seats_of(first) and g.seats_of(second)]
            if not diffs:
                continue
            estimate = sum(diffs) / len(diffs)
            samples = []
            if len(diffs) > 1:
                for _ in range(resamples):
                    picks = rng.choices(diffs, k=len(diffs))
                    samples.append(sum(picks) / len(picks))
            out.append(HeadToHead(
                first, second, len(diffs),
                first_better=sum(1 for d in diffs if d > 1e-9),
                equal=sum(1 for d in diffs if abs(d) <= 1e-9),
                second_better=sum(1 for d in diffs if d < -1e-9),
                difference=percentile_interval(estimate, samples, level)))
    return out


def result_of(centres: Mapping[str, int], units: Mapping[str, int],
              winner: str | None) -> GameResult:
    """A `GameResult` from final centre and unit counts (survivor = centre or unit)."""
    survivors = {p for p in centres if centres[p] > 0 or units.get(p, 0) > 0}
    survivors |= {p for p, n in units.items() if n > 0}
    return GameResult.of(centres, survivors, winner)
