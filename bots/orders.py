"""Orders in a bot: the one order model (`orders`) seen from a `BoardView`.

Strategies return :mod:`orders` values - ``Move(unit_of(u), location_of(node))``,
``SupportMove(...)``, ``Waive(power)`` ... - the very values the protocol
reads from a THX, ORD or NOW and the adjudicator judges; the client writes
them to the wire once, in the ``SUB`` (`protocol.orders.order_node`,
docs/protocol.md §9.1).  This module only bridges a bot's board to those
values (`unit_of`, `location_of`, `board_unit`) and judges a set's own
consistency (`unmatched_supports`); whether an order is legal is the
adjudicator's business.
"""

from __future__ import annotations

from collections.abc import Sequence

from bots.board import BoardUnit
from bots.geography import Node
from orders import ConvoyMove, Location, Move, Order, SupportHold, SupportMove, Unit, Waive


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


def unmatched_supports(orders: Sequence[Order]) -> list[Order]:
    """The supports in one power's order set that its own orders contradict.

    A support matches when the supported unit's own order in the set does what
    the support names: a support to move to ``p`` needs that unit's move to
    ``p`` (any coast of ``p``) or move by convoy to ``p``; a support to hold
    needs that unit not to move (hold, support or convoy: a unit not ordered
    to move may receive support to hold, as DATC 4.D.9 recalls the rules).
    Supports of units the set has no order for (other powers' units) are not
    judged.  An unmatched support is legal but wasted - and one naming the
    supported unit's own province is illegal (FAR), the bug that made this
    check.
    """
    own = {order.unit: order for order in orders if not isinstance(order, Waive)}
    out: list[Order] = []
    for order in orders:
        if isinstance(order, SupportMove):
            wanted: str | None = order.dest
        elif isinstance(order, SupportHold):
            wanted = None
        else:
            continue
        target = own.get(order.supported)
        if target is None:
            continue
        moving_to = None
        if isinstance(target, Move):
            moving_to = target.dest.province
        elif isinstance(target, ConvoyMove):
            moving_to = target.dest
        if moving_to != wanted:
            out.append(order)
    return out
