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

from collections.abc import Mapping
from dataclasses import dataclass

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
from adjudicator.values import (
    AMY,
    Convoy,
    ConvoyMove,
    Dislodged,
    GameState,
    Hold,
    Location,
    Move,
    Order,
    SupportHold,
    SupportMove,
    Unit,
)
from maps import Map

# order type codes
_HOLD = 0
_MOVE = 1
_SUPH = 2
_SUPM = 3
_CVY = 4

# decision states
_UNRESOLVED = 0
_GUESSING = 1
_RESOLVED = 2


@dataclass(frozen=True, slots=True)
class MovementOutcome:
    """Results of a movement phase: one result per unit (board order), the
    units on the board afterwards and the dislodged units with their
    retreat options."""

    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]
    dislodged: tuple[Dislodged, ...]


_DEFAULT_HOLD = Default("no order: the unit holds")


def resolve_movement(
    m: Map,
    state: GameState,
    orders: Mapping[str, Order],
    rules: Rulebook,
) -> MovementOutcome:
    """Adjudicate a movement phase.

    ``orders`` maps a unit's province to its (checked, canonical) order;
    units without an entry hold.  Orders must have passed
    :func:`adjudicator.validate.check_order` for this state.
    """
    units = state.units
    n = len(units)
    ids = m.ids
    P = [ids[u.location.province] for u in units]
    at: dict[int, int] = {p: i for i, p in enumerate(P)}
    W = [u.power for u in units]
    T = [_HOLD] * n
    D = [-1] * n
    S = [-1] * n
    CONV = [False] * n
    ORD: list[Order | None] = [None] * n
    any_convoy = False

    for i, u in enumerate(units):
        o = orders.get(u.location.province)
        if o is None:
            continue
        ORD[i] = o
        if type(o) is Move:
            T[i] = _MOVE
            D[i] = ids[o.dest.province]
        elif type(o) is SupportMove:
            T[i] = _SUPM
            S[i] = at[ids[o.supported.location.province]]
            D[i] = ids[o.dest]
        elif type(o) is SupportHold:
            T[i] = _SUPH
            S[i] = j = at[ids[o.supported.location.province]]
            D[i] = P[j]
        elif type(o) is ConvoyMove:
            T[i] = _MOVE
            D[i] = ids[o.dest]
            CONV[i] = True
            any_convoy = True
        elif type(o) is Convoy:
            T[i] = _CVY
            S[i] = at[ids[o.army.location.province]]
            D[i] = ids[o.dest]

    ST = [_UNRESOLVED] * n
    RES = [False] * n
    NOROUTE = [False] * n  # CTO without any complete ordered route (and no land fallback)
    VOID = [False] * n  # convoyed move voided by the Szykman rule
    # per convoyed army: its route fleets, the ones touching its origin, the
    # ones touching its destination, and fleet -> neighbouring route fleets
    R_FLEETS: dict[int, list[int]] = {}
    R_START: dict[int, list[int]] = {}
    R_END: dict[int, set[int]] = {}
    R_NBR: dict[int, dict[int, list[int]]] = {}
    matched_convoy = [False] * n

    if any_convoy:
        reach = m.fleet_reach
        land_fallback = rules.adjacent_convoy_land_fallback
        for a in range(n):
            if not CONV[a]:
                continue
            src, dst = P[a], D[a]
            fleets = [c for c in range(n) if T[c] == _CVY and S[c] == a and D[c] == dst]
            for c in fleets:
                matched_convoy[c] = True
            route = _route_fleets(fleets, P, reach, src, dst)
            if not route:
                if land_fallback and dst in m.army_adj[src]:
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

    SUPS: dict[int, list[int]] = {}  # unit -> the matching supports of its order
    ATT: dict[int, list[int]] = {}
    H = [-1] * n  # head-to-head opponent
    OPP = [-1] * n  # unit moving the opposite way (head-to-head or by convoy)
    matched = [False] * n
    for i in range(n):
        t = T[i]
        if t == _MOVE:
            if NOROUTE[i]:
                continue
            d = D[i]
            lst = ATT.get(d)
            if lst is None:
                ATT[d] = [i]
            else:
                lst.append(i)
            j = at.get(d, -1)
            if j >= 0 and T[j] == _MOVE and D[j] == P[i] and not NOROUTE[j]:
                OPP[i] = j
                if not CONV[i] and not CONV[j]:
                    H[i] = j
        elif t == _SUPH:
            j = S[i]
            if T[j] != _MOVE:
                SUPS.setdefault(j, []).append(i)
                matched[i] = True
        elif t == _SUPM:
            j = S[i]
            if T[j] == _MOVE and D[j] == D[i]:
                SUPS.setdefault(j, []).append(i)
                matched[i] = True

    # Pre-decide supports cut by a plain attack (DATC 5.E): certain cuts.
    for s in range(n):
        if not matched[s]:
            continue
        attackers = ATT.get(P[s])
        if not attackers:
            if T[s] == _SUPH or T[s] == _SUPM:
                # nobody attacks the supporter: the support is given
                ST[s] = _RESOLVED
                RES[s] = True
            continue
        for k in attackers:
            if W[k] != W[s] and not CONV[k] and (T[s] == _SUPH or P[k] != D[s]):
                ST[s] = _RESOLVED
                RES[s] = False
                break

    convoy_from_target_cuts = rules.convoy_from_target_cuts
    any_route = rules.any_route_disrupts
    h2h_only = rules.dislodged_prevents_unless_head_to_head
    deps: list[int] = []

    # -- decisions ------------------------------------------------------------

    def resolve(i: int) -> bool:
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
        first = adjudicate(i)
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
        second = adjudicate(i)
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
        backup_rule(cycle)
        return resolve(i)

    def backup_rule(cycle: list[int]) -> None:
        convoys = [c for c in cycle if T[c] == _CVY]
        if convoys:
            # Convoy paradox: the Szykman rule (DATC 4.A.2 d).
            for c in convoys:
                VOID[S[c]] = True
        else:
            # Circular movement (DATC 5.B.9): all moves of the cycle succeed.
            for x in cycle:
                if T[x] == _MOVE:
                    RES[x] = True
                    ST[x] = _RESOLVED
        for x in cycle:
            if ST[x] != _RESOLVED:
                ST[x] = _UNRESOLVED

    def adjudicate(i: int) -> bool:
        t = T[i]
        if t == _MOVE:
            return adj_move(i)
        if t == _CVY:
            for k in ATT.get(P[i], ()):
                if resolve(k):
                    return False
            return True
        return adj_support(i)

    def path(a: int) -> bool:
        if VOID[a]:
            return False
        if any_route:  # 4.A.1 a: any disrupted route breaks the convoy
            for c in R_FLEETS[a]:
                if not resolve(c):
                    return False
            return True
        ends = R_END[a]
        nbr = R_NBR[a]
        seen: set[int] = set()
        todo = list(R_START[a])
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            if not resolve(c):
                continue
            if c in ends:
                return True
            todo.extend(nbr[c])
        return False

    def given(i: int) -> int:
        n_given = 0
        for s in SUPS.get(i, ()):
            if resolve(s):
                n_given += 1
        return n_given

    def attack(i: int) -> int:
        j = at.get(D[i], -1)
        if j < 0 or (T[j] == _MOVE and H[i] != j and resolve(j)):
            return 1 + given(i)
        wj = W[j]
        if wj == W[i]:
            return 0
        strength = 1
        for s in SUPS.get(i, ()):
            if W[s] != wj and resolve(s):
                strength += 1
        return strength

    def hold(p: int) -> int:
        j = at.get(p, -1)
        if j < 0:
            return 0
        if T[j] == _MOVE:
            return 0 if resolve(j) else 1
        return 1 + given(j)

    def prevent(k: int) -> int:
        if CONV[k] and not path(k):
            return 0
        j = OPP[k]
        if j >= 0:
            if h2h_only:
                if H[k] == j and resolve(j):
                    return 0
            elif resolve(j) and not resolve(k):  # 4.A.7 a
                return 0
        return 1 + given(k)

    def adj_move(i: int) -> bool:
        if CONV[i] and not path(i):
            return False
        a = attack(i)
        if a == 0:
            return False
        j = H[i]
        if j >= 0:
            if a <= 1 + given(j):
                return False
        elif a <= hold(D[i]):
            return False
        for k in ATT[D[i]]:
            if k != i and a <= prevent(k):
                return False
        return True

    def adj_support(s: int) -> bool:
        ws = W[s]
        for k in ATT.get(P[s], ()):
            if W[k] == ws:
                continue
            if T[s] == _SUPM and P[k] == D[s] and not (CONV[k] and convoy_from_target_cuts):
                # An attack from the province the support is directed at does
                # not cut it (4.A.4 a also for a convoyed attack), but a
                # dislodgement does.
                if resolve(k):
                    return False
                continue
            if CONV[k] and not path(k):
                continue
            return False
        return True

    # -- resolve everything -----------------------------------------------------

    for i in range(n):
        t = T[i]
        if ST[i] == _RESOLVED or t == _HOLD:
            continue
        if t == _MOVE or matched[i] or (t == _CVY and matched_convoy[i]):
            resolve(i)

    # Final PATH values of the convoyed armies (every decision is made now).
    path_ok = [False] * n
    for a in R_FLEETS:
        path_ok[a] = CONV[a] and path(a)
    board = _Final(
        units, ORD, P, T, D, S, W, H, OPP, CONV, NOROUTE, VOID, RES, ATT, SUPS, at, matched,
        R_FLEETS, path_ok, h2h_only,
    )  # fmt: skip
    return _report(m, rules, board)


def _route_fleets(
    fleets: list[int], P: list[int], reach: tuple[frozenset[int], ...], src: int, dst: int
) -> list[int]:
    """The fleets (of ``fleets``) that lie on a complete simple route src -> dst."""
    if not fleets:
        return []
    seas = {P[c]: c for c in fleets}
    return sorted(seas[s] for s in route_seas(reach, seas, src, dst))


class _Final:
    """The resolved board: every decision made.  Strengths are recomputed from
    the final decisions (DATC 5.B.4-5.B.7) to explain results and retreats."""

    __slots__ = (
        "units", "ORD", "P", "T", "D", "S", "W", "H", "OPP", "CONV", "NOROUTE", "VOID",
        "RES", "ATT", "SUPS", "at", "matched", "R_FLEETS", "path_ok", "h2h_only", "G", "DISL",
    )  # fmt: skip

    def __init__(
        self,
        units: tuple[Unit, ...],
        ORD: list[Order | None],
        P: list[int],
        T: list[int],
        D: list[int],
        S: list[int],
        W: list[str],
        H: list[int],
        OPP: list[int],
        CONV: list[bool],
        NOROUTE: list[bool],
        VOID: list[bool],
        RES: list[bool],
        ATT: dict[int, list[int]],
        SUPS: dict[int, list[int]],
        at: dict[int, int],
        matched: list[bool],
        R_FLEETS: dict[int, list[int]],
        path_ok: list[bool],
        h2h_only: bool,
    ) -> None:
        self.units = units
        self.ORD = ORD
        self.P = P
        self.T = T
        self.D = D
        self.S = S
        self.W = W
        self.H = H
        self.OPP = OPP
        self.CONV = CONV
        self.NOROUTE = NOROUTE
        self.VOID = VOID
        self.RES = RES
        self.ATT = ATT
        self.SUPS = SUPS
        self.at = at
        self.matched = matched
        self.R_FLEETS = R_FLEETS
        self.path_ok = path_ok
        self.h2h_only = h2h_only
        n = len(units)
        G = [0] * n  # supports given to each unit's order
        for s in range(n):
            if matched[s] and RES[s]:
                G[S[s]] += 1
        self.G = G
        DISL = [-1] * n  # index of the dislodging unit (DATC 5.B.3)
        for i in range(n):
            if T[i] == _MOVE and RES[i]:
                continue
            for k in ATT.get(P[i], ()):
                if RES[k]:
                    DISL[i] = k
                    break
        self.DISL = DISL

    def no_path(self, i: int) -> bool:
        return self.NOROUTE[i] or (self.CONV[i] and not self.path_ok[i])

    def attack(self, i: int) -> int:
        if self.no_path(i):
            return 0
        T, RES, W = self.T, self.RES, self.W
        j = self.at.get(self.D[i], -1)
        if j < 0 or (T[j] == _MOVE and self.H[i] != j and RES[j]):
            return 1 + self.G[i]
        wj = W[j]
        if wj == W[i]:
            return 0
        return 1 + sum(1 for s in self.SUPS.get(i, ()) if RES[s] and W[s] != wj)

    def hold(self, p: int) -> int:
        j = self.at.get(p, -1)
        if j < 0:
            return 0
        if self.T[j] == _MOVE:
            return 0 if self.RES[j] else 1
        return 1 + self.G[j]

    def prevent(self, k: int) -> int:
        if self.no_path(k):
            return 0
        j = self.OPP[k]
        if j >= 0 and self.RES[j]:
            if self.H[k] == j if self.h2h_only else not self.RES[k]:
                return 0
        return 1 + self.G[k]


def _report(m: Map, rules: Rulebook, b: _Final) -> MovementOutcome:
    """Turn the decisions into ORD results, the new board and retreat options."""
    units = b.units
    n = len(units)
    provinces = m.provinces
    P, T, D, S, RES, ORD, DISL = b.P, b.T, b.D, b.S, b.RES, b.ORD, b.DISL

    results: list[OrderResult] = []
    append = results.append
    for i in range(n):
        u = units[i]
        o = ORD[i]
        k = DISL[i]
        if k >= 0:
            by: DislodgedBy | None = DislodgedBy(units[k], provinces[P[k]].mnemonic)
            dislodged = True
        else:
            by = None
            dislodged = False
        t = T[i]
        if o is None:
            if dislodged:
                append(OrderResult(Hold(u), None, True, by, by))
            else:
                append(OrderResult(Hold(u), SUC, False, _DEFAULT_HOLD))
        elif t == _MOVE:
            if RES[i]:
                append(OrderResult(o, SUC))
            elif b.NOROUTE[i]:
                append(OrderResult(o, NSO, dislodged, NoRoute(provinces[D[i]].mnemonic), by))
            elif b.VOID[i]:
                fleets = tuple(units[f] for f in b.R_FLEETS.get(i, ()))
                append(OrderResult(o, NSO, dislodged, Paradox(fleets), by))
            elif b.CONV[i] and not b.path_ok[i]:
                fleets = tuple(units[f] for f in b.R_FLEETS[i] if DISL[f] >= 0)
                append(OrderResult(o, DSR, dislodged, Disrupted(fleets), by))
            else:
                append(OrderResult(o, BNC, dislodged, _bounce_reason(m, b, i), by))
        elif t == _SUPH or t == _SUPM:
            if not b.matched[i]:
                append(OrderResult(o, NSO, dislodged, NotMatched(units[S[i]]), by))
            elif RES[i]:
                append(OrderResult(o, SUC))
            else:
                append(OrderResult(o, CUT, dislodged, _cutter(m, rules, b, i), by))
        elif t == _CVY:
            army = S[i]
            if dislodged:
                append(OrderResult(o, None, True, by, by))
            elif type(ORD[army]) is ConvoyMove and D[army] == D[i]:
                append(OrderResult(o, SUC))
            else:
                append(OrderResult(o, NSO, False, NotMatched(units[army])))
        elif dislodged:
            append(OrderResult(o, None, True, by, by))
        else:
            append(OrderResult(o, SUC))

    # -- the new board and the retreat options (DATC 5.B.11) ------------------
    new_units: list[Unit] = []
    occupied: set[int] = set()
    any_dislodged = False
    for i in range(n):
        if DISL[i] >= 0:
            any_dislodged = True
            continue
        if T[i] == _MOVE and RES[i]:
            o = ORD[i]
            u = units[i]
            if type(o) is Move:
                new_units.append(Unit(u.power, u.kind, o.dest))
            else:
                assert isinstance(o, ConvoyMove)
                new_units.append(Unit(u.power, u.kind, Location(o.dest)))
            occupied.add(D[i])
        else:
            new_units.append(units[i])
            occupied.add(P[i])
    new_units.sort(key=_province_key)
    if not any_dislodged:
        return MovementOutcome(tuple(results), tuple(new_units), ())

    dislodged_list: list[Dislodged] = []
    to_convoy_origin = rules.retreat_to_convoy_origin
    ATT = b.ATT
    for i in range(n):
        k = DISL[i]
        if k < 0:
            continue
        u = units[i]
        origin = P[k]
        allow_origin = b.CONV[k] and to_convoy_origin  # DATC 4.A.5 b
        closed = set(occupied)
        if not allow_origin:
            closed.add(origin)
        options: list[Location] = []
        if u.kind == AMY:
            for q in sorted(m.army_adj[P[i]]):
                if q not in closed and not _standoff(b, ATT.get(q)):
                    options.append(Location(provinces[q].mnemonic))
        else:
            loc = m.loc_ids[(P[i], u.location.coast)]
            for dest in sorted(m.fleet_adj[loc]):
                q = m.loc_province[dest]
                if q not in closed and not _standoff(b, ATT.get(q)):
                    options.append(Location(provinces[q].mnemonic, m.loc_coast[dest]))
        dislodged_list.append(Dislodged(u, tuple(options), provinces[origin].mnemonic))

    return MovementOutcome(tuple(results), tuple(new_units), tuple(dislodged_list))


def _standoff(b: _Final, attackers: list[int] | None) -> bool:
    """A unit tried to enter (with some prevent strength) and the province
    stayed empty: no retreat there (DATC 5.B.11)."""
    return attackers is not None and any(b.prevent(x) > 0 for x in attackers)


def _province_key(u: Unit) -> str:
    return u.location.province


def _bounce_reason(m: Map, b: _Final, i: int) -> Reason:
    """Why move ``i`` failed: who held, defended or stood it off."""
    units = b.units
    d = b.D[i]
    name = m.provinces[d].mnemonic
    a = b.attack(i)
    j = b.at.get(d, -1)
    if a == 0 and j >= 0 and b.W[j] == b.W[i]:
        return OwnUnit(name, units[j])
    against: list[Unit] = []
    h = b.H[i]
    if h >= 0:
        if a <= 1 + b.G[h]:
            against.append(units[h])
    elif j >= 0 and a <= b.hold(d):
        against.append(units[j])
    attackers = b.ATT[d]
    for k in attackers:
        if k != i and a <= b.prevent(k):
            against.append(units[k])
    standoff = len(attackers) > 1 and not any(b.RES[k] for k in attackers)
    return Bounced(name, tuple(against), standoff)


def _cutter(m: Map, rules: Rulebook, b: _Final, s: int) -> Reason:
    """Which unit cut support ``s`` (its dislodger first)."""
    P = b.P
    k = b.DISL[s]
    if k >= 0:
        return CutBy(b.units[k], m.provinces[P[k]].mnemonic, True)
    for k in b.ATT.get(P[s], ()):
        if b.W[k] == b.W[s]:
            continue
        from_target = b.T[s] == _SUPM and P[k] == b.D[s]
        if from_target and not (b.CONV[k] and rules.convoy_from_target_cuts):
            continue
        if b.no_path(k):
            continue
        return CutBy(b.units[k], m.provinces[P[k]].mnemonic, False)
    raise AssertionError("a cut support without a cutting unit")


__all__ = ["MovementOutcome", "resolve_movement"]
