"""Value types of the adjudicator: phases and the game state.

The orders, units and locations it judges are the one order model of
:mod:`orders` (``orders.values``); this module adds what only the rules
need: :class:`Phase`, :class:`GameState`, :class:`Dislodged`, and the
phase kinds with the orders of each (both from the table of order kinds,
:mod:`orders.kinds`).  All are frozen dataclasses;
:class:`Phase` and :class:`GameState` (which check or derive a field) write
their ``__init__`` out, for the reason :mod:`orders.values` gives (a direct
slot store when compiled with mypyc, ``native/``).  Seasons are the DAIDE
mnemonics (``'SPR'``...) as plain ``str``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from adjudicator.derived import Derived
from maps import Map
from orders.kinds import ADJUSTMENT, MOVEMENT, RETREAT, kinds_of_phase
from orders.values import Location, Unit

#: Season mnemonic -> phase kind (docs/protocol.md §6.6).
SEASON_KIND: Final[Mapping[str, str]] = MappingProxyType(
    {"SPR": MOVEMENT, "SUM": RETREAT, "FAL": MOVEMENT, "AUT": RETREAT, "WIN": ADJUSTMENT}
)
_SEASON_ORDER: Final = ("SPR", "SUM", "FAL", "AUT", "WIN")


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


#: the order classes of each phase kind (the table of order kinds, ``orders.kinds``)
MOVEMENT_ORDERS: Final = tuple(k.cls for k in kinds_of_phase(MOVEMENT))
RETREAT_ORDERS: Final = tuple(k.cls for k in kinds_of_phase(RETREAT))
ADJUSTMENT_ORDERS: Final = tuple(k.cls for k in kinds_of_phase(ADJUSTMENT))


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

    ``_facts`` is not part of the value: what the rules have worked out about
    this state so far (:mod:`adjudicator.derived`; :attr:`facts`).
    """

    phase: Phase
    units: tuple[Unit, ...]
    ownership: Mapping[str, str] = field(default_factory=dict, hash=False)
    dislodged: tuple[Dislodged, ...] = ()
    _facts: Derived | None = field(default=None, init=False, repr=False, compare=False,
                                   hash=False)

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
        object.__setattr__(self, "_facts", None)

    @property
    def facts(self) -> Derived:
        """What has been derived from this state so far (made on first use, kept
        with the state: :mod:`adjudicator.derived`)."""
        facts = self._facts
        if facts is None:
            facts = Derived()
            object.__setattr__(self, "_facts", facts)
        return facts

    @property
    def by_province(self) -> dict[str, Unit]:
        """Province -> the (not dislodged) unit there; derived from ``units``
        (once per state, kept in its :attr:`facts`; built on first use:
        the adjudication itself never asks)."""
        facts = self.facts
        index = facts.by_province
        if index is None:
            index = {u.location.province: u for u in self.units}
            facts.by_province = index
        return index

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
        # Counted for every power at once, once per state (kept in its facts):
        # an adjustment phase asks for every power, and again for every order checked.
        facts = self.facts
        counts = facts.adjustments
        if counts is None:
            counts = {}
            for owner in self.ownership.values():
                counts[owner] = counts.get(owner, 0) + 1
            for unit in self.units:
                counts[unit.power] = counts.get(unit.power, 0) - 1
            facts.adjustments = counts
        return counts.get(power, 0)

    def __iter__(self) -> Iterator[Unit]:
        return iter(self.units)


# year -> its phases by season index (a tuple key would be built and hashed
# on every call)
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
    # The map's shared locations.
    units = tuple(
        Unit(u.power, u.kind, t.locations[t.loc_ids[(t.ids[u.province], u.coast)]])
        for u in sorted(m.start_units, key=lambda u: u.province)
    )
    season, year = m.start_phase
    return GameState(Phase(season, year), units, dict(m.start_ownership))


__all__ = [
    "ADJUSTMENT",
    "ADJUSTMENT_ORDERS",
    "Dislodged",
    "GameState",
    "MOVEMENT",
    "MOVEMENT_ORDERS",
    "Phase",
    "RETREAT",
    "RETREAT_ORDERS",
    "SEASON_KIND",
    "initial_state",
    "phase_of",
]
