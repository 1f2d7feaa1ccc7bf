"""Orders in a bot: the one order model (`orders`) seen from a `BoardView`.

Strategies return :mod:`orders` values - ``Move(unit_of(u), location_of(node))``,
``SupportMove(...)``, ``Waive(power)`` ... - the very values the protocol
reads from a THX, ORD or NOW and the adjudicator judges; the client writes
them to the wire once, in the ``SUB`` (`protocol.orders.order_node`,
docs/protocol.md §9.1).  This module only bridges a bot's board to those
values (`unit_of`, `location_of`, `board_unit`) and judges a set's own
consistency (`agrees`, `unmatched_supports`); whether an order is legal is
the adjudicator's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from bots.board import BoardUnit
from bots.geography import Node
from orders import (
    Convoy,
    ConvoyMove,
    Kind,
    Location,
    Order,
    SupportHold,
    SupportMove,
    Unit,
    UnitOrder,
    Waive,
    kind_of,
)


def location_of(node: Node) -> Location:
    """A geography node ``(province, coast)`` as a location."""
    return Location(node[0], node[1])


def unit_of(unit: BoardUnit) -> Unit:
    """The order model's unit for a unit on the bot's board."""
    node = unit.node
    return Unit(unit.power, unit.kind, Location(node[0], node[1]))


def board_unit(unit: Unit, retreats: Sequence[Location] | None = None) -> BoardUnit:
    """A unit as the bot's board shows it (``retreats``: a dislodged unit's MRT places)."""
    loc = unit.location
    return BoardUnit(
        power=unit.power, kind=unit.kind, node=(loc.province, loc.coast),
        retreats=None if retreats is None else tuple((r.province, r.coast) for r in retreats))


def agrees(order: Order, by_province: Mapping[str, UnitOrder]) -> bool:
    """Whether a support or convoy agrees with the own orders of the units it names.

    ``by_province`` holds a power's own orders by the province of their unit
    (:func:`own_orders`).  A support matches when the supported unit's own
    order does what the support names: a support to move to ``p`` needs that
    unit to be ordered to ``p`` (a move to any coast of ``p``, or by convoy),
    a support to hold needs it not to move (hold, support or convoy: a unit
    not ordered to move may receive support to hold, as DATC 4.D.9 recalls
    the rules).  A ``CVY`` matches when the army's order is ``CTO`` to the
    same province with the fleet's province in its VIA list; a ``CTO`` when
    every own fleet in its VIA list convoys it there.  Units the set has no
    order for are not judged, nor are orders of other kinds.
    """
    judge = _AGREES.get(type(order))
    return True if judge is None else judge(order, by_province)


def _their_order(kind: Kind, order: Order, by_province: Mapping[str, UnitOrder]
                 ) -> UnitOrder | None:
    """The own order of the unit a support or convoy names (its second unit)."""
    other = kind.units(order)[1]
    theirs = by_province.get(other.location.province)
    return theirs if theirs is not None and theirs.unit == other else None


def _support_agrees(order: SupportHold | SupportMove,
                    by_province: Mapping[str, UnitOrder]) -> bool:
    kind = kind_of(order)
    theirs = _their_order(kind, order, by_province)
    return theirs is None or kind_of(theirs).goes_to(theirs) == kind.target(order)


def _convoy_agrees(order: Convoy, by_province: Mapping[str, UnitOrder]) -> bool:
    cto = _their_order(kind_of(order), order, by_province)
    return cto is None or (isinstance(cto, ConvoyMove) and cto.dest == order.dest
                           and order.unit.location.province in cto.via)


def _convoy_move_agrees(order: ConvoyMove, by_province: Mapping[str, UnitOrder]) -> bool:
    for sea in order.via:
        fleet = by_province.get(sea)
        if fleet is not None and not (isinstance(fleet, Convoy) and fleet.army == order.unit
                                      and fleet.dest == order.dest):
            return False
    return True


#: order class -> how an order of that kind is judged against the own orders
_AGREES: dict[type, Callable[[Any, Mapping[str, UnitOrder]], bool]] = {
    SupportHold: _support_agrees,
    SupportMove: _support_agrees,
    Convoy: _convoy_agrees,
    ConvoyMove: _convoy_move_agrees,
}


def own_orders(orders: Iterable[Order]) -> dict[str, UnitOrder]:
    """A power's orders by the province of their unit (a later one for a unit
    replaces an earlier one; waives left out)."""
    return {order.unit.location.province: order
            for order in orders if not isinstance(order, Waive)}


def unmatched_supports(orders: Sequence[Order]) -> list[Order]:
    """The supports in one power's order set that its own orders contradict
    (:func:`agrees`).

    Supports of units the set has no order for (other powers' units) are not
    judged.  An unmatched support is legal but wasted - and one naming the
    supported unit's own province is illegal (FAR), the bug that made this
    check.
    """
    own = own_orders(orders)
    return [order for order in orders
            if isinstance(order, (SupportHold, SupportMove)) and not agrees(order, own)]
