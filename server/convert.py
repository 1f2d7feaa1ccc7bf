"""The seam between DAIDE messages and adjudicator values.

ARCHITECTURE.md puts this conversion in ``protocol/convert.py``; that module
did not exist when the server needed it, so it lives here for now (the
integrator may move it).  It is the only place that knows both sides:

* protocol orders (`protocol.orders`) <-> adjudicator orders
  (`adjudicator.values`), one-to-one (the adjudicator keeps DAIDE mnemonics);
* a position (`adjudicator.values.GameState`) <-> ``SCO`` and ``NOW``
  messages, the form in which the server stores positions;
* adjudicator results -> ``ORD`` messages; missing orders -> ``MIS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from adjudicator import values as adj
from adjudicator.results import OrderResult as AdjResult
from protocol import orders as po
from protocol.mapdef import CentreGroup
from protocol.messages import Mis, Now, Ord, Sco


def location_to_adj(loc: po.Location) -> adj.Location:
    return adj.Location(loc.province, loc.coast)


def location_from_adj(loc: adj.Location) -> po.Location:
    return po.Location(loc.province, loc.coast)


def unit_to_adj(unit: po.Unit) -> adj.Unit:
    return adj.Unit(unit.power, unit.unit_type, adj.Location(unit.province, unit.coast))


def unit_from_adj(unit: adj.Unit) -> po.Unit:
    return po.Unit(unit.power, unit.kind, unit.location.province, unit.location.coast)


def order_to_adj(order: po.Order) -> adj.Order:
    """A DAIDE order as the adjudicator's value."""
    match order:
        case po.Hold(unit):
            return adj.Hold(unit_to_adj(unit))
        case po.Move(unit, dest):
            return adj.Move(unit_to_adj(unit), location_to_adj(dest))
        case po.SupportHold(unit, supported):
            return adj.SupportHold(unit_to_adj(unit), unit_to_adj(supported))
        case po.SupportMove(unit, supported, dest):
            return adj.SupportMove(unit_to_adj(unit), unit_to_adj(supported), dest)
        case po.Convoy(unit, army, dest):
            return adj.Convoy(unit_to_adj(unit), unit_to_adj(army), dest)
        case po.ConvoyMove(unit, dest, via):
            return adj.ConvoyMove(unit_to_adj(unit), dest, via)
        case po.Retreat(unit, dest):
            return adj.Retreat(unit_to_adj(unit), location_to_adj(dest))
        case po.Disband(unit):
            return adj.Disband(unit_to_adj(unit))
        case po.Build(unit):
            return adj.Build(unit_to_adj(unit))
        case po.Remove(unit):
            return adj.Remove(unit_to_adj(unit))
        case po.Waive(power):
            return adj.Waive(power)
    raise TypeError(f"not an order: {order!r}")


def order_from_adj(order: adj.Order) -> po.Order:
    """An adjudicator order as the DAIDE order value."""
    match order:
        case adj.Hold(unit):
            return po.Hold(unit_from_adj(unit))
        case adj.Move(unit, dest):
            return po.Move(unit_from_adj(unit), location_from_adj(dest))
        case adj.SupportHold(unit, supported):
            return po.SupportHold(unit_from_adj(unit), unit_from_adj(supported))
        case adj.SupportMove(unit, supported, dest):
            return po.SupportMove(unit_from_adj(unit), unit_from_adj(supported), dest)
        case adj.Convoy(unit, army, dest):
            return po.Convoy(unit_from_adj(unit), unit_from_adj(army), dest)
        case adj.ConvoyMove(unit, dest, via):
            return po.ConvoyMove(unit_from_adj(unit), dest, tuple(via))
        case adj.Retreat(unit, dest):
            return po.Retreat(unit_from_adj(unit), location_from_adj(dest))
        case adj.Disband(unit):
            return po.Disband(unit_from_adj(unit))
        case adj.Build(unit):
            return po.Build(unit_from_adj(unit))
        case adj.Remove(unit):
            return po.Remove(unit_from_adj(unit))
        case adj.Waive(power):
            return po.Waive(power)
    raise TypeError(f"not an order: {order!r}")


def turn_of(phase: adj.Phase) -> po.Turn:
    return po.Turn(phase.season, phase.year)


def result_to_ord(phase: adj.Phase, result: AdjResult) -> Ord:
    """``ORD (turn) (order) (result)`` for one adjudicated order (PROTOCOL.md 8.4, 9.4)."""
    return Ord(turn_of(phase), order_from_adj(result.order),
               po.OrderResult(result.outcome, result.dislodged))


# --- positions --------------------------------------------------------------------


def sco_message(state: adj.GameState, powers: Sequence[str],
                centres: Iterable[str]) -> Sco:
    """``SCO (power centre ...) ... (UNO centre ...)`` (PROTOCOL.md 8.2).

    Powers in map order, centres sorted; a power without centres is left out
    (the grammar has no empty group; Parlance omits it).
    """
    owned: dict[str, list[str]] = {}
    neutral: list[str] = []
    for centre in sorted(centres):
        owner = state.ownership.get(centre)
        if owner is None:
            neutral.append(centre)
        else:
            owned.setdefault(owner, []).append(centre)
    groups = [CentreGroup(p, tuple(owned[p])) for p in powers if p in owned]
    if neutral:
        groups.append(CentreGroup("UNO", tuple(neutral)))
    return Sco(tuple(groups))


def now_message(state: adj.GameState) -> Now:
    """``NOW (turn) (unit) ...``; dislodged units carry their MRT list (8.2)."""
    units = [po.UnitPosition(unit_from_adj(u)) for u in state.units]
    units += [
        po.UnitPosition(unit_from_adj(d.unit), tuple(location_from_adj(r) for r in d.retreats))
        for d in state.dislodged
    ]
    return Now(turn_of(state.phase), tuple(units))


def state_from_messages(sco: Sco, now: Now) -> adj.GameState:
    """The position an SCO and a NOW describe (how the server stores positions)."""
    ownership = {
        centre: group.owner
        for group in sco.ownership
        if isinstance(group.owner, str) and group.owner != "UNO"
        for centre in group.centres
    }
    units: list[adj.Unit] = []
    dislodged: list[adj.Dislodged] = []
    for position in now.units:
        unit = unit_to_adj(position.unit)
        if position.retreats is None:
            units.append(unit)
        else:
            dislodged.append(adj.Dislodged(unit, tuple(location_to_adj(r) for r in position.retreats)))
    units.sort(key=lambda u: u.location.province)
    dislodged.sort(key=lambda d: d.unit.location.province)
    return adj.GameState(adj.Phase(now.turn.season, now.turn.year), tuple(units),
                         ownership, tuple(dislodged))


def missing_message(state: adj.GameState, power: str,
                    accepted: Sequence[adj.Order]) -> Mis | None:
    """``MIS`` for what ``power`` still has to order, or None when complete (8.3)."""
    kind = state.phase.kind
    if kind == adj.ADJUSTMENT:
        owed = state.adjustment(power)
        if owed > 0:
            given = sum(isinstance(o, (adj.Build, adj.Waive)) for o in accepted)
            left = owed - given
            # MIS (-n): n more builds (or waives) to order.
            return Mis(count=-left) if left > 0 else None
        if owed < 0:
            left = -owed - sum(isinstance(o, adj.Remove) for o in accepted)
            return Mis(count=left) if left > 0 else None
        return None
    ordered = {o.unit for o in accepted if not isinstance(o, adj.Waive)}
    if kind == adj.MOVEMENT:
        units = [po.UnitPosition(unit_from_adj(u)) for u in state.units_of(power)
                 if u not in ordered]
    else:
        units = [po.UnitPosition(unit_from_adj(d.unit), tuple(location_from_adj(r) for r in d.retreats))
                 for d in state.dislodged if d.unit.power == power and d.unit not in ordered]
    return Mis(tuple(units)) if units else None


def owing(state: adj.GameState, powers: Iterable[str]) -> frozenset[str]:
    """The powers that must order in this phase."""
    kind = state.phase.kind
    if kind == adj.MOVEMENT:
        return frozenset(u.power for u in state.units)
    if kind == adj.RETREAT:
        return frozenset(d.unit.power for d in state.dislodged)
    return frozenset(p for p in powers if state.adjustment(p) != 0)


def survivors(state: adj.GameState) -> frozenset[str]:
    """Powers still in the game: owning a centre or a unit (seed 004, convention 2(b))."""
    return frozenset(state.ownership.values()) | frozenset(u.power for u in state.units) \
        | frozenset(d.unit.power for d in state.dislodged)


def centre_counts(state: adj.GameState, powers: Iterable[str]) -> Mapping[str, int]:
    counts = state.centre_counts()
    return {p: counts.get(p, 0) for p in powers}
