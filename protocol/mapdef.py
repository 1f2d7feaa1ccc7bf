"""The MDF map definition (docs/protocol.md §11) as a typed value.

::

    MDF (powers) (provinces) (adjacencies)
    provinces      = (supply_centres) (non_supply_centres)
    supply_centres = (owner centre centre ...) (owner centre centre ...) ...
    owner          = power | UNO | (power power ...)
    adjacencies    = (province (unit_adj) (unit_adj) ...) ...
    unit_adj       = AMY dest ... | FLT dest ... | (FLT coast) dest ...
    dest           = province | (province coast)

Order inside lists carries no meaning but is kept as received, so a parsed
MDF renders back to exactly the same tokens.  Turning an MDF into a map
model (kinds of provinces, symmetric adjacencies) is ``maps/``'s business.
"""

from __future__ import annotations

from dataclasses import dataclass

from orders import Location
from protocol.grammar import Loc, Parser
from protocol.orders import location, location_node, parse_location
from protocol.tree import Node


@dataclass(frozen=True, slots=True)
class CentreGroup:
    """``(owner centre centre ...)``: home centres of ``owner``.

    ``owner`` is a power, ``'UNO'`` (the neutral centres) or a tuple of powers
    (a centre that is home to several powers).
    """

    owner: str | tuple[str, ...]
    centres: tuple[str, ...]

    # Written out (as protocol.orders.Turn is): compiled, a frozen dataclass's
    # generated __init__ stays interpreted; an SCO is made of these.
    def __init__(self, owner: str | tuple[str, ...], centres: tuple[str, ...]) -> None:
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "centres", centres)

    def to_node(self) -> tuple[Node, ...]:
        return (self.owner, *self.centres)


@dataclass(frozen=True, slots=True)
class UnitAdjacency:
    """``AMY dest ...``, ``FLT dest ...`` or ``(FLT coast) dest ...``."""

    unit_type: str
    coast: str | None
    dests: tuple[Location, ...]

    def to_node(self) -> tuple[Node, ...]:
        head: Node = self.unit_type if self.coast is None else (self.unit_type, self.coast)
        return (head, *(location_node(d) for d in self.dests))


@dataclass(frozen=True, slots=True)
class ProvinceAdjacency:
    """``(province (unit_adj) (unit_adj) ...)``"""

    province: str
    lists: tuple[UnitAdjacency, ...]

    def to_node(self) -> tuple[Node, ...]:
        return (self.province, *(a.to_node() for a in self.lists))


@dataclass(frozen=True, slots=True)
class MapDefinition:
    """The three groups of an MDF message."""

    powers: tuple[str, ...]
    centres: tuple[CentreGroup, ...]
    non_centres: tuple[str, ...]
    adjacencies: tuple[ProvinceAdjacency, ...]

    def to_nodes(self) -> tuple[Node, ...]:
        """The MDF arguments: ``(powers) (provinces) (adjacencies)``."""
        return (
            self.powers,
            (tuple(c.to_node() for c in self.centres), self.non_centres),
            tuple(a.to_node() for a in self.adjacencies),
        )


def _centre_group(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> CentreGroup:
    g = p.group(seq, i, loc, "owner centre ...")
    here = loc + (i,)
    owner: str | tuple[str, ...]
    if g and type(g[0]) is tuple:
        owners = g[0]
        assert isinstance(owners, tuple)
        owner = p.many(owners, 0, here + (0,), p.power)
    else:
        owner = p.power_or_uno(g, 0, here)
    return CentreGroup(owner, p.many(g, 1, here, p.province, 0))


def _unit_adjacency(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> UnitAdjacency:
    g = p.group(seq, i, loc, "unit adjacency")
    here = loc + (i,)
    coast: str | None = None
    if g and type(g[0]) is tuple:  # (FLT coast)
        head = g[0]
        assert isinstance(head, tuple)
        unit_type = p.keyword(head, 0, here + (0,), "FLT")
        coast = p.coast(head, 1, here + (0,))
        p.end(head, 2, here + (0,))
    else:
        unit_type = p.unit_type(g, 0, here)
    # The bulk of an MDF: plain provinces take a fast path.
    category = p.get_category
    dests = []
    for k in range(1, len(g)):
        node = g[k]
        if type(node) is str and category(node, 0) >> 3 == 0x0A:  # 0x50-0x57
            dests.append(location(node))
        else:
            dests.append(parse_location(p, g, k, here))
    return UnitAdjacency(unit_type, coast, tuple(dests))


def _province_adjacency(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> ProvinceAdjacency:
    g = p.group(seq, i, loc, "province adjacency")
    here = loc + (i,)
    province = p.province(g, 0, here)
    lists = p.many(g, 1, here, lambda s, k, lc: _unit_adjacency(p, s, k, lc), 1)
    return ProvinceAdjacency(province, lists)


def parse_map_definition(p: Parser, seq: tuple[Node, ...], start: int, loc: Loc) -> MapDefinition:
    """``(powers) (provinces) (adjacencies)`` from ``seq[start]`` to the end."""
    powers_group = p.group(seq, start, loc, "powers")
    powers = p.many(powers_group, 0, loc + (start,), p.power)
    provinces = p.group(seq, start + 1, loc, "provinces")
    here = loc + (start + 1,)
    centre_groups = p.group(provinces, 0, here, "supply centres")
    centres = p.many(centre_groups, 0, here + (0,), lambda s, k, lc: _centre_group(p, s, k, lc), 1)
    non_centre_group = p.group(provinces, 1, here, "non supply centres")
    non_centres = p.many(non_centre_group, 0, here + (1,), p.province, 0)
    p.end(provinces, 2, here)
    adjacency_group = p.group(seq, start + 2, loc, "adjacencies")
    adjacencies = p.many(
        adjacency_group,
        0,
        loc + (start + 2,),
        lambda s, k, lc: _province_adjacency(p, s, k, lc),
        1,
    )
    p.end(seq, start + 3, loc)
    return MapDefinition(powers, centres, non_centres, adjacencies)
