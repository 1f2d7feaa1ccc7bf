"""Order checks: the DAIDE THX note of an order (PROTOCOL.md 9.3).

Checks run in the order of ``docs/adjudication-conventions.md``: NRS, NYU,
NSP, NSU, then the order's own checks.  An order that passes gets ``MBV``;
any other note means the order is *illegal* in the sense of DATC 4.E.1 d
(only orders that can be valid in the current situation are legal) and is
not stored: the unit holds (disbands in a retreat phase; a missing build is
waived, a missing removal chosen by the civil-disorder rule).

:func:`check_order` also returns the order in canonical form: a fleet move
to a bicoastal province whose only reachable coast was omitted gets that
coast (DATC 4.B.2 a), an irrelevant coast is dropped (4.B.6 b).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Final

from adjudicator.convoys import route_seas
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.tables import MapTables, tables
from adjudicator.values import (
    ADJUSTMENT,
    AMY,
    FLT,
    MOVEMENT,
    RETREAT,
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    GameState,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    UnitOrder,
    Waive,
)
from maps import Map, ProvinceKind

MBV: Final = "MBV"
FAR: Final = "FAR"
NSP: Final = "NSP"
NSU: Final = "NSU"
NAS: Final = "NAS"
NSF: Final = "NSF"
NSA: Final = "NSA"
NYU: Final = "NYU"
NRN: Final = "NRN"
NVR: Final = "NVR"
YSC: Final = "YSC"
ESC: Final = "ESC"
HSC: Final = "HSC"
NSC: Final = "NSC"
CST: Final = "CST"
NMB: Final = "NMB"
NMR: Final = "NMR"
NRS: Final = "NRS"

_PHASE_OF: Final[dict[type, str]] = {
    Hold: MOVEMENT,
    Move: MOVEMENT,
    SupportHold: MOVEMENT,
    SupportMove: MOVEMENT,
    Convoy: MOVEMENT,
    ConvoyMove: MOVEMENT,
    Retreat: RETREAT,
    Disband: RETREAT,
    Build: ADJUSTMENT,
    Remove: ADJUSTMENT,
    Waive: ADJUSTMENT,
}


def validate(
    m: Map,
    state: GameState,
    power: str,
    order: Order,
    accepted: Sequence[Order] = (),
    rules: Rulebook = DEFAULT,
) -> str:
    """The THX note of ``order`` submitted by ``power``: ``'MBV'`` or the fault.

    ``accepted`` holds the orders of ``power`` already accepted this phase;
    it matters in the adjustment phase (ESC for a second build on one site,
    NMB / NMR counts).  AOA games accept every order with MBV regardless
    (PROTOCOL.md 9.2); use this function to find the note their ORD shows.
    """
    checks = movement_checks(m, state, rules)
    if checks is not None:
        return checks.note(state, power, order)
    return check_order(m, state, power, order, accepted, rules)[0]


class MovementChecks:
    """The movement-phase checks of one state (under one map and rulebook),
    remembered per order object: the server's THX check and :func:`advance`'s
    own check of the same order objects cost one computation.

    Kept in ``state.memo`` (see :func:`movement_checks`).  An order that
    passed unchanged is remembered as itself, any other outcome as
    ``(order, power, note, canonical order)``.
    """

    def __init__(self, m: Map, state: GameState, rules: Rulebook) -> None:
        self.m = m
        self.rules = rules
        self.t = tables(m)
        self.by_province = state.by_province
        self.done: dict[object, Order | tuple[Order, str, str, Order]] = {}

    def check(self, state: GameState, power: str, order: Order) -> tuple[str, Order]:
        """``(note, canonical order)`` of ``order`` given by ``power``."""
        key: object = id(order)  # boxed once for both dict operations
        got = self.done.get(key)
        if got is not None:
            if got is order:
                if not isinstance(order, Waive) and order.unit.power == power:
                    return MBV, order
            elif type(got) is tuple and got[0] is order and got[1] == power:
                return got[2], got[3]
        return self._check(key, state, power, order)

    def _check(self, key: object, state: GameState, power: str, order: Order) -> tuple[str, Order]:
        """Check ``order`` (not remembered yet) and remember the outcome."""
        note, canon = _check_movement(self, state, power, order)
        if note == MBV and canon is order:
            self.done[key] = order
        else:
            self.done[key] = (order, power, note, canon)
        return note, canon

    def note(self, state: GameState, power: str, order: Order) -> str:
        """The THX note alone (:meth:`check` without building the pair)."""
        key: object = id(order)
        got = self.done.get(key)
        if got is None:
            return self._check(key, state, power, order)[0]
        if got is order and not isinstance(order, Waive) and order.unit.power == power:
            return MBV
        return self.check(state, power, order)[0]

    def accepted(self, state: GameState, power: str, order: Order) -> UnitOrder | None:
        """The canonical order if it gets MBV, else None."""
        key: object = id(order)
        got = self.done.get(key)
        if got is order and not isinstance(order, Waive) and order.unit.power == power:
            return order
        if got is None:
            note, canon = self._check(key, state, power, order)
        else:
            note, canon = self.check(state, power, order)
        if note != MBV or isinstance(canon, Waive):
            return None
        return canon


_CHECKS_KEY: Final = "movement-checks"


def movement_checks(m: Map, state: GameState, rules: Rulebook) -> MovementChecks | None:
    """The :class:`MovementChecks` of ``state`` for ``m`` and ``rules`` (None
    outside movement phases)."""
    memo = state.memo
    got = memo.get(_CHECKS_KEY)
    if isinstance(got, MovementChecks) and got.m is m and got.rules is rules:
        return got
    if state.phase.kind != MOVEMENT:
        return None
    checks = MovementChecks(m, state, rules)
    if got is None:
        memo[_CHECKS_KEY] = checks
    return checks


def check_order(
    m: Map,
    state: GameState,
    power: str,
    order: Order,
    accepted: Sequence[Order] = (),
    rules: Rulebook = DEFAULT,
) -> tuple[str, Order]:
    """``(note, canonical order)``; see :func:`validate`.

    Movement-phase results are cached on the state (:class:`MovementChecks`).
    """
    kind = _PHASE_OF.get(type(order))
    if kind is None or kind != state.phase.kind:
        return NRS, order
    if kind == MOVEMENT:
        checks = movement_checks(m, state, rules)
        assert checks is not None
        return checks.check(state, power, order)
    if isinstance(order, Waive):
        if order.power != power:
            return NYU, order
        if _builds_left(state, power, accepted) <= 0:
            return NMB, order
        return MBV, order
    unit = order.unit
    if unit.power != power:
        return NYU, order
    ids = m.ids
    for prov in _provinces_named(order):
        if prov not in ids:
            return NSP, order
    if kind == RETREAT:
        d = state.dislodged_at(unit.location.province)
        if d is not None and d.unit != unit and _same_but_coast(d.unit, unit):
            order = replace(order, unit=d.unit)
        return _check_retreat(m, state, order)
    if isinstance(order, Remove):
        actual = state.unit_at(unit.location.province)
        if actual is not None and actual != unit and _same_but_coast(actual, unit):
            order = Remove(actual)
    return _check_adjustment(m, state, power, order, accepted)


def _same_but_coast(actual: Unit, named: Unit) -> bool:
    """The order names the unit with a wrong coast: ignored (DATC 4.B.5 b)."""
    return (
        actual.power == named.power
        and actual.kind == named.kind
        and actual.location.province == named.location.province
    )


def _provinces_named(order: Order) -> Iterable[str]:
    if isinstance(order, Waive):
        return ()
    first = order.unit.location.province
    if isinstance(order, (Move, Retreat)):
        return (first, order.dest.province)
    if isinstance(order, SupportHold):
        return (first, order.supported.location.province)
    if isinstance(order, SupportMove):
        return (first, order.supported.location.province, order.dest)
    if isinstance(order, Convoy):
        return (first, order.army.location.province, order.dest)
    if isinstance(order, ConvoyMove):
        return (first, order.dest, *order.via)
    return (first,)


# -- movement phase ----------------------------------------------------------------


def reach(m: Map, unit: Unit) -> frozenset[int]:
    """Provinces the unit can move to without convoy (any coast for fleets)."""
    loc = unit.location
    t = tables(m)
    return t.unit_reach(unit.kind, t.ids[loc.province], loc.coast)


def _same_unit(a: Unit, b: Unit) -> bool:
    """``a == b``, without the generic dataclass comparison (hot path)."""
    if a is b:
        return True
    la = a.location
    lb = b.location
    return (
        a.power == b.power
        and a.kind == b.kind
        and la.province == lb.province
        and la.coast == lb.coast
    )


def _check_movement(
    c: MovementChecks, state: GameState, power: str, order: Order
) -> tuple[str, Order]:
    """Movement-phase orders: the hot path of every turn.

    Per order type: NSP (every province named exists), NSU (the unit, with
    a wrong coast ignored: DATC 4.B.5 b), then the order's own checks; each
    province id is looked up once.
    """
    if isinstance(order, (Retreat, Disband, Build, Remove, Waive)):
        return NRS, order  # not a movement-phase order
    unit = order.unit
    if unit.power != power:
        return NYU, order
    t = c.t
    ids = t.ids
    src = ids.get(unit.location.province, -1)
    if type(order) is Move:
        dst = ids.get(order.dest.province, -1)
        if src < 0 or dst < 0:
            return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        move = order if on_board is order.unit else replace(order, unit=on_board)
        return _check_move(t, move, src, dst)
    if type(order) is Hold:
        if src < 0:
            return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        hold = order if on_board is order.unit else replace(order, unit=on_board)
        return MBV, hold
    if type(order) is SupportHold:
        tp = ids.get(order.supported.location.province, -1)
        if src < 0 or tp < 0:
            return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        sup_hold = order if on_board is order.unit else replace(order, unit=on_board)
        return _check_support_hold(c, sup_hold, src, tp)
    if type(order) is SupportMove:
        tsrc = ids.get(order.supported.location.province, -1)
        dst = ids.get(order.dest, -1)
        if src < 0 or tsrc < 0 or dst < 0:
            return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        sup_move = order if on_board is order.unit else replace(order, unit=on_board)
        return _check_support_move(c, state, sup_move, src, tsrc, dst)
    if type(order) is Convoy:
        asrc = ids.get(order.army.location.province, -1)
        dst = ids.get(order.dest, -1)
        if src < 0 or asrc < 0 or dst < 0:
            return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        convoy = order if on_board is order.unit else replace(order, unit=on_board)
        return _check_convoy(c, state, convoy, src, asrc, dst)
    if type(order) is ConvoyMove:
        dst = ids.get(order.dest, -1)
        if src < 0 or dst < 0:
            return NSP, order
        for name in order.via:
            if name not in ids:
                return NSP, order
        on_board = _board_unit(c, order.unit)
        if on_board is None:
            return NSU, order
        convoyed = order if on_board is order.unit else replace(order, unit=on_board)
        return _check_convoy_move(c, convoyed, src, dst)
    return NRS, order


def _board_unit(c: MovementChecks, unit: Unit) -> Unit | None:
    """``unit`` as it stands on the board (a wrong coast is ignored, DATC
    4.B.5 b: the unit there), or None if there is no such unit (NSU)."""
    actual = c.by_province.get(unit.location.province)
    if actual is None:
        return None
    if _same_unit(actual, unit):
        return unit
    if not _same_but_coast(actual, unit):
        return None
    return actual


def _check_move(t: MapTables, order: Move, src: int, dst: int) -> tuple[str, Order]:
    if dst == src:
        return FAR, order
    unit = order.unit
    dest = order.dest
    if unit.kind == AMY:
        if dst not in t.army_adj[src]:
            return FAR, order
        if dest.coast is not None:  # armies have no coasts (4.B.6 b: ignored)
            return MBV, Move(unit, t.locations[dst])
        return MBV, order
    coast = unit.location.coast
    loc = src if coast is None else t.loc_ids[(src, coast)]
    if dst not in t.fleet_reach[loc]:
        return FAR, order
    if not t.bicoastal[dst]:
        if dest.coast is not None:  # irrelevant coast (4.B.6 b)
            return MBV, Move(unit, t.locations[dst])
        return MBV, order
    adj = t.fleet_adj[loc]
    wanted = dest.coast
    if wanted is not None:
        target = t.loc_ids.get((dst, wanted), -1)
        if target >= 0:
            if target in adj:
                return MBV, order
            return FAR, order  # impossible coast: the move fails (4.B.3 b)
    reachable = [c for c in t.fleet_locs[dst] if c in adj]
    if len(reachable) == 1:  # the only possible coast (4.B.2 a)
        return MBV, Move(unit, t.locations[reachable[0]])
    return CST, order  # two coasts possible, none given (4.B.1 a)


def _check_support_hold(
    c: MovementChecks, order: SupportHold, src: int, tp: int
) -> tuple[str, Order]:
    sup = order.supported
    target = c.by_province.get(sup.location.province)
    if target is None or not _same_unit(target, sup):
        return NSU, order
    unit = order.unit
    if tp == src or tp not in c.t.unit_reach(unit.kind, src, unit.location.coast):
        return FAR, order
    return MBV, order


def _check_support_move(
    c: MovementChecks, state: GameState, order: SupportMove, src: int, tsrc: int, dst: int
) -> tuple[str, Order]:
    t = c.t
    sup = order.supported
    sloc = sup.location
    target = c.by_province.get(sloc.province)
    if target is None or not _same_unit(target, sup):
        return NSU, order
    unit = order.unit
    if (
        tsrc == src
        or dst == src
        or dst == tsrc
        or dst not in t.unit_reach(unit.kind, src, unit.location.coast)
    ):
        return FAR, order
    if dst in t.unit_reach(sup.kind, tsrc, sloc.coast):
        return MBV, order
    # An army may get there by convoy - but not through the supporter
    # itself: a fleet cannot convoy and support at once (DATC 6.D.31).
    if sup.kind == AMY and convoy_possible(c.m, state, tsrc, dst, exclude=src):
        return MBV, order
    return FAR, order


def _check_convoy(
    c: MovementChecks, state: GameState, order: Convoy, src: int, asrc: int, dst: int
) -> tuple[str, Order]:
    if order.unit.kind != FLT:
        return NSF, order
    if src not in c.t.seas:
        return NAS, order
    army = order.army
    if army.kind != AMY:
        return NSA, order
    actual = c.by_province.get(army.location.province)
    if actual is None or not _same_unit(actual, army):
        return NSU, order
    if dst == asrc or not _convoy_through(c.m, state, asrc, dst, src, c.rules):
        return FAR, order
    return MBV, order


def _check_convoy_move(
    c: MovementChecks, order: ConvoyMove, src: int, dst: int
) -> tuple[str, Order]:
    if order.unit.kind != AMY:
        return NSA, order
    if dst == src:
        return FAR, order
    via = order.via
    by_province = c.by_province
    for name in via:
        u = by_province.get(name)
        if u is None or u.kind != FLT:
            return NSF, order
    if not via:
        return FAR, order
    t = c.t
    ids = t.ids
    prev = src
    reach_of = t.fleet_reach
    seas = t.seas
    for name in via:
        sea = ids[name]
        if sea not in seas or prev not in reach_of[sea]:
            return FAR, order
        prev = sea
    if dst not in reach_of[prev]:
        return FAR, order
    return MBV, order


class _FleetGroups:
    """The fleets at sea of a state, grouped by connected fleet-held seas.

    ``group[p]`` is the group of sea ``p`` (-1: no fleet there), ``shores[g]``
    the land provinces touching group ``g``, ``occupied`` the seas holding a
    fleet.
    """

    def __init__(self, t: MapTables, state: GameState) -> None:
        ids = t.ids
        seas = t.seas
        group = [-1] * t.n
        occupied: list[int] = []
        for u in state.units:
            if u.kind == FLT:
                p = ids[u.location.province]
                if p in seas:
                    group[p] = -2  # holds a fleet, no group yet
                    occupied.append(p)
        shores: list[frozenset[int]] = []
        sea_nbrs = t.sea_nbrs
        sea_shores = t.sea_shores
        for start in occupied:
            if group[start] != -2:
                continue
            g = len(shores)
            group[start] = g
            comp = [start]
            land: set[int] = set()
            k = 0
            while k < len(comp):
                x = comp[k]
                k += 1
                land.update(sea_shores[x])
                for y in sea_nbrs[x]:
                    if group[y] == -2:
                        group[y] = g
                        comp.append(y)
            shores.append(frozenset(land))
        self.group = group
        self.shores = shores
        self.occupied = occupied


def _fleet_groups(m: Map, state: GameState) -> _FleetGroups:
    """The :class:`_FleetGroups` of ``state`` (cached on it: computed once per phase)."""
    t = tables(m)
    memo = state.memo
    got = memo.get(t.fleet_groups_key)
    if isinstance(got, _FleetGroups):
        return got
    groups = _FleetGroups(t, state)
    memo[t.fleet_groups_key] = groups
    return groups


def convoy_possible(
    m: Map, state: GameState, src: int, dst: int, exclude: int | None = None
) -> bool:
    """Could an army at ``src`` be convoyed to ``dst`` by the fleets now at sea?

    ``exclude`` is a sea province whose fleet may not take part.  Both ends
    must be land provinces with a coast; the route uses seas holding a fleet
    of any power.
    """
    t = tables(m)
    if src == dst or not t.fleet_locs[src] or not t.fleet_locs[dst]:
        return False
    seas_all = t.seas
    if src in seas_all or dst in seas_all:
        return False
    fg = _fleet_groups(m, state)
    if exclude is None or fg.group[exclude] < 0:
        for shores in fg.shores:
            if src in shores and dst in shores:
                return True
        return False
    # The groups again without the excluded fleet, from the seas next to src.
    group = fg.group
    seen = [False] * t.n
    seen[exclude] = True
    sea_nbrs = t.sea_nbrs
    sea_shores = t.sea_shores
    for start in t.coast_seas[src]:
        if group[start] < 0 or seen[start]:
            continue
        seen[start] = True
        comp = [start]
        k = 0
        while k < len(comp):
            x = comp[k]
            k += 1
            if dst in sea_shores[x]:
                return True
            for y in sea_nbrs[x]:
                if group[y] >= 0 and not seen[y]:
                    seen[y] = True
                    comp.append(y)
    return False


def _convoy_through(
    m: Map, state: GameState, src: int, dst: int, sea: int, rules: Rulebook
) -> bool:
    """Can the fleet at ``sea`` take part in convoying ``src`` -> ``dst``?

    DATC v2.4 (4.E.1 d): its group of connected fleet-held seas must touch
    both ends.  v3.0 (6.G.19): it must lie on a possible simple route.
    """
    seas = m.seas
    if src in seas or dst in seas:
        return False
    fg = _fleet_groups(m, state)
    g = fg.group[sea]
    if g < 0:
        return False
    shores = fg.shores[g]
    if src not in shores or dst not in shores:
        return False
    if not rules.convoy_must_be_on_route:
        return True
    key = ("route-seas", m, src, dst)
    on_route = state.memo.get(key)
    if on_route is None:
        on_route = route_seas(m.fleet_reach, fg.occupied, src, dst)
        state.memo[key] = on_route
    return sea in on_route  # type: ignore[operator]


# -- retreat phase -----------------------------------------------------------------


def _check_retreat(m: Map, state: GameState, order: Order) -> tuple[str, Order]:
    unit = order.unit  # type: ignore[union-attr]
    prov = unit.location.province
    d = state.dislodged_at(prov)
    if d is None or d.unit != unit:
        if state.unit_at(prov) == unit:
            return NRN, order
        return NSU, order
    if isinstance(order, Disband):
        return MBV, order
    assert isinstance(order, Retreat)
    dest = order.dest
    if dest in d.retreats:
        return MBV, order
    if m.ids[dest.province] not in reach(m, unit):
        return FAR, order  # not even adjacent (conventions: FAR before NVR)
    same = [loc for loc in d.retreats if loc.province == dest.province]
    if unit.kind == AMY and same:  # an army's coast is irrelevant (4.B.6 b)
        return MBV, Retreat(unit, same[0])
    if len(same) == 1 and (dest.coast is None or dest.coast not in _coasts(same)):
        return MBV, Retreat(unit, same[0])
    if len(same) > 1 and dest.coast is None:
        return CST, order
    return NVR, order


def _coasts(locs: Iterable[Location]) -> set[str | None]:
    return {loc.coast for loc in locs}


# -- adjustment phase --------------------------------------------------------------


def _builds_left(state: GameState, power: str, accepted: Sequence[Order]) -> int:
    used = sum(1 for o in accepted if isinstance(o, (Build, Waive)))
    return state.adjustment(power) - used


def _check_adjustment(
    m: Map, state: GameState, power: str, order: Order, accepted: Sequence[Order]
) -> tuple[str, Order]:
    unit = order.unit  # type: ignore[union-attr]
    loc = unit.location
    if isinstance(order, Remove):
        if state.unit_at(loc.province) != unit:
            return NSU, order
        if any(isinstance(o, Remove) and o.unit == unit for o in accepted):
            return MBV, order  # the same removal again: nothing new (DATC 6.J.2)
        removed = sum(1 for o in accepted if isinstance(o, Remove))
        if -state.adjustment(power) - removed <= 0:
            return NMR, order
        return MBV, order
    assert isinstance(order, Build)
    prov = m.province(loc.province)
    if not prov.supply_centre:
        return NSC, order
    if power not in prov.homes:
        return HSC, order
    if state.ownership.get(loc.province) != power:
        return YSC, order
    if state.unit_at(loc.province) is not None or any(
        isinstance(o, Build) and o.unit.location.province == loc.province for o in accepted
    ):
        return ESC, order
    if _builds_left(state, power, accepted) <= 0:
        return NMB, order
    if unit.kind == AMY:
        if not prov.is_land:
            return CST, order
        if loc.coast is not None:
            return MBV, Build(Unit(unit.power, AMY, Location(loc.province)))
        return MBV, order
    if prov.kind is ProvinceKind.INLAND:
        return CST, order  # a fleet cannot be built inland (4.C.4 a)
    if prov.kind is ProvinceKind.BICOASTAL:
        if loc.coast not in prov.coasts:
            return CST, order  # coast required (4.B.7 a)
        return MBV, order
    if loc.coast is not None:
        return MBV, Build(Unit(unit.power, FLT, Location(loc.province)))
    return MBV, order


__all__ = [
    "CST",
    "ESC",
    "FAR",
    "HSC",
    "MBV",
    "NAS",
    "NMB",
    "NMR",
    "NRN",
    "NRS",
    "NSA",
    "NSC",
    "NSF",
    "NSP",
    "NSU",
    "NVR",
    "NYU",
    "YSC",
    "MovementChecks",
    "check_order",
    "convoy_possible",
    "movement_checks",
    "reach",
    "validate",
]
