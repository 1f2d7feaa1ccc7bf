"""The entry point: :func:`advance` processes one phase.

::

    advance(map, state, orders_by_power, rulebook) -> PhaseResult

1. Every order is checked for the power that submitted it, in the order
   given (:func:`adjudicator.validate.check_order`); in the movement and
   retreat phases a later order for a unit replaces an earlier one (docs/protocol.md
   §8.3).  Rejected orders are dropped - or, in an AOA game, kept with their
   note as the ORD result while the unit behaves as unordered.
2. Units without a (valid) order get the default: hold, disband, a waived
   build, a civil-disorder removal (DATC 4.D.8).
3. The phase is resolved (:mod:`~adjudicator.movement`,
   :mod:`~adjudicator.retreats`, :mod:`~adjudicator.adjustments`); with the
   house rule ``Rulebook.expedite``, :mod:`~adjudicator.expedite` then takes
   away the units of a power whose retreats or removals cannot matter (the
   autumn's dislodged units, and the units at the year's end).
4. Sequencing (docs/protocol.md §8.2, 8.4): after the fall moves (or the fall
   retreats, if any) centre ownership is recalculated and a solo (more than
   half the centres) is detected; phases in which nobody has anything to do
   are skipped - a retreat phase without dislodged units, a winter without
   builds or removals.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from adjudicator.adjustments import resolve_adjustments
from adjudicator.expedite import destroy_dislodged, remove_centreless
from adjudicator.movement import resolve_plan
from adjudicator.results import OrderResult, PhaseResult, Rejected
from adjudicator.retreats import resolve_retreats
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.tables import tables
from adjudicator.validate import MBV, NYU, check_order, movement_checks
from adjudicator.values import ADJUSTMENT, MOVEMENT, GameState, Phase, phase_of
from maps import Map
from orders import Order, Unit, Waive

OrdersByPower = Mapping[str, Iterable[Order]]


def advance(
    m: Map,
    state: GameState,
    orders_by_power: OrdersByPower,
    rules: Rulebook = DEFAULT,
) -> PhaseResult:
    """Adjudicate the current phase of ``state`` and move to the next phase.

    ``orders_by_power`` maps each submitting power to its orders (in the
    order they were given).  Orders are checked here, so the caller may pass
    everything it received; missing orders get the defaults.  Pure and
    deterministic.
    """
    kind = state.phase.kind
    if kind == MOVEMENT:
        return _movement(m, state, orders_by_power, rules)
    if kind == ADJUSTMENT:
        return _adjustment(m, state, orders_by_power, rules)
    return _retreat(m, state, orders_by_power, rules)


def _unit_orders(
    m: Map, state: GameState, orders_by_power: OrdersByPower, rules: Rulebook
) -> tuple[dict[str, Order], dict[str, tuple[str, Order]]]:
    """Checked orders by unit province (later replaces earlier), and the
    AOA-kept rejected orders ``province -> (note, order)``."""
    valid: dict[str, Order] = {}
    rejected: dict[str, tuple[str, Order]] = {}
    aoa = rules.aoa
    for power in sorted(orders_by_power):
        for order in orders_by_power[power]:
            note, canon = check_order(m, state, power, order, (), rules)
            if isinstance(order, Waive):
                continue
            prov = order.unit.location.province
            if note == MBV:
                valid[prov] = canon
                if rejected:
                    rejected.pop(prov, None)
            elif aoa and note != NYU and _owns_unit_at(state, power, prov):
                valid.pop(prov, None)
                rejected[prov] = (note, order)
    return valid, rejected


def _owns_unit_at(state: GameState, power: str, province: str) -> bool:
    if state.phase.kind == MOVEMENT:
        u = state.unit_at(province)
        return u is not None and u.power == power
    d = state.dislodged_at(province)
    return d is not None and d.unit.power == power


def _with_rejected(
    results: tuple[OrderResult, ...], rejected: dict[str, tuple[str, Order]]
) -> tuple[OrderResult, ...]:
    """AOA: show each rejected order with its THX note as the ORD result."""
    if not rejected:
        return results
    out: list[OrderResult] = []
    for r in results:
        o = r.order
        prov = None if isinstance(o, Waive) else o.unit.location.province
        entry = rejected.get(prov) if prov is not None else None
        if entry is not None:
            note, order = entry
            out.append(OrderResult(order, note, r.dislodged, Rejected(note), r.dislodged_by))
        else:
            out.append(r)
    return tuple(out)


def _movement(
    m: Map, state: GameState, orders_by_power: OrdersByPower, rules: Rulebook
) -> PhaseResult:
    checks = movement_checks(m, state, rules)
    assert checks is not None
    rejected: dict[str, tuple[str, Order]] = {}
    if rules.aoa:
        valid, rejected = _unit_orders(m, state, orders_by_power, rules)
        plan = checks.plan_of(valid)
    else:
        # The usual case: every order already got its THX from these checks.
        plan = checks.plan(orders_by_power)
    outcome = resolve_plan(checks, plan)
    results = _with_rejected(outcome.results, rejected)
    phase = state.phase
    dislodged = outcome.dislodged
    if dislodged and rules.expedite and phase.season == "FAL":
        # the house rule's part (a): no retreat for a power whose retreats cannot matter
        dislodged, destroyed = destroy_dislodged(m, state.ownership, outcome.units, dislodged)
        results += destroyed
    if dislodged:
        season = "SUM" if phase.season == "SPR" else "AUT"
        new_state = GameState(
            phase_of(season, phase.year), outcome.units, state.ownership, dislodged
        )
        return _finish(state, phase, results, new_state, False, None)
    if phase.season == "SPR":
        new_state = GameState(phase_of("FAL", phase.year), outcome.units, state.ownership)
        return _finish(state, phase, results, new_state, False, None)
    return _end_of_year(m, phase, results, outcome.units, _present(state), state.ownership,
                        rules.expedite)


def _retreat(
    m: Map, state: GameState, orders_by_power: OrdersByPower, rules: Rulebook
) -> PhaseResult:
    valid, rejected = _unit_orders(m, state, orders_by_power, rules)
    results, units = resolve_retreats(state, valid)
    results = _with_rejected(results, rejected)
    phase = state.phase
    if phase.season == "SUM":
        new_state = GameState(phase_of("FAL", phase.year), units, state.ownership)
        return _finish(state, phase, results, new_state, False, None)
    return _end_of_year(m, phase, results, units, _present(state), state.ownership,
                        rules.expedite)


def _end_of_year(
    m: Map,
    phase: Phase,
    results: tuple[OrderResult, ...],
    units: tuple[Unit, ...],
    present_before: set[str],
    old_ownership: Mapping[str, str],
    expedite: bool,
) -> PhaseResult:
    """After the fall moves / retreats: update ownership, detect a solo, and
    go to the winter if anybody has builds or removals (docs/protocol.md §8.2).

    ``present_before`` are the powers that had a unit (dislodged or not) or
    a centre before the phase; those without either now are eliminated.
    With ``expedite`` (the house rule's part (b)), the units of a power left
    without a centre are removed now rather than in the winter.
    """
    t = tables(m)
    supply = t.supply
    ids = t.ids
    occupant: list[str | None] = [None] * t.n
    units_per_power: dict[str, int] = {}
    for u in units:
        power = u.power
        p = ids[u.location.province]
        if supply[p]:
            occupant[p] = power
        count = units_per_power.get(power)
        units_per_power[power] = 1 if count is None else count + 1
    # A plain copy: one lookup per centre (the state's ownership is a read-only proxy).
    old: dict[str, str] = (
        old_ownership.copy() if isinstance(old_ownership, MappingProxyType) else dict(old_ownership)
    )
    ordered: dict[str, str] = {}
    centres_per_power: dict[str, int] = {}
    for c, name in t.centres:
        owner = occupant[c]
        if owner is None:
            owner = old.get(name)
            if owner is None:
                continue
        ordered[name] = owner
        count = centres_per_power.get(owner)
        centres_per_power[owner] = 1 if count is None else count + 1
    winner = _solo(m, centres_per_power)
    if expedite:
        units, removed = remove_centreless(units, centres_per_power)
        if removed:
            results += removed
            for power in [p for p in units_per_power if p not in centres_per_power]:
                del units_per_power[power]
    gone = [p for p in present_before if p not in centres_per_power and p not in units_per_power]
    if centres_per_power != units_per_power:  # somebody builds or removes
        next_phase = phase_of("WIN", phase.year)
    else:
        next_phase = phase_of("SPR", phase.year + 1)
    new_state = GameState(next_phase, units, MappingProxyType(ordered))
    return PhaseResult(phase, results, new_state, True, winner, tuple(sorted(gone)))


def _solo(m: Map, centres_per_power: dict[str, int]) -> str | None:
    """The power owning more than half of the centres, if any."""
    t = tables(m)
    need = t.victory_centres
    for power in t.powers:
        if centres_per_power.get(power, 0) >= need:
            return power
    return None


def _adjustment(
    m: Map, state: GameState, orders_by_power: OrdersByPower, rules: Rulebook
) -> PhaseResult:
    accepted: dict[str, list[Order]] = {}
    for power in sorted(orders_by_power):
        mine = accepted.setdefault(power, [])
        for order in orders_by_power[power]:
            note, canon = check_order(m, state, power, order, mine, rules)
            if note == MBV:
                mine.append(canon)
    results, units = resolve_adjustments(m, state, accepted, rules)
    phase = state.phase
    new_state = GameState(phase_of("SPR", phase.year + 1), units, state.ownership)
    return _finish(state, phase, results, new_state, False, None)


def _present(state: GameState) -> set[str]:
    alive = {u.power for u in state.units}
    alive.update(d.unit.power for d in state.dislodged)
    alive.update(state.ownership.values())
    return alive


def _finish(
    old: GameState,
    phase: Phase,
    results: tuple[OrderResult, ...],
    new_state: GameState,
    ownership_updated: bool,
    winner: str | None,
) -> PhaseResult:
    # Only an adjustment or an ownership update can eliminate a power (a
    # dislodged unit stays in play until its retreat phase).
    gone: set[str] = set()
    if ownership_updated or old.phase.kind != MOVEMENT:
        gone = _present(old) - _present(new_state)
    return PhaseResult(
        phase=phase,
        results=results,
        state=new_state,
        ownership_updated=ownership_updated,
        winner=winner,
        eliminated=tuple(sorted(gone)),
    )


__all__ = ["OrdersByPower", "advance"]
