"""DumbBot's province values: what each place on the board is worth to one power.

The design follows the idea of David Norman's DumbBot (this is our own
formulation, not a port):

1. **Power strength.**  Every power gets a weight that grows faster than its
   centre count (``a*c*c + b*c + c0``): the bigger a power, the more its
   centres are worth attacking and the more its units are worth fearing.
2. **Base values.**  Only supply centres have a value of their own:
   * an enemy centre is worth its owner's strength (attack the leader);
   * a neutral centre is worth a fixed, high value (early expansion);
   * an own centre is worth the strength of the strongest power that has a
     unit next to it (defence), and nothing if nobody threatens it.
   Attack and defence are weighted by season: in the fall, centres change
   hands, so defence matters more than in the spring.  In the winter the
   values decide builds and removals, and defence counts most.
3. **Spreading.**  Values spread over the unit's own movement graph (armies
   over land, fleets over seas and coasts) for several rounds: each round a
   node takes the mean of itself and its neighbours.  The value of a node is a
   weighted sum of its round values - the first spread round weighs most, so
   a unit is drawn to places *next to* valuable ones (where it can strike
   from, or support from) as well as to valuable places themselves, and far
   away units still feel the slope towards regions full of them.

The numbers are tuning constants in `Weights`, chosen with `bench_bots.py`
(which measures DumbBot against RandBots and HoldBots).  Two ideas were
measured and dropped there: bonuses for provinces next to many own units and
maluses for provinces next to many enemy units both lowered DumbBot's share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bots.board import BoardView
from bots.geography import ARMY, FLEET, Geography, Node


@dataclass(frozen=True)
class Weights:
    """Tuning constants of the valuation."""

    size_square: float = 1.0
    size_linear: float = 4.0
    size_constant: float = 16.0
    neutral: float = 60.0
    attack: Mapping[str, float] | None = None
    defence: Mapping[str, float] | None = None
    rounds: tuple[float, ...] = (100.0, 1000.0, 30.0, 10.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0)

    def attack_weight(self, season: str) -> float:
        table = self.attack or {"SPR": 0.7, "SUM": 0.7, "FAL": 0.6, "AUT": 0.6, "WIN": 0.5}
        return table[season]

    def defence_weight(self, season: str) -> float:
        table = self.defence or {"SPR": 0.15, "SUM": 0.15, "FAL": 0.3, "AUT": 0.3, "WIN": 0.4}
        return table[season]


DEFAULT_WEIGHTS = Weights()


@dataclass(frozen=True)
class Valuation:
    """Node values for one power at one moment, for armies and for fleets."""

    army: Mapping[Node, float]
    fleet: Mapping[Node, float]
    base: Mapping[str, float]

    def value(self, kind: str, node: Node) -> float:
        table = self.army if kind == ARMY else self.fleet
        return table.get(node, 0.0)


def power_strength(view: BoardView, weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
    """Strength weight of every power, from its centre count."""
    out = {}
    for power in view.geography.powers:
        c = view.centre_count(power)
        out[power] = weights.size_square * c * c + weights.size_linear * c + weights.size_constant
    return out


def base_values(view: BoardView, weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
    """Value of each province before spreading (zero except supply centres)."""
    geo = view.geography
    strength = power_strength(view, weights)
    attack = weights.attack_weight(view.season)
    defence = weights.defence_weight(view.season)
    occupants: dict[str, str] = {u.province: u.power for u in view.units}
    values = dict.fromkeys(geo.provinces, 0.0)
    for centre in sorted(geo.centres):
        owner = view.owner(centre)
        if owner == view.power:
            threat = 0.0
            for near in geo.province_neighbours(centre) | {centre}:
                enemy = occupants.get(near)
                if enemy is not None and enemy != view.power:
                    threat = max(threat, strength[enemy])
            values[centre] = defence * threat
        elif owner is None:
            values[centre] = attack * weights.neutral
        else:
            values[centre] = attack * strength[owner]
    return values


@dataclass(frozen=True)
class _SpreadGraph:
    """One kind of unit's movement graph with the nodes numbered, so a spread
    round reads lists instead of dictionaries; built once per map and kept with
    its `Geography` (`spread_graph`)."""

    nodes: tuple[Node, ...]
    neighbours: tuple[tuple[int, ...], ...]
    """Per node, the numbers of the nodes it borders; a neighbour that is no node
    of the graph gets ``len(nodes)``, a slot that stays 0."""

    def spread(self, start: list[float], rounds: tuple[float, ...]) -> dict[Node, float]:
        """Weighted sum over rounds of repeated neighbourhood averaging of `start`
        (one value per node, in node order)."""
        current = [*start, 0.0]
        total = [rounds[0] * v for v in start]
        for weight in rounds[1:]:
            following = []
            for i, adj in enumerate(self.neighbours):
                acc = current[i]
                for j in adj:
                    acc += current[j]
                following.append(acc / (len(adj) + 1))
            following.append(0.0)
            current = following
            for i in range(len(total)):
                total[i] += weight * current[i]
        return dict(zip(self.nodes, total, strict=True))


def spread_graph(geo: Geography, kind: str) -> _SpreadGraph:
    """The numbered movement graph of `kind` on `geo` (made once per map)."""
    def make(g: Geography) -> _SpreadGraph:
        nodes = g.nodes(kind)
        number = {n: i for i, n in enumerate(nodes)}
        return _SpreadGraph(nodes, tuple(
            tuple(number.get(m, len(nodes)) for m in g.neighbours(kind, n)) for n in nodes))
    return geo.derived(f"values/spread/{kind}", make)


def spread_valuation(geo: Geography, base: Mapping[str, float],
                     rounds: tuple[float, ...]) -> Valuation:
    """The node values of both kinds of unit, spread from province values `base`."""
    out: dict[str, dict[Node, float]] = {}
    for kind in (ARMY, FLEET):
        graph = spread_graph(geo, kind)
        out[kind] = graph.spread([base[n[0]] for n in graph.nodes], rounds)
    return Valuation(army=out[ARMY], fleet=out[FLEET], base=base)


def valuation(view: BoardView, weights: Weights = DEFAULT_WEIGHTS) -> Valuation:
    """Compute the node values DumbBot plans with (see the module docstring)."""
    return spread_valuation(view.geography, base_values(view, weights), weights.rounds)
