"""Movement-phase resolution by the decision method of DATC section 5.

Theory of operation
-------------------

Every unit of the board gets one :class:`_Piece`: the unit, its province
id, its checked order (type, target province, supported or convoyed piece)
and the facts the resolution derives from the orders - the supports that
match its order, the unit moving the other way, its convoy routes, and its
decision.  The decisions of DATC 5.A are:

* MOVE (a move order): does the unit move?
* SUPPORT (a support whose supported unit ordered what was supported): is it
  given (not cut)?
* a convoy order on some route: is the fleet *not* dislodged?  (The PATH
  decision of 5.B.8 is computed from these.)

The strengths of 5.B.4-5.B.7 (ATTACK, HOLD, PREVENT, DEFEND) are computed on
demand from these decisions (the simplification of 5.D), and the DISLODGE
decision follows from the MOVE decisions.  The same strength functions serve
during the resolution and afterwards, for the report: once every decision
is made, asking for one just reads it.

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

from dataclasses import dataclass
from typing import Final, final

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
from adjudicator.validate import (
    CVY,
    HOLD,
    MOVE,
    SUPH,
    SUPM,
    Checked,
    MovementChecks,
    Plan,
)
from adjudicator.values import Dislodged
from orders import AMY, ConvoyMove, Hold, Location, Move, Unit

# decision states
_UNDECIDED: Final = 0
_GUESSING: Final = 1
_DECIDED: Final = 2


@dataclass
class MovementOutcome:
    """Results of a movement phase: one result per unit (board order), the
    units on the board afterwards and the dislodged units with their
    retreat options."""

    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]
    dislodged: tuple[Dislodged, ...]


_DEFAULT_HOLD: Final = Default("no order: the unit holds")


def resolve_plan(checks: MovementChecks, plan: Plan) -> MovementOutcome:
    """Adjudicate a movement phase given as the board of ``checks`` and the
    accepted orders by unit (:meth:`MovementChecks.plan`)."""
    board = _Board(checks, plan)
    board.decide()
    return board.report()


#: sea -> the provinces next to it (``MapTables.fleet_reach``)
_Reach = tuple[frozenset[int], ...]


@final
class _Route:
    """The convoy routes of a move by convoy: the fleets on some route, those
    touching the army's province and the destination, and each fleet's
    neighbours on the routes."""

    def __init__(self, fleets: list[_Piece], src: int, dst: int, reach: _Reach) -> None:
        self.fleets = fleets
        self.start = [f for f in fleets if src in reach[f.province]]
        self.end = [f for f in fleets if dst in reach[f.province]]
        by_sea = {f.province: f for f in fleets}
        self.neighbours = {
            f: [by_sea[q] for q in reach[f.province] if q in by_sea and by_sea[q] is not f]
            for f in fleets
        }


@final
class _Piece:
    """One unit of the board with its order and its decision.

    The pieces that name each other by nature - the supported or convoyed
    unit, the unit moving the other way, the dislodger - are named by board
    index (-1: none): as references they would make reference cycles, which
    only the cyclic garbage collector frees (measured: it then ran in most
    phases).  ``supports`` and the route hold pieces, a cycle only when two
    units support each other.
    """

    def __init__(self, index: int, unit: Unit, province: int, order: Checked) -> None:
        self.index = index
        self.unit = unit
        self.power = unit.power
        #: province id where it stands
        self.province = province
        #: the checked order (:class:`~adjudicator.validate.Checked`; its
        #: ``unit`` is -1 when the unit was given no order and holds)
        self.order = order
        #: order type: HOLD, MOVE, SUPH, SUPM or CVY
        self.kind = order.kind
        #: province id the order is directed at (move, support or convoy destination)
        self.dest = order.dest
        #: the supported or convoyed piece (support and convoy orders)
        self.other = order.other
        #: moves by convoy
        self.conv = order.conv
        #: a move by convoy without any complete route of convoy orders
        self.no_route = False
        #: a move by convoy voided by the Szykman rule (DATC 4.A.2 d)
        self.void = False
        #: a support (convoy) whose supported (convoyed) unit ordered what it names
        self.matched = False
        #: the matching supports of this piece's order (None: none)
        self.supports: list[_Piece] | None = None
        #: the piece moving from this one's destination to this one's province
        self.opposite = -1
        #: the opposite piece when neither moves by convoy: a head-to-head battle
        self.head_to_head = -1
        #: the convoy routes of a move by convoy (None: no route, or not by convoy)
        self.route: _Route | None = None
        #: the decision: its state (_UNDECIDED, _GUESSING, _DECIDED) and value
        self.state = _UNDECIDED
        self.succeeds = False
        #: the piece that dislodged this one (set by :meth:`_Board.decide`)
        self.dislodged_by = -1

    def decide(self, succeeds: bool) -> None:
        self.state = _DECIDED
        self.succeeds = succeeds


class _Board:
    """One movement phase: a :class:`_Piece` per unit (board order) and the
    pieces trying to enter each province."""

    def __init__(self, checks: MovementChecks, plan: Plan) -> None:
        t = checks.t
        self.t = t
        rules = checks.rules
        self.rules = rules
        for p in checks.P:
            if p < 0:
                raise KeyError("a unit in a province the map does not have")
        pieces = [
            _Piece(i, unit, province, order)
            for i, (unit, province, order) in enumerate(
                zip(checks.units, checks.P, plan.records, strict=True)
            )
        ]
        self.pieces = pieces
        #: province id -> the index of the piece standing there (-1)
        self.at = checks.at
        if plan.any_conv:
            self._find_routes()
        #: province id -> the pieces trying to move there
        self.attackers: list[list[_Piece] | None] = [None] * t.n
        for piece in pieces:
            if piece.kind == MOVE:
                if not piece.no_route:
                    self._add_move(piece)
            elif piece.kind == SUPH or piece.kind == SUPM:
                self._add_support(piece)
        self._decide_certain_cuts()
        #: pieces whose decision was guessed while deciding another (a cycle)
        self.deps: list[_Piece] = []
        self.convoy_from_target_cuts = rules.convoy_from_target_cuts
        self.any_route_disrupts = rules.any_route_disrupts
        self.h2h_only = rules.dislodged_prevents_unless_head_to_head

    def piece_at(self, p: int) -> _Piece | None:
        """The piece standing in province ``p``."""
        i = self.at[p]
        return self.pieces[i] if i >= 0 else None

    def _find_routes(self) -> None:
        """Match convoy orders with the moves by convoy and find their routes."""
        t = self.t
        land_fallback = self.rules.adjacent_convoy_land_fallback
        for army in self.pieces:
            if not army.conv:
                continue
            src = army.province
            dst = army.dest
            fleets = [
                f for f in self.pieces if f.kind == CVY and f.other == army.index and f.dest == dst
            ]
            for fleet in fleets:
                fleet.matched = True
            on_route = _route_fleets(fleets, t.fleet_reach, src, dst)
            if on_route:
                army.route = _Route(on_route, src, dst, t.fleet_reach)
            elif land_fallback and dst in t.army_adj[src]:
                army.conv = False  # DATC 4.A.3 d / 6.G.8: no route ordered, move by land
            else:
                army.no_route = True
                army.decide(False)

    def _add_move(self, piece: _Piece) -> None:
        attackers = self.attackers[piece.dest]
        if attackers is None:
            self.attackers[piece.dest] = [piece]
        else:
            attackers.append(piece)
        there = self.piece_at(piece.dest)
        if (
            there is not None
            and there.kind == MOVE
            and there.dest == piece.province
            and not there.no_route
        ):
            piece.opposite = there.index
            if not piece.conv and not there.conv:
                piece.head_to_head = there.index

    def _add_support(self, supporter: _Piece) -> None:
        supported = self.pieces[supporter.other]
        if supporter.kind == SUPH:
            matches = supported.kind != MOVE
        else:
            matches = supported.kind == MOVE and supported.dest == supporter.dest
        if matches:
            if supported.supports is None:
                supported.supports = [supporter]
            else:
                supported.supports.append(supporter)
            supporter.matched = True

    def _decide_certain_cuts(self) -> None:
        """Decide the supports nobody attacks (given) and those cut by a plain
        attack (DATC 5.E: such a cut does not depend on any decision)."""
        for s in self.pieces:
            if not s.matched or s.kind == CVY:
                continue
            attackers = self.attackers[s.province]
            if attackers is None:
                s.decide(True)
                continue
            for k in attackers:
                if k.power != s.power and not k.conv and (s.kind == SUPH or k.province != s.dest):
                    s.decide(False)
                    break

    # -- decisions ------------------------------------------------------------

    def decide(self) -> None:
        """Make every decision, then record who dislodged whom (DATC 5.B.3)."""
        for piece in self.pieces:
            if piece.state != _DECIDED and (piece.kind == MOVE or piece.matched):
                self.resolve(piece)
        for piece in self.pieces:
            if piece.kind == MOVE and piece.succeeds:
                continue
            attackers = self.attackers[piece.province]
            if attackers is not None:
                for k in attackers:
                    if k.succeeds:
                        piece.dislodged_by = k.index
                        break

    def resolve(self, x: _Piece) -> bool:
        """The decision of ``x``: made now if need be (guess and check)."""
        if x.state == _DECIDED:
            return x.succeeds
        deps = self.deps
        if x.state == _GUESSING:
            if x not in deps:
                deps.append(x)
            return x.succeeds
        old = len(deps)
        x.succeeds = False
        x.state = _GUESSING
        first = self.adjudicate(x)
        if len(deps) == old:  # the answer used no guess
            if x.state != _DECIDED:
                x.decide(first)
            return x.succeeds
        if deps[old] is not x:  # it depends on a guess further up: not decided yet
            deps.append(x)
            x.succeeds = first
            return first
        # x depends on its own guess: guess the other way
        for y in deps[old:]:
            y.state = _UNDECIDED
        del deps[old:]
        x.succeeds = True
        x.state = _GUESSING
        second = self.adjudicate(x)
        if first == second:  # one consistent resolution
            for y in deps[old:]:
                y.state = _UNDECIDED
            del deps[old:]
            x.decide(first)
            return first
        cycle = deps[old:]
        if x not in cycle:
            cycle.insert(0, x)
        del deps[old:]
        self.backup_rule(cycle)
        return self.resolve(x)

    def backup_rule(self, cycle: list[_Piece]) -> None:
        convoys = [c for c in cycle if c.kind == CVY]
        if convoys:
            # Convoy paradox: the Szykman rule (DATC 4.A.2 d).
            for c in convoys:
                self.pieces[c.other].void = True
        else:
            # Circular movement (DATC 5.B.9): all moves of the cycle succeed.
            for x in cycle:
                if x.kind == MOVE:
                    x.decide(True)
        for x in cycle:
            if x.state != _DECIDED:
                x.state = _UNDECIDED

    def adjudicate(self, x: _Piece) -> bool:
        """Compute the decision of ``x`` from its definition (DATC 5.B)."""
        if x.kind == MOVE:
            return self.move_succeeds(x)
        if x.kind == CVY:  # the fleet is not dislodged
            attackers = self.attackers[x.province]
            if attackers is not None:
                for k in attackers:
                    if self.resolve(k):
                        return False
            return True
        return self.support_given(x)

    def path(self, army: _Piece) -> bool:
        """PATH (DATC 5.B.8) of a move by convoy: some route of fleets that
        are not dislodged (4.A.1 a: every route must hold)."""
        route = army.route
        if army.void or route is None:
            return False
        if self.any_route_disrupts:
            for fleet in route.fleets:
                if not self.resolve(fleet):
                    return False
            return True
        seen: set[int] = set()
        todo = list(route.start)
        while todo:
            fleet = todo.pop()
            if fleet.index in seen:
                continue
            seen.add(fleet.index)
            if not self.resolve(fleet):
                continue
            if fleet in route.end:
                return True
            todo.extend(route.neighbours[fleet])
        return False

    def no_path(self, x: _Piece) -> bool:
        """A move that cannot get there: no convoy route, or none that holds."""
        return x.no_route or (x.conv and not self.path(x))

    def given(self, x: _Piece) -> int:
        """Supports given to the order of ``x``."""
        n_given = 0
        if x.supports is not None:
            for s in x.supports:
                if self.resolve(s):
                    n_given += 1
        return n_given

    def attack(self, x: _Piece) -> int:
        """ATTACK STRENGTH (DATC 5.B.4) of the move of ``x``."""
        if self.no_path(x):
            return 0
        j = self.piece_at(x.dest)
        if j is None or (j.kind == MOVE and x.head_to_head != j.index and self.resolve(j)):
            return 1 + self.given(x)
        if j.power == x.power:
            return 0  # no self-dislodgement
        strength = 1
        if x.supports is not None:
            for s in x.supports:
                if s.power != j.power and self.resolve(s):  # no help dislodging one's own unit
                    strength += 1
        return strength

    def hold(self, p: int) -> int:
        """HOLD STRENGTH (DATC 5.B.5) of province ``p``."""
        j = self.piece_at(p)
        if j is None:
            return 0
        if j.kind == MOVE:
            return 0 if self.resolve(j) else 1
        return 1 + self.given(j)

    def defend(self, x: _Piece) -> int:
        """DEFEND STRENGTH (DATC 5.B.7) of ``x`` in a head-to-head battle."""
        return 1 + self.given(x)

    def prevent(self, x: _Piece) -> int:
        """PREVENT STRENGTH (DATC 5.B.6) of the move of ``x``."""
        if self.no_path(x):
            return 0
        if x.opposite >= 0:
            j = self.pieces[x.opposite]
            if self.h2h_only:  # 4.A.7 b
                if x.head_to_head >= 0 and self.resolve(j):
                    return 0
            elif self.resolve(j) and not self.resolve(x):  # 4.A.7 a
                return 0
        return 1 + self.given(x)

    def move_succeeds(self, x: _Piece) -> bool:
        """MOVE (DATC 5.B.1)."""
        a = self.attack(x)
        if a == 0:
            return False
        if x.head_to_head >= 0:
            if a <= self.defend(self.pieces[x.head_to_head]):
                return False
        elif a <= self.hold(x.dest):
            return False
        attackers = self.attackers[x.dest]
        assert attackers is not None  # x is one of them
        for k in attackers:
            if k is not x and a <= self.prevent(k):
                return False
        return True

    def support_given(self, s: _Piece) -> bool:
        """SUPPORT (DATC 5.B.2): the support is not cut."""
        attackers = self.attackers[s.province]
        if attackers is None:
            return True
        for k in attackers:
            if k.power == s.power:
                continue
            if (
                s.kind == SUPM
                and k.province == s.dest
                and not (k.conv and self.convoy_from_target_cuts)
            ):
                # An attack from the province the support is directed at does
                # not cut it (4.A.4 a also for a convoyed attack), but a
                # dislodgement does.
                if self.resolve(k):
                    return False
                continue
            if k.conv and not self.path(k):
                continue
            return False
        return True

    def standoff(self, p: int) -> bool:
        """A unit tried to enter ``p`` (with some prevent strength) and it
        stayed empty: no retreat there (DATC 5.B.11)."""
        attackers = self.attackers[p]
        if attackers is not None:
            for k in attackers:
                if self.prevent(k) > 0:
                    return True
        return False

    # -- the report -----------------------------------------------------------

    def report(self) -> MovementOutcome:
        """Turn the decisions into ORD results, the new board and retreat options."""
        t = self.t
        results = [self.result(x) for x in self.pieces]
        # the new board: where each piece stands afterwards
        where: list[_Piece | None] = [None] * t.n
        dislodged_pieces: list[_Piece] = []
        for x in self.pieces:
            if x.dislodged_by >= 0:
                dislodged_pieces.append(x)
            elif x.kind == MOVE and x.succeeds:
                where[x.dest] = x
            else:
                where[x.province] = x
        power_ids = t.power_ids
        no_power = len(t.powers)
        new_units: list[Unit] = []
        for p, occupant in enumerate(where):
            if occupant is None:
                continue
            u = occupant.unit
            if p != occupant.province:  # it moved here
                w = power_ids.get(u.power, no_power)
                o = occupant.order.canon
                if type(o) is Move and o.dest.coast is not None:
                    u = t.unit_of(w, u.power, u.kind, t.loc_ids[(p, o.dest.coast)])
                else:
                    u = t.unit_of(w, u.power, u.kind, p)
            new_units.append(u)
        if not t.alphabetical:
            new_units.sort(key=_province_key)
        # the retreat options (DATC 5.B.11)
        dislodged: list[Dislodged] = []
        to_convoy_origin = self.rules.retreat_to_convoy_origin
        for x in dislodged_pieces:
            by = self.pieces[x.dislodged_by]
            u = x.unit
            allow_origin = by.conv and to_convoy_origin  # DATC 4.A.5 b
            if u.kind == AMY:
                moves = t.army_moves[x.province]
            else:
                moves = t.fleet_moves[t.loc_ids[(x.province, u.location.coast)]]
            options: list[Location] = []
            for q, place in moves:
                if where[q] is None and (allow_origin or q != by.province) and not self.standoff(q):
                    options.append(place)
            dislodged.append(Dislodged(u, tuple(options), t.names[by.province]))
        return MovementOutcome(tuple(results), tuple(new_units), tuple(dislodged))

    def result(self, x: _Piece) -> OrderResult:
        """The ORD result of the order of ``x``."""
        o = x.order.canon
        ordered = x.order.unit >= 0
        if x.dislodged_by < 0:
            if not ordered:
                return OrderResult(Hold(x.unit), SUC, False, _DEFAULT_HOLD)
            if x.succeeds or x.kind == HOLD:
                # a successful move, a support given, or a hold
                return OrderResult(o, SUC)
            if x.kind == MOVE:
                outcome, reason = self.move_failure(x)
                return OrderResult(o, outcome, False, reason)
            other = self.pieces[x.other]
            if x.kind == CVY:
                if type(other.order.canon) is ConvoyMove and other.dest == x.dest:
                    return OrderResult(o, SUC)
                return OrderResult(o, NSO, False, NotMatched(other.unit))
            if not x.matched:
                return OrderResult(o, NSO, False, NotMatched(other.unit))
            return OrderResult(o, CUT, False, self.cutter(x))
        k = self.pieces[x.dislodged_by]
        by = DislodgedBy(k.unit, self.t.names[k.province])
        if not ordered:
            return OrderResult(Hold(x.unit), None, True, by, by)
        if x.kind == MOVE:
            outcome, reason = self.move_failure(x)
            return OrderResult(o, outcome, True, reason, by)
        if x.kind == SUPH or x.kind == SUPM:
            if not x.matched:
                other = self.pieces[x.other]
                return OrderResult(o, NSO, True, NotMatched(other.unit), by)
            if x.succeeds:
                return OrderResult(o, SUC)
            return OrderResult(o, CUT, True, self.cutter(x), by)
        return OrderResult(o, None, True, by, by)

    def move_failure(self, x: _Piece) -> tuple[str, Reason]:
        """Outcome and reason of the failed move of ``x``."""
        if x.no_route:
            return NSO, NoRoute(self.t.names[x.dest])
        fleets = x.route.fleets if x.route is not None else []
        if x.void:
            return NSO, Paradox(tuple(f.unit for f in fleets))
        if x.conv and not self.path(x):
            return DSR, Disrupted(tuple(f.unit for f in fleets if f.dislodged_by >= 0))
        return BNC, self.bounce_reason(x)

    def bounce_reason(self, x: _Piece) -> Reason:
        """Why the move of ``x`` failed: who held, defended or stood it off."""
        d = x.dest
        name = self.t.names[d]
        a = self.attack(x)
        j = self.piece_at(d)
        if a == 0 and j is not None and j.power == x.power:
            return OwnUnit(name, j.unit)
        against: list[Unit] = []
        if x.head_to_head >= 0:
            h = self.pieces[x.head_to_head]
            if a <= self.defend(h):
                against.append(h.unit)
        elif j is not None and a <= self.hold(d):
            against.append(j.unit)
        attackers = self.attackers[d]
        assert attackers is not None  # x is one of them
        any_moved = False
        for k in attackers:
            if k.succeeds:
                any_moved = True
            if k is not x and a <= self.prevent(k):
                against.append(k.unit)
        standoff = len(attackers) > 1 and not any_moved
        return Bounced(name, tuple(against), standoff)

    def cutter(self, s: _Piece) -> Reason:
        """Which unit cut the support of ``s`` (its dislodger first)."""
        names = self.t.names
        if s.dislodged_by >= 0:
            k = self.pieces[s.dislodged_by]
            return CutBy(k.unit, names[k.province], True)
        attackers = self.attackers[s.province]
        assert attackers is not None  # a cut support has an attacker
        for k in attackers:
            if k.power == s.power:
                continue
            from_target = s.kind == SUPM and k.province == s.dest
            if from_target and not (k.conv and self.convoy_from_target_cuts):
                continue
            if self.no_path(k):
                continue
            return CutBy(k.unit, names[k.province], False)
        raise AssertionError("a cut support without a cutting unit")


def _route_fleets(fleets: list[_Piece], reach: _Reach, src: int, dst: int) -> list[_Piece]:
    """The fleets (of ``fleets``) that lie on a complete simple route src -> dst,
    in board order."""
    if not fleets:
        return []
    on_route = route_seas(reach, [f.province for f in fleets], src, dst)
    return [f for f in fleets if f.province in on_route]


def _province_key(u: Unit) -> str:
    return u.location.province


__all__ = ["MovementOutcome", "resolve_plan"]
