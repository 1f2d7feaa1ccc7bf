"""Simultaneous-move search: regret matching over a few candidate order sets
per power, anchored to a prior.

One movement phase is a game in which every power picks one of its
candidate order sets at the same time.  `solve` plays sampled regret
matching (RM+, the method the strongest no-press search bots use, here
with no neural network): each iteration every power's current strategy is
its positive regrets, normalised; one joint choice is drawn, each power's
draw mixed with its *prior* (``anchor``: the share of the draw that comes
from the prior - for the others, what the opponent models and beliefs of
`bots.opponents` predict, so the search does not assume they play an
equilibrium either); then for every power and every one of its candidates,
the joint choice with that candidate swapped in is adjudicated and valued
for that power (`payoff`), and each candidate's regret grows by how much
better it would have done than the current strategy.  The average
strategies, and each candidate's mean value against the others' draws, are
returned.

`payoff` is given a tuple of candidate indices (one per power, in the
order of ``powers``) and returns every power's value of the adjudicated
position, or None when the budget is spent; results are cached per joint
choice.  Nothing here knows about Diplomacy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Joint = tuple[int, ...]
Payoff = Callable[[Joint], "Sequence[float] | None"]


@dataclass
class Solution:
    """What regret matching found."""

    average: list[list[float]]
    """Per power, the average strategy over its candidates (sums to 1)."""
    values: list[list[float]]
    """Per power, each candidate's mean value against the others' draws."""
    iterations: int
    """Complete iterations played."""


def _regret_strategy(regrets: list[float]) -> list[float]:
    positive = [r if r > 0 else 0.0 for r in regrets]
    total = sum(positive)
    if total <= 0:
        return [1.0 / len(regrets)] * len(regrets)
    return [r / total for r in positive]


def draw(weights: Sequence[float], rng: random.Random) -> int:
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


def mix(prior: Sequence[float], strategy: Sequence[float], anchor: float) -> list[float]:
    """``anchor`` of the prior and the rest of the strategy."""
    return [anchor * p + (1 - anchor) * s for p, s in zip(prior, strategy, strict=True)]


def solve(sizes: Sequence[int], priors: Sequence[Sequence[float]], anchors: Sequence[float],
          payoff: Payoff, rng: random.Random, max_iterations: int,
          keep_going: Callable[[], bool] = lambda: True) -> Solution:
    """Sampled RM+ over ``sizes[p]`` candidates per power (see the module doc).

    Stops after `max_iterations`, when `keep_going` says no, or when `payoff`
    returns None (the iteration it happened in is not counted).
    """
    n = len(sizes)
    regrets = [[0.0] * k for k in sizes]
    average = [[0.0] * k for k in sizes]
    totals = [[0.0] * k for k in sizes]
    counts = [[0] * k for k in sizes]
    cache: dict[Joint, Sequence[float]] = {}
    done = 0

    def value(joint: Joint) -> Sequence[float] | None:
        found = cache.get(joint)
        if found is None:
            got = payoff(joint)
            if got is None:
                return None
            found = cache[joint] = got
        return found

    while done < max_iterations and keep_going():
        strategies = [_regret_strategy(r) for r in regrets]
        joint = tuple(draw(mix(priors[p], strategies[p], anchors[p]), rng) for p in range(n))
        gains: list[list[float]] = []
        for p in range(n):
            row = []
            for k in range(sizes[p]):
                got = value(joint[:p] + (k,) + joint[p + 1:])
                if got is None:
                    return _solution(average, totals, counts, done, priors)
                row.append(got[p])
            gains.append(row)
        done += 1
        for p in range(n):
            row = gains[p]
            expected = sum(s * v for s, v in zip(strategies[p], row, strict=True))
            for k, v in enumerate(row):
                # RM+: regrets never go below zero; later iterations weigh more
                regrets[p][k] = max(0.0, regrets[p][k] + v - expected)
                average[p][k] += done * strategies[p][k]
                totals[p][k] += v
                counts[p][k] += 1
    return _solution(average, totals, counts, done, priors)


def _solution(average: list[list[float]], totals: list[list[float]], counts: list[list[int]],
              done: int, priors: Sequence[Sequence[float]]) -> Solution:
    norm = []
    for p, row in enumerate(average):
        total = sum(row)
        norm.append([a / total for a in row] if total > 0 else list(priors[p]))
    values = [[t / c if c else float("-inf") for t, c in zip(tr, cr, strict=True)]
              for tr, cr in zip(totals, counts, strict=True)]
    return Solution(norm, values, done)


__all__ = ["Solution", "draw", "mix", "solve"]
