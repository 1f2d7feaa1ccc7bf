"""Orders as strategies return them: DAIDE order trees (docs/protocol.md §9.1).

An order is the tree of one bracketed SUB argument, in `protocol.tree` form,
for example ``(("ENG", "FLT", "LON"), "MTO", "NTH")``.  That is exactly what
goes on the wire, what the server's order conversion reads and what a THX
echoes, so a bot author can read every order in the logs as DAIDE text.

The helpers below only assemble the grammar; whether an order is legal is
the adjudicator's business (`bots.legal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.board import BoardUnit
from bots.geography import Node

Order = tuple[Any, ...]
"""One order: the contents of one bracketed SUB argument."""


def location(node: Node) -> Any:
    """`province` or `(province coast)` (docs/protocol.md §8: location)."""
    province, coast = node
    return province if coast is None else (province, coast)


def unit_tree(unit: BoardUnit) -> tuple[Any, ...]:
    """`power unit_type location`, written exactly as in NOW."""
    return (unit.power, unit.kind, location(unit.node))


def hold(unit: BoardUnit) -> Order:
    return (unit_tree(unit), "HLD")


def move(unit: BoardUnit, dest: Node) -> Order:
    return (unit_tree(unit), "MTO", location(dest))


def support_hold(unit: BoardUnit, target: BoardUnit) -> Order:
    return (unit_tree(unit), "SUP", unit_tree(target))


def support_move(unit: BoardUnit, target: BoardUnit, province: str) -> Order:
    """Support to move names a bare province, never a coast (docs/protocol.md §9.1)."""
    return (unit_tree(unit), "SUP", unit_tree(target), "MTO", province)


def convoy(fleet: BoardUnit, army: BoardUnit, province: str) -> Order:
    return (unit_tree(fleet), "CVY", unit_tree(army), "CTO", province)


def convoy_move(army: BoardUnit, province: str, via: Sequence[str]) -> Order:
    return (unit_tree(army), "CTO", province, "VIA", tuple(via))


def retreat(unit: BoardUnit, dest: Node) -> Order:
    return (unit_tree(unit), "RTO", location(dest))


def disband(unit: BoardUnit) -> Order:
    return (unit_tree(unit), "DSB")


def build(power: str, kind: str, node: Node) -> Order:
    return ((power, kind, location(node)), "BLD")


def remove(unit: BoardUnit) -> Order:
    return (unit_tree(unit), "REM")


def waive(power: str) -> Order:
    """`power WVE`: no brackets around the power (docs/protocol.md §9.1)."""
    return (power, "WVE")


def unmatched_supports(orders: Sequence[Order]) -> list[Order]:
    """The supports in one power's order set that its own orders contradict.

    A support matches when the supported unit's own order in the set does what
    the support names: a support to move ``MTO p`` needs that unit's ``MTO p``
    (any coast of ``p``) or ``CTO p``; a support to hold needs that unit not to
    move (hold, support or convoy: a unit not ordered to move may receive
    support to hold, as DATC 4.D.9 recalls the rules).  Supports
    of units the set has no order for (other powers' units) are not judged.
    An unmatched support is legal but wasted - and one naming the supported
    unit's own province is illegal (FAR), the bug that made this check.
    """
    own: dict[Any, Order] = {order[0]: order for order in orders
                             if isinstance(order[0], tuple)}
    out: list[Order] = []
    for order in orders:
        if len(order) < 3 or order[1] != "SUP":
            continue
        target = own.get(order[2])
        if target is None:
            continue
        moving_to = None
        if target[1] in ("MTO", "CTO"):
            dest = target[2]
            moving_to = dest[0] if isinstance(dest, tuple) else dest
        wanted = order[4] if len(order) == 5 else None
        if moving_to != wanted:
            out.append(order)
    return out
