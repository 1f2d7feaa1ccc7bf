"""Move generation: every legal order of a unit or power (for bots and tools).

Every order produced here gets ``MBV`` from :func:`adjudicator.validate`
(tests check this on random positions).  Geography-only facts (the
:class:`Location` objects of every place, who can reach a province) are
computed once per map and shared.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.convoys import route_seas
from adjudicator.tables import tables
from adjudicator.values import ADJUSTMENT, MOVEMENT, RETREAT, GameState
from maps import Map, ProvinceKind
from orders import (
    AMY,
    FLT,
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)


@dataclass(frozen=True, slots=True)
class _Tables:
    loc: tuple[Location, ...]  # location id -> Location
    army_moves: tuple[tuple[Location, ...], ...]  # province -> destinations
    fleet_moves: tuple[tuple[Location, ...], ...]  # location -> destinations
    army_into: tuple[tuple[int, ...], ...]  # province -> provinces whose army reaches it
    fleet_into: tuple[tuple[int, ...], ...]  # province -> locations whose fleet reaches it


def _tables(m: Map) -> _Tables:
    """The map's tables for listing legal orders, worked out once and kept with
    the map (`maps.Map.derived`)."""
    return m.derived("adjudicator.legal", _make_tables)


def _make_tables(m: Map) -> _Tables:
    # the adjudicator's shared locations: orders made of them need no name
    # lookups when they are checked
    loc = tables(m).locations
    n = len(m.provinces)
    army_into: list[list[int]] = [[] for _ in range(n)]
    for p, adj in enumerate(m.army_adj):
        for q in adj:
            army_into[q].append(p)
    fleet_into: list[list[int]] = [[] for _ in range(n)]
    for i, reach in enumerate(m.fleet_reach):
        for q in reach:
            fleet_into[q].append(i)
    t = _Tables(
        loc=loc,
        army_moves=tuple(tuple(loc[q] for q in sorted(adj)) for adj in m.army_adj),
        fleet_moves=tuple(tuple(loc[q] for q in sorted(adj)) for adj in m.fleet_adj),
        army_into=tuple(tuple(sorted(x)) for x in army_into),
        fleet_into=tuple(tuple(sorted(x)) for x in fleet_into),
    )
    return t


def _fleet_seas(m: Map, state: GameState) -> frozenset[int]:
    """Seas holding a fleet (computed once per state)."""
    key = ("legal-fleet-seas", m)
    memo = state.facts.memo
    got = memo.get(key)
    if got is None:
        ids = m.ids
        seas = m.seas
        got = frozenset(
            p for u in state.units if u.kind == FLT and (p := ids[u.location.province]) in seas
        )
        memo[key] = got
    return got  # type: ignore[return-value]


def _convoy_routes(m: Map, seas: frozenset[int], src: int) -> dict[int, tuple[int, ...]]:
    """Destinations an army at ``src`` can reach through ``seas``, each with a
    shortest chain of seas (BFS; ties broken by province id)."""
    reach = m.fleet_reach
    parent: dict[int, int] = {}
    order: list[int] = []
    for s in sorted(seas):
        if src in reach[s]:
            parent[s] = -1
            order.append(s)
    head = 0
    while head < len(order):
        s = order[head]
        head += 1
        for q in sorted(reach[s]):
            if q in seas and q not in parent:
                parent[q] = s
                order.append(q)
    routes: dict[int, tuple[int, ...]] = {}
    all_seas = m.seas
    for s in order:
        for q in sorted(reach[s]):
            if q == src or q in routes or q in all_seas:
                continue
            chain = [s]
            while parent[chain[-1]] != -1:
                chain.append(parent[chain[-1]])
            routes[q] = tuple(reversed(chain))
    return routes


def _army_routes(m: Map, state: GameState, src: int) -> dict[int, tuple[int, ...]]:
    """:func:`_convoy_routes` through every fleet at sea, cached per army."""
    key = ("legal-routes", m, src)
    memo = state.facts.memo
    got = memo.get(key)
    if got is None:
        got = _convoy_routes(m, _fleet_seas(m, state), src)
        memo[key] = got
    return got  # type: ignore[return-value]


def _convoyable_to(m: Map, state: GameState, exclude: int) -> dict[int, list[int]]:
    """Destination -> provinces of the armies that a convoy could carry there
    without the fleet at ``exclude`` (-1: every fleet).  Computed once per state."""
    key = ("legal-convoyable", m, exclude)
    memo = state.facts.memo
    got = memo.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    seas = _fleet_seas(m, state)
    if exclude in seas:
        seas = seas - {exclude}
    out: dict[int, list[int]] = {}
    ids = m.ids
    if seas:
        for v in state.units:
            p = ids[v.location.province]
            if v.kind != AMY or not m.fleet_locs[p]:
                continue
            routes = _convoy_routes(m, seas, p) if exclude >= 0 else _army_routes(m, state, p)
            for q in routes:
                out.setdefault(q, []).append(p)
    memo[key] = out
    return out


def unit_orders(m: Map, state: GameState, unit: Unit) -> tuple[Order, ...]:
    """Every legal movement-phase order of ``unit`` (hold first)."""
    t = _tables(m)
    ids = m.ids
    provinces = m.provinces
    src = ids[unit.location.province]
    by_province = state.by_province
    out: list[Order] = [Hold(unit)]
    if unit.kind == AMY:
        reach = m.army_adj[src]
        out.extend(Move(unit, dest) for dest in t.army_moves[src])
    else:
        loc = m.loc_ids[(src, unit.location.coast)]
        reach = m.fleet_reach[loc]
        out.extend(Move(unit, dest) for dest in t.fleet_moves[loc])
    targets = sorted(reach)
    # support to hold
    for q in targets:
        other = by_province.get(provinces[q].mnemonic)
        if other is not None:
            out.append(SupportHold(unit, other))
    # support to move: units that can reach a province this unit can reach;
    # an army also by convoy, but not through this fleet (DATC 6.D.31)
    convoyable = _convoyable_to(m, state, src if src in m.seas else -1)
    for q in targets:
        qname = provinces[q].mnemonic
        movers: dict[int, Unit] = {}
        for p in t.army_into[q]:
            v = by_province.get(provinces[p].mnemonic)
            if v is not None and v.kind == AMY and p != src:
                movers[p] = v
        for loc_id in t.fleet_into[q]:
            p = m.loc_province[loc_id]
            v = by_province.get(provinces[p].mnemonic)
            if v is not None and v.kind == FLT and p != src and v.location == t.loc[loc_id]:
                movers[p] = v
        for p in convoyable.get(q, ()):
            if p != src and p not in movers:
                v = by_province.get(provinces[p].mnemonic)
                if v is not None:
                    movers[p] = v
        for p in sorted(movers):
            out.append(SupportMove(unit, movers[p], qname))
    if unit.kind == AMY and m.fleet_locs[src]:
        for q, chain in sorted(_army_routes(m, state, src).items()):
            via = tuple(provinces[s].mnemonic for s in chain)
            out.append(ConvoyMove(unit, provinces[q].mnemonic, via))
    elif unit.kind == FLT and src in m.seas:
        out.extend(_convoys_by(m, state, unit, src, _fleet_seas(m, state)))
    return tuple(out)


def _convoys_by(
    m: Map, state: GameState, fleet: Unit, sea: int, seas: frozenset[int]
) -> list[Order]:
    """Convoy orders of the fleet at ``sea``: each (army, destination) pair
    with a simple route through ``sea`` (DATC 4.E.1 d)."""
    reach = m.fleet_reach
    comp = {sea}
    todo = [sea]
    while todo:
        s = todo.pop()
        for q in reach[s]:
            if q in seas and q not in comp:
                comp.add(q)
                todo.append(q)
    coast: set[int] = set()
    for s in comp:
        coast.update(q for q in reach[s] if q not in m.seas)
    out: list[Order] = []
    provinces = m.provinces
    memo = state.facts.memo
    for p in sorted(coast):
        army = state.unit_at(provinces[p].mnemonic)
        if army is None or army.kind != AMY:
            continue
        for q in sorted(coast):
            if q == p:
                continue
            key = ("route-seas", m, p, q)
            on_route = memo.get(key)
            if on_route is None:
                on_route = memo[key] = route_seas(reach, seas, p, q)
            if sea in on_route:  # type: ignore[operator]
                out.append(Convoy(fleet, army, provinces[q].mnemonic))
    return out


def retreat_orders(state: GameState, unit: Unit) -> tuple[Order, ...]:
    """The legal retreat-phase orders of a dislodged ``unit``: its MRT list, then DSB."""
    d = state.dislodged_at(unit.location.province)
    if d is None or d.unit != unit:
        return ()
    return tuple(Retreat(unit, loc) for loc in d.retreats) + (Disband(unit),)


def adjustment_orders(m: Map, state: GameState, power: str) -> tuple[Order, ...]:
    """Legal adjustment orders: builds (every unit type / coast on every free
    owned home centre) and WVE when builds are owed, REM of each unit when
    removals are owed."""
    delta = state.adjustment(power)
    if delta < 0:
        return tuple(Remove(u) for u in state.units if u.power == power)
    if delta == 0:
        return ()
    out: list[Order] = []
    for c in m.home_centres.get(power, ()):
        prov = m.provinces[c]
        name = prov.mnemonic
        if state.ownership.get(name) != power or state.unit_at(name) is not None:
            continue
        out.append(Build(Unit(power, AMY, Location(name))))
        if prov.kind is ProvinceKind.BICOASTAL:
            out.extend(Build(Unit(power, FLT, Location(name, co))) for co in prov.coasts)
        elif prov.kind is ProvinceKind.COASTAL:
            out.append(Build(Unit(power, FLT, Location(name))))
    out.append(Waive(power))
    return tuple(out)


def legal_orders(m: Map, state: GameState, power: str) -> dict[Unit, tuple[Order, ...]]:
    """Each unit of ``power`` that owes an order this phase, with its legal orders.

    Movement phase: every unit; retreat phase: every dislodged unit; adjustment
    phase: every unit when removals are owed (builds and waives: see
    :func:`adjustment_orders`).
    """
    kind = state.phase.kind
    if kind == MOVEMENT:
        return {u: unit_orders(m, state, u) for u in state.units if u.power == power}
    if kind == RETREAT:
        return {
            d.unit: retreat_orders(state, d.unit) for d in state.dislodged if d.unit.power == power
        }
    assert kind == ADJUSTMENT
    if state.adjustment(power) >= 0:
        return {}
    return {u: (Remove(u),) for u in state.units if u.power == power}


__all__ = ["adjustment_orders", "legal_orders", "retreat_orders", "unit_orders"]
