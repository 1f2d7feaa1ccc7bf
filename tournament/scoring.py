"""Scoring systems: a finished game in, a score per power out.

A `GameResult` is what every system needs: the centres each power owns at
the end, the survivors and the solo winner, if any.  *Survivors* are the
powers with a centre or a unit, the powers the server's ``DRW`` shares the
draw among (the French adjudicator's refereeing convention 2(b) in
docs/references.md; `engine.position`).  A game
that is not a solo is a draw among all survivors: no-press bots make no
partial draws, and the year and time limits end games the same way.

The systems (``--scoring``):

``sos`` - sum of squares.  A solo gives the winner 100 and the others 0;
    otherwise a power with ``c`` centres scores ``100 c^2 / sum(c_j^2)``.
``draw-size`` - a solo gives the winner 100; a draw gives each of its ``n``
    participants ``100 / n``; everyone else scores 0.
``dptg`` - the zero-sum example of the Diplomacy Player's Technical Guide
    (chapter II; docs/references.md): win +360, 2-way draw +150, 3-way +80, 4-way +45,
    5-way +24, 6-way +10, 7-way 0, loss -60.  A loss is any power not in the
    result (eliminated, or beaten by a solo).  A "draw" of one survivor
    (everyone else gone, yet short of a solo) scores as a win.
``points`` - points by rank.  Powers are ranked by final centres; places
    1..7 are worth 7, 6, 5, 4, 3, 2, 1 points, tied powers share the
    average of the places they span, and a power with no centre scores 0.
    A solo gives the winner all 28 points and the others 0.

Every system gives the same total in every game (100, 100, 0, 28) except
``points`` when powers are eliminated, so means are comparable across games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: The Player's Technical Guide's zero-sum table (DPTG ch. II, docs/references.md):
#: size of the draw -> score; 1 = win.
DPTG_TABLE: Mapping[int, int] = {1: 360, 2: 150, 3: 80, 4: 45, 5: 24, 6: 10, 7: 0}
DPTG_LOSS = -60
#: Points for places 1..7 in the points-by-rank system.
RANK_POINTS = (7, 6, 5, 4, 3, 2, 1)


@dataclass(frozen=True)
class GameResult:
    """The end of one game as scoring sees it."""

    centres: tuple[tuple[str, int], ...]
    """(power, centres) for every power, sorted by power."""
    survivors: frozenset[str]
    winner: str | None = None

    @classmethod
    def of(cls, centres: Mapping[str, int], survivors: frozenset[str] | set[str],
           winner: str | None = None) -> GameResult:
        return cls(tuple(sorted(centres.items())), frozenset(survivors), winner)

    @property
    def powers(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.centres)

    def count(self, power: str) -> int:
        return dict(self.centres).get(power, 0)

    @property
    def draw_powers(self) -> frozenset[str]:
        """Who shares the result: the winner alone, or every survivor."""
        return frozenset([self.winner]) if self.winner else self.survivors


Scores = dict[str, float]


def sum_of_squares(result: GameResult) -> Scores:
    if result.winner:
        return {p: 100.0 if p == result.winner else 0.0 for p in result.powers}
    total = sum(c * c for _, c in result.centres)
    return {p: (100.0 * c * c / total if total else 0.0) for p, c in result.centres}


def draw_size(result: GameResult) -> Scores:
    shared = result.draw_powers
    return {p: (100.0 / len(shared) if p in shared else 0.0) for p in result.powers}


def dptg(result: GameResult) -> Scores:
    shared = result.draw_powers
    value = DPTG_TABLE.get(len(shared), 0)
    return {p: float(value if p in shared else DPTG_LOSS) for p in result.powers}


def points_by_rank(result: GameResult) -> Scores:
    if result.winner:
        total = float(sum(RANK_POINTS))
        return {p: total if p == result.winner else 0.0 for p in result.powers}
    ranked = sorted(result.centres, key=lambda pc: -pc[1])
    scores: Scores = {}
    place = 0
    while place < len(ranked):
        tied = [p for p, c in ranked if c == ranked[place][1]]
        span = [RANK_POINTS[i] if i < len(RANK_POINTS) else 0
                for i in range(place, place + len(tied))]
        for power in tied:
            scores[power] = sum(span) / len(span) if ranked[place][1] > 0 else 0.0
        place += len(tied)
    return {p: scores[p] for p in result.powers}


@dataclass(frozen=True)
class ScoringSystem:
    """A named scoring function (``--scoring`` value, title for the report)."""

    key: str
    title: str
    score: Callable[[GameResult], Scores]


SYSTEMS: Mapping[str, ScoringSystem] = {
    s.key: s for s in (
        ScoringSystem("sos", "sum of squares", sum_of_squares),
        ScoringSystem("draw-size", "draw size", draw_size),
        ScoringSystem("dptg", "DPTG zero-sum", dptg),
        ScoringSystem("points", "points by rank", points_by_rank),
    )
}
"""Every system, in the order the report lists them."""
