"""Whether a position can exist on a map: the checks of a given position.

A position read from DAIDE text (``daide adjudicate``, ``daide datc``, a
game started from a position: ``daide serve --start-from``) is the
player's word, not the result of play, so before the rules run on it
:func:`check_position` makes sure the map can hold it:

* every unit belongs to a power of the map and stands where its type can
  stand - an army on land, a fleet at sea or on a coast (on one of the
  coasts of a bicoastal province, and only there);
* at most one unit in a province, and at most one dislodged unit;
* dislodged units (NOW's ``MRT`` lists, docs/protocol.md §8.2) only in a
  retreat phase, each in a province another unit now holds (the one that
  dislodged it), with retreat options it could take: places its type
  reaches in one move from where it stands (the right coast for a fleet),
  none of them its own province, a province another unit holds, or listed
  twice (DATC 4.A.5: a retreat goes to an adjacent, unoccupied place; which
  of those the attacker's origin or a standoff rules out a NOW cannot tell,
  so a shorter list is accepted);
* centres owned by powers of the map, and only supply centres owned.

The first fault found raises :class:`PositionError`, one line naming the
unit or centre; ``about`` says whether it is in the units (a NOW) or the
ownership (an SCO).
"""

from __future__ import annotations

from typing import Final

from adjudicator.tables import MapTables, tables
from adjudicator.values import RETREAT, Dislodged, GameState
from maps import Map
from orders import Location, Unit

#: ``PositionError.about``: the fault is in the units / in the centre ownership.
UNITS: Final = "units"
CENTRES: Final = "centres"


class PositionError(ValueError):
    """A position the map cannot hold; the message is one line."""

    def __init__(self, message: str, about: str = UNITS) -> None:
        super().__init__(message)
        self.about = about


def check_position(m: Map, state: GameState) -> None:
    """Raise :class:`PositionError` unless ``state`` can stand on ``m`` (the module docstring)."""
    t = tables(m)
    powers = t.power_ids
    for centre, owner in state.ownership.items():
        pid = t.ids.get(centre)
        if pid is None or not t.supply[pid]:
            raise PositionError(f"{centre} is not a supply centre", CENTRES)
        if owner not in powers:
            raise PositionError(f"{owner} (owner of {centre}) is not a power of the map", CENTRES)
    if state.dislodged and state.phase.kind != RETREAT:
        raise PositionError(f"MRT lists in {state.phase}, which is not a retreat phase")
    held: set[str] = set()
    for unit in state.units:
        _check_place(t, unit, unit.location.province, held)
    dislodged: set[str] = set()
    for d in state.dislodged:
        _check_place(t, d.unit, "dislodged " + d.unit.location.province, dislodged)
    for d in state.dislodged:
        _check_retreats(t, d, held)


def _location_id(t: MapTables, loc: Location) -> int | None:
    pid = t.ids.get(loc.province)
    return None if pid is None else t.loc_ids.get((pid, loc.coast))


def _check_place(t: MapTables, unit: Unit, key: str, where: set[str]) -> None:
    """The unit's power and place; ``key`` (its province, or "dislodged" and it)
    must not be in ``where`` yet."""
    if unit.power not in t.power_ids:
        raise PositionError(f"{unit.power} is not a power of the map")
    loc = unit.location
    pid = t.ids.get(loc.province)
    if pid is None:
        raise PositionError(f"{loc.province} is not a province of the map")
    if unit.is_army:
        ok = loc.coast is None and not t.sea[pid]
    else:
        lid = t.loc_ids.get((pid, loc.coast))
        ok = lid is not None and lid in t.fleet_locs[pid]
    if not ok:
        what = "an army" if unit.is_army else "a fleet"
        raise PositionError(f"{unit} - {what} cannot stand at {loc}")
    if key in where:
        raise PositionError(f"two units in {key}")
    where.add(key)


def _check_retreats(t: MapTables, d: Dislodged, held: set[str]) -> None:
    """A dislodged unit's province is held by its dislodger; its options are
    places it can reach, empty, not its own, each once (DATC 4.A.5)."""
    unit = d.unit
    here = unit.location.province
    if here not in held:
        raise PositionError(f"{unit} is dislodged, but no unit holds {here} (nothing dislodged it)")
    lid = _location_id(t, unit.location)
    assert lid is not None      # _check_place found it
    seen: set[Location] = set()
    for option in d.retreats:
        target = _location_id(t, option)
        if unit.is_army:
            reach = option.coast is None and target is not None \
                and t.loc_province[target] in t.army_adj[t.loc_province[lid]]
        else:
            reach = target is not None and target in t.fleet_adj[lid]
        if not reach:
            raise PositionError(f"{unit} cannot retreat to {option}: not a place it reaches in one move")
        if option.province in held:
            raise PositionError(f"{unit} cannot retreat to {option}: a unit holds {option.province}")
        if option in seen:
            raise PositionError(f"{unit}: retreat option {option} is listed twice")
        seen.add(option)


__all__ = ["CENTRES", "UNITS", "PositionError", "check_position"]
