"""The seating plan: which bot plays which power in which game.

The design is cyclic, like a Latin square.  With ``m`` bots, shuffle the
bots once with the tournament's seed; game ``g`` has an offset ``o(g)``
and seats at power slot ``p`` (``0 <= p < 7``) the bot

    bots[(o(g) + p) mod m].

A *cycle* is ``m`` games whose offsets are ``0 .. m-1`` (in a seeded
order), and each cycle deals the powers to the slots anew (a seeded
shuffle).  Dealing them once for the whole tournament would tie the
powers together for good: with two bots, one bot would always hold the
same four powers and the other the same three, so a tournament measured
two line-ups however many games it played, and which two the seed picked
moved the result by more than its interval (against Project20M, one
line-up +16.8 points per seat, its complement -12.4).  Within one cycle
each power slot sees every bot exactly once, so:

* when ``m`` divides ``N`` every bot plays every power exactly ``N / m``
  times, and plays ``7N / m`` seats in all (with fewer than seven bots a
  bot sits at several powers of the same game - e.g. three bots take
  3/2/2 seats - and the cycle rotates who gets the extra seat);
* otherwise the ``r = N mod m`` games left over after the full cycles use
  ``r`` *distinct* offsets spread evenly round the cycle
  (``start + floor(i m / r)``, ``start`` seeded).  Distinct offsets keep
  every (bot, power) count within one of every other (these games share
  one dealing of the powers); spreading them keeps the bots' seat totals
  as even as the numbers allow.

The report prints the resulting bot x power table, so the balance actually
achieved is always visible.  Full cycles come first, so a tournament cut
short is still balanced up to its last complete cycle.

Each game also gets its own seed, derived from the tournament's seed and
the game's number, which the bots' order generators use
(`bots.strategy.phase_rng`): the same tournament seed replays the same games.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from tournament.config import STANDARD_POWERS


@dataclass(frozen=True)
class GamePlan:
    """One game of the plan: its number (from 1), seed and seats in power order."""

    number: int
    seed: int
    seats: tuple[tuple[str, str], ...]
    """(power, bot name) for every power, sorted by power."""

    @property
    def lineup(self) -> dict[str, str]:
        """power -> bot name."""
        return dict(self.seats)


def game_seed(seed: int, number: int) -> int:
    """The seed of game ``number``: a stable hash of the tournament seed and the number."""
    digest = hashlib.sha256(f"tournament/{seed}/game/{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000_000


def offsets(bots: int, games: int, rng: random.Random) -> Iterator[list[int]]:
    """The cycle offsets of each game, cycle by cycle (the last one partial when
    `bots` does not divide `games`; see the module docstring).  Lazily: the
    caller draws each cycle's dealing from `rng` in between, so the first cycles
    of a longer tournament are those of a shorter one with the same seed."""
    for _ in range(games // bots):
        cycle = list(range(bots))
        rng.shuffle(cycle)
        yield cycle
    rest = games % bots
    if rest:
        start = rng.randrange(bots)
        tail = [(start + (i * bots) // rest) % bots for i in range(rest)]
        rng.shuffle(tail)
        yield tail


def schedule(bots: Sequence[str], games: int, seed: int,
             powers: Sequence[str] = STANDARD_POWERS) -> tuple[GamePlan, ...]:
    """The whole plan: ``games`` games for ``bots`` (names, in any order)."""
    if not bots:
        raise ValueError("no bots")
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    rng = random.Random(f"tournament/{seed}/design")
    order = list(bots)
    rng.shuffle(order)
    m = len(order)
    plans: list[GamePlan] = []
    for cycle in offsets(m, games, rng):
        slots = list(powers)
        rng.shuffle(slots)          # a new dealing of the powers every cycle
        for offset in cycle:
            seats = {power: order[(offset + p) % m] for p, power in enumerate(slots)}
            number = len(plans) + 1
            plans.append(GamePlan(number, game_seed(seed, number),
                                  tuple(sorted(seats.items()))))
    return tuple(plans)


def seat_counts(plans: Sequence[GamePlan]) -> Counter[tuple[str, str]]:
    """How often each (bot, power) pair occurs in ``plans``."""
    return Counter((bot, power) for plan in plans for power, bot in plan.seats)


def balance(plans: Sequence[GamePlan], bots: Sequence[str],
            powers: Sequence[str] = STANDARD_POWERS) -> Mapping[str, int]:
    """The spread of the design: ``pair`` = max - min (bot, power) count, ``seats`` = of totals."""
    counts = seat_counts(plans)
    pairs = [counts[(b, p)] for b in bots for p in powers]
    totals = [sum(counts[(b, p)] for p in powers) for b in bots]
    return {"pair": max(pairs) - min(pairs), "seats": max(totals) - min(totals)}
