"""One position of a game that answers in DAIDE: the phase runner.

`Engine` is one position of a game (an immutable
`adjudicator.values.GameState` plus its map and rulebook) with the
questions a game asks - the THX note of an order, the MIS of a power, who
owes orders - and `Engine.advance`, which calls the adjudicator and returns
the next position with the ORD messages.  Everything crossing this module is
a `protocol` message or order; the adjudicator's values stay inside
(converted by `engine.convert`).

This is the one phase runner: the server's games, ``daide adjudicate`` and
``daide datc`` (`daide.phase_runner`), the bots' in-process games
(`bots.local`) and the benchmarks built on them all check orders with
`Engine.check` and process phases with `Engine.advance` - or, when a whole
phase's orders arrive at once (`daide.phase_runner`), with `PhaseOrders`,
which asks the same questions but converts each order only once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from adjudicator import advance as adjudicate
from adjudicator import values as adj
from adjudicator.results import PhaseResult
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.validate import MBV, validate
from adjudicator.values import GameState
from engine import convert
from maps import Map
from orders import Order, Waive
from protocol import orders as po
from protocol.messages import Mis, Now, Ord, Sco


@dataclass(frozen=True)
class Outcome:
    """A processed phase: the adjudicator's result and the next position.

    Its ORDs are rendered when first asked for (an in-process game that
    never sends them never pays for them).
    """

    result: PhaseResult
    engine: Engine
    #: ``id(adjudicator order)`` -> (that order, the DAIDE order it came
    #: from), for the orders given to the adjudicator: their ORDs reuse the
    #: DAIDE order instead of converting the result back.
    submitted: Mapping[int, tuple[Order, po.DaideOrder]] = field(default_factory=dict)

    @cached_property
    def results(self) -> tuple[Ord, ...]:
        """``ORD`` for every order, in the adjudicator's fixed order (docs/protocol.md §8.4)."""
        return convert.ord_messages(self.result, self.submitted)

    @property
    def year_end(self) -> bool:
        """Whether centre ownership was updated (the end of a year)."""
        return self.result.ownership_updated

    @property
    def solo(self) -> str | None:
        """The power that won outright, if any."""
        return self.result.winner


@dataclass(frozen=True, eq=False)
class Engine:
    """One position of a game, with the rules' answers in DAIDE terms."""

    map: Map
    state: GameState
    rulebook: Rulebook = DEFAULT

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    @property
    def turn(self) -> po.Turn:
        return convert.turn_of(self.state.phase)

    @property
    def season(self) -> str:
        return self.state.phase.season

    @cached_property
    def _sco(self) -> Sco:
        return convert.sco_message(self.state, self.map.powers,
                                   (self.map.provinces[c].mnemonic
                                    for c in self.map.supply_centres))

    def sco_message(self) -> Sco:
        return self._sco

    @cached_property
    def _now(self) -> Now:
        return convert.now_message(self.state)

    def now_message(self) -> Now:
        return self._now

    @cached_property
    def _owing(self) -> frozenset[str]:
        return owing(self.state, self.map.powers)

    def owing(self) -> frozenset[str]:
        """Powers that must order in this phase."""
        return self._owing

    @cached_property
    def _survivors(self) -> frozenset[str]:
        return survivors(self.state)

    def survivors(self) -> frozenset[str]:
        """Powers still in the game (a centre or a unit)."""
        return self._survivors

    def centre_counts(self) -> Mapping[str, int]:
        return convert.centre_counts(self.state, self.map.powers)

    @cached_property
    def _converted(self) -> dict[int, tuple[po.DaideOrder, Order]]:
        return {}

    def _adj(self, orders: Sequence[po.DaideOrder]) -> list[Order]:
        """The adjudicator's form of orders, each converted once per position.

        Every THX check and MIS of a phase looks at the power's accepted
        orders again; converting them once keeps a SUB of n orders linear.
        Keyed by identity (cheaper than hashing an order); the cache holds
        each order, so its id cannot be reused while the position lives.
        """
        cache = self._converted
        out = []
        for order in orders:
            found = cache.get(id(order))
            if found is None or found[0] is not order:
                found = cache[id(order)] = (order, convert.order_to_adj(order))
            out.append(found[1])
        return out

    def check(self, power: str, order: po.DaideOrder, accepted: Sequence[po.DaideOrder]) -> str:
        """The THX note of ``order`` from ``power`` given its accepted orders (9.3)."""
        return validate(self.map, self.state, power, self._adj((order,))[0],
                        self._adj(accepted), self.rulebook)

    def missing(self, power: str, accepted: Sequence[po.DaideOrder]) -> Mis | None:
        """The MIS for ``power``, or None when its orders are complete."""
        if power not in self._owing:
            return None
        return convert.missing_message(self.state, power, self._adj(accepted))

    def advance(self, orders: Mapping[str, Sequence[po.DaideOrder]]) -> Outcome:
        """Adjudicate the phase; missing orders get the civil-disorder defaults."""
        given = {p: self._adj(held) for p, held in orders.items()}
        submitted = {id(a): (a, d) for d, a in self._converted.values()}
        return self._process(given, submitted)

    def _process(self, given: Mapping[str, Sequence[Order]],
                 submitted: Mapping[int, tuple[Order, po.DaideOrder]]) -> Outcome:
        result = adjudicate(self.map, self.state, given, self.rulebook)
        return Outcome(result, Engine(self.map, result.state, self.rulebook), submitted)


class PhaseOrders:
    """The orders one phase receives, checked and kept as a server does.

    Each submitted order is converted to the adjudicator's form once, and
    the accepted ones are kept in both forms, per power: the THX check of
    the next order needs the adjudicator's list as it stands, the ORDs show
    the DAIDE orders (`Outcome.submitted`).  Same answers as
    `Engine.check` + `keep_order` + `Engine.advance` on DAIDE lists, without
    converting or comparing the accepted orders again for every new one.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._per_unit = engine.season in PER_UNIT_SEASONS
        #: power -> key -> adjudicator order; the key is the unit's province
        #: in the movement and retreat phases (a later order for the unit
        #: replaces the earlier one; an accepted order's unit is on the board,
        #: and one unit - or one dislodged unit - stands in a province, so
        #: the province names it), a fresh object otherwise (adjustment
        #: orders accumulate).
        self._accepted: dict[str, dict[object, Order]] = {}
        self._submitted: dict[int, tuple[Order, po.DaideOrder]] = {}

    def submit(self, power: str, order: po.DaideOrder) -> str:
        """The THX note of ``order`` from ``power`` (9.3); an MBV order is kept."""
        mine = self._accepted.setdefault(power, {})
        given = convert.order_to_adj(order)
        engine = self.engine
        note = validate(engine.map, engine.state, power, given, list(mine.values()),
                        engine.rulebook)
        if note == MBV:
            # keep_order's rule (docs/protocol.md §8.3): the unit's earlier
            # order goes, the new one comes last.
            key = (given.unit.location.province
                   if self._per_unit and not isinstance(given, Waive) else object())
            mine.pop(key, None)
            mine[key] = given
            self._submitted[id(given)] = (given, order)
        return note

    def advance(self) -> Outcome:
        """Adjudicate the phase on the accepted orders (`Engine.advance`)."""
        given = {p: list(held.values()) for p, held in self._accepted.items()}
        return self.engine._process(given, self._submitted)



#: Seasons whose orders are one per unit (movement, retreat).
PER_UNIT_SEASONS = frozenset({"SPR", "SUM", "FAL", "AUT"})


def keep_order(held: list[po.DaideOrder], order: po.DaideOrder, season: str) -> None:
    """Add an accepted order to a power's orders of the phase.

    In movement and retreat phases a later order for a unit replaces the
    earlier one (docs/protocol.md §8.3); adjustment orders accumulate (each
    build, removal or waive is an order of its own).
    """
    if season in PER_UNIT_SEASONS and not isinstance(order, po.DaideWaive):
        held[:] = [o for o in held if isinstance(o, po.DaideWaive) or o.unit != order.unit]
    held.append(order)


def owing(state: GameState, powers: Sequence[str]) -> frozenset[str]:
    """The powers that must order in this phase (docs/protocol.md §8.3)."""
    kind = state.phase.kind
    if kind == adj.MOVEMENT:
        return frozenset(u.power for u in state.units)
    if kind == adj.RETREAT:
        return frozenset(d.unit.power for d in state.dislodged)
    return frozenset(p for p in powers if state.adjustment(p) != 0)


def survivors(state: GameState) -> frozenset[str]:
    """Powers still in the game: a centre or a unit (the French adjudicator's convention 2(b), docs/references.md)."""
    return (frozenset(state.ownership.values()) | frozenset(u.power for u in state.units)
            | frozenset(d.unit.power for d in state.dislodged))
