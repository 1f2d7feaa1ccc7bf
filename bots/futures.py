"""A bot's board as adjudicator values, so that a strategy can play futures out.

A strategy is given a `BoardView` only (`bots.strategy`), never the `maps.Map`
the client built from the server's MDF.  To adjudicate hypothetical order
sets it needs one, so `map_of` rebuilds the map from the view's `Geography`
with `maps.build_map` - the same builder the client's map went through
(`engine.mapfiles`), so every variant the server can send works here too.
`mdf_of` writes the geography as an MDF tree (docs/protocol.md §11).

`state_of` turns a view into the adjudicator's `GameState`; the orders a
strategy makes are already the adjudicator's values (`orders`, built from the
view's units with `bots.orders.unit_of`), so a search adjudicates them as they are.
"""

from __future__ import annotations

from typing import Any

from adjudicator import values as adj
from adjudicator.values import phase_of
from bots.board import BoardView
from bots.geography import Geography, Node
from bots.orders import location_of, unit_of
from maps import Map, build_map
from maps.build import AdjacencyList


def map_of(geo: Geography) -> Map:
    """The adjudicator's map of a bot's geography (built once per geography, kept
    with it)."""
    return geo.derived("bots.futures.map", _build_map)


def _build_map(geo: Geography) -> Map:
    adjacencies = []
    for province, (army, fleets) in _adjacencies(geo):
        lists: list[AdjacencyList] = [("FLT", node[1], dests) for node, dests in fleets.items()]
        if army is not None:
            lists.insert(0, ("AMY", None, [(d, None) for d in army]))
        adjacencies.append((province, lists))
    return build_map(geo.powers, _home_groups(geo),
                     [p for p in geo.provinces if p not in geo.centres], adjacencies,
                     name=geo.name)


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


def state_of(view: BoardView) -> adj.GameState:
    """The adjudicator's state of the position a view shows."""
    dislodged = tuple(adj.Dislodged(unit_of(u), tuple(location_of(n) for n in u.retreats or ()))
                      for u in view.dislodged)
    ownership = {c: p for c, p in sorted(view.owners.items()) if p is not None}
    return adj.GameState(phase_of(view.season, view.year),
                         tuple(unit_of(u) for u in view.units), ownership, dislodged)
