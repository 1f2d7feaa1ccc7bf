"""Order checks: the DAIDE THX note of an order (docs/protocol.md §9.3).

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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar, final

from adjudicator.convoys import necessary_seas
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.tables import MapTables, tables
from adjudicator.values import MOVEMENT, Dislodged, GameState
from maps import Map, ProvinceKind
from orders import (
    AMY,
    FLT,
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
    find_kind,
)
from orders.kinds import KINDS, kind_for

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
    (docs/protocol.md §9.2); use this function to find the note their ORD shows.
    """
    checks = movement_checks(m, state, rules)
    if checks is not None:
        return checks.check(power, order).note
    return check_order(m, state, power, order, accepted, rules)[0]


# Order codes of an accepted movement order, as adjudicator.movement reads them.
HOLD: Final = 0
MOVE: Final = 1
SUPH: Final = 2
SUPM: Final = 3
CVY: Final = 4

#: records kept per state beyond four per unit (a client that sends orders
#: again and again must not grow the state without bound)
_RECORD_SLACK: Final = 64


@final
class Checked:
    """One movement-phase order as checked for one power.

    ``note`` and ``canon`` are what :func:`check_order` returns.  An
    accepted order (MBV) also carries what the resolution needs, already as
    board indices: ``unit`` the index of the ordered unit in
    ``state.units`` (-1 when not accepted), ``kind`` its code (HOLD ... CVY;
    a move by convoy is MOVE with ``conv``), ``dest`` the province id it is
    directed at and ``other`` the index of the supported or convoyed unit.
    So :func:`adjudicator.advance` looks no name up again.
    """

    def __init__(
        self,
        order: Order,
        power: str,
        note: str,
        canon: Order,
        unit: int = -1,
        kind: int = HOLD,
        dest: int = -1,
        other: int = -1,
        conv: bool = False,
    ) -> None:
        self.order = order
        self.power = power
        self.note = note
        self.canon = canon
        self.unit = unit
        self.kind = kind
        self.dest = dest
        self.other = other
        self.conv = conv


# The record of a unit without an accepted order: it holds.
_NO_ORDER: Final = Checked(Waive(""), "", NRS, Waive(""))


@final
class Plan:
    """The accepted orders of a movement phase by unit index (board order):
    ``records[i]`` the record of unit ``i``'s order (:class:`Checked`: its
    canonical order, code, target province, supported / convoyed unit; a
    holding record with ``unit`` -1 for a unit without an order);
    ``any_conv`` whether any is a move by convoy."""

    def __init__(self, records: list[Checked]) -> None:
        self.records = records
        self.any_conv = any(c.conv for c in records)


class MovementChecks:
    """The movement-phase checks of one state (under one map and rulebook).

    Built once per state (kept with its derived facts, see
    :func:`movement_checks` and :mod:`adjudicator.derived`): the board as integer lists - ``P`` the
    province id of each unit of ``state.units``, ``at`` province -> unit
    index (-1) - so that each order's checks look up only the names the
    order itself brings.

    Every check is recorded in the order the checks came (``log``): when
    :func:`adjudicator.advance` then gets exactly those order objects in
    that order (the benchmark's THX step, then the adjudication) it takes
    the records as they are - no second check, no lookup per order.
    Otherwise it finds each order's record by the order's value (``done``,
    built on first need: an equal order checks alike) or checks it then.
    """

    def __init__(self, m: Map, state: GameState, rules: Rulebook) -> None:
        t = tables(m)
        self.m = m
        self.rules = rules
        self.t = t
        units = state.units
        n = len(units)
        ids = t.ids
        at = [-1] * t.n
        P = [-1] * n
        for i, u in enumerate(units):
            p = ids.get(u.location.province, -1)
            P[i] = p
            if p >= 0:
                at[p] = i
        self.units = units
        self.n = n
        self.at = at
        self.P = P
        self.log: list[Checked] = []
        #: the ids of the provinces the order being checked names (one list for
        #: every check: the checks of a kind read it, and keep nothing of it)
        self.pids: list[int] = []
        self.done: dict[Order, Checked] | None = None
        self.groups: _FleetGroups | None = None
        #: (army province, destination) -> the seas on a simple route (v3.0 rules)
        self.routes: dict[tuple[int, int], set[int]] = {}

    def check(self, power: str, order: Order) -> Checked:
        """Check ``order`` for ``power`` and record the outcome."""
        c = _check_movement(self, power, order)
        log = self.log
        if len(log) < 4 * self.n + _RECORD_SLACK:
            log.append(c)
        done = self.done
        if done is not None:
            done[order] = c
        return c

    def lookup(self, power: str, order: Order) -> Checked:
        """The record of ``order`` for ``power``: an earlier check of an equal
        order for the same power, or a new one."""
        done = self.done
        if done is None:
            done = {}
            for c in self.log:
                done[c.order] = c
            self.done = done
        got = done.get(order)
        if got is not None and got.power == power:
            return got
        return self.check(power, order)

    def plan(self, orders_by_power: Mapping[str, Iterable[Order]]) -> Plan:
        """The accepted orders by unit, powers in alphabetical order and each
        power's orders in the order given (a later order for a unit replaces
        an earlier one, docs/protocol.md §8.3)."""
        chosen = [_NO_ORDER] * self.n
        if not self._take_logged(orders_by_power, chosen):
            for k in range(self.n):
                chosen[k] = _NO_ORDER
            for power in sorted(orders_by_power):
                for order in orders_by_power[power]:
                    c = self.lookup(power, order)
                    if c.unit >= 0:
                        chosen[c.unit] = c
        return Plan(chosen)

    def _take_logged(
        self, orders_by_power: Mapping[str, Iterable[Order]], chosen: list[Checked]
    ) -> bool:
        """If the log is exactly these orders (tuples), power by power, in this
        order, fill ``chosen`` from it and say so.

        Only the owner's order of a unit is accepted (else NYU), so taking
        the records in the order of the checks gives the same choice as
        taking the powers alphabetically.
        """
        log = self.log
        k = 0
        for power, given in orders_by_power.items():
            if not isinstance(given, tuple) or k + len(given) > len(log):
                return False
            for order in given:
                c = log[k]
                if c.order is not order or (c.power is not power and c.power != power):
                    return False
                if c.unit >= 0:
                    chosen[c.unit] = c
                k += 1
        return k == len(log)

    def plan_of(self, orders: Mapping[str, Order]) -> Plan:
        """The :class:`Plan` of accepted, canonical orders by unit province."""
        chosen = [_NO_ORDER] * self.n
        for order in orders.values():
            if isinstance(order, Waive):
                continue
            c = self.lookup(order.unit.power, order)
            if c.unit >= 0:
                chosen[c.unit] = c
        return Plan(chosen)

    def fleet_groups(self) -> _FleetGroups:
        """The :class:`_FleetGroups` of this board (computed on first need)."""
        g = self.groups
        if g is None:
            t = self.t
            at = self.at
            units = self.units
            fleets: list[int] = []
            for s in t.sea_ids:  # fewer seas than units: look at the seas
                i = at[s]
                if i >= 0 and units[i].kind == FLT:
                    fleets.append(s)
            g = _FleetGroups(t, fleets)
            self.groups = g
        return g


def movement_checks(m: Map, state: GameState, rules: Rulebook) -> MovementChecks | None:
    """The :class:`MovementChecks` of ``state`` for ``m`` and ``rules`` (None
    outside movement phases)."""
    facts = state.facts
    got = facts.checks
    if isinstance(got, MovementChecks) and got.m is m and got.rules is rules:
        return got
    if state.phase.kind != MOVEMENT:
        return None
    checks = MovementChecks(m, state, rules)
    if got is None:
        facts.checks = checks
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
    What every kind shares is checked here, from the table of order kinds
    (``orders.kinds``): the phase (NRS), the power (NYU), that every
    province named exists (NSP); then the kind's own check.
    """
    kind = find_kind(order)
    if kind is None or kind.phase != state.phase.kind:
        return NRS, order
    if kind.phase == MOVEMENT:
        checks = movement_checks(m, state, rules)
        assert checks is not None
        c = checks.lookup(power, order)
        return c.note, c.canon
    if kind.power(order) != power:
        return NYU, order
    ids = m.ids
    for prov in kind.provinces(order):
        if prov not in ids:
            return NSP, order
    check = _CHECKS[kind.code]
    assert check is not None
    return check(m, state, power, order, accepted)


def _same_but_coast(actual: Unit, named: Unit) -> bool:
    """The order names the unit with a wrong coast: ignored (DATC 4.B.5 b)."""
    return (
        actual.power == named.power
        and actual.kind == named.kind
        and actual.location.province == named.location.province
    )


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


def _check_movement(c: MovementChecks, power: str, order: Order) -> Checked:
    """Movement-phase orders: the hot path of every turn.

    What every kind shares is checked here, from the table of order kinds:
    the phase (NRS), the unit's owner (NYU), that every province named
    exists (NSP), the unit (NSU, a wrong coast ignored: DATC 4.B.5 b); then
    the kind's own check (:data:`_MOVEMENT_CHECKS`), given the ordered unit
    as on the board and the ids of the provinces named, each looked up once.
    """
    kind = find_kind(order)
    rule = None if kind is None else _MOVEMENT_CHECKS[kind.code]
    if kind is None or rule is None:
        return Checked(order, power, NRS, order)  # not a movement-phase order
    unit: Unit = order.unit  # type: ignore[union-attr]  # a movement-phase order: a unit's
    if unit.power != power:
        return Checked(order, power, NYU, order)
    pids = c.pids  # reused: the ids of the provinces named, the unit's first
    pids.clear()
    if not kind.province_ids(order, c.t.ids, pids):
        return Checked(order, power, NSP, order)
    i = _board_index(c, unit, pids[0])
    if i < 0:
        return Checked(order, power, NSU, order)
    on_board = c.units[i]
    if _same_unit(on_board, unit):
        return rule.check(c, power, order, order, i, pids)
    canon = kind.make((on_board, *kind.values(order)[1:]))  # as on the board
    return rule.check(c, power, order, canon, i, pids)


def _board_index(c: MovementChecks, unit: Unit, p: int) -> int:
    """Index of the unit on the board that ``unit`` (in province ``p``)
    names - a wrong coast is ignored, DATC 4.B.5 b - or -1 (NSU)."""
    i = c.at[p]
    if i < 0:
        return -1
    actual = c.units[i]
    if actual is unit or _same_but_coast(actual, unit):
        return i
    return -1


def _reaches(c: MovementChecks, i: int, q: int) -> bool:
    """Can unit ``i`` of the board move to province ``q`` without convoy
    (any coast for fleets)?"""
    t = c.t
    u = c.units[i]
    p = c.P[i]
    if u.kind == AMY:
        return t.army_can[p * t.n + q]
    coast = u.location.coast
    loc = p if coast is None else t.loc_ids[(p, coast)]
    return t.fleet_can[loc * t.n + q]


class MovementRule:
    """A movement-phase kind's own check: (checks, power, order as given, order
    with the unit as on the board, the unit's board index, ids of the provinces
    named) -> the record.

    An object with a method rather than a function in the table: compiled, a
    call through a function object parses its arguments as Python's; a method
    of a compiled class is called directly (one subclass per kind, below).
    """

    def check(
        self, c: MovementChecks, power: str, given: Order, order: Any, i: int, pids: list[int]
    ) -> Checked:
        raise NotImplementedError


@final
class _HoldRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: Hold, i: int,
        pids: list[int],
    ) -> Checked:
        return Checked(given, power, MBV, order, i, HOLD)


@final
class _MoveRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: Move, i: int,
        pids: list[int],
    ) -> Checked:
        src = pids[0]
        dst = pids[1]
        if dst == src:
            return Checked(given, power, FAR, order)
        t = c.t
        unit = order.unit
        dest = order.dest
        if unit.kind == AMY:
            if not t.army_can[src * t.n + dst]:
                return Checked(given, power, FAR, order)
            if dest.coast is not None:  # armies have no coasts (4.B.6 b: ignored)
                return Checked(given, power, MBV, Move(unit, t.locations[dst]), i, MOVE, dst)
            return Checked(given, power, MBV, order, i, MOVE, dst)
        coast = unit.location.coast
        loc = src if coast is None else t.loc_ids[(src, coast)]
        if not t.fleet_can[loc * t.n + dst]:
            return Checked(given, power, FAR, order)
        if not t.bicoastal[dst]:
            if dest.coast is not None:  # irrelevant coast (4.B.6 b)
                return Checked(given, power, MBV, Move(unit, t.locations[dst]), i, MOVE, dst)
            return Checked(given, power, MBV, order, i, MOVE, dst)
        adj = t.fleet_adj[loc]
        wanted = dest.coast
        if wanted is not None:
            target = t.loc_ids.get((dst, wanted), -1)
            if target >= 0:
                if target in adj:
                    return Checked(given, power, MBV, order, i, MOVE, dst)
                # impossible coast: the move fails (4.B.3 b)
                return Checked(given, power, FAR, order)
        reachable = [x for x in t.fleet_locs[dst] if x in adj]
        if len(reachable) == 1:  # the only possible coast (4.B.2 a)
            canon = Move(unit, t.locations[reachable[0]])
            return Checked(given, power, MBV, canon, i, MOVE, dst)
        return Checked(given, power, CST, order)  # two coasts possible, none given (4.B.1 a)


@final
class _SupportHoldRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: SupportHold, i: int,
        pids: list[int],
    ) -> Checked:
        src = pids[0]
        tp = pids[1]
        j = c.at[tp]
        if j < 0 or not _same_unit(c.units[j], order.supported):
            return Checked(given, power, NSU, order)
        if tp == src or not _reaches(c, i, tp):
            return Checked(given, power, FAR, order)
        return Checked(given, power, MBV, order, i, SUPH, tp, j)


@final
class _SupportMoveRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: SupportMove, i: int,
        pids: list[int],
    ) -> Checked:
        src = pids[0]
        tsrc = pids[1]
        dst = pids[2]
        j = c.at[tsrc]
        if j < 0 or not _same_unit(c.units[j], order.supported):
            return Checked(given, power, NSU, order)
        if tsrc == src or dst == src or dst == tsrc or not _reaches(c, i, dst):
            return Checked(given, power, FAR, order)
        if _reaches(c, j, dst):
            return Checked(given, power, MBV, order, i, SUPM, dst, j)
        # An army may get there by convoy - but not through the supporter
        # itself: a fleet cannot convoy and support at once (DATC 6.D.31).
        if order.supported.kind == AMY and _convoy_possible(c, tsrc, dst, src):
            return Checked(given, power, MBV, order, i, SUPM, dst, j)
        return Checked(given, power, FAR, order)


@final
class _ConvoyRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: Convoy, i: int,
        pids: list[int],
    ) -> Checked:
        src = pids[0]
        asrc = pids[1]
        dst = pids[2]
        if order.unit.kind != FLT:
            return Checked(given, power, NSF, order)
        if not c.t.sea[src]:
            return Checked(given, power, NAS, order)
        army = order.army
        if army.kind != AMY:
            return Checked(given, power, NSA, order)
        j = c.at[asrc]
        if j < 0 or not _same_unit(c.units[j], army):
            return Checked(given, power, NSU, order)
        if dst == asrc or not _convoy_through(c, asrc, dst, src):
            return Checked(given, power, FAR, order)
        return Checked(given, power, MBV, order, i, CVY, dst, j)


@final
class _ConvoyMoveRule(MovementRule):
    def check(
        self, c: MovementChecks, power: str, given: Order, order: ConvoyMove, i: int,
        pids: list[int],
    ) -> Checked:
        src = pids[0]
        dst = pids[1]
        if order.unit.kind != AMY:
            return Checked(given, power, NSA, order)
        if dst == src:
            return Checked(given, power, FAR, order)
        via = pids[2:]  # the seas named, as ids
        t = c.t
        at = c.at
        units = c.units
        for s in via:
            j = at[s]
            if j < 0 or units[j].kind != FLT:
                return Checked(given, power, NSF, order)
        if not via:
            return Checked(given, power, FAR, order)
        prev = src
        n = t.n
        fleet_can = t.fleet_can
        sea = t.sea
        for s in via:
            if not sea[s] or not fleet_can[s * n + prev]:
                return Checked(given, power, FAR, order)
            prev = s
        if not fleet_can[prev * n + dst]:
            return Checked(given, power, FAR, order)
        return Checked(given, power, MBV, order, i, MOVE, dst, -1, True)


class _FleetGroups:
    """The fleets at sea of a board, grouped by connected fleet-held seas.

    ``group[p]`` is the group of sea ``p`` (-1: no fleet there),
    ``occupied`` the seas holding a fleet.  Whether a group touches a land
    province is asked of the few seas on that province's coast
    (:func:`_touches`), so no shore sets are built.
    """

    def __init__(self, t: MapTables, occupied: list[int]) -> None:
        group = [-1] * t.n
        for p in occupied:
            group[p] = -2  # holds a fleet, no group yet
        sea_nbrs = t.sea_nbrs
        g = 0
        for start in occupied:
            if group[start] != -2:
                continue
            group[start] = g
            comp = [start]
            k = 0
            while k < len(comp):
                x = comp[k]
                k += 1
                for y in sea_nbrs[x]:
                    if group[y] == -2:
                        group[y] = g
                        comp.append(y)
            g += 1
        self.group = group
        self.occupied = occupied


def _touches(t: MapTables, group: list[int], p: int, g: int) -> bool:
    """Does fleet group ``g`` hold a sea on the coast of land province ``p``?"""
    for s in t.coast_seas[p]:
        if group[s] == g:
            return True
    return False


def _fleet_groups(m: Map, state: GameState) -> _FleetGroups:
    """The :class:`_FleetGroups` of ``state`` (computed once per state)."""
    t = tables(m)
    memo = state.facts.memo
    got = memo.get(t.fleet_groups_key)
    if isinstance(got, _FleetGroups):
        return got
    ids = t.ids
    sea = t.sea
    occupied: list[int] = []
    for u in state.units:
        if u.kind == FLT:
            p = ids[u.location.province]
            if sea[p]:
                occupied.append(p)
    groups = _FleetGroups(t, occupied)
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
    return _convoy_possible_in(tables(m), _fleet_groups(m, state), src, dst, exclude)


def _convoy_possible(c: MovementChecks, src: int, dst: int, exclude: int) -> bool:
    """:func:`convoy_possible` on the board of ``c``."""
    return _convoy_possible_in(c.t, c.fleet_groups(), src, dst, exclude)


def _convoy_possible_in(
    t: MapTables, fg: _FleetGroups, src: int, dst: int, exclude: int | None
) -> bool:
    if src == dst or not t.fleet_locs[src] or not t.fleet_locs[dst]:
        return False
    sea = t.sea
    if sea[src] or sea[dst]:
        return False
    group = fg.group
    if exclude is None or group[exclude] < 0:
        for s in t.coast_seas[src]:
            g = group[s]
            if g >= 0 and _touches(t, group, dst, g):
                return True
        return False
    # The groups again without the excluded fleet, from the seas next to src.
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


def _convoy_through(c: MovementChecks, src: int, dst: int, sea: int) -> bool:
    """Can the fleet at ``sea`` take part in convoying ``src`` -> ``dst``?

    DATC v2.4 (4.E.1 d): its group of connected fleet-held seas must touch
    both ends.  v3.0 (4.E.1, 6.G.19): some route must need it
    (:func:`adjudicator.convoys.necessary_seas`).
    """
    t = c.t
    if t.sea[src] or t.sea[dst]:
        return False
    fg = c.fleet_groups()
    g = fg.group[sea]
    if g < 0:
        return False
    if not _touches(t, fg.group, src, g) or not _touches(t, fg.group, dst, g):
        return False
    if not c.rules.convoy_must_be_on_route:
        return True
    key = (src, dst)
    on_route = c.routes.get(key)
    if on_route is None:
        on_route = necessary_seas(c.m.fleet_reach, fg.occupied, src, dst)
        c.routes[key] = on_route
    return sea in on_route


# -- retreat phase -----------------------------------------------------------------


def _dislodged(state: GameState, unit: Unit) -> Dislodged | str:
    """The dislodged unit ``unit`` names (a wrong coast ignored: DATC 4.B.5 b),
    or the note: NRN (it stands on the board, not dislodged), NSU."""
    prov = unit.location.province
    d = state.dislodged_at(prov)
    if d is not None and (d.unit == unit or _same_but_coast(d.unit, unit)):
        return d
    if state.unit_at(prov) == unit:
        return NRN
    return NSU


def _check_disband(
    m: Map, state: GameState, power: str, order: Disband, accepted: Sequence[Order]
) -> tuple[str, Order]:
    d = _dislodged(state, order.unit)
    if isinstance(d, str):
        return d, order
    return MBV, order if d.unit == order.unit else Disband(d.unit)


def _check_retreat(
    m: Map, state: GameState, power: str, order: Retreat, accepted: Sequence[Order]
) -> tuple[str, Order]:
    d = _dislodged(state, order.unit)
    if isinstance(d, str):
        return d, order
    unit = d.unit
    if unit != order.unit:
        order = Retreat(unit, order.dest)
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


def _check_waive(
    m: Map, state: GameState, power: str, order: Waive, accepted: Sequence[Order]
) -> tuple[str, Order]:
    if _builds_left(state, power, accepted) <= 0:
        return NMB, order
    return MBV, order


def _check_remove(
    m: Map, state: GameState, power: str, order: Remove, accepted: Sequence[Order]
) -> tuple[str, Order]:
    unit = order.unit
    actual = state.unit_at(unit.location.province)
    if actual is None or (actual != unit and not _same_but_coast(actual, unit)):
        return NSU, order
    if actual != unit:  # named with a wrong coast (DATC 4.B.5 b)
        unit = actual
        order = Remove(actual)
    if any(isinstance(o, Remove) and o.unit == unit for o in accepted):
        return MBV, order  # the same removal again: nothing new (DATC 6.J.2)
    removed = sum(1 for o in accepted if isinstance(o, Remove))
    if -state.adjustment(power) - removed <= 0:
        return NMR, order
    return MBV, order


def _check_build(
    m: Map, state: GameState, power: str, order: Build, accepted: Sequence[Order]
) -> tuple[str, Order]:
    unit = order.unit
    loc = unit.location
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


# -- the checks of each kind -------------------------------------------------------

#: A retreat- or adjustment-phase check: (map, state, power, order, accepted)
#: -> (note, canonical order).
PhaseCheck = Callable[[Map, GameState, str, Any, Sequence[Order]], tuple[str, Order]]

F = TypeVar("F")


def _by_kind(checks: Mapping[type, F]) -> list[F | None]:
    """``checks`` (order class -> check) as a list indexed by ``Kind.code``."""
    table: list[F | None] = [None] * len(KINDS)
    for cls, check in checks.items():
        table[kind_for(cls).code] = check
    return table


#: the own check of each movement-phase kind, by ``Kind.code`` (None: another phase's)
_MOVEMENT_CHECKS: Final[list[MovementRule | None]] = _by_kind({
    Hold: _HoldRule(),
    Move: _MoveRule(),
    SupportHold: _SupportHoldRule(),
    SupportMove: _SupportMoveRule(),
    Convoy: _ConvoyRule(),
    ConvoyMove: _ConvoyMoveRule(),
})
#: the own check of each retreat- and adjustment-phase kind, by ``Kind.code``
_CHECKS: Final[list[PhaseCheck | None]] = _by_kind({
    Retreat: _check_retreat,
    Disband: _check_disband,
    Build: _check_build,
    Remove: _check_remove,
    Waive: _check_waive,
})


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
    "CVY",
    "HOLD",
    "MOVE",
    "SUPH",
    "SUPM",
    "Checked",
    "MovementChecks",
    "Plan",
    "check_order",
    "convoy_possible",
    "movement_checks",
    "reach",
    "validate",
]
