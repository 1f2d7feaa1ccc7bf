"""The read-only view of the board that a strategy is given.

A `BoardView` is a frozen snapshot: the map as a `Geography`, whose turn it
is, every unit (dislodged ones with their retreat options), who owns each
supply centre.  Strategies never see sockets or the client: the same view is made from a NOW/SCO pair received
over TCP (`bots.client`) or from an in-process game (`bots.local`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bots.geography import ARMY, Geography, Node

MOVEMENT = "movement"
RETREAT = "retreat"
ADJUSTMENT = "adjustment"

_PHASE_KIND = {"SPR": MOVEMENT, "FAL": MOVEMENT, "SUM": RETREAT, "AUT": RETREAT,
               "WIN": ADJUSTMENT}


@dataclass(frozen=True)
class BoardUnit:
    """A unit as a bot sees it."""

    power: str
    kind: str
    """``AMY`` or ``FLT``."""
    node: Node
    retreats: tuple[Node, ...] | None = None
    """For a dislodged unit in a retreat phase: where it may retreat (MRT)."""

    @property
    def province(self) -> str:
        return self.node[0]

    @property
    def is_army(self) -> bool:
        return self.kind == ARMY


@dataclass(frozen=True)
class BoardView:
    """Everything a strategy may look at when it chooses its orders."""

    geography: Geography
    power: str
    season: str
    """``SPR``, ``SUM``, ``FAL``, ``AUT`` or ``WIN``."""
    year: int
    units: tuple[BoardUnit, ...]
    """Units on the board (not dislodged), in a fixed order."""
    dislodged: tuple[BoardUnit, ...]
    """Dislodged units awaiting retreat orders (retreat phases only)."""
    owners: Mapping[str, str | None]
    """Supply centre -> owning power (None: neutral)."""

    # -- phase --------------------------------------------------------------

    @property
    def phase_kind(self) -> str:
        """`MOVEMENT`, `RETREAT` or `ADJUSTMENT`."""
        return _PHASE_KIND[self.season]

    # -- centres ------------------------------------------------------------

    def owner(self, centre: str) -> str | None:
        return self.owners.get(centre)

    def centre_count(self, power: str) -> int:
        return sum(1 for o in self.owners.values() if o == power)

    # -- units --------------------------------------------------------------

    def units_of(self, power: str) -> tuple[BoardUnit, ...]:
        return tuple(u for u in self.units if u.power == power)

    @property
    def my_units(self) -> tuple[BoardUnit, ...]:
        return self.units_of(self.power)

    @property
    def my_dislodged(self) -> tuple[BoardUnit, ...]:
        return tuple(u for u in self.dislodged if u.power == self.power)

    def unit_in(self, province: str) -> BoardUnit | None:
        """The (non-dislodged) unit in `province`, if any."""
        for unit in self.units:
            if unit.province == province:
                return unit
        return None

    @property
    def adjustment(self) -> int:
        """Centres minus units for this power: > 0 builds owed, < 0 removals."""
        return self.centre_count(self.power) - len(self.my_units)

    def build_sites(self) -> tuple[str, ...]:
        """Own, unoccupied home centres (where a build could go)."""
        occupied = {u.province for u in self.units}
        homes = self.geography.homes.get(self.power, frozenset())
        return tuple(sorted(c for c in homes
                            if self.owners.get(c) == self.power and c not in occupied))
