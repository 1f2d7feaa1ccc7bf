"""Retreat-phase resolution (DATC 5.B.11, docs/protocol.md §9.4).

Each dislodged unit retreats to a place of its MRT list or disbands; a unit
without an order disbands.  Two or more units retreating to the same
province are all destroyed (their ORD result is ``BNC``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from adjudicator.results import BNC, SUC, Default, OrderResult, RetreatClash
from adjudicator.values import GameState
from orders import Disband, Order, Retreat, Unit

_NO_ORDER: Final = Default("no retreat order: the unit disbands")


def resolve_retreats(
    state: GameState, orders: Mapping[str, Order]
) -> tuple[tuple[OrderResult, ...], tuple[Unit, ...]]:
    """Results (one per dislodged unit, by province) and the units afterwards.

    ``orders`` maps a dislodged unit's province to its checked order.
    """
    targets: dict[str, list[Unit]] = {}
    chosen: list[tuple[Unit, Order | None]] = []
    for d in sorted(state.dislodged, key=lambda d: d.unit.location.province):
        o = orders.get(d.unit.location.province)
        chosen.append((d.unit, o))
        if isinstance(o, Retreat):
            targets.setdefault(o.dest.province, []).append(d.unit)

    results: list[OrderResult] = []
    units = list(state.units)
    for unit, o in chosen:
        if isinstance(o, Retreat):
            rivals = targets[o.dest.province]
            if len(rivals) > 1:
                others = tuple(u for u in rivals if u is not unit)
                results.append(OrderResult(o, BNC, False, RetreatClash(o.dest.province, others)))
            else:
                results.append(OrderResult(o, SUC))
                units.append(Unit(unit.power, unit.kind, o.dest))
        elif o is None:
            results.append(OrderResult(Disband(unit), SUC, False, _NO_ORDER))
        else:
            results.append(OrderResult(o, SUC))
    units.sort(key=lambda u: u.location.province)
    return tuple(results), tuple(units)


__all__ = ["resolve_retreats"]
