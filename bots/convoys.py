"""Convoy routes and the consistency of convoy orders, shared by the bots.

A convoy is planned as a whole: the army's ``CTO dest VIA (sea ...)`` and one
matching ``CVY`` per fleet of the chain (docs/protocol.md §9.1).  `convoy_routes`
finds the chains a power's own fleets can form; `unmatched_convoys` names
the orders of a set that break the whole (a CVY whose army does not go that
way, a CTO whose chain has an own fleet not convoying it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from bots.board import BoardUnit, BoardView
from bots.geography import ARMY
from bots.orders import agrees, own_orders
from orders import Convoy, ConvoyMove, Order

MAX_CONVOY_FLEETS = 4
"""Longest chain of fleets searched (keeps the search small)."""


def convoy_routes(view: BoardView, army: BoardUnit, fleets: Mapping[str, BoardUnit],
                  max_fleets: int = MAX_CONVOY_FLEETS
                  ) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Every (destination, chain of sea provinces) an army can be convoyed along.

    `fleets` maps sea province -> available own fleet.  A chain starts next to
    the army's province and ends next to a land province other than the
    army's own (docs/protocol.md §9.1 VIA; docs/adjudication-conventions.md).  Each
    (destination, chain) pair is given once, shorter chains first along a
    branch.
    """
    geo = view.geography
    seen: set[tuple[str, tuple[str, ...]]] = set()

    def extend(chain: tuple[str, ...]) -> Iterator[tuple[str, tuple[str, ...]]]:
        last = chain[-1]
        for near in sorted(geo.province_neighbours(last)):
            if geo.is_land(near) and near != army.province and (near, chain) not in seen:
                seen.add((near, chain))
                yield near, chain
        if len(chain) < max_fleets:
            for near in sorted(geo.province_neighbours(last)):
                if near in fleets and near not in chain:
                    yield from extend((*chain, near))

    if army.kind != ARMY:
        return
    for sea in sorted(geo.province_neighbours(army.province)):
        if sea in fleets:
            yield from extend((sea,))


def unmatched_convoys(orders: Sequence[Order]) -> list[Order]:
    """The convoy orders of one power's set that its own orders contradict
    (`bots.orders.agrees`).

    A ``CVY`` of an own army matches when that army's order is ``CTO`` to the
    same province with the fleet's province in its VIA list; a ``CTO`` matches
    when every own fleet it names in VIA (in the set) convoys it there.
    Convoys of other powers' armies, and VIA provinces the set has no order
    for, are not judged.
    """
    own = own_orders(orders)
    return [order for order in orders
            if isinstance(order, (Convoy, ConvoyMove)) and not agrees(order, own)]
