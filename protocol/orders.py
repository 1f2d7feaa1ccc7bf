"""Turns, units, orders, THX notes and ORD results: reading and writing them.

docs/protocol.md §8 (common definitions) and 9 (orders).  Locations, units
and orders are the one order model of :mod:`orders` (``Location``,
``Unit``, ``Hold``... ``Waive``), which knows nothing of the wire: the
``parse_*`` functions read them from tree nodes (reporting grammar errors
through :class:`protocol.grammar.Parser`) and :func:`location_node`,
:func:`unit_node` and :func:`order_node` write them back.  An order is
read and written by the parts of its kind, as the table of order kinds
(:mod:`orders.kinds`) lists them: the word, then each part by its shape.  What is not an
order - a :class:`Turn`, a :class:`UnitPosition` of NOW / MIS, an ORD's
:class:`DaideOrderResult` - is a frozen value of this module that renders
itself (``to_node``).

The grammar is purely categorical: it checks that a power is a power token
and a province a province token, never whether a fleet may be there (that is
the THX note's job, docs/protocol.md §9.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from orders import Location, Order, Unit, kind_of
from orders.kinds import BY_WORD, KINDS, LOCATION, PROVINCE, PROVINCES, UNIT, Kind, Part
from protocol.grammar import Loc, Parser
from protocol.tokens import (
    CAT_COAST,
    CAT_ORDER_NOTE,
    CAT_PHASE,
    CAT_POWER,
    CAT_PROVINCE_FIRST,
    CAT_PROVINCE_LAST,
    CAT_RESULT,
    CAT_UNIT_TYPE,
)
from protocol.tree import Node

SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")


@dataclass(frozen=True, slots=True)
class Turn:
    """``season year``, e.g. ``SPR 1901`` (season = a phase token)."""

    season: str
    year: int

    # Written out (as orders.values does): compiled, a frozen dataclass's
    # generated __init__ stays interpreted, ~10x slower than these slot stores.
    def __init__(self, season: str, year: int) -> None:
        object.__setattr__(self, "season", season)
        object.__setattr__(self, "year", year)

    def to_node(self) -> tuple[Node, ...]:
        return (self.season, self.year)

    def __str__(self) -> str:
        return f"{self.season} {self.year}"


@dataclass(frozen=True, slots=True)
class UnitPosition:
    """A unit as listed in NOW and MIS; ``retreats`` is its MRT list if dislodged.

    ``( ENG FLT NTH MRT ( LON YOR ) )`` -> ``retreats=(Location('LON'), ...)``;
    ``MRT ( )`` (no retreat possible) -> ``retreats=()``; no MRT -> None.
    """

    unit: Unit
    retreats: tuple[Location, ...] | None = None

    def __init__(self, unit: Unit, retreats: tuple[Location, ...] | None = None) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "retreats", retreats)

    def to_node(self) -> tuple[Node, ...]:
        if self.retreats is None:
            return unit_node(self.unit)
        return (*unit_node(self.unit), "MRT", tuple(location_node(r) for r in self.retreats))


@dataclass(frozen=True, slots=True)
class DaideOrderResult:
    """An ORD result (docs/protocol.md §9.4): ``SUC``, ``BNC RET``, ``RET``...

    ``outcome`` is SUC/BNC/CUT/DSR/NSO (or, in AOA games, a THX note), None
    for a bare ``RET``; ``retreat`` is True when RET follows (dislodged).
    """

    outcome: str | None
    retreat: bool = False

    def __init__(self, outcome: str | None, retreat: bool = False) -> None:
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "retreat", retreat)

    def to_node(self) -> tuple[Node, ...]:
        if self.outcome is None:
            return ("RET",)
        return (self.outcome, "RET") if self.retreat else (self.outcome,)


# --- writing (docs/protocol.md §8: location, unit; §9.1: orders) --------------------


def location_node(loc: Location) -> Node:
    """``province`` or ``( province coast )``."""
    return loc.province if loc.coast is None else (loc.province, loc.coast)


def unit_node(unit: Unit) -> tuple[Node, ...]:
    """``power AMY province``, ``power FLT province`` or ``power FLT ( province coast )``."""
    loc = unit.location
    where: Node = loc.province if loc.coast is None else (loc.province, loc.coast)
    return (unit.power, unit.kind, where)


def order_node(order: Order) -> tuple[Node, ...]:
    """The contents of ``( order )`` (docs/protocol.md §9.1), e.g.
    ``(('ENG', 'FLT', 'NTH'), 'MTO', 'PIC')``: the parts of its kind
    (``orders.kinds``), each as its shape is written, and the keyword after it."""
    kind = kind_of(order)
    parts = kind.parts
    values = kind.values(order)
    out: list[Node] = []
    for k in range(len(parts)):
        part = parts[k]
        shape = part.shape
        value = values[k]
        if shape == UNIT:
            out.append(unit_node(value))
        elif shape == LOCATION:
            out.append(location_node(value))
        elif shape == PROVINCES:
            out.append(tuple(value))
        else:  # POWER, PROVINCE: a mnemonic
            name: str = value
            out.append(name)
        if part.then is not None:
            out.append(part.then)
    return tuple(out)


# --- writing straight to the text form --------------------------------------------
#
# The ORD lines of a phase and its NOW are mostly units and orders; these write
# them as text directly - the words ``tree_to_text`` joins for their nodes -
# without building the nodes.  Unlike ``tree_to_text`` they do not check the
# mnemonics against a representation: use them for values read under the
# representation or made from such (the adjudicator's orders for the units
# of a position read from a NOW), whose mnemonics it has.


def unit_text(unit: Unit) -> str:
    """``( power type province )`` / ``( power FLT ( province coast ) )``:
    ``tree_to_text((unit_node(unit),), rep)``."""
    loc = unit.location
    if loc.coast is None:
        return f"( {unit.power} {unit.kind} {loc.province} )"
    return f"( {unit.power} {unit.kind} ( {loc.province} {loc.coast} ) )"


def _location_text(loc: Location) -> str:
    return loc.province if loc.coast is None else f"( {loc.province} {loc.coast} )"


def order_text(order: Order) -> str:
    """``( order )`` in the text form: ``tree_to_text((order_node(order),), rep)``."""
    kind = kind_of(order)
    parts = kind.parts
    values = kind.values(order)
    words = ["("]
    for k in range(len(parts)):
        part = parts[k]
        shape = part.shape
        value = values[k]
        if shape == UNIT:
            words.append(unit_text(value))
        elif shape == LOCATION:
            words.append(_location_text(value))
        elif shape == PROVINCES:
            words.append(" ".join(("(", *value, ")")))
        else:  # POWER, PROVINCE: a mnemonic
            name: str = value
            words.append(name)
        if part.then is not None:
            words.append(part.then)
    words.append(")")
    return " ".join(words)


# --- parsing ------------------------------------------------------------------

#: the order words after a unit, and after a power (WVE)
_UNIT_WORDS: Final = frozenset(k.word for k in KINDS if k.subject_is_unit)
_POWER_WORDS: Final = frozenset(k.word for k in KINDS if not k.subject_is_unit)


def _kind_of_word(word: str, size: int) -> Kind:
    """The kind an order with this word and number of elements is read as: the
    one of that size, else the longest (whose reader then says what is wrong).
    ``SUP`` of 3 elements is a support to hold, of any other a support to move."""
    kinds = BY_WORD[word]
    kind = _of_size(kinds, size)
    return kinds[-1] if kind is None else kind


def _of_size(kinds: tuple[Kind, ...], size: int) -> Kind | None:
    """The one of ``kinds`` written with ``size`` elements, if any."""
    for kind in kinds:
        if kind.size == size:
            return kind
    return None


def parse_turn(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> Turn:
    """Element ``i`` of ``seq`` must be ``( season year )``."""
    if i < len(seq):
        found = plain_turn(seq[i], p.cats)
        if found is not None:
            return found
    g = p.group(seq, i, loc, "season year")
    here = loc + (i,)
    season = p.season(g, 0, here)
    year = p.integer(g, 1, here, 0)
    p.end(g, 2, here)
    return Turn(season, year)


# Values are immutable, so the parser shares one instance per distinct value
# (their number is bounded by the map); this halves the cost of a big MDF.
_LOCATIONS: Final[dict[tuple[str, str | None], Location]] = {}
_UNITS: Final[dict[tuple[str, str, str, str | None], Unit]] = {}


def location(province: str, coast: str | None = None) -> Location:
    """The shared :class:`Location` for this province and coast."""
    key = (province, coast)
    found = _LOCATIONS.get(key)
    if found is None:
        found = _LOCATIONS[key] = Location(province, coast)
    return found


def _unit(power: str, unit_type: str, province: str, coast: str | None = None) -> Unit:
    key = (power, unit_type, province, coast)
    found = _UNITS.get(key)
    if found is None:
        found = _UNITS[key] = Unit(power, unit_type, location(province, coast))
    return found


def parse_location(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> Location:
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


def _unit_fields(p: Parser, seq: tuple[Node, ...], loc: Loc) -> Unit:
    """``power unit_type where`` at the start of ``seq``."""
    power = p.power(seq, 0, loc)
    unit_type = p.unit_type(seq, 1, loc)
    if unit_type == "FLT":
        where = parse_location(p, seq, 2, loc)
        return _unit(power, unit_type, where.province, where.coast)
    return _unit(power, unit_type, p.province(seq, 2, loc))


def parse_unit(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> Unit:
    """Element ``i`` must be ``( unit )``."""
    g = p.group(seq, i, loc, "unit")
    here = loc + (i,)
    unit = _unit_fields(p, g, here)
    p.end(g, 3, here)
    return unit


def parse_unit_position(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> UnitPosition:
    """Element ``i``: ``( unit )`` or ``( unit MRT ( location ... ) )`` (NOW, MIS)."""
    if i < len(seq):
        unit = plain_unit(seq[i], p.cats)
        if unit is not None:
            return UnitPosition(unit)
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


def parse_order(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> Order:
    """Element ``i`` must be ``( order )`` (docs/protocol.md §9.1): the subject,
    the order's word, then the parts of its kind (``orders.kinds``) in order."""
    if i < len(seq):
        found = plain_order(seq[i], p.cats)
        if found is not None:
            return found
    g = p.group(seq, i, loc, "order")
    here = loc + (i,)
    subject: object
    if g and type(g[0]) is not tuple:  # power WVE
        subject = p.power(g, 0, here)
        word = p.one_of(g, 1, here, _POWER_WORDS)
    else:
        subject = parse_unit(p, g, 0, here)
        word = p.one_of(g, 1, here, _UNIT_WORDS)
    kind = _kind_of_word(word, len(g))
    values: list[object] = [subject]
    parts = kind.parts
    k = 2
    for n in range(1, len(parts)):
        part = parts[n]
        values.append(_parse_part(p, g, k, here, part))
        k += 1
        if part.then is not None:
            p.keyword(g, k, here, part.then)
            k += 1
    p.end(g, k, here)
    return kind.make(values)


def _parse_part(p: Parser, g: tuple[Node, ...], k: int, here: Loc, part: Part) -> object:
    shape = part.shape
    if shape == UNIT:
        return parse_unit(p, g, k, here)
    if shape == LOCATION:
        return parse_location(p, g, k, here)
    if shape == PROVINCE:
        return p.province(g, k, here)
    assert shape == PROVINCES
    group = p.group(g, k, here, f"{part.name.upper()} provinces")
    return p.many(group, 0, here + (k,), p.province)


# --- the common shapes without the grammar machinery ---------------------------
#
# A server reads thousands of orders and units per second, nearly all of the
# few common shapes.  The ``plain_*`` readers take those shapes straight from
# the tree and return None for anything else, for which the caller runs the
# general readers above (which then report the grammar error exactly).  On a
# shape they accept they return exactly what the general readers return.

_PROVINCE: Final = range(CAT_PROVINCE_FIRST, CAT_PROVINCE_LAST + 1)


def plain_turn(node: Node, cats: dict[str, int]) -> Turn | None:
    """``( season year )`` as :func:`parse_turn` reads it, or None."""
    if type(node) is not tuple or len(node) != 2:
        return None
    season, year = node
    if (type(season) is not str or cats.get(season) != CAT_PHASE
            or type(year) is not int or not 0 <= year <= 8191):
        return None
    return Turn(season, year)


def plain_unit(node: Node, cats: dict[str, int]) -> Unit | None:
    """``( power AMY province )`` or ``( power FLT location )`` as
    :func:`parse_unit` reads it, or None."""
    if type(node) is not tuple or len(node) != 3:
        return None
    power, unit_type, where = node
    if (type(power) is not str or cats.get(power) != CAT_POWER
            or type(unit_type) is not str or cats.get(unit_type) != CAT_UNIT_TYPE):
        return None
    if type(where) is str:
        if cats.get(where) not in _PROVINCE:
            return None
        return _unit(power, unit_type, where)
    if unit_type != "FLT" or type(where) is not tuple or len(where) != 2:
        return None
    province, coast = where
    if (type(province) is not str or cats.get(province) not in _PROVINCE
            or type(coast) is not str or cats.get(coast) != CAT_COAST):
        return None
    return _unit(power, unit_type, province, coast)


def _plain_location(node: Node, cats: dict[str, int]) -> Location | None:
    if type(node) is str:
        return location(node) if cats.get(node) in _PROVINCE else None
    if type(node) is not tuple or len(node) != 2:
        return None
    province, coast = node
    if (type(province) is not str or cats.get(province) not in _PROVINCE
            or type(coast) is not str or cats.get(coast) != CAT_COAST):
        return None
    return location(province, coast)


def _plain_province(node: Node, cats: dict[str, int]) -> str | None:
    return node if type(node) is str and cats.get(node) in _PROVINCE else None


#: order word -> the kinds of orders of a unit the plain reader takes (all but
#: CTO ... VIA: its list of seas, and WVE: a power)
_PLAIN_KINDS: Final[dict[str, tuple[Kind, ...]]] = {
    word: plain for word, kinds in BY_WORD.items()
    if (plain := tuple(k for k in kinds if k.subject_is_unit
                       and all(part.shape != PROVINCES for part in k.parts)))
}


def plain_order(node: Node, cats: dict[str, int]) -> Order | None:
    """``( order )`` of a unit (all but CTO ... VIA and WVE) as
    :func:`parse_order` reads it, or None."""
    if type(node) is not tuple or not 2 <= len(node) <= 5:
        return None
    unit = plain_unit(node[0], cats)
    word = node[1]
    if unit is None or type(word) is not str:
        return None
    kinds = _PLAIN_KINDS.get(word)
    if kinds is None:
        return None
    kind = _of_size(kinds, len(node))
    if kind is None:
        return None
    values: list[object] = [unit]
    parts = kind.parts
    k = 2
    for n in range(1, len(parts)):
        part = parts[n]
        shape = part.shape
        value: object | None
        if shape == UNIT:
            value = plain_unit(node[k], cats)
        elif shape == LOCATION:
            value = _plain_location(node[k], cats)
        else:  # PROVINCE (no plain reading of the others)
            value = _plain_province(node[k], cats)
        if value is None:
            return None
        values.append(value)
        k += 1
        then = part.then
        if then is not None:
            keyword = node[k]
            if type(keyword) is not str or keyword != then:
                return None
            k += 1
    return kind.make(values)


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
