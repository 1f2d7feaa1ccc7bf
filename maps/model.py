"""The map as frozen, fast-to-query data.

A :class:`Map` is built once (:func:`maps.build.build_map`) and then
only read.  Everything the adjudicator asks in its inner loops is a tuple
lookup by integer id:

* **province ids** ``0..N-1``, in alphabetical order of the mnemonics (a
  fixed order, so iteration and output are deterministic);
* **location ids**: a location is where a unit can stand.  Location ``p`` (for
  ``p < N``) is province ``p`` itself - where an army stands, and where a
  fleet stands in a sea or single-coast province.  Each coast of a bicoastal
  province gets one extra location id ``>= N`` (``STP/NCS``, ``STP/SCS``...);
* **adjacency**: ``army_adj[province]`` is the set of provinces an army can
  move to; ``fleet_adj[location]`` the set of *locations* a fleet there can
  move to (coasts included); ``fleet_reach[location]`` the same as provinces
  (what a fleet may support into, DATC 4.B.4).

Powers, provinces and coasts keep their DAIDE mnemonics (``'ENG'``,
``'LON'``, ``'NCS'``), so values cross the engine's seam unchanged; the
map holds no wire data (no tokens, no MDF message: ``engine.variants``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar, cast

T = TypeVar("T")


class ProvinceKind(StrEnum):
    """What can stand in a province (docs/protocol.md §11: follows from the MDF entries)."""

    INLAND = "inland"
    SEA = "sea"
    COASTAL = "coastal"
    BICOASTAL = "bicoastal"


@dataclass(frozen=True, slots=True)
class Province:
    """One province of the map.

    ``homes`` lists the powers for which it is a home supply centre (usually
    one; an MDF may share a home centre, ``(power power ...)`` in docs/protocol.md
    §11).  ``coasts`` is empty unless the province is bicoastal.
    """

    id: int
    mnemonic: str
    name: str
    kind: ProvinceKind
    coasts: tuple[str, ...]
    supply_centre: bool
    homes: tuple[str, ...]

    @property
    def is_sea(self) -> bool:
        return self.kind is ProvinceKind.SEA

    @property
    def is_land(self) -> bool:
        """Armies may stand here (inland, coastal and bicoastal provinces)."""
        return self.kind is not ProvinceKind.SEA


@dataclass(frozen=True, slots=True)
class StartUnit:
    """A unit of the starting position (from the map's NOW)."""

    power: str
    kind: str  # "AMY" or "FLT"
    province: str
    coast: str | None = None


@dataclass(frozen=True, eq=False, slots=True)
class Map:
    """A Diplomacy map: geography, home centres and the starting position.

    Build it with :func:`maps.build_map` (the engine reads one from an MDF:
    ``engine.mapfiles``).  Compared by identity; never mutated.
    """

    name: str
    powers: tuple[str, ...]
    provinces: tuple[Province, ...]
    #: mnemonic -> province id
    ids: Mapping[str, int]
    #: location id -> province id / coast (None for the province's own location)
    loc_province: tuple[int, ...]
    loc_coast: tuple[str | None, ...]
    #: (province id, coast or None) -> location id
    loc_ids: Mapping[tuple[int, str | None], int]
    #: province id -> provinces an army there can move to
    army_adj: tuple[frozenset[int], ...]
    #: location id -> locations a fleet there can move to
    fleet_adj: tuple[frozenset[int], ...]
    #: location id -> provinces a fleet there can move to (any coast)
    fleet_reach: tuple[frozenset[int], ...]
    #: province id -> locations a fleet may occupy there ((), (p,), or its coasts)
    fleet_locs: tuple[tuple[int, ...], ...]
    #: province ids of the sea provinces
    seas: frozenset[int]
    #: province ids of all supply centres, ascending
    supply_centres: tuple[int, ...]
    #: power -> its home centre province ids, ascending
    home_centres: Mapping[str, tuple[int, ...]]
    #: centres that are nobody's home, ascending
    neutral_centres: tuple[int, ...]
    #: starting phase (season, year), units and centre ownership (centre -> power)
    start_phase: tuple[str, int]
    start_units: tuple[StartUnit, ...]
    start_ownership: Mapping[str, str]
    #: full names of the powers (mnemonic -> name), for display
    power_names: Mapping[str, str]
    #: what other layers derive from the map alone, kept with it: the name the
    #: owner gives it -> the value (:meth:`derived` fills it)
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def derived(self, name: str, make: Callable[[Map], T]) -> T:
        """``make(self)``, computed on first use and kept with the map under
        ``name`` (which names the owner and the fact: ``'adjudicator.tables'``).

        A map is never changed, so whatever is derived from it alone - the
        adjudicator's lookup tables, a picture's layout - is worked out once
        and lives as long as the map does.
        """
        got = self.memo.get(name)
        if got is None:
            got = make(self)
            self.memo[name] = got
        return cast(T, got)

    # -- lookups -----------------------------------------------------------

    @property
    def victory_centres(self) -> int:
        """Centres needed for a solo: more than half of all centres (18 of 34)."""
        return len(self.supply_centres) // 2 + 1

    def province(self, mnemonic: str) -> Province:
        """The province with this mnemonic (KeyError if the map has none)."""
        return self.provinces[self.ids[mnemonic]]

    def location(self, province: str, coast: str | None = None) -> int:
        """The location id of ``province`` (with ``coast`` for a bicoastal fleet).

        KeyError if there is no such province or coast.
        """
        return self.loc_ids[(self.ids[province], coast)]

    def location_name(self, loc: int) -> tuple[str, str | None]:
        """``(province mnemonic, coast or None)`` of a location id."""
        return self.provinces[self.loc_province[loc]].mnemonic, self.loc_coast[loc]

    @property
    def location_count(self) -> int:
        return len(self.loc_province)

    def army_can_move(self, src: str, dst: str) -> bool:
        """True if an army in ``src`` can move to ``dst`` over land."""
        return self.ids[dst] in self.army_adj[self.ids[src]]

    def fleet_can_move(
        self, src: str, dst: str, src_coast: str | None = None, dst_coast: str | None = None
    ) -> bool:
        """True if a fleet at ``src``/``src_coast`` can move to ``dst``/``dst_coast``."""
        return self.location(dst, dst_coast) in self.fleet_adj[self.location(src, src_coast)]

    def adjacency_list_count(self) -> int:
        """Number of unit/coast adjacency lists (the MDF's AMY/FLT entries)."""
        armies = sum(1 for p in self.provinces if p.is_land)
        fleets = sum(len(locs) for locs in self.fleet_locs)
        return armies + fleets

    def asymmetries(self) -> list[str]:
        """Adjacencies given one way only (empty for a well-formed map)."""
        out: list[str] = []
        for p, dests in enumerate(self.army_adj):
            for q in sorted(dests):
                if p not in self.army_adj[q]:
                    out.append(f"AMY {self.provinces[p].mnemonic}->{self.provinces[q].mnemonic}")
        for a, locs in enumerate(self.fleet_adj):
            for b in sorted(locs):
                if a not in self.fleet_adj[b]:
                    out.append(f"FLT {self.location_name(a)}->{self.location_name(b)}")
        return out


__all__ = ["Map", "Province", "ProvinceKind", "StartUnit"]
