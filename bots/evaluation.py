"""The position evaluation of RegretBot (`bots.regret`): what a board is worth
to each power, all powers at once.

The search adjudicates joint order sets and needs, for every resulting
position, a value for *every* power - each power's candidates are judged by
that power's own value (`bots.equilibrium`).  So `Evaluator.scores` goes
over the units once, counts for every power which provinces its units stand
in or can move to (the *reach*), and reads every term from those counts:

* **centres**: each supply centre counts for its occupant, else its owner
  (an occupied centre changes hands at the end of the year); while an
  autumn movement is still to come, only ``held`` of a centre someone
  occupies counts for the occupant and the rest for its owner - a unit
  that walked in in the spring can still be driven out, and counting it
  whole made every neighbour grab (and every owner guard) home centres in
  the spring instead of taking free ones;
* **threatened centres**: an own centre that one other power reaches with
  more units than the owner does (it can walk in or win the bounce), or an
  empty one it reaches with as many (the owner must spend a unit to bounce
  it) - a power with many neighbours left its home open to all of them when
  only a larger force counted;
* **reachable centres**: a centre not ours that we reach with more units
  than any one other power (the front we can push next);
* **units**, and a dislodged unit that still has a retreat for part of one;
* **unit safety**: an own unit that one enemy reaches with more units than
  the unit's hold strength (itself plus the own units that can support it):
  it could be dislodged next phase;
* **place**: per unit, DumbBot's spread value of the place it stands on for
  its power (`bots.values`), relative to that power's best place - the slope
  toward regions full of centres, and the fronts where supports meet;
* **leader**: the others' centre counts, squared and summed, cost every
  power ``leader`` a square - the tournaments score by sum of squares, where
  a power's share falls as any other grows, and most when the largest does;
  so a centre taken from a large power is worth more than one taken from a
  small one (with ``c`` centres, ``leader * (2c - 1)`` more), and every
  power minds the growth of a leader it does not border yet;
* a solo is worth ``solo`` to the winner and ``-solo`` to the others.

Nothing here is map-specific: it reads the `Geography` the view carries, so
it values every variant the server offers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adjudicator import values as adj
from bots.geography import Geography
from bots.values import Valuation


@dataclass(frozen=True)
class EvalWeights:
    """The weights of the terms (see the module doc)."""

    centre: float = 1.0
    threat: float = 0.8
    chance: float = 0.25
    unit: float = 0.45
    dislodged: float = 0.2
    exposed: float = 0.15
    place: float = 0.3
    solo: float = 1000.0
    held: float = 0.3
    """Share of an occupied centre that counts for its occupant while the autumn
    adjustment is still to come (the rest stays with the owner).  At a half,
    Austria opened F Tri - Ven with A Vie - Tri in a third of its games: half of
    Venice, should Italy's army leave, outweighed the fleet's step toward Greece."""
    leader: float = 0.15
    """Cost of one square of the others' centre counts (see the module doc).  It is
    what keeps copies of the bot from sharing out whichever central power falls
    behind first: in self-play (28 games on each of two seeds) Austria was
    eliminated by 1910 in 14 and 12 games at 0.03 a square, in 5 and 6 at 0.15
    (docs/bots.md, self-play)."""


_Reach = tuple[str, ...]
_PENDING = frozenset({"SPR", "SUM", "FAL"})
"""Seasons whose positions still have an autumn movement before centres change hands."""


class Evaluator:
    """Scores adjudicated positions for every power (see the module doc).

    ``values`` holds each power's DumbBot valuation of the phase (powers
    missing from it get no place term).
    """

    def __init__(self, geo: Geography, values: Mapping[str, Valuation],
                 weights: EvalWeights = EvalWeights()) -> None:
        self.geo = geo
        self.powers = geo.powers
        self.values = values
        self.w = weights
        self.centres = tuple(sorted(geo.centres))
        self.norm: dict[str, float] = {}
        for power, v in values.items():
            best = max([*v.army.values(), *v.fleet.values(), 0.0])
            self.norm[power] = weights.place / best if best > 0 else 0.0
        self._units: dict[tuple[str, str, str, str | None], tuple[_Reach, float]] = {}
        """Per unit (power, kind, province, coast): its reach, and its unit and place terms."""

    def reach(self, kind: str, province: str, coast: str | None) -> _Reach:
        """The province a unit stands in, then those it can move (and support) to."""
        near = self.geo.reachable_provinces(kind, (province, coast))
        return (province, *sorted(near))

    def place(self, power: str, kind: str, province: str, coast: str | None) -> float:
        """The place term of `power`'s unit of `kind` standing in (province, coast)."""
        values = self.values.get(power)
        if values is None:
            return 0.0
        return self.norm[power] * values.value(kind, (province, coast))

    def scores(self, state: adj.GameState, winner: str | None = None) -> dict[str, float]:
        """Every power's value of `state` (the position after a phase)."""
        w = self.w
        if winner is not None:
            return {p: (w.solo if p == winner else -w.solo) for p in self.powers}
        score = dict.fromkeys(self.powers, 0.0)
        # the reach, per province: how many units of each power stand in it or can
        # move to it (every term below reads it for one province at a time)
        at: dict[str, dict[str, int]] = {}
        occupant: dict[str, str] = {}
        for unit in state.units:
            power = unit.power
            loc = unit.location
            occupant[loc.province] = power
            if power not in score:      # a power the map does not list: ignore it
                continue
            key = (power, unit.kind, loc.province, loc.coast)
            seen = self._units.get(key)
            if seen is None:
                seen = self._units[key] = (self.reach(unit.kind, loc.province, loc.coast),
                                           w.unit + self.place(*key))
            for province in seen[0]:
                here = at.get(province)
                if here is None:
                    at[province] = {power: 1}
                else:
                    here[power] = here.get(power, 0) + 1
            score[power] += seen[1]
        for d in state.dislodged:
            if d.retreats and d.unit.power in score:
                score[d.unit.power] += w.dislodged
        # unit safety: attack strength of the strongest enemy against hold strength
        # (the unit and its possible supporters: its own power's count, so the
        # largest count beats it only when another power's does)
        for unit in state.units:
            power = unit.power
            if power in score:
                here = at[unit.location.province]
                if max(here.values()) > here[power]:
                    score[power] -= w.exposed
        ownership = state.ownership
        size = dict.fromkeys(self.powers, 0)     # centres: the occupant's, else the owner's
        # before the autumn's adjudication an occupier may still be driven out
        pending = state.phase.season in _PENDING and w.held < 1.0
        for c in self.centres:
            owner = occupant.get(c) or ownership.get(c)
            if pending:
                was = ownership.get(c)
                if owner != was and owner in score:
                    score[owner] -= (1.0 - w.held) * w.centre
                    if was is not None and was in score:
                        score[was] += (1.0 - w.held) * w.centre
            # the largest and second largest count: which of two equal powers is
            # `leader` changes nothing below, since a tie gives no chance and the
            # strongest other is then the top count either way
            top = second = 0
            leader: str | None = None
            here = at.get(c)
            if here is not None:
                for power, n in here.items():
                    if n > top:
                        top, second, leader = n, top, power
                    elif n > second:
                        second = n
            if owner is not None and owner in score:
                size[owner] += 1
                score[owner] += w.centre
                mine = here.get(owner, 0) if here is not None else 0
                strongest_other = second if leader == owner else top
                if strongest_other > mine or (
                        c not in occupant and strongest_other and strongest_other >= mine):
                    score[owner] -= w.threat
            if leader is not None and leader != owner and top > second:
                score[leader] += w.chance
        # sum of squares: every power minds the others' squares (see the module doc)
        squares = sum(n * n for n in size.values())
        for power, n in size.items():
            score[power] -= w.leader * (squares - n * n)
        return score


__all__ = ["EvalWeights", "Evaluator"]
