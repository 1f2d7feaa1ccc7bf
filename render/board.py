"""What a picture shows: units, centre owners and orders with their results.

Plain frozen data, so the web page's server side, `daide render` and the HTML
replay build the same thing.  :func:`board_from_daide` reads the DAIDE text
forms of NOW, SCO and ORD (docs/protocol.md §9 and §10) - the strings the
store keeps and `protocol.text.render_text` gives - with a small bracket
reader of its own, so a variant's provinces need no token table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from maps.model import Map


class RenderError(ValueError):
    """Text or data the renderer cannot read (the message is one line)."""


@dataclass(frozen=True)
class DrawnUnit:
    """A unit on the board; ``retreats`` is not None when it is dislodged (its MRT list)."""

    power: str
    kind: str  # "AMY" or "FLT"
    province: str
    coast: str | None = None
    retreats: tuple[str, ...] | None = None

    @property
    def dislodged(self) -> bool:
        return self.retreats is not None

    def text(self) -> str:
        """The unit as DAIDE text with compact coast brackets: ``RUS FLT (STP SCS)``."""
        where = f"({self.province} {self.coast})" if self.coast else self.province
        return f"{self.power} {self.kind} {where}"


@dataclass(frozen=True)
class Order:
    """One order and, once adjudicated, its result tokens (``("BNC",)``, ``("SUC", "RET")``)."""

    unit: DrawnUnit
    action: str  # HLD MTO SUP CVY CTO RTO DSB BLD REM WVE
    target: str | None = None
    target_coast: str | None = None
    other: DrawnUnit | None = None
    via: tuple[str, ...] = ()
    results: tuple[str, ...] = ()

    def text(self) -> str:
        """The order as compact DAIDE text (``FRA AMY PAR MTO BUR``), the SVG's data-order."""
        if self.action == "WVE":
            return f"{self.unit.power} WVE"
        parts = [self.unit.text(), self.action]
        if self.other is not None:
            parts.append(self.other.text())
            if self.target:
                parts.extend(["CTO" if self.action == "CVY" else "MTO", self.target])
        elif self.target:
            parts.append(f"({self.target} {self.target_coast})" if self.target_coast
                         else self.target)
        if self.via:
            parts.extend(["VIA", "(" + " ".join(self.via) + ")"])
        return " ".join(parts)

    @property
    def failed(self) -> bool:
        return bool(self.results) and self.results[0] not in ("SUC",)


@dataclass(frozen=True)
class Board:
    """A position to draw: ``turn`` as DAIDE prints it (``SPR 1901``)."""

    turn: str
    units: tuple[DrawnUnit, ...]
    owners: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    orders: tuple[Order, ...] = ()


# -- a tiny reader of DAIDE text ------------------------------------------

Node = str | list[Any]  # a token or a bracketed list of nodes


def _parse(text: str) -> list[Node]:
    """The bracket tree of a DAIDE text message (tokens are space-separated words)."""
    stack: list[list[Node]] = [[]]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "(":
            stack.append([])
            i += 1
        elif c == ")":
            if len(stack) == 1:
                raise RenderError(f"unbalanced ')' in {text[:60]!r}")
            done = stack.pop()
            stack[-1].append(done)
            i += 1
        elif c.isspace():
            i += 1
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise RenderError(f"unterminated string in {text[:60]!r}")
            stack[-1].append(text[i:j + 1])
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()":
                j += 1
            stack[-1].append(text[i:j].upper())
            i = j
    if len(stack) != 1:
        raise RenderError(f"unbalanced '(' in {text[:60]!r}")
    return stack[0]


def _turn(node: Node) -> str:
    if not isinstance(node, list) or len(node) != 2 or not all(isinstance(x, str) for x in node):
        raise RenderError(f"not a turn: {node!r}")
    return f"{node[0]} {node[1]}"


def _where(node: Node) -> tuple[str, str | None]:
    if isinstance(node, str):
        return node, None
    if len(node) == 2 and isinstance(node[0], str) and isinstance(node[1], str):
        return node[0], node[1]
    raise RenderError(f"not a province: {node!r}")


def _unit(node: Node) -> DrawnUnit:
    if not isinstance(node, list) or len(node) < 3 or not isinstance(node[0], str) \
            or not isinstance(node[1], str):
        raise RenderError(f"not a unit: {node!r}")
    prov, coast = _where(node[2])
    retreats: tuple[str, ...] | None = None
    if len(node) >= 5 and node[3] == "MRT" and isinstance(node[4], list):
        retreats = tuple(_where(x)[0] if isinstance(x, list) else x for x in node[4])
    return DrawnUnit(node[0], node[1], prov, coast, retreats)


def _check_units(map_: Map, units: Iterable[DrawnUnit]) -> None:
    for u in units:
        if u.province not in map_.ids:
            raise RenderError(f"unit {u.text()}: no province {u.province} on {map_.name}")


def parse_now(text: str) -> tuple[str, tuple[DrawnUnit, ...]]:
    """``(turn, units)`` of a NOW message's text."""
    tree = _parse(text)
    if not tree or tree[0] != "NOW" or len(tree) < 2:
        raise RenderError(f"not a NOW message: {text[:60]!r}")
    return _turn(tree[1]), tuple(_unit(x) for x in tree[2:])


def parse_sco(text: str) -> dict[str, str]:
    """Centre -> owner (``UNO`` for unowned) of an SCO message's text."""
    tree = _parse(text)
    if not tree or tree[0] != "SCO":
        raise RenderError(f"not an SCO message: {text[:60]!r}")
    owners: dict[str, str] = {}
    for group in tree[1:]:
        if not isinstance(group, list) or not group or not isinstance(group[0], str):
            raise RenderError(f"bad SCO entry {group!r}")
        for centre in group[1:]:
            owners[_where(centre)[0]] = group[0]
    return owners


def parse_order(text: str) -> tuple[str | None, Order]:
    """``(turn or None, order)`` of an ``ORD (turn) (order) (result)`` line or a bare order."""
    tree = _parse(text)
    turn: str | None = None
    results: tuple[str, ...] = ()
    if tree and tree[0] == "ORD":
        if len(tree) != 4:
            raise RenderError(f"not an ORD message: {text[:60]!r}")
        turn = _turn(tree[1])
        body = tree[2]
        res = tree[3]
        results = tuple(x for x in res if isinstance(x, str)) if isinstance(res, list) else ()
        if not isinstance(body, list):
            raise RenderError(f"bad order in {text[:60]!r}")
    else:
        body = tree[0] if len(tree) == 1 and isinstance(tree[0], list) \
            and tree[0] and isinstance(tree[0][0], list) else tree
    return turn, _order(body, results, text)


def _order(body: list[Node], results: tuple[str, ...], text: str) -> Order:
    if len(body) >= 2 and body[1] == "WVE" and isinstance(body[0], str):
        return Order(DrawnUnit(body[0], "", ""), "WVE", results=results)
    if len(body) < 2 or not isinstance(body[1], str):
        raise RenderError(f"not an order: {text[:80]!r}")
    unit = _unit(body[0])
    action = body[1]
    rest = body[2:]
    if action in ("HLD", "DSB", "BLD", "REM"):
        return Order(unit, action, results=results)
    if action in ("MTO", "RTO"):
        prov, coast = _where(rest[0]) if rest else (None, None)
        return Order(unit, action, prov, coast, results=results)
    if action == "CTO":
        via: tuple[str, ...] = ()
        if len(rest) >= 3 and rest[1] == "VIA" and isinstance(rest[2], list):
            via = tuple(x for x in rest[2] if isinstance(x, str))
        return Order(unit, action, _where(rest[0])[0], via=via, results=results)
    if action in ("SUP", "CVY"):
        if not rest:
            raise RenderError(f"{action} without a unit: {text[:80]!r}")
        other = _unit(rest[0])
        target = _where(rest[2])[0] if len(rest) >= 3 else None
        return Order(unit, action, target, other=other, results=results)
    raise RenderError(f"unknown order {action!r} in {text[:80]!r}")


def starting_board(map_: Map) -> Board:
    """The map's starting position (NOW and SCO of the MDF's variant)."""
    season, year = map_.start_phase
    units = tuple(DrawnUnit(u.power, u.kind, u.province, u.coast) for u in map_.start_units)
    return Board(f"{season} {year}", units, MappingProxyType(dict(map_.start_ownership)))


def board_from_daide(map_: Map, now: str | None = None, sco: str | None = None,
                     orders: Iterable[str] = ()) -> Board:
    """A board from the DAIDE text of NOW, SCO and ORD lines (None: the starting ones)."""
    start = starting_board(map_)
    turn, units = parse_now(now) if now else (start.turn, start.units)
    owners = parse_sco(sco) if sco else dict(start.owners)
    _check_units(map_, units)
    parsed = [parse_order(line)[1] for line in orders]
    _check_units(map_, [o.unit for o in parsed if o.action != "WVE"])
    return Board(turn, units, MappingProxyType(owners), tuple(parsed))


__all__ = ["Board", "Order", "RenderError", "DrawnUnit", "board_from_daide", "parse_now",
           "parse_order", "parse_sco", "starting_board"]
