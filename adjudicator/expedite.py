"""The expedited removal of players: a house rule of the French adjudicator.

Its "complements to official rules" (docs/references.md), section 3: so that
nobody waits for a player whose orders can no longer change anything,

(a) at the autumn moves, the dislodged units of a power are destroyed at once
    (no retreat for them) when the power occupies no centre, every centre it
    owns is occupied, none of its dislodged units may retreat onto a centre
    and none may retreat where another power's dislodged unit may;
(b) at the autumn retreats, the units of a power that owns no centre are
    removed.

The exact reading of each condition, and why, is in
docs/adjudication-conventions.md ("Expedited removal of players").  Both
parts only bring forward what the game would do anyway: under (a) the power
ends the year without a centre whatever it orders, and a power without a
centre at the year's end removes every unit in the winter.

Applied by :mod:`adjudicator.engine` when ``Rulebook.expedite`` is on; the
units go with an order given for the power, shown in the ORD results with
the reason :class:`~adjudicator.results.Expedited`: ``DSB`` for a destroyed
dislodged unit, ``REM`` for a removed one.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Final

from adjudicator.results import SUC, Expedited, OrderResult
from adjudicator.tables import tables
from adjudicator.values import Dislodged
from maps import Map
from orders import Disband, Remove, Unit

DESTROYED: Final = Expedited(
    "destroyed at once (expedited removal, a): the power occupies no centre, all its "
    "centres are occupied, and none of its retreats could reach a centre or meet "
    "another power's retreat"
)
REMOVED: Final = Expedited(
    "removed at the year's end (expedited removal, b): the power owns no centre"
)


def doomed_powers(
    m: Map, ownership: Mapping[str, str], units: tuple[Unit, ...], dislodged: tuple[Dislodged, ...]
) -> frozenset[str]:
    """The powers whose dislodged units part (a) destroys.

    ``ownership`` is the centres' owners during the autumn (before the year's
    count), ``units`` the units standing after the moves, ``dislodged`` the
    dislodged units with their retreat options.
    """
    t = tables(m)
    supply = t.supply
    ids = t.ids
    # who stands on each centre after the moves
    on_centre: dict[str, str] = {}
    for u in units:
        province = u.location.province
        if supply[ids[province]]:
            on_centre[province] = u.power
    # each power's retreat options, by province (two coasts of one province meet)
    options: dict[str, set[str]] = {}
    for d in dislodged:
        mine = options.setdefault(d.unit.power, set())
        for place in d.retreats:
            mine.add(place.province)
    occupiers = set(on_centre.values())
    doomed: set[str] = set()
    for power, mine in options.items():
        if power in occupiers:
            continue  # it occupies a centre
        if any(owner == power and centre not in on_centre for centre, owner in ownership.items()):
            continue  # one of its centres is empty: it keeps it
        if any(supply[ids[province]] for province in mine):
            continue  # a retreat could take a centre
        if any(other != power and not mine.isdisjoint(theirs)
               for other, theirs in options.items()):
            continue  # a retreat could meet another power's retreat
        doomed.add(power)
    return frozenset(doomed)


def destroy_dislodged(
    m: Map,
    ownership: Mapping[str, str],
    units: tuple[Unit, ...],
    dislodged: tuple[Dislodged, ...],
) -> tuple[tuple[Dislodged, ...], tuple[OrderResult, ...]]:
    """Part (a): the dislodged units that still retreat, and the ``DSB`` results
    of those destroyed (by province: the order of the dislodged units)."""
    doomed = doomed_powers(m, ownership, units, dislodged)
    if not doomed:
        return dislodged, ()
    kept = tuple(d for d in dislodged if d.unit.power not in doomed)
    gone = tuple(OrderResult(Disband(d.unit), SUC, False, DESTROYED)
                 for d in sorted(dislodged, key=_province) if d.unit.power in doomed)
    return kept, gone


def remove_centreless(
    units: tuple[Unit, ...], owners: Container[str]
) -> tuple[tuple[Unit, ...], tuple[OrderResult, ...]]:
    """Part (b): the units left and the ``REM`` results of the units of every power
    not among ``owners`` (the powers owning a centre after the year's count)."""
    if all(u.power in owners for u in units):
        return units, ()
    kept = tuple(u for u in units if u.power in owners)
    gone = tuple(OrderResult(Remove(u), SUC, False, REMOVED) for u in units if u.power not in owners)
    return kept, gone


def _province(d: Dislodged) -> str:
    return d.unit.location.province


__all__ = ["DESTROYED", "REMOVED", "destroy_dislodged", "doomed_powers", "remove_centreless"]
