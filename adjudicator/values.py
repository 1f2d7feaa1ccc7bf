"""Value types of the adjudicator: locations, units, orders, phases, game state.

All are frozen dataclasses.  The ones made for every order of every phase -
:class:`Location`, :class:`Unit`, the movement orders - and :class:`Phase`
and :class:`GameState` (which check or derive a field) write their
``__init__`` out, setting the fields with ``object.__setattr__``: compiled
with mypyc (``native/``) that is a direct slot store, about
70 ns, where the ``__init__`` a frozen dataclass generates stays interpreted
and takes about 1 us - for the 30-odd orders of a phase, more than the
adjudication itself.  The others use the generated ``__init__``.

Powers, provinces, coasts, unit types and seasons are the DAIDE mnemonics
as plain ``str`` (``'ENG'``, ``'LON'``, ``'NCS'``, ``'FLT'``, ``'SPR'``), so
converting to and from DAIDE messages is one-to-one (docs/protocol.md §9.1):

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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, TypeAlias

from adjudicator.derived import derived
from maps import Map

AMY: Final = "AMY"
FLT: Final = "FLT"

MOVEMENT: Final = "movement"
RETREAT: Final = "retreat"
ADJUSTMENT: Final = "adjustment"

#: Season mnemonic -> phase kind (docs/protocol.md §6.6).
SEASON_KIND: Final[Mapping[str, str]] = MappingProxyType(
    {"SPR": MOVEMENT, "SUM": RETREAT, "FAL": MOVEMENT, "AUT": RETREAT, "WIN": ADJUSTMENT}
)
_SEASON_ORDER: Final = ("SPR", "SUM", "FAL", "AUT", "WIN")

#: ``object`` under a module-level name: the compiled dataclass resolves its
#: field annotations in this module's namespace, where builtins are missing
Anything: TypeAlias = object


@dataclass(frozen=True, slots=True)
class Phase:
    """A game phase: season mnemonic and year (``Phase('SPR', 1901)``).

    ``kind`` is ``'movement'``, ``'retreat'`` or ``'adjustment'``.
    """

    season: str
    year: int
    kind: str = field(init=False, repr=False, compare=False)

    def __init__(self, season: str, year: int) -> None:
        kind = SEASON_KIND.get(season)
        if kind is None:
            raise ValueError(f"unknown season {season!r}")
        object.__setattr__(self, "season", season)
        object.__setattr__(self, "year", year)
        object.__setattr__(self, "kind", kind)

    @property
    def index(self) -> int:
        """Position of the season within the year (SPR = 0 ... WIN = 4)."""
        return _SEASON_ORDER.index(self.season)

    def following(self) -> Phase:
        """The next phase of the calendar (skipping nothing)."""
        i = _SEASON_ORDER.index(self.season)
        if i == 4:
            return Phase("SPR", self.year + 1)
        return Phase(_SEASON_ORDER[i + 1], self.year)

    @property
    def key(self) -> tuple[int, int]:
        """Sort key: chronological order."""
        return (self.year, _SEASON_ORDER.index(self.season))

    def __str__(self) -> str:
        return f"{self.season} {self.year}"


@dataclass(frozen=True, slots=True)
class Location:
    """A province, plus the coast for a fleet in a bicoastal province.

    ``pid`` is not part of the value: the province id on the map ``id_map``
    for the shared locations the adjudicator makes per map
    (:func:`map_location`), so that the units and orders it produced need no
    name lookup; -1 (and None) for any other location.
    """

    province: str
    coast: str | None = None
    pid: int = field(default=-1, init=False, repr=False, compare=False, hash=False)
    id_map: Anything = field(default=None, init=False, repr=False, compare=False, hash=False)

    def __init__(self, province: str, coast: str | None = None) -> None:
        object.__setattr__(self, "province", province)
        object.__setattr__(self, "coast", coast)
        object.__setattr__(self, "pid", -1)
        object.__setattr__(self, "id_map", None)

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

    @property
    def province(self) -> str:
        return self.location.province

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

    @property
    def token(self) -> str:
        """The DAIDE order token (``'HLD'``)."""
        return "HLD"


@dataclass(frozen=True, slots=True)
class Move:
    """``(unit) MTO location``: a move over land or sea adjacency (never by convoy)."""

    unit: Unit
    dest: Location

    def __init__(self, unit: Unit, dest: Location) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "dest", dest)

    @property
    def token(self) -> str:
        """The DAIDE order token (``'MTO'``)."""
        return "MTO"


@dataclass(frozen=True, slots=True)
class SupportHold:
    """``(unit) SUP (unit)``: support to hold (any unit not ordered to move)."""

    unit: Unit
    supported: Unit

    def __init__(self, unit: Unit, supported: Unit) -> None:
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "supported", supported)

    @property
    def token(self) -> str:
        """The DAIDE order token (``'SUP'``)."""
        return "SUP"


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

    @property
    def token(self) -> str:
        """The DAIDE order token (``'SUP'``)."""
        return "SUP"


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

    @property
    def token(self) -> str:
        """The DAIDE order token (``'CVY'``)."""
        return "CVY"


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

    @property
    def token(self) -> str:
        """The DAIDE order token (``'CTO'``)."""
        return "CTO"


@dataclass(frozen=True, slots=True)
class Retreat:
    """``(unit) RTO location``."""

    unit: Unit
    dest: Location

    @property
    def token(self) -> str:
        """The DAIDE order token (``'RTO'``)."""
        return "RTO"


@dataclass(frozen=True, slots=True)
class Disband:
    """``(unit) DSB`` (retreat phase)."""

    unit: Unit

    @property
    def token(self) -> str:
        """The DAIDE order token (``'DSB'``)."""
        return "DSB"


@dataclass(frozen=True, slots=True)
class Build:
    """``(unit) BLD``."""

    unit: Unit

    @property
    def token(self) -> str:
        """The DAIDE order token (``'BLD'``)."""
        return "BLD"


@dataclass(frozen=True, slots=True)
class Remove:
    """``(unit) REM``."""

    unit: Unit

    @property
    def token(self) -> str:
        """The DAIDE order token (``'REM'``)."""
        return "REM"


@dataclass(frozen=True, slots=True)
class Waive:
    """``power WVE``: give up one build."""

    power: str

    @property
    def token(self) -> str:
        """The DAIDE order token (``'WVE'``)."""
        return "WVE"


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

MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy, ConvoyMove)
RETREAT_ORDERS = (Retreat, Disband)
ADJUSTMENT_ORDERS = (Build, Remove, Waive)


def order_power(order: Order) -> str:
    """The power an order is for (the unit's owner, or the waiving power)."""
    return order.power if isinstance(order, Waive) else order.unit.power


# -- state -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A dislodged unit waiting for its retreat order.

    ``retreats`` is its MRT list (docs/protocol.md §8.2), ``attacker`` the province
    the dislodging unit came from (None when unknown, e.g. a state read from
    a NOW message).
    """

    unit: Unit
    retreats: tuple[Location, ...]
    attacker: str | None = None


_NO_OWNERS: Final[Mapping[str, str]] = MappingProxyType({})


@dataclass(frozen=True)
class GameState:
    """Everything the rules need to know about a game at the start of a phase.

    ``ownership`` maps each *owned* centre to its owner (neutral centres are
    absent).  ``units`` are the units on the board; ``dislodged`` (only in a
    retreat phase) the units that must retreat, each with its options.
    Units are kept in a canonical order (by province mnemonic) so that equal
    states compare and render equally.
    """

    phase: Phase
    units: tuple[Unit, ...]
    ownership: Mapping[str, str] = field(default_factory=dict, hash=False)
    dislodged: tuple[Dislodged, ...] = ()

    def __init__(
        self,
        phase: Phase,
        units: tuple[Unit, ...],
        ownership: Mapping[str, str] = _NO_OWNERS,
        dislodged: tuple[Dislodged, ...] = (),
    ) -> None:
        # Written out: the ownership is stored read-only.
        if not isinstance(ownership, MappingProxyType):
            ownership = MappingProxyType(dict(ownership))
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "units", units)
        object.__setattr__(self, "ownership", ownership)
        object.__setattr__(self, "dislodged", dislodged)

    @property
    def by_province(self) -> dict[str, Unit]:
        """Province -> the (not dislodged) unit there; derived from ``units``
        (once per state, :mod:`adjudicator.derived`)."""
        return derived(self).by_province

    def unit_at(self, province: str) -> Unit | None:
        """The (not dislodged) unit in ``province``, if any."""
        return self.by_province.get(province)

    def dislodged_at(self, province: str) -> Dislodged | None:
        """The dislodged unit in ``province``, if any."""
        for d in self.dislodged:
            if d.unit.location.province == province:
                return d
        return None

    def units_of(self, power: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.power == power)

    def centres_of(self, power: str) -> tuple[str, ...]:
        return tuple(c for c, p in self.ownership.items() if p == power)

    def centre_counts(self) -> dict[str, int]:
        """Number of centres per owning power."""
        counts: dict[str, int] = {}
        for p in self.ownership.values():
            counts[p] = counts.get(p, 0) + 1
        return counts

    def adjustment(self, power: str) -> int:
        """Centres minus units: builds owed (> 0) or removals owed (< 0)."""
        n = 0
        for p in self.ownership.values():
            if p == power:
                n += 1
        for u in self.units:
            if u.power == power:
                n -= 1
        return n

    def __iter__(self) -> Iterator[Unit]:
        return iter(self.units)


# year -> its phases by season index (a tuple key would be built and hashed
# on every call)
def map_location(province: str, coast: str | None, pid: int, id_map: object) -> Location:
    """A :class:`Location` that knows its province id ``pid`` on the map
    ``id_map`` (equal to ``Location(province, coast)``)."""
    loc = Location(province, coast)
    object.__setattr__(loc, "pid", pid)
    object.__setattr__(loc, "id_map", id_map)
    return loc


_PHASES: Final[dict[int, list[Phase | None]]] = {}


def phase_of(season: str, year: int) -> Phase:
    """The shared :class:`Phase` value of a season and year."""
    if season == "SPR":
        k = 0
    elif season == "SUM":
        k = 1
    elif season == "FAL":
        k = 2
    elif season == "AUT":
        k = 3
    elif season == "WIN":
        k = 4
    else:
        return Phase(season, year)  # raises: unknown season
    row = _PHASES.get(year)
    if row is None:
        row = [None] * 5
        _PHASES[year] = row
    p = row[k]
    if p is None:
        p = Phase(season, year)
        row[k] = p
    return p


def initial_state(m: Map) -> GameState:
    """The map's starting position (its NOW and SCO)."""
    from adjudicator.tables import tables  # noqa: PLC0415 - tables imports this module

    t = tables(m)
    # The map's shared locations (they know their province ids).
    units = tuple(
        Unit(u.power, u.kind, t.locations[t.loc_ids[(t.ids[u.province], u.coast)]])
        for u in sorted(m.start_units, key=lambda u: u.province)
    )
    season, year = m.start_phase
    return GameState(Phase(season, year), units, dict(m.start_ownership))


__all__ = [
    "ADJUSTMENT",
    "ADJUSTMENT_ORDERS",
    "AMY",
    "Build",
    "Convoy",
    "ConvoyMove",
    "Disband",
    "Dislodged",
    "FLT",
    "GameState",
    "Hold",
    "Location",
    "MOVEMENT",
    "MOVEMENT_ORDERS",
    "Move",
    "Order",
    "Phase",
    "RETREAT",
    "RETREAT_ORDERS",
    "Remove",
    "Retreat",
    "SEASON_KIND",
    "SupportHold",
    "SupportMove",
    "Unit",
    "UnitOrder",
    "Waive",
    "initial_state",
    "map_location",
    "order_power",
    "phase_of",
]
