"""Build a :class:`~maps.model.Map` from DAIDE MDF, NOW and SCO message trees.

The input is the tuple tree of :mod:`protocol.tree` (upper-case mnemonic
``str``, ``int``, nested ``tuple``), so a map received over the wire and a
map read from a data file go through the same code.  This module itself is
pure: it never parses text and imports nothing from ``protocol``.

MDF grammar (docs/protocol.md §11)::

    MDF (powers) ((supply_centres) (non_supply_centres)) (adjacencies)
    supply_centres = (owner centre ...) ...     owner = power | UNO | (power ...)
    adjacencies    = (province (AMY dest ...) (FLT dest ...) ((FLT coast) dest ...) ...) ...
    dest           = province | (province coast)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from maps.model import Map, Province, ProvinceKind, StartUnit

if TYPE_CHECKING:
    from protocol.tokens import Representation

#: Seasons in game order; the first one of a year is a movement phase.
SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")


class MapError(ValueError):
    """The MDF / NOW / SCO data does not describe a consistent map.

    ``part`` names the message at fault (``"MDF"``, ``"NOW"``, ``"SCO"`` or
    ``"RM"``) so that a loader can name the file; the message is one line.
    """

    def __init__(self, message: str, part: str = "MDF") -> None:
        super().__init__(message)
        self.part = part


def _tuple(node: Any, what: str) -> tuple[Any, ...]:
    if not isinstance(node, tuple):
        raise MapError(f"{what}: expected a bracketed group, got {node!r}")
    return node


def _name(node: Any, what: str) -> str:
    if not isinstance(node, str) or isinstance(node, bool):
        raise MapError(f"{what}: expected a mnemonic, got {node!r}")
    return node.upper()


def _message(tree: Sequence[Any], head: str) -> tuple[Any, ...]:
    body = tuple(tree)
    if not body or body[0] != head:
        raise MapError(f"expected a {head} message, got {body[:1]!r}")
    return body[1:]


def map_from_mdf(
    mdf: Sequence[Any],
    now: Sequence[Any] | None = None,
    sco: Sequence[Any] | None = None,
    *,
    name: str = "standard",
    names: Mapping[str, str] | None = None,
    rep: Representation | None = None,
) -> Map:
    """Build a map from an MDF tree plus the starting NOW and SCO trees.

    ``names`` maps power and province mnemonics to full English names (used
    for display and for the alphabetical tie-break of DATC 4.D.8); a missing
    name falls back to the mnemonic.  Without ``now`` the map has no starting
    units (phase SPR 1901); without ``sco`` every centre starts unowned.
    ``rep`` is the token representation the messages came in (kept on the
    map, never looked at here).  Raises :class:`MapError` for inconsistent
    data.
    """
    names = names or {}
    body = _message(mdf, "MDF")
    if len(body) != 3:
        raise MapError(f"MDF needs (powers) (provinces) (adjacencies), got {len(body)} groups")
    powers = tuple(_name(p, "power") for p in _tuple(body[0], "powers"))
    if len(set(powers)) != len(powers):
        raise MapError("a power is listed twice")
    prov_part = _tuple(body[1], "provinces")
    if len(prov_part) != 2:
        raise MapError("provinces must be (supply_centres) (non_supply_centres)")

    homes: dict[str, list[str]] = {}
    centres: set[str] = set()
    for group in _tuple(prov_part[0], "supply centres"):
        group = _tuple(group, "supply centre group")
        if not group:
            raise MapError("empty supply centre group")
        owner = group[0]
        owners: tuple[str, ...]
        if isinstance(owner, tuple):
            owners = tuple(_name(o, "owner") for o in owner)
        else:
            o = _name(owner, "owner")
            owners = () if o == "UNO" else (o,)
        for o in owners:
            if o not in powers:
                raise MapError(f"home centre owner {o} is not a power of the map")
        for c in group[1:]:
            cname = _name(c, "centre")
            if cname in centres:
                raise MapError(f"supply centre {cname} listed twice")
            centres.add(cname)
            homes[cname] = list(owners)
    others = [_name(p, "province") for p in _tuple(prov_part[1], "non supply centres")]
    all_names = sorted(centres | set(others))
    if len(all_names) != len(centres) + len(others):
        raise MapError("a province is listed twice")
    ids = {m: i for i, m in enumerate(all_names)}

    # -- adjacency entries -------------------------------------------------
    army: dict[str, list[str]] = {}
    fleet: dict[tuple[str, str | None], list[tuple[str, str | None]]] = {}
    seen: set[str] = set()
    for entry in _tuple(body[2], "adjacencies"):
        entry = _tuple(entry, "adjacency entry")
        if not entry:
            raise MapError("empty adjacency entry")
        prov = _name(entry[0], "province")
        if prov not in ids:
            raise MapError(f"adjacency for unknown province {prov}")
        if prov in seen:
            raise MapError(f"two adjacency entries for {prov}")
        seen.add(prov)
        for unit_adj in entry[1:]:
            unit_adj = _tuple(unit_adj, f"adjacency list of {prov}")
            if not unit_adj:
                raise MapError(f"empty adjacency list in {prov}")
            head = unit_adj[0]
            dests = unit_adj[1:]
            if head == "AMY":
                army[prov] = [_dest_province(d, ids, prov) for d in dests]
            elif head == "FLT":
                fleet[(prov, None)] = [_dest(d, ids, prov) for d in dests]
            elif isinstance(head, tuple) and len(head) == 2 and head[0] == "FLT":
                coast = _name(head[1], "coast")
                fleet[(prov, coast)] = [_dest(d, ids, prov) for d in dests]
            else:
                raise MapError(f"bad unit type {head!r} in the adjacencies of {prov}")
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
                supply_centre=m in centres,
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
        start_phase, start_units = _start_units(now, ids, provinces, powers, loc_ids)
    except MapError as exc:
        raise MapError(str(exc), "NOW") from None
    try:
        start_ownership = _start_ownership(sco, ids, centres, powers)
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
        supply_centres=tuple(sorted(ids[c] for c in centres)),
        home_centres=MappingProxyType(home_centres),
        neutral_centres=neutral,
        start_phase=start_phase,
        start_units=start_units,
        start_ownership=MappingProxyType(start_ownership),
        power_names=MappingProxyType({p: names.get(p, p) for p in powers}),
        mdf=tuple(mdf),
        rep=rep,
    )


def _dest_province(node: Any, ids: Mapping[str, int], where: str) -> str:
    if isinstance(node, tuple):
        raise MapError(f"army adjacency of {where} names a coast: {node!r}")
    d = _name(node, f"destination in {where}")
    if d not in ids:
        raise MapError(f"unknown province {d} in the adjacencies of {where}")
    return d


def _dest(node: Any, ids: Mapping[str, int], where: str) -> tuple[str, str | None]:
    if isinstance(node, tuple):
        if len(node) != 2:
            raise MapError(f"bad destination {node!r} in {where}")
        d = _name(node[0], f"destination in {where}")
        coast: str | None = _name(node[1], f"coast in {where}")
    else:
        d = _name(node, f"destination in {where}")
        coast = None
    if d not in ids:
        raise MapError(f"unknown province {d} in the adjacencies of {where}")
    return d, coast


def _start_units(
    now: Sequence[Any] | None,
    ids: Mapping[str, int],
    provinces: Sequence[Province],
    powers: tuple[str, ...],
    loc_ids: Mapping[tuple[int, str | None], int],
) -> tuple[tuple[str, int], tuple[StartUnit, ...]]:
    if now is None:
        return ("SPR", 1901), ()
    body = _message(now, "NOW")
    if not body:
        raise MapError("NOW without a turn")
    turn = _tuple(body[0], "turn")
    if len(turn) != 2 or turn[0] not in SEASONS or not isinstance(turn[1], int):
        raise MapError(f"bad turn {turn!r}")
    units: list[StartUnit] = []
    occupied: set[str] = set()
    for node in body[1:]:
        node = _tuple(node, "unit")
        if len(node) != 3:
            raise MapError(f"bad unit {node!r} (starting units have no MRT)")
        power, kind = _name(node[0], "power"), _name(node[1], "unit type")
        if power not in powers:
            raise MapError(f"unit of unknown power {power}")
        where = node[2]
        coast: str | None
        if isinstance(where, tuple):
            prov, coast = _name(where[0], "province"), _name(where[1], "coast")
        else:
            prov, coast = _name(where, "province"), None
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
        units.append(StartUnit(power, kind, prov, coast))
    units.sort(key=lambda u: ids[u.province])
    return (str(turn[0]), int(turn[1])), tuple(units)


def _start_ownership(
    sco: Sequence[Any] | None,
    ids: Mapping[str, int],
    centres: set[str],
    powers: tuple[str, ...],
) -> dict[str, str]:
    if sco is None:
        return {}
    owned: dict[str, str] = {}
    for group in _message(sco, "SCO"):
        group = _tuple(group, "SCO group")
        if not group:
            continue
        owner = _name(group[0], "owner")
        if owner != "UNO" and owner not in powers:
            raise MapError(f"SCO names unknown power {owner}")
        for c in group[1:]:
            cname = _name(c, "centre")
            if cname not in centres:
                raise MapError(f"SCO lists {cname}, which is not a supply centre")
            if cname in owned:
                raise MapError(f"SCO lists {cname} twice")
            owned[cname] = owner
    return {c: o for c, o in sorted(owned.items(), key=lambda kv: ids[kv[0]]) if o != "UNO"}


__all__ = ["MapError", "SEASONS", "map_from_mdf"]
