"""Adjustment phase: builds, removals, waives and civil-disorder removals.

A power's adjustment is its centres minus its units (docs/protocol.md §8.3: not
capped by free home centres).  Accepted builds (already checked one by one:
first legal builds count, DATC 4.D.4 b / 4.D.5 b) are executed; every unused
build is waived.  Removals not ordered are chosen by the civil-disorder rule
(DATC 4.D.8):

* ``'d'`` (v2.4 preference, the Diplomacy Player's Technical Guide's reading of
  the 1971/1982 rules, docs/references.md): remove
  the unit farthest from the power's *home* centres.  A fleet's distance
  counts fleet moves only (coasts matter: 6.J.5, 6.J.9); an army may move as
  an army or as a fleet, so each sea crossed adds one (6.J.10, 6.J.11).
* ``'2023'`` (DATC v3.0): distance to the nearest *owned* centre, for both
  unit types over land and sea alike (provinces, coasts ignored).

Ties: fleets before armies, then alphabetical order of the province's full
English name, ignoring spaces, dots and hyphens (4.D.8).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from adjudicator.results import SUC, Default, OrderResult
from adjudicator.rulebook import Rulebook
from adjudicator.values import GameState
from maps import Map
from orders import AMY, Build, Order, Remove, Unit, Waive

_FAR_AWAY: Final = 1 << 20
_UNUSED_BUILD: Final = Default("build not used: waived")
_CIVIL_DISORDER: Final = Default(
    "removal not ordered: chosen by the civil-disorder rule (DATC 4.D.8)"
)


def _bfs(neighbours: Sequence[frozenset[int]] | list[set[int]], starts: Sequence[int]) -> list[int]:
    dist = [_FAR_AWAY] * len(neighbours)
    todo = list(starts)
    for s in todo:
        dist[s] = 0
    head = 0
    while head < len(todo):
        x = todo[head]
        head += 1
        nd = dist[x] + 1
        for y in neighbours[x]:
            if dist[y] > nd:
                dist[y] = nd
                todo.append(y)
    return dist


def _mixed_graph(m: Map) -> list[set[int]]:
    """Province graph where a unit may move as an army or as a fleet."""
    graph: list[set[int]] = [set(adj) for adj in m.army_adj]
    for loc, reach in enumerate(m.fleet_reach):
        graph[m.loc_province[loc]].update(reach)
    return graph


def _home_distances(m: Map) -> dict[str, tuple[list[int], list[int]]]:
    """power -> (army distance by province, fleet distance by location), rule 'd'
    (worked out once per map, kept with it)."""
    return m.derived("adjudicator.home-distances", _distances_from_homes)


def _distances_from_homes(m: Map) -> dict[str, tuple[list[int], list[int]]]:
    mixed = _mixed_graph(m)
    table: dict[str, tuple[list[int], list[int]]] = {}
    for power, homes in m.home_centres.items():
        army = _bfs(mixed, homes)
        fleet_starts = [loc for h in homes for loc in m.fleet_locs[h]]
        fleet = _bfs(m.fleet_adj, fleet_starts)
        table[power] = (army, fleet)
    return table


def _name_key(name: str) -> str:
    return "".join(ch for ch in name if ch not in " .-").casefold()


def civil_disorder_removals(
    m: Map, state: GameState, power: str, candidates: Sequence[Unit], count: int, rules: Rulebook
) -> list[Unit]:
    """The ``count`` units of ``candidates`` that civil disorder removes, in order."""
    if count <= 0:
        return []
    ids = m.ids
    if rules.civil_disorder_rule == "2023":
        owned = [ids[c] for c, p in state.ownership.items() if p == power]
        dist = _bfs(_mixed_graph(m), owned)

        def distance(u: Unit) -> int:
            return dist[ids[u.location.province]]

    else:
        army, fleet = _home_distances(m)[power]

        def distance(u: Unit) -> int:
            p = ids[u.location.province]
            if u.kind == AMY:
                return army[p]
            return fleet[m.loc_ids[(p, u.location.coast)]]

    def key(u: Unit) -> tuple[int, int, str]:
        return (
            -distance(u),
            1 if u.kind == AMY else 0,
            _name_key(m.provinces[ids[u.location.province]].name),
        )

    return sorted(candidates, key=key)[:count]


def resolve_adjustments(
    m: Map,
    state: GameState,
    accepted: Mapping[str, Sequence[Order]],
    rules: Rulebook,
) -> tuple[tuple[OrderResult, ...], tuple[Unit, ...]]:
    """Results (per power in map order: builds, removals, waives) and the new units.

    ``accepted`` holds each power's checked orders in the order given.
    """
    results: list[OrderResult] = []
    removed: set[Unit] = set()
    built: list[Unit] = []
    for power in m.powers:
        delta = state.adjustment(power)
        orders = accepted.get(power, ())
        if delta > 0:
            builds = [o for o in orders if isinstance(o, Build)]
            waives = [o for o in orders if isinstance(o, Waive)]
            for b in builds:
                results.append(OrderResult(b, SUC))
                built.append(b.unit)
            for w in waives:
                results.append(OrderResult(w, SUC))
            for _ in range(delta - len(builds) - len(waives)):
                results.append(OrderResult(Waive(power), SUC, False, _UNUSED_BUILD))
        elif delta < 0:
            seen: set[Unit] = set()
            for o in orders:
                if isinstance(o, Remove) and o.unit not in seen:
                    seen.add(o.unit)
                    results.append(OrderResult(o, SUC))
            rest = [u for u in state.units if u.power == power and u not in seen]
            for u in civil_disorder_removals(m, state, power, rest, -delta - len(seen), rules):
                results.append(OrderResult(Remove(u), SUC, False, _CIVIL_DISORDER))
                seen.add(u)
            removed |= seen
    units = [u for u in state.units if u not in removed] + built
    units.sort(key=lambda u: u.location.province)
    return tuple(results), tuple(units)


__all__ = ["civil_disorder_removals", "resolve_adjustments"]
