"""HoldBot: the simplest complete bot.

Holds every unit, disbands every dislodged unit, waives every build, and
when it must remove units removes the ones farthest from its home centres
(fewest moves over the unit's own movement graph; ties by province name).
"""

from __future__ import annotations

import random

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.orders import unit_of
from orders import Disband, Hold, Order, Remove, Waive

_UNREACHABLE = 10_000


def home_distance(view: BoardView, unit: BoardUnit) -> int:
    """Moves from `unit` to its nearest home centre (large if none reachable)."""
    homes = view.geography.homes.get(unit.power, frozenset())
    d = view.geography.distance_to_any(unit.kind, unit.node, homes)
    return _UNREACHABLE if d is None else d


def farthest_units(view: BoardView, count: int) -> list[BoardUnit]:
    """The `count` own units farthest from home, farthest first."""
    ranked = sorted(view.my_units, key=lambda u: (-home_distance(view, u), u.province))
    return ranked[:count]


class HoldBot:
    """Holds, disbands when dislodged, removes the farthest unit, waives builds."""

    name = "HoldBot"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        kind = view.phase_kind
        if kind == MOVEMENT:
            return [Hold(unit_of(u)) for u in view.my_units]
        if kind == RETREAT:
            return [Disband(unit_of(u)) for u in view.my_dislodged]
        assert kind == ADJUSTMENT
        owed = view.adjustment
        if owed > 0:
            return [Waive(view.power) for _ in range(owed)]
        return [Remove(unit_of(u)) for u in farthest_units(view, -owed)]
