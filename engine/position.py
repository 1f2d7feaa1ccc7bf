"""One position of a game that answers in DAIDE: the phase runner.

`Engine` is one position of a game (an immutable
`adjudicator.values.GameState` plus its map and rulebook) with the
questions a game asks - the THX note of an order, the MIS of a power, who
owes orders - and `Engine.advance`, which calls the adjudicator and returns
the next position with the ORD messages.  Orders are the one order model
(`orders`): what a SUB carried is what the adjudicator judges and the THX
echoes; positions cross as `protocol` messages (built by `engine.convert`).

This is the one phase runner: the server's games, ``daide adjudicate`` and
``daide datc`` (`engine.phase_text`), the bots' in-process games
(`bots.local`) and the benchmarks built on them all check orders with
`Engine.check` and process phases with `Engine.advance` - or, when a whole
phase's orders arrive at once (`engine.phase_text`), with `PhaseOrders`,
which asks the same questions keeping the accepted orders by unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from adjudicator import advance as adjudicate
from adjudicator import values as adj
from adjudicator.results import PhaseResult
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.validate import MBV, MovementChecks, movement_checks, validate
from adjudicator.values import GameState
from engine import convert
from maps import Map
from orders import Order, Unit, Waive
from protocol import orders as po
from protocol.messages import Mis, Now, Ord, Sco


class Outcome:
    """A processed phase: the adjudicator's result and the next position.

    Its ORDs are rendered when first asked for (an in-process game that
    never sends them never pays for them).
    """

    __slots__ = ("result", "engine", "_results")

    def __init__(self, result: PhaseResult, engine: Engine) -> None:
        self.result = result
        self.engine = engine
        self._results: tuple[Ord, ...] | None = None

    def __repr__(self) -> str:
        return f"Outcome({self.result!r}, {self.engine!r})"

    @property
    def results(self) -> tuple[Ord, ...]:
        """``ORD`` for every order, in the adjudicator's fixed order (docs/protocol.md §8.4)."""
        # Built once, on first use - a lazy slot rather than
        # functools.cached_property, which compiled is a plain property.
        if self._results is None:
            self._results = convert.ord_messages(self.result)
        return self._results

    @property
    def year_end(self) -> bool:
        """Whether centre ownership was updated (the end of a year)."""
        return self.result.ownership_updated

    @property
    def solo(self) -> str | None:
        """The power that won outright, if any."""
        return self.result.winner


class Engine:
    """One position of a game, with the rules' answers in DAIDE terms.

    A position never changes; what it derives (SCO, NOW, who owes orders,
    who survives) is computed on first use and kept in a private slot (not
    ``functools.cached_property``: compiled with mypyc that is a plain
    property, computed again on every use).
    """

    __slots__ = ("map", "state", "rulebook", "_sco", "_now", "_owing", "_survivors", "_standing",
                 "_checks")

    def __init__(self, map: Map, state: GameState, rulebook: Rulebook = DEFAULT) -> None:
        self.map = map
        self.state = state
        self.rulebook = rulebook
        self._sco: Sco | None = None
        self._now: Now | None = None
        self._owing: frozenset[str] | None = None
        self._survivors: frozenset[str] | None = None
        self._standing: dict[str, dict[str, Unit]] | None = None
        self._checks: MovementChecks | None = None

    def __repr__(self) -> str:
        return f"Engine({self.map!r}, {self.state!r}, {self.rulebook!r})"

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    @property
    def turn(self) -> po.Turn:
        return convert.turn_of(self.state.phase)

    @property
    def season(self) -> str:
        return self.state.phase.season

    def sco_message(self) -> Sco:
        if self._sco is None:
            self._sco = convert.sco_message(self.state, self.map.powers,
                                            _centre_names(self.map))
        return self._sco

    def now_message(self) -> Now:
        if self._now is None:
            self._now = convert.now_message(self.state)
        return self._now

    def owing(self) -> frozenset[str]:
        """Powers that must order in this phase."""
        if self._owing is None:
            self._owing = owing(self.state, self.map.powers)
        return self._owing

    def survivors(self) -> frozenset[str]:
        """Powers still in the game (a centre or a unit)."""
        if self._survivors is None:
            self._survivors = survivors(self.state)
        return self._survivors

    def centre_counts(self) -> Mapping[str, int]:
        return convert.centre_counts(self.state, self.map.powers)

    def check(self, power: str, order: Order, accepted: Sequence[Order]) -> str:
        """The THX note of ``order`` from ``power`` given its accepted orders (9.3)."""
        checks = self._checks
        if checks is None and self.state.phase.kind == adj.MOVEMENT:
            # `validate` finds the position's movement checks on every call
            checks = self._checks = movement_checks(self.map, self.state, self.rulebook)
        if checks is not None:
            return checks.check(power, order).note
        return validate(self.map, self.state, power, order, accepted, self.rulebook)

    def missing(self, power: str, accepted: Sequence[Order]) -> Mis | None:
        """The MIS for ``power``, or None when its orders are complete."""
        if power not in self.owing():
            return None
        if self.state.phase.kind == adj.MOVEMENT and self._all_ordered(power, accepted):
            return None     # the common answer, without building the MIS to find it empty
        return convert.missing_message(self.state, power, accepted)

    def complete(self, power: str, accepted: Sequence[Order]) -> bool:
        """Whether ``power`` has ordered all it must (`missing` is None), without
        making its MIS in a movement phase."""
        if power not in self.owing():
            return True
        if self.state.phase.kind == adj.MOVEMENT:
            return self._all_ordered(power, accepted)
        return self.missing(power, accepted) is None

    def _all_ordered(self, power: str, accepted: Sequence[Order]) -> bool:
        """Movement: whether every unit of ``power`` has an order in ``accepted``
        (what `convert.missing_message` finds by listing the units without
        one).  A power's units stand in different provinces, so each is found
        by its province; each counts once, however many orders name it."""
        standing = self._standing
        if standing is None:
            standing = {}
            for unit in self.state.units:
                standing.setdefault(unit.power, {})[unit.location.province] = unit
            self._standing = standing
        mine = standing.get(power)
        if mine is None:
            return True
        if len(accepted) < len(mine):
            return False
        ordered: set[str] = set()
        for order in accepted:
            if isinstance(order, Waive):
                continue
            unit = order.unit
            location = unit.location
            found = mine.get(location.province)
            # `found == unit` by its fields (the province is the key): the
            # parser's units are not the position's objects, and == on them
            # is a generic comparison where these are a few pointer checks
            if found is not None and (found is unit or (
                    found.kind == unit.kind and found.location.coast == location.coast
                    and found.power == unit.power)):
                ordered.add(location.province)
        return len(ordered) == len(mine)

    def advance(self, orders: Mapping[str, Sequence[Order]]) -> Outcome:
        """Adjudicate the phase; missing orders get the civil-disorder defaults."""
        result = adjudicate(self.map, self.state, orders, self.rulebook)
        return Outcome(result, Engine(self.map, result.state, self.rulebook))


class PhaseOrders:
    """The orders one phase receives, checked and kept as a server does.

    The accepted orders are kept per power by unit: the THX check of the
    next order needs the power's list as it stands.  Same answers as
    `Engine.check` + `keep_order` + `Engine.advance` on lists, without
    comparing the accepted orders again for every new one.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._per_unit = engine.season in PER_UNIT_SEASONS
        #: power -> key -> accepted order; the key is the unit's province
        #: in the movement and retreat phases (a later order for the unit
        #: replaces the earlier one; an accepted order's unit is on the board,
        #: and one unit - or one dislodged unit - stands in a province, so
        #: the province names it), a fresh object otherwise (adjustment
        #: orders accumulate).
        self._accepted: dict[str, dict[object, Order]] = {}

    def submit(self, power: str, order: Order) -> str:
        """The THX note of ``order`` from ``power`` (9.3); an MBV order is kept."""
        mine = self._accepted.setdefault(power, {})
        engine = self.engine
        note = validate(engine.map, engine.state, power, order, list(mine.values()),
                        engine.rulebook)
        if note == MBV:
            # keep_order's rule (docs/protocol.md §8.3): the unit's earlier
            # order goes, the new one comes last.
            key = (order.unit.location.province
                   if self._per_unit and not isinstance(order, Waive) else object())
            mine.pop(key, None)
            mine[key] = order
        return note

    def advance(self) -> Outcome:
        """Adjudicate the phase on the accepted orders (`Engine.advance`)."""
        return self.engine.advance({p: list(held.values()) for p, held in self._accepted.items()})


def _centre_names(m: Map) -> tuple[str, ...]:
    """The names of the map's supply centres, sorted; worked out once per map
    and kept with it (`maps.Map.derived`)."""
    return m.derived("engine.centre_names", _sorted_centre_names)


def _sorted_centre_names(m: Map) -> tuple[str, ...]:
    return tuple(sorted(m.provinces[c].mnemonic for c in m.supply_centres))


#: Seasons whose orders are one per unit (movement, retreat).
PER_UNIT_SEASONS: Final = frozenset({"SPR", "SUM", "FAL", "AUT"})


def keep_order(held: list[Order], order: Order, season: str) -> None:
    """Add an accepted order to a power's orders of the phase.

    In movement and retreat phases a later order for a unit replaces the
    earlier one (docs/protocol.md §8.3); adjustment orders accumulate (each
    build, removal or waive is an order of its own).
    """
    if season in PER_UNIT_SEASONS and not isinstance(order, Waive):
        unit = order.unit
        province = unit.location.province
        for old in held:
            # the province first: a string compared, where most units differ
            if not isinstance(old, Waive) and old.unit.location.province == province \
                    and old.unit == unit:
                held[:] = [o for o in held if isinstance(o, Waive) or o.unit != unit]
                break
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
