"""DumbBot: a heuristic no-press bot in the tradition of David Norman's DumbBot.

Every decision reads the node values of `bots.values` (centre ownership,
threats and the strength of their owners, spread over several rounds):

* **Moves.**  Each unit ranks the places it could be next phase (where it is,
  and every neighbour) by value, with a little noise so that equal options
  are chosen at random.  Units are settled in order of how much they stand to
  gain.  A unit does not move where another own unit already goes or stays;
  when its best place is held by an own unit that has not decided yet, that
  unit decides first; two own units never swap places (they would bounce).
* **Convoys.**  An army (giving or getting no support) is carried by sea to
  an empty place it cannot walk to - England's armies to the continent - when
  that place is worth more than its own plan plus whatever the fleets of the
  chain give up: own fleets in sea provinces that hold anyway, or whose move
  is worth less (a fleet keeps its move if an own unit follows into its
  place).  The best such convoys first; each fleet carries one army.
* **Supports.**  Units that stay put then look for an own move into a place
  they can reach and support it, the most valuable contested move first
  ("support where moves meet"); failing that, they support an own unit that
  holds under threat.  An uncontested move gets no support.  Every support
  is chosen from the final moves, so it matches the supported unit's order.
* **Retreats** go to the most valuable MRT place that no other own unit
  retreats to; with none left the unit disbands.
* **Builds** go to the most valuable free home centre and unit type (a fleet
  on the best coast); builds without a site are waived.  **Removals** take
  the units standing on the least valuable places.

Randomness comes only from the generator passed in, so a seed replays a game.
"""

from __future__ import annotations

import random

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.convoys import convoy_routes
from bots.geography import ARMY, FLEET, Node
from bots.orders import location_of, unit_of
from bots.values import DEFAULT_WEIGHTS, Valuation, Weights, valuation
from orders import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)

NOISE = 0.08
"""Random spread added to values when ranking options, as a share of the range."""


def _noisy_rank(options: list[tuple[float, Node]], rng: random.Random) -> list[Node]:
    """Options sorted best first, with noise proportional to the value range."""
    if not options:
        return []
    values = [v for v, _ in options]
    scale = (max(values) - min(values)) or 1.0
    scored = [(v + NOISE * scale * rng.random(), i) for i, (v, _) in enumerate(options)]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [options[i][1] for _, i in scored]


class DumbBot:
    """Moves toward valuable places, supports where moves meet (see module doc)."""

    name = "DumbBot"

    def __init__(self, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.weights = weights

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        values = valuation(view, self.weights)
        kind = view.phase_kind
        if kind == MOVEMENT:
            return _Movement(view, values, rng).plan()
        if kind == RETREAT:
            return self._retreats(view, values, rng)
        assert kind == ADJUSTMENT
        return self._adjustments(view, values, rng)

    def _retreats(self, view: BoardView, values: Valuation, rng: random.Random) -> list[Order]:
        taken: set[str] = set()
        out: list[Order] = []
        for unit in view.my_dislodged:
            ranked = _noisy_rank([(values.value(unit.kind, n), n) for n in unit.retreats or ()],
                                 rng)
            dest = next((n for n in ranked if n[0] not in taken), None)
            if dest is None:
                out.append(Disband(unit_of(unit)))
            else:
                taken.add(dest[0])
                out.append(Retreat(unit_of(unit), location_of(dest)))
        return out

    def _adjustments(self, view: BoardView, values: Valuation, rng: random.Random
                     ) -> list[Order]:
        owed = view.adjustment
        if owed < 0:
            ranked = sorted(view.my_units,
                            key=lambda u: (values.value(u.kind, u.node), u.province))
            return [Remove(unit_of(u)) for u in ranked[:-owed]]
        geo = view.geography
        options: list[tuple[float, Node]] = []
        kinds: dict[Node, str] = {}
        for site in view.build_sites():
            if geo.is_land(site):
                node: Node = (site, None)
                options.append((values.value(ARMY, node), node))
                kinds[node] = ARMY
            for fleet_node in geo.fleet_nodes(site):
                # A coastal site is one node for both types; keep the better type.
                value = values.value(FLEET, fleet_node)
                if fleet_node in kinds:
                    army_value = values.value(ARMY, fleet_node)
                    if value > army_value:
                        options.remove((army_value, fleet_node))
                        options.append((value, fleet_node))
                        kinds[fleet_node] = FLEET
                else:
                    options.append((value, fleet_node))
                    kinds[fleet_node] = FLEET
        out: list[Order] = []
        used: set[str] = set()
        for node in _noisy_rank(options, rng):
            if len(out) == owed:
                break
            if node[0] not in used:
                used.add(node[0])
                out.append(Build(Unit(view.power, kinds[node], location_of(node))))
        out.extend(Waive(view.power) for _ in range(owed - len(out)))
        return out


class _Movement:
    """One movement phase's planning (state shared by the steps)."""

    def __init__(self, view: BoardView, values: Valuation, rng: random.Random) -> None:
        self.view = view
        self.values = values
        self.rng = rng
        self.geo = view.geography
        self.units = list(view.my_units)
        rng.shuffle(self.units)
        self.ranked: dict[BoardUnit, list[Node]] = {}
        self.best: dict[BoardUnit, float] = {}
        for unit in self.units:
            options = [(values.value(unit.kind, n), n)
                       for n in (unit.node, *self.geo.neighbours(unit.kind, unit.node))]
            self.ranked[unit] = _noisy_rank(options, rng)
            self.best[unit] = max(v for v, _ in options)
        self.dest: dict[BoardUnit, Node] = {}
        self.claimed: dict[str, BoardUnit] = {}
        self.deciding: set[BoardUnit] = set()
        self.helps: dict[BoardUnit, BoardUnit] = {}
        self.convoys: dict[BoardUnit, tuple[str, ...]] = {}
        """army -> the sea provinces it is carried through (its dest is the landing)."""
        self.carriers: dict[BoardUnit, BoardUnit] = {}
        """convoying fleet -> the army it carries."""
        self.by_province = {u.province: u for u in self.units}
        self.enemy_reach: dict[str, int] = {}
        for other in view.units:
            if other.power != view.power:
                for p in self.geo.reachable_provinces(other.kind, other.node) | {other.province}:
                    self.enemy_reach[p] = self.enemy_reach.get(p, 0) + 1

    def plan(self) -> list[Order]:
        for unit in sorted(self.units, key=lambda u: -self.best[u]):
            self._decide(unit)
        self._convoy()
        self._recruit()
        orders = {u: self._order(u) for u in self.units}
        self._supports(orders)
        return [orders[u] for u in self.view.my_units]

    def _order(self, unit: BoardUnit) -> Order:
        """The unit's move, convoy or hold (supports are chosen afterwards)."""
        if unit in self.convoys:
            return ConvoyMove(unit_of(unit), self.dest[unit][0], self.convoys[unit])
        if unit in self.carriers:
            army = self.carriers[unit]
            return Convoy(unit_of(unit), unit_of(army), self.dest[army][0])
        if self.dest[unit] == unit.node:
            return Hold(unit_of(unit))
        return Move(unit_of(unit), location_of(self.dest[unit]))

    def _decide(self, unit: BoardUnit) -> None:
        if unit in self.dest or unit in self.deciding:
            return
        self.deciding.add(unit)
        for node in self.ranked[unit]:
            province = node[0]
            if province == unit.province:
                break
            if province in self.claimed:
                mover = self.claimed[province]
                moving = self.dest.get(mover, mover.node) != mover.node
                if moving and self._contested(province):
                    # Our best place is already being attacked by our own unit:
                    # help it there instead of wandering off (support where moves meet).
                    self.helps[unit] = mover
                    break
                continue
            occupant = self.by_province.get(province)
            if occupant is not None:
                self._decide(occupant)
                stays = occupant in self.dest and self.dest[occupant][0] == province
                swaps = occupant in self.dest and self.dest[occupant][0] == unit.province
                if occupant in self.deciding or stays or swaps:
                    continue
            self.dest[unit] = node
            self.claimed[province] = unit
            self.deciding.discard(unit)
            return
        self.dest[unit] = unit.node
        self.claimed.setdefault(unit.province, unit)
        self.deciding.discard(unit)

    def _convoy(self) -> None:
        """Carry armies by sea to valuable empty places out of their walking reach."""
        helping = set(self.helps) | set(self.helps.values())
        entering = {self.dest[u][0] for u in self.units if self.dest[u] != u.node}
        fleets: dict[str, BoardUnit] = {}
        give_up: dict[BoardUnit, float] = {}
        for fleet in self.units:
            if (fleet.kind != FLEET or fleet in helping or not self.geo.is_sea(fleet.province)):
                continue
            if self.dest[fleet] == fleet.node:
                give_up[fleet] = 0.0
            elif fleet.province not in entering:
                give_up[fleet] = (self.values.value(FLEET, self.dest[fleet])
                                  - self.values.value(FLEET, fleet.node))
            else:
                continue
            fleets[fleet.province] = fleet
        if not fleets:
            return
        options: list[tuple[float, int, int, str, tuple[str, ...]]] = []
        for index, army in enumerate(self.units):
            if army.kind != ARMY or army in helping:
                continue
            walk = self.geo.reachable_provinces(ARMY, army.node)
            here = self.values.value(ARMY, self.dest[army])
            for dest, chain in convoy_routes(self.view, army, fleets):
                if dest in walk or dest in self.claimed or self.view.unit_in(dest) is not None:
                    continue
                # A lone convoyed army wins a place only if no enemy goes there too.
                odds = 1.0 / (1 + self.enemy_reach.get(dest, 0))
                gain = (odds * self.values.value(ARMY, (dest, None)) - here
                        - sum(give_up[fleets[sea]] for sea in chain))
                if gain > 0:
                    options.append((gain, len(chain), index, dest, chain))
        options.sort(key=lambda opt: (-opt[0], opt[1], opt[2], opt[3], opt[4]))
        for _, _, index, dest, chain in options:
            army = self.units[index]
            carriers = [fleets[sea] for sea in chain]
            if (army in self.convoys or dest in self.claimed
                    or any(f in self.carriers for f in carriers)):
                continue
            self._reroute(army, (dest, None))
            self.convoys[army] = chain
            for fleet in carriers:
                self._reroute(fleet, fleet.node)
                self.carriers[fleet] = army

    def _reroute(self, unit: BoardUnit, node: Node) -> None:
        """Change a unit's destination, moving its claim along."""
        old = self.dest[unit][0]
        if self.claimed.get(old) is unit:
            del self.claimed[old]
        self.dest[unit] = node
        self.claimed[node[0]] = unit

    def _recruit(self) -> None:
        """Give every unsupported attack on an occupied enemy province one supporter.

        A lone attack on a unit that holds always bounces.  The supporter is an
        own unit that can reach the target and either stays put anyway or gives
        up a less valuable move - unless another own unit is moving into its
        place, which it would then block.
        """
        attacks = []
        for unit in self.units:
            goal = self.dest[unit]
            occupant = self.view.unit_in(goal[0]) if goal != unit.node else None
            if occupant is not None and occupant.power != self.view.power:
                attacks.append((self.values.value(unit.kind, goal), goal[0], unit))
        attacks.sort(key=lambda a: -a[0])
        for value, target, attacker in attacks:
            if self.dest[attacker][0] != target or attacker in self.helps:
                # An earlier attack recruited this attacker as its supporter:
                # it stays put now, so there is no attack left to support.
                continue
            if attacker in self.helps.values():
                continue
            entering = {self.dest[u][0] for u in self.units if self.dest[u] != u.node}
            best: tuple[float, BoardUnit] | None = None
            helped = set(self.helps.values())
            for unit in self.units:
                # A unit already giving or getting support, or in a convoy, keeps its order.
                if (unit is attacker or unit in self.helps or unit in helped
                        or unit in self.convoys or unit in self.carriers):
                    continue
                if target not in self.geo.reachable_provinces(unit.kind, unit.node):
                    continue
                if self.dest[unit] == unit.node:
                    cost = 0.0
                else:
                    if unit.province in entering:
                        continue
                    cost = self.values.value(unit.kind, self.dest[unit])
                    if cost >= value:
                        continue
                if best is None or cost < best[0]:
                    best = (cost, unit)
            if best is not None:
                helper = best[1]
                if self.dest[helper] != helper.node:
                    del self.claimed[self.dest[helper][0]]
                    self.dest[helper] = helper.node
                    self.claimed[helper.province] = helper
                self.helps[helper] = attacker

    def _contested(self, province: str) -> bool:
        """An enemy unit stands in or can move to `province`."""
        return self.enemy_reach.get(province, 0) > 0

    def _supports(self, orders: dict[BoardUnit, Order]) -> None:
        movers = [u for u in self.units if self.dest[u] != u.node]
        holders = [u for u in self.units if self.dest[u] == u.node]
        for unit in holders:
            if unit in self.carriers:
                continue        # convoys; it can still be supported to hold
            # A plan to help is kept only if the helped unit really moves in the
            # end: a support must match the supported unit's final order.
            helped = self.helps.get(unit)
            if helped is not None and helped in movers:
                orders[unit] = SupportMove(unit_of(unit), unit_of(helped), self.dest[helped][0])
                continue
            reach = self.geo.reachable_provinces(unit.kind, unit.node)
            best: tuple[float, Order] | None = None
            for mover in movers:
                target = self.dest[mover][0]
                if target not in reach or not self._contested(target):
                    continue
                score = self.values.value(mover.kind, self.dest[mover])
                if best is None or score > best[0]:
                    best = (score, SupportMove(unit_of(unit), unit_of(mover), target))
            if best is None:
                for other in holders:
                    if other is unit or other.province not in reach:
                        continue
                    if self.enemy_reach.get(other.province, 0) == 0:
                        continue
                    score = self.values.value(other.kind, other.node)
                    if best is None or score > best[0]:
                        best = (score, SupportHold(unit_of(unit), unit_of(other)))
            if best is not None:
                orders[unit] = best[1]
