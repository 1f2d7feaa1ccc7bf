"""The order kinds: one table that says what each of the eleven orders is.

As godip gives every order type its own description, :data:`KINDS` gives
every order class of :mod:`orders.values` one :class:`Kind`, declaring in
one place what the protocol, the adjudicator and the bots used to work out
each with its own chain of ``isinstance`` tests:

* ``parts`` - the order's parts in the order DAIDE writes them and the
  class takes them (``kind.make(kind.values(order)) == order``): each part
  is a field of the order, the shape of its value (a power, a unit, a
  location, a province, a list of provinces) and the keyword written after
  it.  The first part is the subject (the ordered unit; the power for WVE)
  and the keyword after it is the order's word (docs/protocol.md §9.1)::

      ( ENG FLT NTH ) SUP ( ENG AMY LON ) MTO YOR      SupportMove:
      unit            SUP supported       MTO dest     Part("unit", UNIT, "SUP"),
                                                       Part("supported", UNIT, "MTO"),
                                                       Part("dest", PROVINCE)

  The protocol's writers and readers (``protocol.orders``) walk them;
* ``phase`` - the phase kind the order belongs to (given in another phase
  it is NRS, docs/protocol.md §9.3);
* what it names, for the checks and the bots: the units (``units``), the
  provinces (``provinces``, every one must exist: NSP) and, for an order
  that moves its unit, where to (``goes_to``).

What an order may do and what it does are the rules: they stay in the
adjudicator, which keeps one check per kind indexed by ``Kind.code``
(``adjudicator.validate``).  Nothing here knows the wire or a map.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from orders.values import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)

#: The phase kinds (a season's kind: ``adjudicator.values.SEASON_KIND``).
MOVEMENT: Final = "movement"
RETREAT: Final = "retreat"
ADJUSTMENT: Final = "adjustment"

# The shapes of a part's value.
#: a power mnemonic (``'ENG'``): the subject of WVE
POWER: Final = 0
#: a :class:`Unit`, written ``( power type location )``
UNIT: Final = 1
#: a :class:`Location`: ``province`` or ``( province coast )``
LOCATION: Final = 2
#: a province mnemonic (no coast: SUP ... MTO, CVY ... CTO, CTO)
PROVINCE: Final = 3
#: a tuple of province mnemonics, written ``( province ... )`` (VIA)
PROVINCES: Final = 4


@final
class Part:
    """One part of an order: the field ``name`` holding it, the ``shape`` of
    its value, and the keyword written ``then``, after it (None: nothing)."""

    def __init__(self, name: str, shape: int, then: str | None = None) -> None:
        self.name = name
        self.shape = shape
        self.then = then

    def __repr__(self) -> str:
        return f"Part({self.name!r}, {self.shape}, {self.then!r})"


class Kind:
    """What one order class is (see the module's doc).

    ``code`` is the kind's index in :data:`KINDS`, for tables indexed by
    kind; ``word`` the DAIDE order word (the keyword after the subject);
    ``size`` the number of elements of the order as written (parts and
    keywords: ``( unit ) MTO location`` has 3); ``moves`` says that the
    ordered unit itself goes to the province of the part named ``dest``.

    ``values(order)`` gives the parts' values in order - the class's
    arguments, so ``kind.make(kind.values(order)) == order``.  These two are
    all each kind writes out (its subclass below reads and sets the fields
    directly: compiled, a native read and a direct call, where a read by
    name is a dictionary search per field and a call of the class a generic
    call - and the order checks, readers and writers ask them of every
    order).  The rest is read off the values by the parts: ``units(order)``,
    the ordered unit first, then the supported or convoyed one;
    ``provinces(order)``, the unit's first (every one must exist on the
    map); ``target`` and ``goes_to``.
    """

    def __init__(
        self, code: int, cls: type, phase: str, parts: tuple[Part, ...], moves: bool = False
    ) -> None:
        self.code = code
        self.cls = cls
        self.name: str = cls.__name__
        self.phase = phase
        self.parts = parts
        word = parts[0].then
        assert word is not None, "the subject is followed by the order's word"
        self.word: str = word
        self.size: int = sum(1 if p.then is None else 2 for p in parts)
        self.moves = moves
        self.subject_is_unit: bool = parts[0].shape == UNIT
        #: index of the part named ``dest`` (-1: none)
        self.dest: int = next((k for k, p in enumerate(parts) if p.name == "dest"), -1)

    # No typing.cast below: in pure Python it is a function call, and these run
    # for every order checked; an annotated local costs nothing there, and
    # compiled it is the same type check.

    def values(self, order: Any) -> tuple[Any, ...]:
        """The values of ``order``'s parts, in order (the class's arguments)."""
        raise NotImplementedError  # each kind's own (below)

    def make(self, values: Sequence[Any]) -> Order:
        """The order of this kind with these part values (:meth:`values`' inverse)."""
        raise NotImplementedError  # each kind's own (below)

    def power(self, order: Order) -> str:
        """The power the order is for (the unit's owner, or the power of WVE)."""
        subject = self.values(order)[0]
        if self.subject_is_unit:
            unit: Unit = subject
            return unit.power
        power: str = subject
        return power

    def units(self, order: Order) -> list[Unit]:
        """The units ``order`` names: the ordered unit first, then the supported
        or convoyed one."""
        values = self.values(order)
        parts = self.parts
        return [values[k] for k in range(len(parts)) if parts[k].shape == UNIT]

    def provinces(self, order: Order) -> list[str]:
        """The provinces ``order`` names, in order (the unit's first)."""
        values = self.values(order)
        parts = self.parts
        out: list[str] = []
        for k in range(len(parts)):
            shape = parts[k].shape
            if shape == UNIT:
                unit: Unit = values[k]
                out.append(unit.location.province)
            elif shape == LOCATION:
                loc: Location = values[k]
                out.append(loc.province)
            elif shape == PROVINCE:
                out.append(values[k])
            elif shape == PROVINCES:
                out.extend(values[k])
        return out

    def province_ids(self, order: Order, ids: dict[str, int], out: list[int]) -> bool:
        """Append to ``out`` the ids of the provinces ``order`` names, in order,
        as ``ids`` (a name -> id table, a map's) gives them; False, at once, for
        a name ``ids`` lacks.  :meth:`provinces` looked up, without the list of
        names in between: the movement-phase checks ask this of every order."""
        values = self.values(order)
        parts = self.parts
        for k in range(len(parts)):
            shape = parts[k].shape
            if shape == UNIT:
                unit: Unit = values[k]
                p = ids.get(unit.location.province, -1)
            elif shape == LOCATION:
                loc: Location = values[k]
                p = ids.get(loc.province, -1)
            elif shape == PROVINCE:
                p = ids.get(values[k], -1)
            elif shape == PROVINCES:
                for name in values[k]:
                    p = ids.get(name, -1)
                    if p < 0:
                        return False
                    out.append(p)
                continue
            else:
                continue
            if p < 0:
                return False
            out.append(p)
        return True

    def target(self, order: Order) -> str | None:
        """The province the ``dest`` part names (None: the kind has none) - where
        a move, retreat or convoy goes, or a support to move is given."""
        k = self.dest
        if k < 0:
            return None
        value = self.values(order)[k]
        if self.parts[k].shape == LOCATION:
            loc: Location = value
            return loc.province
        province: str = value
        return province

    def goes_to(self, order: Order) -> str | None:
        """The province the ordered unit is ordered to (None: it stays put)."""
        return self.target(order) if self.moves else None

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


def _unit(then: str) -> Part:
    """The ordered unit, followed by the order's word."""
    return Part("unit", UNIT, then)


# Each kind's values, read field by field in the order of its parts, and the
# order made of them (a test holds both to the parts and the class's fields).


@final
class _HoldKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Hold = order
        return (o.unit,)

    def make(self, values: Sequence[Any]) -> Order:
        return Hold(values[0])


@final
class _MoveKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Move = order
        return (o.unit, o.dest)

    def make(self, values: Sequence[Any]) -> Order:
        return Move(values[0], values[1])


@final
class _SupportHoldKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: SupportHold = order
        return (o.unit, o.supported)

    def make(self, values: Sequence[Any]) -> Order:
        return SupportHold(values[0], values[1])


@final
class _SupportMoveKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: SupportMove = order
        return (o.unit, o.supported, o.dest)

    def make(self, values: Sequence[Any]) -> Order:
        return SupportMove(values[0], values[1], values[2])


@final
class _ConvoyKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Convoy = order
        return (o.unit, o.army, o.dest)

    def make(self, values: Sequence[Any]) -> Order:
        return Convoy(values[0], values[1], values[2])


@final
class _ConvoyMoveKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: ConvoyMove = order
        return (o.unit, o.dest, o.via)

    def make(self, values: Sequence[Any]) -> Order:
        return ConvoyMove(values[0], values[1], values[2])


@final
class _RetreatKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Retreat = order
        return (o.unit, o.dest)

    def make(self, values: Sequence[Any]) -> Order:
        return Retreat(values[0], values[1])


@final
class _DisbandKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Disband = order
        return (o.unit,)

    def make(self, values: Sequence[Any]) -> Order:
        return Disband(values[0])


@final
class _BuildKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Build = order
        return (o.unit,)

    def make(self, values: Sequence[Any]) -> Order:
        return Build(values[0])


@final
class _RemoveKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Remove = order
        return (o.unit,)

    def make(self, values: Sequence[Any]) -> Order:
        return Remove(values[0])


@final
class _WaiveKind(Kind):
    def values(self, order: Any) -> tuple[Any, ...]:
        o: Waive = order
        return (o.power,)

    def make(self, values: Sequence[Any]) -> Order:
        return Waive(values[0])


#: Every kind, ``KINDS[k.code] is k``; each of the eleven order classes once.
KINDS: Final[tuple[Kind, ...]] = (
    _HoldKind(0, Hold, MOVEMENT, (_unit("HLD"),)),
    _MoveKind(1, Move, MOVEMENT, (_unit("MTO"), Part("dest", LOCATION)), moves=True),
    _SupportHoldKind(2, SupportHold, MOVEMENT, (_unit("SUP"), Part("supported", UNIT))),
    _SupportMoveKind(3, SupportMove, MOVEMENT,
                     (_unit("SUP"), Part("supported", UNIT, "MTO"), Part("dest", PROVINCE))),
    _ConvoyKind(4, Convoy, MOVEMENT,
                (_unit("CVY"), Part("army", UNIT, "CTO"), Part("dest", PROVINCE))),
    _ConvoyMoveKind(5, ConvoyMove, MOVEMENT,
                    (_unit("CTO"), Part("dest", PROVINCE, "VIA"), Part("via", PROVINCES)),
                    moves=True),
    _RetreatKind(6, Retreat, RETREAT, (_unit("RTO"), Part("dest", LOCATION)), moves=True),
    _DisbandKind(7, Disband, RETREAT, (_unit("DSB"),)),
    _BuildKind(8, Build, ADJUSTMENT, (_unit("BLD"),)),
    _RemoveKind(9, Remove, ADJUSTMENT, (_unit("REM"),)),
    _WaiveKind(10, Waive, ADJUSTMENT, (Part("power", POWER, "WVE"),)),
)

_BY_CLASS: Final[dict[type, Kind]] = {k.cls: k for k in KINDS}

#: DAIDE order word -> its kinds, fewest elements first (``SUP``: support to
#: hold, then to move); not to be changed
BY_WORD: Final[dict[str, tuple[Kind, ...]]] = {
    word: tuple(sorted((k for k in KINDS if k.word == word), key=lambda k: k.size))
    for word in sorted({k.word for k in KINDS})
}


def find_kind(order: object) -> Kind | None:
    """The :class:`Kind` of ``order`` (None: not an order)."""
    return _BY_CLASS.get(type(order))


def kind_of(order: Order) -> Kind:
    """The :class:`Kind` of ``order`` (TypeError: not an order)."""
    kind = _BY_CLASS.get(type(order))
    if kind is None:
        raise TypeError(f"not an order: {order!r}")
    return kind


def kind_for(cls: type) -> Kind:
    """The :class:`Kind` of the order class ``cls`` (KeyError: not an order class)."""
    return _BY_CLASS[cls]


def kinds_of_phase(phase: str) -> tuple[Kind, ...]:
    """The kinds of the orders of a phase kind (MOVEMENT, RETREAT, ADJUSTMENT)."""
    return tuple(k for k in KINDS if k.phase == phase)


__all__ = [
    "ADJUSTMENT",
    "BY_WORD",
    "KINDS",
    "LOCATION",
    "MOVEMENT",
    "POWER",
    "PROVINCE",
    "PROVINCES",
    "RETREAT",
    "UNIT",
    "Kind",
    "Part",
    "find_kind",
    "kind_for",
    "kind_of",
    "kinds_of_phase",
]
