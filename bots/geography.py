"""The board as a graph, the way a bot thinks about it.

`Geography` is built once per map (see `bots.board.geography_of`) from the
`maps` package's map object: which provinces exist, which are supply centres,
whose home centres they are, and where an army or a fleet can go from each
place.  Bots plan on this graph; they never decide legality with it (the
adjudicator does that).

A *node* is where a unit can stand: `(province, coast)`, with `coast` None
except for a fleet on one coast of a bicoastal province (docs/protocol.md §11:
`((FLT coast) dest ...)` entries).  Armies stand on `(province, None)`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar, cast

from maps.model import Map

T = TypeVar("T")

Node = tuple[str, str | None]
"""Where a unit stands: (province, coast or None)."""

ARMY = "AMY"
FLEET = "FLT"


@dataclass(frozen=True)
class Geography:
    """Map facts a bot plans with; immutable and shared by every view of one map."""

    name: str
    powers: tuple[str, ...]
    provinces: tuple[str, ...]
    centres: frozenset[str]
    homes: Mapping[str, frozenset[str]]
    army_adj: Mapping[str, tuple[str, ...]]
    """province -> provinces an army there can move to (land adjacency)."""
    fleet_adj: Mapping[Node, tuple[Node, ...]]
    """fleet node -> fleet nodes a fleet there can move to."""
    _fleet_nodes: Mapping[str, tuple[Node, ...]] = field(default_factory=dict, repr=False)
    _army_dist: dict[str, Mapping[str, int]] = field(default_factory=dict, repr=False)
    _fleet_dist: dict[Node, Mapping[Node, int]] = field(default_factory=dict, repr=False)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        name: str,
        powers: Iterable[str],
        provinces: Iterable[str],
        centres: Iterable[str],
        homes: Mapping[str, Iterable[str]],
        army_adj: Mapping[str, Iterable[str]],
        fleet_adj: Mapping[Node, Iterable[Node]],
    ) -> Geography:
        """Build with every collection sorted, so iteration order is deterministic."""
        fleet = {node: tuple(sorted(set(dests), key=_node_key))
                 for node, dests in sorted(fleet_adj.items(), key=lambda kv: _node_key(kv[0]))}
        by_province: dict[str, list[Node]] = {}
        for node in fleet:
            by_province.setdefault(node[0], []).append(node)
        return cls(
            name=name,
            powers=tuple(powers),
            provinces=tuple(sorted(provinces)),
            centres=frozenset(centres),
            homes={p: frozenset(h) for p, h in sorted(homes.items())},
            army_adj={p: tuple(sorted(set(d))) for p, d in sorted(army_adj.items())},
            fleet_adj=fleet,
            _fleet_nodes={p: tuple(n) for p, n in by_province.items()},
        )

    def derived(self, name: str, make: Callable[[Geography], T]) -> T:
        """``make(self)``, computed on first use and kept with the geography
        under ``name`` (e.g. the adjudicator's map of it, `bots.futures.map_of`)."""
        got = self._derived.get(name)
        if got is None:
            got = make(self)
            self._derived[name] = got
        return cast(T, got)

    # -- places -------------------------------------------------------------

    def is_land(self, province: str) -> bool:
        """An army can stand here."""
        return province in self.army_adj

    def fleet_nodes(self, province: str) -> tuple[Node, ...]:
        """The nodes a fleet can occupy in `province` (one per coast, or one)."""
        return self._fleet_nodes.get(province, ())

    def is_sea(self, province: str) -> bool:
        return province not in self.army_adj and bool(self.fleet_nodes(province))

    def nodes(self, kind: str) -> tuple[Node, ...]:
        """Every node a unit of `kind` can stand on."""
        if kind == ARMY:
            return tuple((p, None) for p in self.army_adj)
        return tuple(self.fleet_adj)

    def neighbours(self, kind: str, node: Node) -> tuple[Node, ...]:
        """Nodes a unit of `kind` at `node` can move to (no convoys)."""
        if kind == ARMY:
            return tuple((p, None) for p in self.army_adj.get(node[0], ()))
        return self.fleet_adj.get(node, ())

    def reachable_provinces(self, kind: str, node: Node) -> frozenset[str]:
        """Provinces a unit can move to, so also those it can support into."""
        return frozenset(n[0] for n in self.neighbours(kind, node))

    def province_neighbours(self, province: str) -> frozenset[str]:
        """Provinces next to `province` for any unit type (the threat graph)."""
        out = set(self.army_adj.get(province, ()))
        for node in self.fleet_nodes(province):
            out.update(n[0] for n in self.fleet_adj[node])
        out.discard(province)
        return frozenset(out)

    # -- distances ----------------------------------------------------------

    def army_distances(self, origin: str) -> Mapping[str, int]:
        """Moves an army needs from `origin` to each land province (over land)."""
        cached = self._army_dist.get(origin)
        if cached is None:
            cached = _bfs(origin, lambda p: self.army_adj.get(p, ()))
            self._army_dist[origin] = cached
        return cached

    def fleet_distances(self, origin: Node) -> Mapping[Node, int]:
        """Moves a fleet needs from `origin` to each fleet node."""
        cached = self._fleet_dist.get(origin)
        if cached is None:
            cached = _bfs(origin, lambda n: self.fleet_adj.get(n, ()))
            self._fleet_dist[origin] = cached
        return cached

    def distance_to_any(self, kind: str, node: Node, targets: Iterable[str]) -> int | None:
        """Fewest moves from `node` to any province in `targets` (None: unreachable)."""
        wanted = set(targets)
        best: int | None = None
        if kind == ARMY:
            for province, d in self.army_distances(node[0]).items():
                if province in wanted and (best is None or d < best):
                    best = d
        else:
            for other, d in self.fleet_distances(node).items():
                if other[0] in wanted and (best is None or d < best):
                    best = d
        return best


def _node_key(node: Node) -> tuple[str, str]:
    return (node[0], node[1] or "")


def _bfs(origin: T, neighbours: Callable[[T], Iterable[T]]) -> dict[T, int]:
    dist: dict[T, int] = {origin: 0}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        for nxt in neighbours(here):
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


@lru_cache(maxsize=32)
def geography_of(game_map: Map) -> Geography:
    """The `Geography` of a `maps.Map` (cached per map object).

    Only re-shapes the map's own data (ids to mnemonics); nothing is decided
    here that the map does not say.
    """
    names = [p.mnemonic for p in game_map.provinces]
    army_adj = {names[p.id]: [names[q] for q in game_map.army_adj[p.id]]
                for p in game_map.provinces if p.is_land}
    fleet_adj: dict[Node, list[Node]] = {}
    for p in game_map.provinces:
        for loc in game_map.fleet_locs[p.id]:
            fleet_adj[game_map.location_name(loc)] = [
                game_map.location_name(dest) for dest in game_map.fleet_adj[loc]]
    return Geography.build(
        name=game_map.name,
        powers=game_map.powers,
        provinces=names,
        centres=[names[c] for c in game_map.supply_centres],
        homes={power: [names[c] for c in ids] for power, ids in game_map.home_centres.items()},
        army_adj=army_adj,
        fleet_adj=fleet_adj,
    )
