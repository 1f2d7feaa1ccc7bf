"""Movement-phase resolution by the decision method of DATC section 5.

Theory of operation
-------------------

Every unit gets an index ``0..n-1`` (board order) and every order is turned
into flat integer lists (type, target province, supported unit...).  The
decisions of DATC 5.A are then:

* MOVE (a move order): does the unit move?
* SUPPORT (a support whose supported unit ordered what was supported): is it
  given (not cut)?
* a convoy order on some route: is the fleet *not* dislodged?  (The PATH
  decision of 5.B.8 is computed from these.)

The strengths of 5.B.4-5.B.7 (ATTACK, HOLD, PREVENT, DEFEND) are computed on
demand from these decisions (the simplification of 5.D), and the DISLODGE
decision follows from the MOVE decisions.

The decisions are made by the guess-and-check recursion of L. Kruijswijk
("The Math of Adjudication"): to decide X, guess X fails and compute X from
its definition.  If the computation used no guessed value, X is decided.  If
it depended on the guess of X itself, X lies on a cycle: guess X succeeds and
compute again.  Equal answers mean exactly one consistent resolution; two
different answers mean zero or two resolutions, and then the members of the
cycle (collected in the dependency list) go to the backup rule:

* the cycle contains a convoy decision -> a convoy paradox: the Szykman rule
  (DATC 4.A.2 d) voids the moves of the armies convoyed by those fleets
  (their moves fail and have no effect at all), and resolution resumes;
* otherwise -> circular movement (DATC 5.B.9): every move of the cycle
  succeeds.

Most phases have no cycles, so the recursion is linear.  Support cuts by a
plain (non-convoyed) attack are certain and decided before any recursion
(DATC 5.E).  Units without any move/support/convoy order carry no decision.
"""

from __future__ import annotations

from typing import Final, cast

from adjudicator.convoys import route_seas
from adjudicator.results import (
    BNC,
    CUT,
    DSR,
    NSO,
    SUC,
    Bounced,
    CutBy,
    Default,
    DislodgedBy,
    Disrupted,
    NoRoute,
    NotMatched,
    OrderResult,
    OwnUnit,
    Paradox,
    Reason,
)
from adjudicator.rulebook import Rulebook
from adjudicator.tables import falses, minus_ones, nones, zeros
from adjudicator.validate import (
    CVY,
    HOLD,
    MOVE,
    SUPH,
    SUPM,
    MovementChecks,
    Plan,
    movement_checks,
)
from adjudicator.values import (
    AMY,
    ConvoyMove,
    Dislodged,
    GameState,
    Hold,
    Location,
    Move,
    Order,
    Unit,
)
from maps import Map

# order type codes (adjudicator.validate records them with each accepted order)
_HOLD: Final = HOLD
_MOVE: Final = MOVE
_SUPH: Final = SUPH
_SUPM: Final = SUPM
_CVY: Final = CVY

# decision states
_UNRESOLVED: Final = 0
_GUESSING: Final = 1
_RESOLVED: Final = 2


class MovementOutcome:
    """Results of a movement phase: one result per unit (board order), the
    units on the board afterwards and the dislodged units with their
    retreat options.

    ``where[p]`` is the index (in the old board order of ``board``) of the
    unit standing in province ``p`` afterwards, or -1: the end of the year
    counts centres from it without looking a name up.
    """

    def __init__(
        self,
        results: tuple[OrderResult, ...],
        units: tuple[Unit, ...],
        dislodged: tuple[Dislodged, ...],
        where: list[int],
        board: MovementChecks,
    ) -> None:
        self.results: Final = results
        self.units: Final = units
        self.dislodged: Final = dislodged
        self.where: Final = where
        self.board: Final = board


_DEFAULT_HOLD: Final = Default("no order: the unit holds")

# Shared empty route tables of a phase without any move by convoy (never written).
_NO_ROUTES: Final[dict[int, list[int]]] = {}
_NO_ENDS: Final[dict[int, set[int]]] = {}
_NO_NEIGHBOURS: Final[dict[int, dict[int, list[int]]]] = {}


def resolve_movement(
    m: Map,
    state: GameState,
    orders: dict[str, Order],
    rules: Rulebook,
) -> MovementOutcome:
    """Adjudicate a movement phase.

    ``orders`` maps a unit's province to its (checked, canonical) order;
    units without an entry hold.  Orders must have passed
    :func:`adjudicator.validate.check_order` for this state.
    """
    checks = movement_checks(m, state, rules)
    if checks is None:
        checks = MovementChecks(m, state, rules)
    return resolve_plan(checks, checks.plan_of(orders))


def resolve_plan(checks: MovementChecks, plan: Plan) -> MovementOutcome:
    """Adjudicate a movement phase given as the board of ``checks`` and the
    accepted orders by unit (:meth:`MovementChecks.plan`)."""
    board = _Board(checks, plan)
    board.decide()
    return board.report()


class _Board:
    """One movement phase as flat integer lists indexed by unit (board order).

    ``P`` province; ``R`` the checked order (:class:`~adjudicator.validate.Checked`:
    ``kind`` order type, ``dest`` target province - move / support / convoy
    destination -, ``other`` supported or convoyed unit; read in place, no
    copies into lists of their own); ``CONV`` move by convoy; ``at`` maps a
    province to the unit there (-1).
    ``ATT[p]`` lists the units moving to province ``p``, ``SUPS[i]`` the
    supports matching unit ``i``'s order, ``H`` / ``OPP`` the head-to-head /
    opposite mover.  ``ST`` / ``RES`` hold the decisions (see the module
    docstring).
    """

    def __init__(self, checks: MovementChecks, plan: Plan) -> None:
        # The board (province ids, province -> unit) and
        # the orders as codes and indices were made by the order checks.
        t = checks.t
        rules = checks.rules
        units = checks.units
        n = checks.n
        at = checks.at
        P = checks.P
        for p in P:
            if p < 0:
                raise KeyError("a unit in a province the map does not have")
        # the order of each unit as checked (kind, dest, other: its code,
        # target province, supported / convoyed unit)
        R = plan.records
        CONV = plan.conv
        any_convoy = plan.any_conv

        ST = zeros(n)  # (_UNRESOLVED)
        RES = falses(n)
        # Convoy-only facts.  Without any move by convoy (most phases) nothing
        # writes them: one shared all-False list and empty dicts.
        no_convoy = falses(n) if any_convoy else CONV  # (then CONV is all False too)
        # CTO without any complete ordered route (and no land fallback)
        NOROUTE = no_convoy
        # convoy orders matching an ordered move by convoy
        matched_convoy = no_convoy
        # per convoyed army: its route fleets, the ones touching its origin,
        # the ones touching its destination, and fleet -> neighbouring route fleets
        R_FLEETS: dict[int, list[int]] = _NO_ROUTES
        R_START: dict[int, list[int]] = _NO_ROUTES
        R_END: dict[int, set[int]] = _NO_ENDS
        R_NBR: dict[int, dict[int, list[int]]] = _NO_NEIGHBOURS
        VOID = no_convoy  # convoyed move voided by the Szykman rule
        if any_convoy:
            NOROUTE = falses(n)
            matched_convoy = falses(n)
            VOID = falses(n)
            R_FLEETS = {}
            R_START = {}
            R_END = {}
            R_NBR = {}
            reach = t.fleet_reach
            land_fallback = rules.adjacent_convoy_land_fallback
            for a in range(n):
                if not CONV[a]:
                    continue
                src = P[a]
                dst = R[a].dest
                fleets = [
                    c
                    for c in range(n)
                    if R[c].kind == _CVY and R[c].other == a and R[c].dest == dst
                ]
                for c in fleets:
                    matched_convoy[c] = True
                route = _route_fleets(fleets, P, reach, src, dst)
                if not route:
                    if land_fallback and dst in t.army_adj[src]:
                        CONV[a] = False  # DATC 4.A.3 d / 6.G.8: no route ordered, move by land
                    else:
                        NOROUTE[a] = True
                        ST[a] = _RESOLVED
                    continue
                R_FLEETS[a] = route
                R_START[a] = [c for c in route if src in reach[P[c]]]
                R_END[a] = {c for c in route if dst in reach[P[c]]}
                seas = {P[c]: c for c in route}
                R_NBR[a] = {
                    c: [seas[q] for q in reach[P[c]] if q in seas and seas[q] != c] for c in route
                }

        ATT = cast(list[list[int] | None], nones(t.n))
        SUPS = cast(list[list[int] | None], nones(n))
        H = minus_ones(n)
        # Without a move by convoy every opposite mover is a head-to-head one:
        # one list serves as both.
        OPP = minus_ones(n) if any_convoy else H
        matched = falses(n)
        # (each record read once: mypyc fetches a list item again at every
        # R[i]; walking the list itself skips even the bounds-checked fetch)
        i = -1
        for ri in R:
            i += 1
            ti = ri.kind
            if ti == _MOVE:
                if NOROUTE[i]:
                    continue
                d = ri.dest
                attackers = ATT[d]
                if attackers is None:
                    ATT[d] = [i]
                else:
                    attackers.append(i)
                j = at[d]
                if j >= 0:
                    rj = R[j]
                    if rj.kind == _MOVE and rj.dest == P[i] and not NOROUTE[j]:
                        OPP[i] = j
                        if not CONV[i] and not CONV[j]:
                            H[i] = j
            elif ti == _SUPH or ti == _SUPM:
                j = ri.other
                rj = R[j]
                if ti == _SUPH:
                    matches = rj.kind != _MOVE
                else:
                    matches = rj.kind == _MOVE and rj.dest == ri.dest
                if matches:
                    supports = SUPS[j]
                    if supports is None:
                        SUPS[j] = [i]
                    else:
                        supports.append(i)
                    matched[i] = True

        # Pre-decide supports cut by a plain attack (DATC 5.E): certain cuts.
        s = -1
        for rs in R:
            s += 1
            if not matched[s]:
                continue
            attackers = ATT[P[s]]
            if attackers is None:
                # nobody attacks the supporter: the support is given
                ST[s] = _RESOLVED
                RES[s] = True
                continue
            ws = units[s].power
            sup_hold = rs.kind == _SUPH
            target = rs.dest
            for k in attackers:
                if (
                    units[k].power != ws
                    and not CONV[k]
                    and (sup_hold or P[k] != target)
                ):
                    ST[s] = _RESOLVED
                    RES[s] = False
                    break

        self.t = t
        self.checks = checks
        self.units = units
        self.rules = rules
        self.n = n
        self.P = P
        self.R = R
        self.CONV = CONV
        self.at = at
        self.ATT = ATT
        self.SUPS = SUPS
        self.H = H
        self.OPP = OPP
        self.matched = matched
        self.matched_convoy = matched_convoy
        self.NOROUTE = NOROUTE
        self.VOID = VOID
        self.no_convoy = no_convoy
        self.ST = ST
        self.RES = RES
        self.R_FLEETS = R_FLEETS
        self.R_START = R_START
        self.R_END = R_END
        self.R_NBR = R_NBR
        self.deps: list[int] = []
        self.convoy_from_target_cuts = rules.convoy_from_target_cuts
        self.any_route = rules.any_route_disrupts
        self.h2h_only = rules.dislodged_prevents_unless_head_to_head
        # filled by decide()
        self.path_ok: list[bool] = []
        self.G: list[int] = []
        self.DISL: list[int] = []

    # -- decisions ------------------------------------------------------------

    def decide(self) -> None:
        """Make every decision, then the final PATH values, the supports
        given to each order and who dislodged whom (DATC 5.B.3)."""
        R = self.R
        ST = self.ST
        matched = self.matched
        matched_convoy = self.matched_convoy
        n = self.n
        i = -1
        for rec in R:  # (the list walked: see __init__)
            i += 1
            ti = rec.kind
            if ST[i] == _RESOLVED or ti == _HOLD:
                continue
            if ti == _MOVE or matched[i] or (ti == _CVY and matched_convoy[i]):
                self.resolve(i)
        RES = self.RES
        path_ok = self.no_convoy  # all False, not written (no convoy route at all)
        if self.R_FLEETS:
            path_ok = falses(n)
        CONV = self.CONV
        for a in self.R_FLEETS:
            path_ok[a] = CONV[a] and self.path(a)
        self.path_ok = path_ok
        G = zeros(n)  # supports given to each unit's order
        s = -1
        for rs in R:
            s += 1
            if matched[s] and RES[s]:
                j = rs.other
                G[j] = G[j] + 1  # (mypyc: `+=` on an item is a generic call)
        self.G = G
        P = self.P
        ATT = self.ATT
        DISL = minus_ones(n)  # index of the dislodging unit
        i = -1
        for rec in R:
            i += 1
            if rec.kind == _MOVE and RES[i]:
                continue
            attackers = ATT[P[i]]
            if attackers is not None:
                for k in attackers:
                    if RES[k]:
                        DISL[i] = k
                        break
        self.DISL = DISL

    def resolve(self, i: int) -> bool:
        ST = self.ST
        RES = self.RES
        deps = self.deps
        s = ST[i]
        if s == _RESOLVED:
            return RES[i]
        if s == _GUESSING:
            if i not in deps:
                deps.append(i)
            return RES[i]
        old = len(deps)
        RES[i] = False
        ST[i] = _GUESSING
        first = self.adjudicate(i)
        if len(deps) == old:
            if ST[i] != _RESOLVED:
                RES[i] = first
                ST[i] = _RESOLVED
            return RES[i]
        if deps[old] != i:
            deps.append(i)
            RES[i] = first
            return first
        for x in deps[old:]:
            ST[x] = _UNRESOLVED
        del deps[old:]
        RES[i] = True
        ST[i] = _GUESSING
        second = self.adjudicate(i)
        if first == second:
            for x in deps[old:]:
                ST[x] = _UNRESOLVED
            del deps[old:]
            RES[i] = first
            ST[i] = _RESOLVED
            return first
        cycle = deps[old:]
        if i not in cycle:
            cycle.insert(0, i)
        del deps[old:]
        self.backup_rule(cycle)
        return self.resolve(i)

    def backup_rule(self, cycle: list[int]) -> None:
        R = self.R
        ST = self.ST
        convoys = [c for c in cycle if R[c].kind == _CVY]
        if convoys:
            # Convoy paradox: the Szykman rule (DATC 4.A.2 d).
            for c in convoys:
                self.VOID[self.R[c].other] = True
        else:
            # Circular movement (DATC 5.B.9): all moves of the cycle succeed.
            for x in cycle:
                if R[x].kind == _MOVE:
                    self.RES[x] = True
                    ST[x] = _RESOLVED
        for x in cycle:
            if ST[x] != _RESOLVED:
                ST[x] = _UNRESOLVED

    def adjudicate(self, i: int) -> bool:
        t = self.R[i].kind
        if t == _MOVE:
            return self.adj_move(i)
        if t == _CVY:
            attackers = self.ATT[self.P[i]]
            if attackers is not None:
                for k in attackers:
                    if self.resolve(k):
                        return False
            return True
        return self.adj_support(i)

    def path(self, a: int) -> bool:
        if self.VOID[a]:
            return False
        if self.any_route:  # 4.A.1 a: any disrupted route breaks the convoy
            for c in self.R_FLEETS[a]:
                if not self.resolve(c):
                    return False
            return True
        ends = self.R_END[a]
        nbr = self.R_NBR[a]
        seen: set[int] = set()
        todo = list(self.R_START[a])
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            if not self.resolve(c):
                continue
            if c in ends:
                return True
            todo.extend(nbr[c])
        return False

    def given(self, i: int) -> int:
        n_given = 0
        supports = self.SUPS[i]
        if supports is not None:
            for s in supports:
                if self.resolve(s):
                    n_given += 1
        return n_given

    def attack(self, i: int) -> int:
        j = self.at[self.R[i].dest]
        if j < 0 or (self.R[j].kind == _MOVE and self.H[i] != j and self.resolve(j)):
            return 1 + self.given(i)
        units = self.units
        wj = units[j].power
        if wj == units[i].power:
            return 0
        strength = 1
        supports = self.SUPS[i]
        if supports is not None:
            for s in supports:
                if units[s].power != wj and self.resolve(s):
                    strength += 1
        return strength

    def hold(self, p: int) -> int:
        j = self.at[p]
        if j < 0:
            return 0
        if self.R[j].kind == _MOVE:
            return 0 if self.resolve(j) else 1
        return 1 + self.given(j)

    def prevent(self, k: int) -> int:
        if self.CONV[k] and not self.path(k):
            return 0
        j = self.OPP[k]
        if j >= 0:
            if self.h2h_only:
                if self.H[k] == j and self.resolve(j):
                    return 0
            elif self.resolve(j) and not self.resolve(k):  # 4.A.7 a
                return 0
        return 1 + self.given(k)

    def adj_move(self, i: int) -> bool:
        if self.CONV[i] and not self.path(i):
            return False
        a = self.attack(i)
        if a == 0:
            return False
        d = self.R[i].dest
        j = self.H[i]
        if j >= 0:
            if a <= 1 + self.given(j):
                return False
        elif a <= self.hold(d):
            return False
        attackers = self.ATT[d]
        assert attackers is not None  # i is one of them
        for k in attackers:
            if k != i and a <= self.prevent(k):
                return False
        return True

    def adj_support(self, s: int) -> bool:
        attackers = self.ATT[self.P[s]]
        if attackers is None:
            return True
        units = self.units
        P = self.P
        CONV = self.CONV
        ws = units[s].power
        rs = self.R[s]
        supm = rs.kind == _SUPM
        target = rs.dest
        for k in attackers:
            if units[k].power == ws:
                continue
            if supm and P[k] == target and not (CONV[k] and self.convoy_from_target_cuts):
                # An attack from the province the support is directed at does
                # not cut it (4.A.4 a also for a convoyed attack), but a
                # dislodgement does.
                if self.resolve(k):
                    return False
                continue
            if CONV[k] and not self.path(k):
                continue
            return False
        return True

    # -- final strengths (every decision made; DATC 5.B.4-5.B.7) ---------------

    def no_path(self, i: int) -> bool:
        return self.NOROUTE[i] or (self.CONV[i] and not self.path_ok[i])

    def final_attack(self, i: int) -> int:
        if self.no_path(i):
            return 0
        RES = self.RES
        units = self.units
        j = self.at[self.R[i].dest]
        if j < 0 or (self.R[j].kind == _MOVE and self.H[i] != j and RES[j]):
            return 1 + self.G[i]
        wj = units[j].power
        if wj == units[i].power:
            return 0
        strength = 1
        supports = self.SUPS[i]
        if supports is not None:
            for s in supports:
                if RES[s] and units[s].power != wj:
                    strength += 1
        return strength

    def final_hold(self, p: int) -> int:
        j = self.at[p]
        if j < 0:
            return 0
        if self.R[j].kind == _MOVE:
            return 0 if self.RES[j] else 1
        return 1 + self.G[j]

    def final_prevent(self, k: int) -> int:
        if self.no_path(k):
            return 0
        j = self.OPP[k]
        RES = self.RES
        if j >= 0 and RES[j]:
            if self.H[k] == j if self.h2h_only else not RES[k]:
                return 0
        return 1 + self.G[k]

    def standoff(self, p: int) -> bool:
        """A unit tried to enter ``p`` (with some prevent strength) and it
        stayed empty: no retreat there (DATC 5.B.11)."""
        attackers = self.ATT[p]
        if attackers is not None:
            for k in attackers:
                if self.final_prevent(k) > 0:
                    return True
        return False

    # -- the report -----------------------------------------------------------

    def report(self) -> MovementOutcome:
        """Turn the decisions into ORD results, the new board and retreat options."""
        t = self.t
        names = t.names
        units = self.units
        n = self.n
        P = self.P
        R = self.R
        RES = self.RES
        DISL = self.DISL

        # every unit's branch below fills its slot (a set item is cheaper than
        # an append, which may also grow the list)
        results = cast(list[OrderResult], nones(n))
        i = -1
        for rec in R:
            i += 1
            k = DISL[i]
            o = rec.canon  # (only if the unit has an order: rec.unit >= 0)
            if k < 0:
                if rec.unit < 0:
                    results[i] = OrderResult(Hold(units[i]), SUC, False, _DEFAULT_HOLD)
                    continue
                ti = rec.kind
                if RES[i] or ti == _HOLD:
                    # a successful move, a support given, or a hold
                    results[i] = OrderResult(o, SUC)
                elif ti == _MOVE:
                    outcome, reason = self.move_failure(i)
                    results[i] = OrderResult(o, outcome, False, reason)
                elif ti == _CVY:
                    army = rec.other
                    if type(R[army].canon) is ConvoyMove and R[army].dest == rec.dest:
                        results[i] = OrderResult(o, SUC)
                    else:
                        results[i] = OrderResult(o, NSO, False, NotMatched(units[army]))
                elif not self.matched[i]:
                    other = units[rec.other]
                    results[i] = OrderResult(o, NSO, False, NotMatched(other))
                else:
                    results[i] = OrderResult(o, CUT, False, self.cutter(i))
                continue
            by = DislodgedBy(units[k], names[P[k]])
            ti = rec.kind
            if rec.unit < 0:
                results[i] = OrderResult(Hold(units[i]), None, True, by, by)
            elif ti == _MOVE:
                outcome, reason = self.move_failure(i)
                results[i] = OrderResult(o, outcome, True, reason, by)
            elif ti == _SUPH or ti == _SUPM:
                if not self.matched[i]:
                    other = units[rec.other]
                    results[i] = OrderResult(o, NSO, True, NotMatched(other), by)
                elif RES[i]:
                    results[i] = OrderResult(o, SUC)
                else:
                    results[i] = OrderResult(o, CUT, True, self.cutter(i), by)
            else:
                results[i] = OrderResult(o, None, True, by, by)

        # -- the new board and the retreat options (DATC 5.B.11) ------------------
        # where[p]: the unit standing in province p afterwards (board index)
        where = minus_ones(t.n)
        any_dislodged = False
        i = -1
        for rec in R:
            i += 1
            if DISL[i] >= 0:
                any_dislodged = True
                continue
            if rec.kind == _MOVE and RES[i]:
                where[rec.dest] = i
            else:
                where[P[i]] = i
        power_ids = t.power_ids
        no_power = len(t.powers)
        new_units: list[Unit] = []
        # (iterating the list itself: no bounds-checked item fetch per province)
        p = -1
        for i in where:
            p += 1
            if i < 0:
                continue
            u = units[i]
            if p != P[i]:  # it moved here
                o = R[i].canon
                w = power_ids.get(u.power, no_power)
                if type(o) is Move and o.dest.coast is not None:
                    u = t.unit_of(w, u.power, u.kind, t.loc_ids[(p, o.dest.coast)])
                else:
                    u = t.unit_of(w, u.power, u.kind, p)
            new_units.append(u)
        if not t.alphabetical:
            new_units.sort(key=_province_key)
        if not any_dislodged:
            return MovementOutcome(tuple(results), tuple(new_units), (), where, self.checks)

        dislodged: list[Dislodged] = []
        to_convoy_origin = self.rules.retreat_to_convoy_origin
        for i in range(n):
            k = DISL[i]
            if k < 0:
                continue
            u = units[i]
            origin = P[k]
            allow_origin = self.CONV[k] and to_convoy_origin  # DATC 4.A.5 b
            options: list[Location] = []
            if u.kind == AMY:
                moves = t.army_moves[P[i]]
            else:
                moves = t.fleet_moves[t.loc_ids[(P[i], u.location.coast)]]
            for q, place in moves:
                if where[q] < 0 and (allow_origin or q != origin) and not self.standoff(q):
                    options.append(place)
            dislodged.append(Dislodged(u, tuple(options), names[origin]))
        return MovementOutcome(
            tuple(results), tuple(new_units), tuple(dislodged), where, self.checks
        )

    def move_failure(self, i: int) -> tuple[str, Reason]:
        """Outcome and reason of the failed move ``i``."""
        units = self.units
        if self.NOROUTE[i]:
            return NSO, NoRoute(self.t.names[self.R[i].dest])
        if self.VOID[i]:
            fleets = tuple(units[f] for f in self.R_FLEETS.get(i, ()))
            return NSO, Paradox(fleets)
        if self.CONV[i] and not self.path_ok[i]:
            DISL = self.DISL
            fleets = tuple(units[f] for f in self.R_FLEETS[i] if DISL[f] >= 0)
            return DSR, Disrupted(fleets)
        return BNC, self.bounce_reason(i)

    def bounce_reason(self, i: int) -> Reason:
        """Why move ``i`` failed: who held, defended or stood it off."""
        units = self.units
        d = self.R[i].dest
        name = self.t.names[d]
        a = self.final_attack(i)
        j = self.at[d]
        if a == 0 and j >= 0 and units[j].power == units[i].power:
            return OwnUnit(name, units[j])
        against: list[Unit] = []
        h = self.H[i]
        if h >= 0:
            if a <= 1 + self.G[h]:
                against.append(units[h])
        elif j >= 0 and a <= self.final_hold(d):
            against.append(units[j])
        attackers = self.ATT[d]
        assert attackers is not None  # i is one of them
        any_moved = False
        for k in attackers:
            if self.RES[k]:
                any_moved = True
            if k != i and a <= self.final_prevent(k):
                against.append(units[k])
        standoff = len(attackers) > 1 and not any_moved
        return Bounced(name, tuple(against), standoff)

    def cutter(self, s: int) -> Reason:
        """Which unit cut support ``s`` (its dislodger first)."""
        P = self.P
        names = self.t.names
        k = self.DISL[s]
        if k >= 0:
            return CutBy(self.units[k], names[P[k]], True)
        attackers = self.ATT[P[s]]
        assert attackers is not None  # a cut support has an attacker
        units = self.units
        from_target_cuts = self.convoy_from_target_cuts
        for k in attackers:
            if units[k].power == units[s].power:
                continue
            from_target = self.R[s].kind == _SUPM and P[k] == self.R[s].dest
            if from_target and not (self.CONV[k] and from_target_cuts):
                continue
            if self.no_path(k):
                continue
            return CutBy(self.units[k], names[P[k]], False)
        raise AssertionError("a cut support without a cutting unit")


def _route_fleets(
    fleets: list[int], P: list[int], reach: tuple[frozenset[int], ...], src: int, dst: int
) -> list[int]:
    """The fleets (of ``fleets``) that lie on a complete simple route src -> dst."""
    if not fleets:
        return []
    seas = {P[c]: c for c in fleets}
    return sorted(seas[s] for s in route_seas(reach, seas, src, dst))


def _province_key(u: Unit) -> str:
    return u.location.province


__all__ = ["MovementOutcome", "resolve_movement", "resolve_plan"]
