"""Per-map lookup tables for the hot paths (order checks, movement resolution).

A :class:`maps.Map` is immutable, so everything the adjudicator derives from
the geography alone is computed once per map, kept with the map
(``Map.derived``) and shared by every phase: plain-dict copies of the id
tables (a ``dict`` lookup is cheaper than one through the map's read-only
proxies; ``ids``, province mnemonic -> id, is how the adjudicator finds
the province id of any :class:`Location`), the shared :class:`Location` of every
place, the sorted retreat candidates of every unit position, the supply
centres, and an intern table of :class:`Unit` values (a unit that moves
reuses the one value for its power, kind and new location instead of
building a new one each phase).
"""

from __future__ import annotations

from typing import Final

from maps import Map, ProvinceKind
from orders import AMY, FLT, Location, Unit


class MapTables:
    """Geography facts of one map, as integer-indexed tuples and plain dicts."""

    def __init__(self, m: Map) -> None:
        provinces = m.provinces
        #: number of provinces; province ids are ``0..n-1``
        self.n: int = len(provinces)
        #: province id -> mnemonic
        self.names: tuple[str, ...] = tuple(p.mnemonic for p in provinces)
        #: mnemonic -> province id
        self.ids: dict[str, int] = dict(m.ids)
        #: (province id, coast or None) -> location id
        self.loc_ids: dict[tuple[int, str | None], int] = dict(m.loc_ids)
        #: location id -> province id
        self.loc_province: tuple[int, ...] = m.loc_province
        #: location id -> the shared Location value
        self.locations: tuple[Location, ...] = tuple(
            Location(self.names[m.loc_province[i]], m.loc_coast[i])
            for i in range(len(m.loc_province))
        )
        #: province id -> provinces an army there can move to
        self.army_adj: tuple[frozenset[int], ...] = m.army_adj
        #: location id -> provinces a fleet there can move to
        self.fleet_reach: tuple[frozenset[int], ...] = m.fleet_reach
        #: location id -> locations a fleet there can move to
        self.fleet_adj: tuple[frozenset[int], ...] = m.fleet_adj
        #: province id -> fleet locations there ((), (p,), or its coasts)
        self.fleet_locs: tuple[tuple[int, ...], ...] = m.fleet_locs
        #: province id -> has two (or more) coasts
        self.bicoastal: tuple[bool, ...] = tuple(
            p.kind is ProvinceKind.BICOASTAL for p in provinces
        )
        #: sea provinces
        self.seas: frozenset[int] = m.seas
        #: province id -> is a supply centre
        self.supply: tuple[bool, ...] = tuple(p.supply_centre for p in provinces)
        #: (province id, mnemonic) of the supply centres, in province id order
        self.centres: tuple[tuple[int, str], ...] = tuple(
            (c, self.names[c]) for c in m.supply_centres
        )
        #: centres needed for a solo
        self.victory_centres: int = m.victory_centres
        #: the powers, in map order
        self.powers: tuple[str, ...] = m.powers
        #: province id -> (province, Location) an army there may retreat to, by id
        self.army_moves: tuple[tuple[tuple[int, Location], ...], ...] = tuple(
            tuple((q, self.locations[q]) for q in sorted(adj)) for adj in m.army_adj
        )
        #: location id -> (province, Location) a fleet there may retreat to, by location id
        self.fleet_moves: tuple[tuple[tuple[int, Location], ...], ...] = tuple(
            tuple((m.loc_province[q], self.locations[q]) for q in sorted(adj))
            for adj in m.fleet_adj
        )
        seas = m.seas
        #: sea province -> the seas next to it
        self.sea_nbrs: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(q for q in m.fleet_reach[p] if q in seas)) if p in seas else ()
            for p in range(self.n)
        )
        #: sea province -> the land provinces on its shore
        self.sea_shores: tuple[frozenset[int], ...] = tuple(
            frozenset(q for q in m.fleet_reach[p] if q not in seas) if p in seas else frozenset()
            for p in range(self.n)
        )
        #: land province -> the seas on its coast (any of its coasts)
        self.coast_seas: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(s for s in seas if p in m.fleet_reach[s])) for p in range(self.n)
        )
        #: the memo key of the fleet groups (adjudicator.derived, adjudicator.validate)
        self.fleet_groups_key: tuple[str, Map] = ("fleet-groups", m)
        #: province ids ascend with the mnemonics (maps.model guarantees it;
        #: checked, so board order can be produced without sorting)
        self.alphabetical: bool = list(self.names) == sorted(self.names)
        n = self.n
        # The hot checks ask "can this unit reach q?" many times per phase; a
        # flat list of flags answers with one index instead of a set lookup
        # (which hashes a boxed int).
        #: army_adj as a matrix: ``army_can[p * n + q]``
        self.army_can: list[bool] = [q in adj for adj in m.army_adj for q in range(n)]
        #: fleet_reach as a matrix over locations: ``fleet_can[loc * n + q]``
        self.fleet_can: list[bool] = [q in reach for reach in m.fleet_reach for q in range(n)]
        #: province id -> is a sea
        self.sea: list[bool] = [p in seas for p in range(n)]
        #: the sea provinces, ascending
        self.sea_ids: tuple[int, ...] = tuple(sorted(seas))
        #: power -> its index in ``powers``
        self.power_ids: dict[str, int] = {p: i for i, p in enumerate(self.powers)}
        self.location_count: int = len(m.loc_province)
        self._units: dict[tuple[str, str, int], Unit] = {}
        # The same intern table for the powers of the map, indexed by
        # ``(power index * 2 + is fleet) * locations + location``: no tuple
        # to build and hash per moving unit.
        self._unit_slots: list[Unit | None] = [None] * (len(self.powers) * 2 * self.location_count)

    def unit(self, power: str, kind: str, loc: int) -> Unit:
        """The shared :class:`Unit` value of ``power``'s ``kind`` at location ``loc``."""
        key = (power, kind, loc)
        u = self._units.get(key)
        if u is None:
            u = Unit(power, kind, self.locations[loc])
            self._units[key] = u
        return u

    def unit_of(self, power_index: int, power: str, kind: str, loc: int) -> Unit:
        """:meth:`unit` for a power known by its index in ``powers`` (an index
        outside them - a power the map does not know - still works)."""
        if kind == AMY:
            fleet = 0
        elif kind == FLT:
            fleet = 1
        else:
            return self.unit(power, kind, loc)
        if power_index >= len(self.powers):
            return self.unit(power, kind, loc)
        slot = (power_index * 2 + fleet) * self.location_count + loc
        u = self._unit_slots[slot]
        if u is None:
            u = self.unit(power, kind, loc)
            self._unit_slots[slot] = u
        return u

    def unit_reach(self, kind: str, province: int, coast: str | None) -> frozenset[int]:
        """Provinces a unit of ``kind`` at ``province`` / ``coast`` can move to
        without convoy (any coast for fleets)."""
        if kind == AMY:
            return self.army_adj[province]
        if coast is None:
            return self.fleet_reach[province]
        return self.fleet_reach[self.loc_ids[(province, coast)]]


_KEY: Final = "adjudicator.tables"


def tables(m: Map) -> MapTables:
    """The tables of ``m`` (built on first use, kept with the map: ``Map.derived``,
    its memo read directly - this is asked a few times per phase)."""
    t = m.memo.get(_KEY)
    if isinstance(t, MapTables):
        return t
    return m.derived(_KEY, MapTables)


__all__ = ["MapTables", "tables"]
