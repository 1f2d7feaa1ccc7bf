"""A bot's board as adjudicator values, so that a strategy can play futures out.

A strategy is given a `BoardView` only (`bots.strategy`), never the `maps.Map`
the client built from the server's MDF.  To adjudicate hypothetical order
sets it needs one, so `map_of` rebuilds the map from the view's `Geography`
with `maps.build_map` - the same builder the client's map went through
(`engine.mapfiles`), so every variant the server can send works here too.
`mdf_of` writes the geography as an MDF tree (docs/protocol.md §11).

`state_of` turns a view into the adjudicator's `GameState` and `adj_order`
turns a DAIDE order tree (`bots.orders`) into the adjudicator's order value
without a round trip through the protocol's typed orders (the search converts
thousands of them per phase).  `tree_of` goes the other way for the orders a
search finally plays.
"""

from __future__ import annotations

from typing import Any

import orders as om  # the one order model (Order below: a DAIDE tree)
from adjudicator import values as adj
from adjudicator.values import phase_of
from bots import orders as o
from bots.board import BoardUnit, BoardView
from bots.geography import Geography, Node
from bots.orders import Order
from maps import Map, build_map
from maps.build import AdjacencyList

_MAPS: dict[int, tuple[Geography, Map]] = {}
"""id(geography) -> (geography, its map); the geography is kept so the id stays valid."""
_MAX_MAPS = 16


def map_of(geo: Geography) -> Map:
    """The adjudicator's map of a bot's geography (built once per geography)."""
    hit = _MAPS.get(id(geo))
    if hit is not None and hit[0] is geo:
        return hit[1]
    adjacencies = []
    for province, (army, fleets) in _adjacencies(geo):
        lists: list[AdjacencyList] = [("FLT", node[1], dests) for node, dests in fleets.items()]
        if army is not None:
            lists.insert(0, ("AMY", None, [(d, None) for d in army]))
        adjacencies.append((province, lists))
    game_map = build_map(geo.powers, _home_groups(geo),
                         [p for p in geo.provinces if p not in geo.centres], adjacencies,
                         name=geo.name)
    if len(_MAPS) >= _MAX_MAPS:
        _MAPS.pop(next(iter(_MAPS)))
    _MAPS[id(geo)] = (geo, game_map)
    return game_map


def _dest(node: Node) -> Any:
    return node[0] if node[1] is None else (node[0], node[1])


def _home_groups(geo: Geography) -> list[tuple[tuple[str, ...], list[str]]]:
    """``(home powers, centres)`` groups, neutral centres under no power."""
    owners: dict[str, list[str]] = {c: [] for c in geo.centres}
    for power in geo.powers:
        for centre in sorted(geo.homes.get(power, ())):
            owners[centre].append(power)
    groups: dict[tuple[str, ...], list[str]] = {}
    for centre in sorted(owners):
        groups.setdefault(tuple(owners[centre]), []).append(centre)
    return list(groups.items())


def _adjacencies(
    geo: Geography,
) -> list[tuple[str, tuple[list[str] | None, dict[Node, list[Node]]]]]:
    """Per province: the army's destinations (None: no land) and each fleet node's."""
    out = []
    for province in geo.provinces:
        army = list(geo.army_adj[province]) if geo.is_land(province) else None
        fleets = {node: list(geo.fleet_adj[node]) for node in geo.fleet_nodes(province)}
        out.append((province, (army, fleets)))
    return out


def mdf_of(geo: Geography) -> tuple[Any, ...]:
    """The geography as an MDF tree: powers, centres by home power, adjacencies."""
    centre_groups = []
    for key, centres in _home_groups(geo):
        owner: Any = "UNO" if not key else key[0] if len(key) == 1 else key
        centre_groups.append((owner, *centres))
    others = tuple(p for p in geo.provinces if p not in geo.centres)
    adjacencies = []
    for province, (army, fleets) in _adjacencies(geo):
        entry: list[Any] = [province]
        if army is not None:
            entry.append(("AMY", *army))
        for node, dests in fleets.items():
            head: Any = "FLT" if node[1] is None else ("FLT", node[1])
            entry.append((head, *(_dest(n) for n in dests)))
        adjacencies.append(tuple(entry))
    return ("MDF", tuple(geo.powers), (tuple(centre_groups), others), tuple(adjacencies))


def location(node: Node) -> om.Location:
    return om.Location(node[0], node[1])


def unit_of(unit: BoardUnit) -> om.Unit:
    return om.Unit(unit.power, unit.kind, om.Location(unit.node[0], unit.node[1]))


def state_of(view: BoardView) -> adj.GameState:
    """The adjudicator's state of the position a view shows."""
    dislodged = tuple(adj.Dislodged(unit_of(u), tuple(location(n) for n in u.retreats or ()))
                      for u in view.dislodged)
    ownership = {c: p for c, p in sorted(view.owners.items()) if p is not None}
    return adj.GameState(phase_of(view.season, view.year),
                         tuple(unit_of(u) for u in view.units), ownership, dislodged)


def _unit(tree: Any) -> om.Unit:
    where = tree[2]
    loc = om.Location(where[0], where[1]) if isinstance(where, tuple) else om.Location(where)
    return om.Unit(tree[0], tree[1], loc)


def _loc(where: Any) -> om.Location:
    return om.Location(where[0], where[1]) if isinstance(where, tuple) else om.Location(where)


def adj_order(tree: Order) -> om.Order:
    """One order tree of `bots.orders` as the adjudicator's order value."""
    kind = tree[1]
    if kind == "WVE":
        return om.Waive(tree[0])
    unit = _unit(tree[0])
    if kind == "HLD":
        return om.Hold(unit)
    if kind == "MTO":
        return om.Move(unit, _loc(tree[2]))
    if kind == "SUP":
        if len(tree) == 3:
            return om.SupportHold(unit, _unit(tree[2]))
        return om.SupportMove(unit, _unit(tree[2]), tree[4])
    if kind == "CVY":
        return om.Convoy(unit, _unit(tree[2]), tree[4])
    if kind == "CTO":
        return om.ConvoyMove(unit, tree[2], tuple(tree[4]))
    if kind == "RTO":
        return om.Retreat(unit, _loc(tree[2]))
    if kind == "DSB":
        return om.Disband(unit)
    if kind == "BLD":
        return om.Build(unit)
    if kind == "REM":
        return om.Remove(unit)
    raise ValueError(f"not an order tree: {tree!r}")


def _board_unit(unit: om.Unit) -> BoardUnit:
    loc = unit.location
    return BoardUnit(unit.power, unit.kind, (loc.province, loc.coast))


def tree_of(order: om.Order) -> Order:
    """An adjudicator order as the order tree a strategy returns."""
    if isinstance(order, om.Waive):
        return o.waive(order.power)
    unit = _board_unit(order.unit)
    if isinstance(order, om.Hold):
        return o.hold(unit)
    if isinstance(order, om.Move):
        return o.move(unit, (order.dest.province, order.dest.coast))
    if isinstance(order, om.SupportHold):
        return o.support_hold(unit, _board_unit(order.supported))
    if isinstance(order, om.SupportMove):
        return o.support_move(unit, _board_unit(order.supported), order.dest)
    if isinstance(order, om.Convoy):
        return o.convoy(unit, _board_unit(order.army), order.dest)
    if isinstance(order, om.ConvoyMove):
        return o.convoy_move(unit, order.dest, order.via)
    if isinstance(order, om.Retreat):
        return o.retreat(unit, (order.dest.province, order.dest.coast))
    if isinstance(order, om.Disband):
        return o.disband(unit)
    if isinstance(order, om.Build):
        return o.build(unit.power, unit.kind, unit.node)
    if isinstance(order, om.Remove):
        return o.remove(unit)
    raise TypeError(f"not an adjudicator order: {order!r}")
