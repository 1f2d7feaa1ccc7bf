"""The one order model: locations, units and the orders of every phase.

Every part of the program speaks these values: the protocol reads SUB,
NOW, ORD and press into them and renders them back (``protocol.orders``),
the adjudicator takes them in and hands them out, the engine, the server
and the bots pass them along.  So the order a player submitted is the very
value the THX echoes and the adjudicator judges - there is nothing to
convert.  This package knows nothing of the wire or of the rules.

All are frozen dataclasses holding the DAIDE mnemonics as plain ``str``
(powers ``'ENG'``, provinces ``'STP'``, coasts ``'NCS'``, unit types
``'AMY'`` / ``'FLT'``), independent of any token representation, so
variants work unchanged (docs/protocol.md §9.1):

=====================================  ==============================
DAIDE                                  value
=====================================  ==============================
``( ENG FLT ( STP NCS ) )``            ``Unit('ENG', FLT, Location('STP', 'NCS'))``
``(unit) HLD``                         :class:`Hold`
``(unit) MTO location``                :class:`Move`
``(unit) SUP (unit)``                  :class:`SupportHold`
``(unit) SUP (unit) MTO province``     :class:`SupportMove`
``(unit) CVY (unit) CTO province``     :class:`Convoy`
``(unit) CTO province VIA (sea ...)``  :class:`ConvoyMove`
``(unit) RTO location``                :class:`Retreat`
``(unit) DSB``                         :class:`Disband`
``(unit) BLD``                         :class:`Build`
``(unit) REM``                         :class:`Remove`
``power WVE``                          :class:`Waive`
=====================================  ==============================

What each order class is - its DAIDE word, its parts in DAIDE's order, its
phase, the units and provinces it names - is declared once, in the table of
order kinds (:mod:`orders.kinds`), which the protocol's readers and
writers, the adjudicator's checks and the bots go by.

The ones made for every order of every phase - :class:`Location`,
:class:`Unit`, the movement orders - write their ``__init__`` out, setting
the fields with ``object.__setattr__``: compiled with mypyc (this package
is compiled together with the adjudicator, ``native/``) that is a direct
slot store, where the ``__init__`` a frozen dataclass generates stays
interpreted and, for the 30-odd orders of a phase, would cost more than the
adjudication itself.  The others use the generated ``__init__``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

AMY: Final = "AMY"
FLT: Final = "FLT"

@dataclass(frozen=True, slots=True)
class Location:
    """A province, plus the coast for a fleet in a bicoastal province."""

    province: str
    coast: str | None = None

    def __init__(self, province: str, coast: str | None = None) -> None:
        object.__setattr__(self, "province", province)
        object.__setattr__(self, "coast", coast)

    # Written out for the same reason as __init__: the generated ones stay
    # interpreted, and every set or dict of units (MIS, the THX checks, the
    # adjudicator) hashes and compares them.  Same values as generated: the
    # compared fields only, hashed as their tuple.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Location:
            return NotImplemented
        assert isinstance(other, Location)
        return self.province == other.province and self.coast == other.coast

    def __hash__(self) -> int:
        return hash((self.province, self.coast))

    def __str__(self) -> str:
        return self.province if self.coast is None else f"{self.province}/{self.coast}"


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit: owning power, ``AMY`` or ``FLT``, and where it stands."""

    power: str
    kind: str
    location: Location

    def __init__(self, power: str, kind: str, location: Location) -> None:
        object.__setattr__(self, "power", power)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "location", location)

    # Written out as Location's are (same values as the generated ones).
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Unit:
            return NotImplemented
        assert isinstance(other, Unit)
        return (self.power == other.power and self.kind == other.kind
                and self.location == other.location)

    def __hash__(self) -> int:
        return hash((self.power, self.kind, self.location))

    @property
    def province(self) -> str:
        return self.location.province

    @property
    def coast(self) -> str | None:
        return self.location.coast

    @property
    def is_army(self) -> bool:
        return self.kind == AMY

    def __str__(self) -> str:
        return f"{self.power} {self.kind} {self.location}"


# -- orders ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hold:
    """``(unit) HLD``."""

    unit: Unit

    def __init__(self, unit: Unit) -> None:
        object.__setattr__(self, "unit", unit)


@dataclass(frozen=True, slots=True)
class Move:
    """``(unit) MTO location``: a move over land or sea adjacency (never by convoy)."""

    unit: Unit
    dest: Location

    def __init__(self, unit: Unit, dest: Location) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "dest", dest)


@dataclass(frozen=True, slots=True)
class SupportHold:
    """``(unit) SUP (unit)``: support to hold (any unit not ordered to move)."""

    unit: Unit
    supported: Unit

    def __init__(self, unit: Unit, supported: Unit) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "supported", supported)


@dataclass(frozen=True, slots=True)
class SupportMove:
    """``(unit) SUP (unit) MTO province``: support to move (no coast, DATC 4.B.4)."""

    unit: Unit
    supported: Unit
    dest: str

    def __init__(self, unit: Unit, supported: Unit, dest: str) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "supported", supported)
        object.__setattr__(self, "dest", dest)


@dataclass(frozen=True, slots=True)
class Convoy:
    """``(unit) CVY (army) CTO province``."""

    unit: Unit
    army: Unit
    dest: str

    def __init__(self, unit: Unit, army: Unit, dest: str) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "army", army)
        object.__setattr__(self, "dest", dest)


@dataclass(frozen=True, slots=True)
class ConvoyMove:
    """``(unit) CTO province VIA (sea ...)``: a move *by convoy* (DATC 4.A.3).

    ``via`` is checked when the order is given (NSF / FAR); at adjudication
    any chain of fleets ordered to convoy this army there counts (4.A.1 b,
    4.A.6).
    """

    unit: Unit
    dest: str
    via: tuple[str, ...] = ()

    def __init__(self, unit: Unit, dest: str, via: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "dest", dest)
        object.__setattr__(self, "via", via)


@dataclass(frozen=True, slots=True)
class Retreat:
    """``(unit) RTO location``."""

    unit: Unit
    dest: Location


@dataclass(frozen=True, slots=True)
class Disband:
    """``(unit) DSB`` (retreat phase)."""

    unit: Unit


@dataclass(frozen=True, slots=True)
class Build:
    """``(unit) BLD``."""

    unit: Unit


@dataclass(frozen=True, slots=True)
class Remove:
    """``(unit) REM``."""

    unit: Unit


@dataclass(frozen=True, slots=True)
class Waive:
    """``power WVE``: give up one build."""

    power: str


UnitOrder: TypeAlias = (
    Hold
    | Move
    | SupportHold
    | SupportMove
    | Convoy
    | ConvoyMove
    | Retreat
    | Disband
    | Build
    | Remove
)
Order: TypeAlias = UnitOrder | Waive


def order_power(order: Order) -> str:
    """The power an order is for (the unit's owner, or the waiving power)."""
    return order.power if isinstance(order, Waive) else order.unit.power


__all__ = [
    "AMY",
    "FLT",
    "Build",
    "Convoy",
    "ConvoyMove",
    "Disband",
    "Hold",
    "Location",
    "Move",
    "Order",
    "Remove",
    "Retreat",
    "SupportHold",
    "SupportMove",
    "Unit",
    "UnitOrder",
    "Waive",
    "order_power",
]
