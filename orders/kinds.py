"""The order kinds: one table that says what each of the eleven orders is.

As godip gives every order type its own description, :data:`KINDS` gives
every order class of :mod:`orders.values` one :class:`Kind`, declaring in
one place what the protocol, the adjudicator and the bots used to work out
each with its own chain of ``isinstance`` tests:

* ``parts`` - the order's parts in the order DAIDE writes them and the
  class takes them (``kind.cls(*kind.values(order)) == order``): each part
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

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Final, cast, final

from orders.values import (
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


@final
class Kind:
    """What one order class is (see the module's doc).

    ``code`` is the kind's index in :data:`KINDS`, for tables indexed by
    kind; ``word`` the DAIDE order word (the keyword after the subject);
    ``size`` the number of elements of the order as written (parts and
    keywords: ``( unit ) MTO location`` has 3); ``moves`` says that the
    ordered unit itself goes to the province of the part named ``dest``.

    Read off the parts, once, as ``operator.attrgetter`` paths (each call a
    single C call; the order checks call them for every order):

    * ``values(order)``: the parts' values in order - the class's
      arguments, so ``kind.make(kind.values(order)) == order``;
    * ``units(order)``: the units it names, the ordered unit first, then the
      supported or convoyed one;
    * ``provinces(order)``: the provinces it names, in order (the unit's
      first; every one must exist on the map).
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
        self.values: Callable[[Order], tuple[Any, ...]] = _getter([p.name for p in parts])
        self.units: Callable[[Order], tuple[Unit, ...]] = _getter(
            [p.name for p in parts if p.shape == UNIT])
        self.provinces: Callable[[Order], tuple[str, ...]] = _getter(
            [_PROVINCE_PATH[p.shape].format(p.name) for p in parts if p.shape != POWER],
            parts[-1].shape == PROVINCES)
        dest = [p for p in parts if p.name == "dest"]
        #: the province the ``dest`` part names (None: no such part)
        self._dest: Callable[[Any], Any] | None = (
            attrgetter(_PROVINCE_PATH[dest[0].shape].format("dest")) if dest else None)
        self._make: Callable[..., Order] = cls

    def make(self, values: Sequence[object]) -> Order:
        """The order of this kind with these part values (``values``' inverse)."""
        return self._make(*values)

    def power(self, order: Order) -> str:
        """The power the order is for (the unit's owner, or the power of WVE)."""
        subject = self.values(order)[0]
        return cast(Unit, subject).power if self.subject_is_unit else cast(str, subject)

    def target(self, order: Order) -> str | None:
        """The province the ``dest`` part names (None: the kind has none) - where
        a move, retreat or convoy goes, or a support to move is given."""
        get = self._dest
        return None if get is None else cast(str, get(order))

    def goes_to(self, order: Order) -> str | None:
        """The province the ordered unit is ordered to (None: it stays put)."""
        return self.target(order) if self.moves else None

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


#: shape -> the path from a part to the province it names ({} the part's field)
_PROVINCE_PATH: Final[dict[int, str]] = {
    UNIT: "{}.location.province",
    LOCATION: "{}.province",
    PROVINCE: "{}",
    PROVINCES: "{}",
}


def _nothing(order: object) -> tuple[Any, ...]:
    return ()


def _getter(paths: list[str], spread_last: bool = False) -> Callable[[Any], tuple[Any, ...]]:
    """A function of an order giving the values at ``paths`` as a tuple, the
    last one's items in its place if ``spread_last``."""
    if not paths:
        return _nothing
    get = attrgetter(*paths)
    if spread_last:
        if len(paths) == 1:
            return lambda order: tuple(get(order))
        return lambda order: _spread(get(order))
    if len(paths) == 1:
        return lambda order: (get(order),)
    return get


def _spread(got: tuple[Any, ...]) -> tuple[Any, ...]:
    return (*got[:-1], *got[-1])


def _unit(then: str) -> Part:
    """The ordered unit, followed by the order's word."""
    return Part("unit", UNIT, then)


#: Every kind, ``KINDS[k.code] is k``; each of the eleven order classes once.
KINDS: Final[tuple[Kind, ...]] = (
    Kind(0, Hold, MOVEMENT, (_unit("HLD"),)),
    Kind(1, Move, MOVEMENT, (_unit("MTO"), Part("dest", LOCATION)), moves=True),
    Kind(2, SupportHold, MOVEMENT, (_unit("SUP"), Part("supported", UNIT))),
    Kind(3, SupportMove, MOVEMENT,
         (_unit("SUP"), Part("supported", UNIT, "MTO"), Part("dest", PROVINCE))),
    Kind(4, Convoy, MOVEMENT, (_unit("CVY"), Part("army", UNIT, "CTO"), Part("dest", PROVINCE))),
    Kind(5, ConvoyMove, MOVEMENT,
         (_unit("CTO"), Part("dest", PROVINCE, "VIA"), Part("via", PROVINCES)), moves=True),
    Kind(6, Retreat, RETREAT, (_unit("RTO"), Part("dest", LOCATION)), moves=True),
    Kind(7, Disband, RETREAT, (_unit("DSB"),)),
    Kind(8, Build, ADJUSTMENT, (_unit("BLD"),)),
    Kind(9, Remove, ADJUSTMENT, (_unit("REM"),)),
    Kind(10, Waive, ADJUSTMENT, (Part("power", POWER, "WVE"),)),
)

_BY_CLASS: Final[dict[type, Kind]] = {k.cls: k for k in KINDS}

#: DAIDE order word -> its kinds, fewest elements first (``SUP``: support to
#: hold, then to move)
BY_WORD: Final[Mapping[str, tuple[Kind, ...]]] = MappingProxyType({
    word: tuple(sorted((k for k in KINDS if k.word == word), key=lambda k: k.size))
    for word in sorted({k.word for k in KINDS})
})


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
