"""Turns, units, orders, THX notes and ORD results as typed values.

docs/protocol.md §8 (common definitions) and 9 (orders).  Every value here is a
frozen dataclass holding mnemonics (upper-case ``str``) and ints; it renders
itself to tree nodes (``to_node``) and is read from them by the ``parse_*``
functions, which report grammar errors through :class:`protocol.grammar.Parser`.

The grammar is purely categorical: it checks that a power is a power token
and a province a province token, never whether a fleet may be there (that is
the THX note's job, docs/protocol.md §9.3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from protocol.grammar import Loc, Parser
from protocol.tokens import CAT_ORDER_NOTE, CAT_RESULT
from protocol.tree import Node

SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")


@dataclass(frozen=True, slots=True)
class Turn:
    """``season year``, e.g. ``SPR 1901`` (season = a phase token)."""

    season: str
    year: int

    def to_node(self) -> tuple[Node, ...]:
        return (self.season, self.year)

    def __str__(self) -> str:
        return f"{self.season} {self.year}"


@dataclass(frozen=True, slots=True)
class DaideLocation:
    """``province`` or ``( province coast )``."""

    province: str
    coast: str | None = None

    def to_node(self) -> Node:
        return self.province if self.coast is None else (self.province, self.coast)


@dataclass(frozen=True, slots=True)
class DaideUnit:
    """``power AMY province``, ``power FLT province`` or ``power FLT ( province coast )``."""

    power: str
    unit_type: str
    province: str
    coast: str | None = None

    @property
    def location(self) -> DaideLocation:
        return DaideLocation(self.province, self.coast)

    def to_node(self) -> tuple[Node, ...]:
        where: Node = self.province if self.coast is None else (self.province, self.coast)
        return (self.power, self.unit_type, where)


@dataclass(frozen=True, slots=True)
class UnitPosition:
    """A unit as listed in NOW and MIS; ``retreats`` is its MRT list if dislodged.

    ``( ENG FLT NTH MRT ( LON YOR ) )`` -> ``retreats=(Location('LON'), ...)``;
    ``MRT ( )`` (no retreat possible) -> ``retreats=()``; no MRT -> None.
    """

    unit: DaideUnit
    retreats: tuple[DaideLocation, ...] | None = None

    def to_node(self) -> tuple[Node, ...]:
        if self.retreats is None:
            return self.unit.to_node()
        return (*self.unit.to_node(), "MRT", tuple(r.to_node() for r in self.retreats))


# --- orders (docs/protocol.md §9.1) -----------------------------------------------


@dataclass(frozen=True, slots=True)
class DaideHold:
    """``(unit) HLD``"""

    unit: DaideUnit

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "HLD")


@dataclass(frozen=True, slots=True)
class DaideMove:
    """``(unit) MTO location``"""

    unit: DaideUnit
    dest: DaideLocation

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "MTO", self.dest.to_node())


@dataclass(frozen=True, slots=True)
class DaideSupportHold:
    """``(unit) SUP (unit)``"""

    unit: DaideUnit
    supported: DaideUnit

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "SUP", self.supported.to_node())


@dataclass(frozen=True, slots=True)
class DaideSupportMove:
    """``(unit) SUP (unit) MTO province`` (the destination never has a coast)."""

    unit: DaideUnit
    supported: DaideUnit
    dest: str

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "SUP", self.supported.to_node(), "MTO", self.dest)


@dataclass(frozen=True, slots=True)
class DaideConvoy:
    """``(unit) CVY (unit) CTO province``"""

    unit: DaideUnit
    army: DaideUnit
    dest: str

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "CVY", self.army.to_node(), "CTO", self.dest)


@dataclass(frozen=True, slots=True)
class DaideConvoyMove:
    """``(unit) CTO province VIA ( province province ... )``"""

    unit: DaideUnit
    dest: str
    via: tuple[str, ...]

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "CTO", self.dest, "VIA", self.via)


@dataclass(frozen=True, slots=True)
class DaideRetreat:
    """``(unit) RTO location``"""

    unit: DaideUnit
    dest: DaideLocation

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "RTO", self.dest.to_node())


@dataclass(frozen=True, slots=True)
class DaideDisband:
    """``(unit) DSB``"""

    unit: DaideUnit

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "DSB")


@dataclass(frozen=True, slots=True)
class DaideBuild:
    """``(unit) BLD``"""

    unit: DaideUnit

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "BLD")


@dataclass(frozen=True, slots=True)
class DaideRemove:
    """``(unit) REM``"""

    unit: DaideUnit

    def to_node(self) -> tuple[Node, ...]:
        return (self.unit.to_node(), "REM")


@dataclass(frozen=True, slots=True)
class DaideWaive:
    """``power WVE`` (no brackets around the power)."""

    power: str

    def to_node(self) -> tuple[Node, ...]:
        return (self.power, "WVE")


DaideOrder = (
    DaideHold
    | DaideMove
    | DaideSupportHold
    | DaideSupportMove
    | DaideConvoy
    | DaideConvoyMove
    | DaideRetreat
    | DaideDisband
    | DaideBuild
    | DaideRemove
    | DaideWaive
)


@dataclass(frozen=True, slots=True)
class DaideOrderResult:
    """An ORD result (docs/protocol.md §9.4): ``SUC``, ``BNC RET``, ``RET``...

    ``outcome`` is SUC/BNC/CUT/DSR/NSO (or, in AOA games, a THX note), None
    for a bare ``RET``; ``retreat`` is True when RET follows (dislodged).
    """

    outcome: str | None
    retreat: bool = False

    def to_node(self) -> tuple[Node, ...]:
        if self.outcome is None:
            return ("RET",)
        return (self.outcome, "RET") if self.retreat else (self.outcome,)


# --- parsing ------------------------------------------------------------------

_UNIT_ORDERS = frozenset(("HLD", "MTO", "SUP", "CVY", "CTO", "RTO", "DSB", "BLD", "REM"))
_SIMPLE: dict[str, Callable[[DaideUnit], DaideOrder]] = {
    "HLD": DaideHold,
    "DSB": DaideDisband,
    "BLD": DaideBuild,
    "REM": DaideRemove,
}


def parse_turn(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> Turn:
    """Element ``i`` of ``seq`` must be ``( season year )``."""
    g = p.group(seq, i, loc, "season year")
    here = loc + (i,)
    season = p.season(g, 0, here)
    year = p.integer(g, 1, here, 0)
    p.end(g, 2, here)
    return Turn(season, year)


# Values are immutable, so the parser shares one instance per distinct value
# (their number is bounded by the map); this halves the cost of a big MDF.
_LOCATIONS: dict[tuple[str, str | None], DaideLocation] = {}
_UNITS: dict[tuple[str, str, str, str | None], DaideUnit] = {}


def location(province: str, coast: str | None = None) -> DaideLocation:
    """The shared :class:`Location` for this province and coast."""
    key = (province, coast)
    found = _LOCATIONS.get(key)
    if found is None:
        found = _LOCATIONS[key] = DaideLocation(province, coast)
    return found


def _unit(power: str, unit_type: str, province: str, coast: str | None = None) -> DaideUnit:
    key = (power, unit_type, province, coast)
    found = _UNITS.get(key)
    if found is None:
        found = _UNITS[key] = DaideUnit(power, unit_type, province, coast)
    return found


def parse_location(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> DaideLocation:
    """Element ``i``: ``province`` or ``( province coast )``."""
    if i < len(seq):
        node = seq[i]
        if type(node) is tuple:
            here = loc + (i,)
            province = p.province(node, 0, here)
            coast = p.coast(node, 1, here)
            p.end(node, 2, here)
            return location(province, coast)
        if type(node) is str and p.cats.get(node, 0) >> 3 == 0x0A:  # 0x50-0x57
            return location(node)
    return location(p.province(seq, i, loc))


def _unit_fields(p: Parser, seq: tuple[Node, ...], loc: Loc) -> DaideUnit:
    """``power unit_type where`` at the start of ``seq``."""
    power = p.power(seq, 0, loc)
    unit_type = p.unit_type(seq, 1, loc)
    if unit_type == "FLT":
        where = parse_location(p, seq, 2, loc)
        return _unit(power, unit_type, where.province, where.coast)
    return _unit(power, unit_type, p.province(seq, 2, loc))


def parse_unit(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> DaideUnit:
    """Element ``i`` must be ``( unit )``."""
    g = p.group(seq, i, loc, "unit")
    here = loc + (i,)
    unit = _unit_fields(p, g, here)
    p.end(g, 3, here)
    return unit


def parse_unit_position(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> UnitPosition:
    """Element ``i``: ``( unit )`` or ``( unit MRT ( location ... ) )`` (NOW, MIS)."""
    g = p.group(seq, i, loc, "unit")
    here = loc + (i,)
    unit = _unit_fields(p, g, here)
    if len(g) == 3:
        return UnitPosition(unit)
    p.keyword(g, 3, here, "MRT")
    places = p.group(g, 4, here, "retreat locations")
    retreats = p.many(places, 0, here + (4,), lambda s, k, lc: parse_location(p, s, k, lc), 0)
    p.end(g, 5, here)
    return UnitPosition(unit, retreats)


def parse_order(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> DaideOrder:
    """Element ``i`` must be ``( order )`` (docs/protocol.md §9.1)."""
    g = p.group(seq, i, loc, "order")
    here = loc + (i,)
    if g and type(g[0]) is not tuple:  # power WVE
        power = p.power(g, 0, here)
        p.keyword(g, 1, here, "WVE")
        p.end(g, 2, here)
        return DaideWaive(power)
    unit = parse_unit(p, g, 0, here)
    kind = p.one_of(g, 1, here, _UNIT_ORDERS)
    order: DaideOrder
    simple = _SIMPLE.get(kind)
    if simple is not None:
        order = simple(unit)
        end = 2
    elif kind == "MTO":
        order, end = DaideMove(unit, parse_location(p, g, 2, here)), 3
    elif kind == "RTO":
        order, end = DaideRetreat(unit, parse_location(p, g, 2, here)), 3
    elif kind == "SUP":
        supported = parse_unit(p, g, 2, here)
        if len(g) == 3:
            order, end = DaideSupportHold(unit, supported), 3
        else:
            p.keyword(g, 3, here, "MTO")
            order, end = DaideSupportMove(unit, supported, p.province(g, 4, here)), 5
    elif kind == "CVY":
        army = parse_unit(p, g, 2, here)
        p.keyword(g, 3, here, "CTO")
        order, end = DaideConvoy(unit, army, p.province(g, 4, here)), 5
    else:  # CTO
        dest = p.province(g, 2, here)
        p.keyword(g, 3, here, "VIA")
        seas = p.group(g, 4, here, "VIA provinces")
        via = p.many(seas, 0, here + (4,), p.province)
        order, end = DaideConvoyMove(unit, dest, via), 5
    p.end(g, end, here)
    return order


def parse_note(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> str:
    """Element ``i``: ``( note )``, a THX order note (docs/protocol.md §9.3)."""
    g = p.group(seq, i, loc, "order note")
    note = p.token(g, 0, loc + (i,), CAT_ORDER_NOTE, "an order note")
    p.end(g, 1, loc + (i,))
    return note


def parse_result(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> DaideOrderResult:
    """Element ``i``: ``( result )``, an ORD result (docs/protocol.md §9.4)."""
    g = p.group(seq, i, loc, "order result")
    here = loc + (i,)
    if len(g) == 1 and g[0] == "RET" and type(g[0]) is str:
        return DaideOrderResult(None, True)
    if g and type(g[0]) is str and p.cats.get(g[0]) == CAT_ORDER_NOTE:  # AOA games
        outcome = g[0]
    else:
        outcome = p.token(g, 0, here, CAT_RESULT, "an order result")
        if outcome == "RET":
            p.fail(here + (1,), "nothing may follow a bare RET")
    if len(g) == 1:
        return DaideOrderResult(outcome)
    p.keyword(g, 1, here, "RET")
    p.end(g, 2, here)
    return DaideOrderResult(outcome, True)
