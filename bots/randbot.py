"""RandBot: uniformly random legal orders of every kind, seeded.

Movement phase: units are taken in a random order; each picks an order
*kind* uniformly among the kinds open to it (hold, move, support, convoy,
move by convoy), then one order of that kind uniformly.  Convoys are
planned as a whole (`bots.convoys`): an army moving by convoy takes a real
chain of own, not yet ordered fleets in sea provinces, and each of those
fleets is given the matching CVY.  Supports are decided last, so they *match*: a support
to hold names a unit that stays where it is (a foreign unit, or an own unit
that holds, supports or convoys), a support to move names an own unit's
actual move.

Retreat phase: each dislodged unit retreats to a random MRT place or
disbands.  Adjustment phase: each build owed goes to a random free home
centre (random unit type and coast) or is waived; removals are random units.
"""

from __future__ import annotations

import random

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.convoys import convoy_routes
from bots.geography import ARMY, FLEET, Node
from bots.orders import location_of, unit_of
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

HOLD, MOVE, SUPPORT, CONVOY, VIA = "HLD", "MTO", "SUP", "CVY", "CTO"


class RandBot:
    """Uniformly random legal orders, seeded by the caller's generator."""

    name = "RandBot"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        kind = view.phase_kind
        if kind == MOVEMENT:
            return self._movement(view, rng)
        if kind == RETREAT:
            return self._retreats(view, rng)
        assert kind == ADJUSTMENT
        return self._adjustments(view, rng)

    # -- movement -----------------------------------------------------------

    def _movement(self, view: BoardView, rng: random.Random) -> list[Order]:
        geo = view.geography
        units = list(view.my_units)
        rng.shuffle(units)
        chosen: dict[BoardUnit, Order] = {}
        moving_to: dict[BoardUnit, str] = {}
        supporters: list[BoardUnit] = []

        def free_fleets() -> dict[str, BoardUnit]:
            return {u.province: u for u in units
                    if u.kind == FLEET and u not in chosen and u not in supporters
                    and geo.is_sea(u.province)}

        def order_convoy(army: BoardUnit, dest: str, chain: tuple[str, ...]) -> None:
            fleets = free_fleets()
            chosen[army] = ConvoyMove(unit_of(army), dest, chain)
            moving_to[army] = dest
            for sea in chain:
                chosen[fleets[sea]] = Convoy(unit_of(fleets[sea]), unit_of(army), dest)

        for unit in units:
            if unit in chosen:
                continue
            kinds = [HOLD, SUPPORT]
            moves = geo.neighbours(unit.kind, unit.node)
            if moves:
                kinds.append(MOVE)
            fleets = free_fleets()
            routes = list(convoy_routes(view, unit, fleets)) if unit.kind == ARMY else []
            if routes:
                kinds.append(VIA)
            carried: list[tuple[BoardUnit, str, tuple[str, ...]]] = []
            if unit.province in fleets:
                for army in units:
                    if army.kind == ARMY and army not in chosen and army not in supporters:
                        for dest, chain in convoy_routes(view, army, fleets):
                            if unit.province in chain:
                                carried.append((army, dest, chain))
                if carried:
                    kinds.append(CONVOY)
            pick = rng.choice(kinds)
            if pick == HOLD:
                chosen[unit] = Hold(unit_of(unit))
            elif pick == MOVE:
                step = rng.choice(moves)
                chosen[unit] = Move(unit_of(unit), location_of(step))
                moving_to[unit] = step[0]
            elif pick == VIA:
                dest, chain = rng.choice(routes)
                order_convoy(unit, dest, chain)
            elif pick == CONVOY:
                army, dest, chain = rng.choice(carried)
                order_convoy(army, dest, chain)
            else:
                supporters.append(unit)

        for unit in supporters:
            options: list[Order] = []
            reach = geo.reachable_provinces(unit.kind, unit.node)
            for other in view.units:
                if other == unit:
                    continue
                if other in moving_to:
                    if moving_to[other] in reach:
                        options.append(SupportMove(unit_of(unit), unit_of(other), moving_to[other]))
                elif other.province in reach:
                    options.append(SupportHold(unit_of(unit), unit_of(other)))
            chosen[unit] = rng.choice(options) if options else Hold(unit_of(unit))
        return [chosen[u] for u in view.my_units]

    # -- retreats and adjustments ---------------------------------------------

    def _retreats(self, view: BoardView, rng: random.Random) -> list[Order]:
        out: list[Order] = []
        for unit in view.my_dislodged:
            options: list[Node | None] = [None, *(unit.retreats or ())]
            dest = rng.choice(options)
            out.append(Disband(unit_of(unit)) if dest is None
                       else Retreat(unit_of(unit), location_of(dest)))
        return out

    def _adjustments(self, view: BoardView, rng: random.Random) -> list[Order]:
        owed = view.adjustment
        if owed < 0:
            units = list(view.my_units)
            return [Remove(unit_of(u)) for u in rng.sample(units, min(-owed, len(units)))]
        geo = view.geography
        sites = list(view.build_sites())
        out: list[Order] = []
        for _ in range(owed):
            options: list[tuple[str, Node] | None] = [None]
            for site in sites:
                if geo.is_land(site):
                    options.append((ARMY, (site, None)))
                options.extend((FLEET, node) for node in geo.fleet_nodes(site))
            pick = rng.choice(options)
            if pick is None:
                out.append(Waive(view.power))
            else:
                out.append(Build(Unit(view.power, pick[0], location_of(pick[1]))))
                sites.remove(pick[1][0])
        return out
