"""Build a :class:`~maps.model.Map` from its geography, checked for consistency.

The input is plain data - mnemonics, tuples - in the shape of an MDF
(docs/protocol.md §11): the powers, the supply centres with their home
powers, the other provinces, and per province its adjacency lists.  Reading
an MDF (a message, a data file) is the protocol's business
(:mod:`protocol.mapdef`, the one MDF parser) and the engine's
(``engine.mapfiles`` turns a parsed MDF, NOW and SCO into this call); this
module checks what only geography can: every province listed once and given
adjacencies, armies never led to sea, fleet destinations with the right
coast, starting units where they can stand, SCO owners that exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from maps.model import Map, Province, ProvinceKind, StartUnit

#: Seasons in game order; the first one of a year is a movement phase.
SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")

#: ``(province, coast or None)``: a destination of an adjacency list.
Place = tuple[str, str | None]
#: ``(unit type, coast or None, destinations)``: ``AMY ...``, ``FLT ...``, ``(FLT coast) ...``
AdjacencyList = tuple[str, str | None, Sequence[Place]]


class MapError(ValueError):
    """The MDF / NOW / SCO data does not describe a consistent map.

    ``part`` names the message at fault (``"MDF"``, ``"NOW"``, ``"SCO"`` or
    ``"RM"``) so that a loader can name the file; the message is one line.
    """

    def __init__(self, message: str, part: str = "MDF") -> None:
        super().__init__(message)
        self.part = part


def build_map(
    powers: Sequence[str],
    centres: Sequence[tuple[Sequence[str], Sequence[str]]],
    non_centres: Sequence[str],
    adjacencies: Sequence[tuple[str, Sequence[AdjacencyList]]],
    *,
    start_phase: tuple[str, int] | None = None,
    start_units: Sequence[StartUnit] | None = None,
    start_ownership: Sequence[tuple[str | None, Sequence[str]]] | None = None,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
) -> Map:
    """A map from its geography and starting position.

    ``centres`` lists ``(home powers, centres)`` groups (no powers: neutral
    centres); ``adjacencies`` ``(province, adjacency lists)`` entries.
    ``names`` maps power and province mnemonics to full English names (used
    for display and for the alphabetical tie-break of DATC 4.D.8); a missing
    name falls back to the mnemonic.  Without a start phase the map starts in
    SPR 1901, without start units it has none, and without start ownership
    every centre starts unowned; ``start_ownership`` lists ``(owner or None
    for neutral, centres)`` groups.  Raises :class:`MapError` for
    inconsistent data (``part`` "NOW" / "SCO" for the starting position).
    """
    names = names or {}
    powers = tuple(powers)
    if len(set(powers)) != len(powers):
        raise MapError("a power is listed twice")

    homes: dict[str, list[str]] = {}
    centre_set: set[str] = set()
    for owners, group in centres:
        for o in owners:
            if o not in powers:
                raise MapError(f"home centre owner {o} is not a power of the map")
        for cname in group:
            if cname in centre_set:
                raise MapError(f"supply centre {cname} listed twice")
            centre_set.add(cname)
            homes[cname] = list(owners)
    others = list(non_centres)
    all_names = sorted(centre_set | set(others))
    if len(all_names) != len(centre_set) + len(others):
        raise MapError("a province is listed twice")
    ids = {m: i for i, m in enumerate(all_names)}

    # -- adjacency entries -------------------------------------------------
    army: dict[str, list[str]] = {}
    fleet: dict[tuple[str, str | None], list[tuple[str, str | None]]] = {}
    seen: set[str] = set()
    for prov, lists in adjacencies:
        if prov not in ids:
            raise MapError(f"adjacency for unknown province {prov}")
        if prov in seen:
            raise MapError(f"two adjacency entries for {prov}")
        seen.add(prov)
        for unit_type, coast, dests in lists:
            if unit_type == "AMY" and coast is None:
                army[prov] = [_dest_province(d, ids, prov) for d in dests]
            elif unit_type == "FLT":
                fleet[(prov, coast)] = [_dest(d, ids, prov) for d in dests]
            else:
                raise MapError(f"bad unit type {unit_type!r} in the adjacencies of {prov}")
    missing = [m for m in all_names if m not in seen]
    if missing:
        raise MapError(f"provinces {' '.join(missing)} have no adjacency entry")

    # -- provinces and locations -------------------------------------------
    provinces: list[Province] = []
    coasts_of: dict[str, tuple[str, ...]] = {}
    for m in all_names:
        coasts = tuple(sorted(c for (p, c) in fleet if p == m and c is not None))
        has_plain_fleet = (m, None) in fleet
        if coasts and has_plain_fleet:
            raise MapError(f"{m} has both a FLT and a (FLT coast) entry")
        has_army = m in army
        if coasts:
            kind = ProvinceKind.BICOASTAL
        elif has_army and has_plain_fleet:
            kind = ProvinceKind.COASTAL
        elif has_army:
            kind = ProvinceKind.INLAND
        elif has_plain_fleet:
            kind = ProvinceKind.SEA
        else:
            raise MapError(f"{m} has neither AMY nor FLT adjacencies")
        if kind is ProvinceKind.BICOASTAL and not has_army:
            raise MapError(f"bicoastal {m} has no AMY entry")
        coasts_of[m] = coasts
        provinces.append(
            Province(
                id=ids[m],
                mnemonic=m,
                name=names.get(m, m),
                kind=kind,
                coasts=coasts,
                supply_centre=m in centre_set,
                homes=tuple(homes.get(m, ())),
            )
        )
    n = len(provinces)
    loc_province = list(range(n))
    loc_coast: list[str | None] = [None] * n
    loc_ids: dict[tuple[int, str | None], int] = {(i, None): i for i in range(n)}
    for p in provinces:
        for c in p.coasts:
            loc_ids[(p.id, c)] = len(loc_province)
            loc_province.append(p.id)
            loc_coast.append(c)

    def loc_of(prov: str, coast: str | None, where: str) -> int:
        p = ids[prov]
        if coast is None and provinces[p].kind is ProvinceKind.BICOASTAL:
            raise MapError(f"{where}: fleet destination {prov} needs a coast")
        key = (p, coast)
        if key not in loc_ids:
            raise MapError(f"{where}: {prov} has no coast {coast}")
        if coast is None and provinces[p].kind is ProvinceKind.INLAND:
            raise MapError(f"{where}: fleet destination {prov} is inland")
        return loc_ids[key]

    army_adj: list[frozenset[int]] = []
    for p in provinces:
        army_dests = army.get(p.mnemonic, [])
        for d in army_dests:
            if provinces[ids[d]].kind is ProvinceKind.SEA:
                raise MapError(f"army adjacency {p.mnemonic}->{d} leads to sea")
        army_adj.append(frozenset(ids[d] for d in army_dests))
    fleet_adj: list[frozenset[int]] = []
    for loc in range(len(loc_province)):
        p = provinces[loc_province[loc]]
        key = (p.mnemonic, loc_coast[loc])
        if loc < n and p.kind in (ProvinceKind.INLAND, ProvinceKind.BICOASTAL):
            fleet_adj.append(frozenset())
            continue
        where = f"{p.mnemonic}{'/' + str(loc_coast[loc]) if loc_coast[loc] else ''}"
        fleet_adj.append(frozenset(loc_of(d, c, where) for d, c in fleet.get(key, [])))
    fleet_reach = tuple(frozenset(loc_province[x] for x in locs) for locs in fleet_adj)
    fleet_locs: list[tuple[int, ...]] = []
    for p in provinces:
        if p.kind is ProvinceKind.INLAND:
            fleet_locs.append(())
        elif p.kind is ProvinceKind.BICOASTAL:
            fleet_locs.append(tuple(loc_ids[(p.id, c)] for c in p.coasts))
        else:
            fleet_locs.append((p.id,))

    home_centres = {
        pw: tuple(sorted(ids[c] for c, owners in homes.items() if pw in owners)) for pw in powers
    }
    neutral = tuple(sorted(ids[c] for c, owners in homes.items() if not owners))

    try:
        phase, units = _start_units(start_phase, start_units, ids, provinces, powers, loc_ids)
    except MapError as exc:
        raise MapError(str(exc), "NOW") from None
    try:
        ownership = _start_ownership(start_ownership, ids, centre_set, powers)
    except MapError as exc:
        raise MapError(str(exc), "SCO") from None

    return Map(
        name=name,
        powers=powers,
        provinces=tuple(provinces),
        ids=MappingProxyType(ids),
        loc_province=tuple(loc_province),
        loc_coast=tuple(loc_coast),
        loc_ids=MappingProxyType(loc_ids),
        army_adj=tuple(army_adj),
        fleet_adj=tuple(fleet_adj),
        fleet_reach=fleet_reach,
        fleet_locs=tuple(fleet_locs),
        seas=frozenset(p.id for p in provinces if p.kind is ProvinceKind.SEA),
        supply_centres=tuple(sorted(ids[c] for c in centre_set)),
        home_centres=MappingProxyType(home_centres),
        neutral_centres=neutral,
        start_phase=phase,
        start_units=units,
        start_ownership=MappingProxyType(ownership),
        power_names=MappingProxyType({p: names.get(p, p) for p in powers}),
    )


def _dest_province(place: Place, ids: Mapping[str, int], where: str) -> str:
    d, coast = place
    if coast is not None:
        raise MapError(f"army adjacency of {where} names a coast: {place!r}")
    if d not in ids:
        raise MapError(f"unknown province {d} in the adjacencies of {where}")
    return d


def _dest(place: Place, ids: Mapping[str, int], where: str) -> Place:
    d, coast = place
    if d not in ids:
        raise MapError(f"unknown province {d} in the adjacencies of {where}")
    return d, coast


def _start_units(
    start_phase: tuple[str, int] | None,
    start_units: Sequence[StartUnit] | None,
    ids: Mapping[str, int],
    provinces: Sequence[Province],
    powers: tuple[str, ...],
    loc_ids: Mapping[tuple[int, str | None], int],
) -> tuple[tuple[str, int], tuple[StartUnit, ...]]:
    if start_phase is None:
        return ("SPR", 1901), ()
    season, year = start_phase
    if season not in SEASONS:
        raise MapError(f"bad turn {start_phase!r}")
    units: list[StartUnit] = []
    occupied: set[str] = set()
    for unit in start_units or ():
        power, kind, prov, coast = unit.power, unit.kind, unit.province, unit.coast
        if power not in powers:
            raise MapError(f"unit of unknown power {power}")
        place = prov if coast is None else f"{prov}/{coast}"
        if prov not in ids or (ids[prov], coast) not in loc_ids:
            raise MapError(f"{power} {kind} in {place}, which is not a place on the map")
        p = provinces[ids[prov]]
        if kind == "AMY" and (coast is not None or not p.is_land):
            raise MapError(f"{power} AMY in {place}: an army cannot stand there")
        if kind == "FLT" and p.kind is ProvinceKind.BICOASTAL and coast is None:
            raise MapError(f"{power} FLT in {place}: a fleet in a bicoastal province needs a coast")
        if kind == "FLT" and p.kind is ProvinceKind.INLAND:
            raise MapError(f"{power} FLT in {place}: a fleet cannot stand inland")
        if kind not in ("AMY", "FLT"):
            raise MapError(f"bad unit type {kind}")
        if prov in occupied:
            raise MapError(f"two starting units in {prov}")
        occupied.add(prov)
        units.append(unit)
    units.sort(key=lambda u: ids[u.province])
    return (season, int(year)), tuple(units)


def _start_ownership(
    groups: Sequence[tuple[str | None, Sequence[str]]] | None,
    ids: Mapping[str, int],
    centres: set[str],
    powers: tuple[str, ...],
) -> dict[str, str]:
    if groups is None:
        return {}
    owned: dict[str, str | None] = {}
    for owner, group in groups:
        if owner is not None and owner not in powers:
            raise MapError(f"SCO names unknown power {owner}")
        for cname in group:
            if cname not in centres:
                raise MapError(f"SCO lists {cname}, which is not a supply centre")
            if cname in owned:
                raise MapError(f"SCO lists {cname} twice")
            owned[cname] = owner
    return {c: o for c, o in sorted(owned.items(), key=lambda kv: ids[kv[0]]) if o is not None}


__all__ = ["AdjacencyList", "MapError", "Place", "SEASONS", "build_map"]
