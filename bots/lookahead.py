"""LookaheadBot: chooses its orders by adjudicating possible futures.

Every phase the bot plays a small search through the real adjudicator
(`adjudicator.advance`, on the map rebuilt from its view by `bots.futures`):

1. **Predict the others.**  Each other power's orders are sampled several
   times from a DumbBot-like model (`bots.dumbbot`: its valuation computed
   once per power, its noisy planning run once per sample).  The samples are
   fixed for the phase, so every candidate of the bot's own is judged
   against the same futures (common random numbers).
2. **Candidates of its own.**  Movement: DumbBot's own plan sampled a few
   times, then improved by hill climbing - one unit at a time, every hold,
   move, support of an own unit's hold or move; and every move together
   with a support from another own unit (an attack needs one to dislodge).
   Own supports and convoys that no longer match the order they name are
   turned into holds after every change.  Retreats: every combination of
   retreat places and disbands.  Builds: every choice of sites and unit
   types (greedily when there are too many); removals: every choice of units.
3. **Adjudicate and score.**  Each candidate is adjudicated against each
   sample; the score of the resulting position (`Scorer`) counts centres
   held after the phase (an occupied centre counts for its occupant, as it
   will after the fall), how many of them are threatened by more units of
   one enemy than the bot has next to them, centres it could take next,
   surviving units and DumbBot's value of the places they stand on.  The
   candidate with the best mean score is played.

The search spends a `bots.budget.Budget`: each adjudication is one
iteration; hill climbing stops when the budget is used up or a whole pass
over the units finds nothing better.  With an iteration budget the bot is
deterministic for a seed (all choices come from the phase generator); the
CPU-time limit (1 s by default) is a safety net.  `LookaheadBot.reports`
keeps what each phase's search spent.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from adjudicator import advance
from adjudicator import values as adj
from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardView
from bots.budget import Allowance, Budget
from bots.dumbbot import DumbBot, _Movement
from bots.futures import map_of, state_of
from bots.geography import Geography
from bots.orders import agrees
from bots.values import Valuation, valuation
from maps import Map
from orders import (
    AMY,
    FLT,
    Build,
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
    UnitOrder,
    Waive,
    kind_of,
)

DEFAULT_ITERATIONS = 2000
"""Adjudications per phase by default (0.24 s of CPU per phase on average on the
standard map against DumbBots, 0.8 s at most: docs/bots.md)."""


@dataclass(frozen=True)
class Settings:
    """Search sizes and the weights of the position score."""

    samples: int = 8
    """Sampled order sets of the other powers per movement phase."""
    own_samples: int = 6
    """DumbBot plans of its own tried before hill climbing."""
    retreat_samples: int = 3
    """Samples of the others' retreats and adjustments."""
    max_combinations: int = 96
    """Largest retreat / build / removal enumeration before going greedy."""
    centre: float = 1.0
    threat: float = 0.45
    """Per own centre that one enemy power can reach with more units than ours."""
    chance: float = 0.25
    """Per centre not ours that we reach with more units than any one other power."""
    unit: float = 0.5
    dislodged: float = 0.25
    """A dislodged unit that can still retreat keeps this much of a unit's worth."""
    position: float = 0.3
    """Per unit, times DumbBot's value of its place relative to the best place."""
    solo: float = 1000.0


@dataclass(frozen=True)
class SearchReport:
    """What one phase's search did."""

    phase: str
    kind: str
    iterations: int
    candidates: int
    seconds: float
    stopped: str | None
    """``iterations`` or ``time`` when the budget cut the search short."""


class Scorer:
    """The value, for one power, of the position after a phase (see module doc)."""

    def __init__(self, view: BoardView, values: Valuation, settings: Settings) -> None:
        self.me = view.power
        self.geo = view.geography
        self.values = values
        self.s = settings
        self.centres = tuple(sorted(self.geo.centres))
        best = max([*values.army.values(), *values.fleet.values(), 0.0])
        self.norm = settings.position / best if best > 0 else 0.0
        self._places: dict[tuple[str, str, str | None], tuple[tuple[str, ...], float]] = {}

    def _place(self, unit: Unit) -> tuple[tuple[str, ...], float]:
        """The provinces a unit stands in or can move to, and DumbBot's value of its place
        (both fixed for the phase: computed once per unit type and location)."""
        loc = unit.location
        key = (unit.kind, loc.province, loc.coast)
        found = self._places.get(key)
        if found is None:
            node = (loc.province, loc.coast)
            near = self.geo.reachable_provinces(unit.kind, node)
            found = ((loc.province, *sorted(near)), self.values.value(unit.kind, node))
            self._places[key] = found
        return found

    def reach(self, unit: Unit) -> tuple[str, ...]:
        """The provinces a unit stands in or can move to."""
        return self._place(unit)[0]

    def score(self, state: adj.GameState, winner: str | None = None) -> float:
        s = self.s
        me = self.me
        if winner is not None:
            return s.solo if winner == me else -s.solo
        occupant: dict[str, str] = {}
        near: dict[str, dict[str, int]] = {}
        units = 0.0
        position = 0.0
        places = self._places
        for unit in state.units:
            power = unit.power
            loc = unit.location
            occupant[loc.province] = power
            counts = near.get(power)
            if counts is None:
                counts = near[power] = {}
            found = places.get((unit.kind, loc.province, loc.coast))
            reach, value = found if found is not None else self._place(unit)
            for province in reach:
                counts[province] = counts.get(province, 0) + 1
            if power == me:
                units += 1
                position += value
        for d in state.dislodged:
            if d.unit.power == me and d.retreats:
                units += s.dislodged
        ownership = state.ownership
        mine_near = near.get(me, {})
        others = [counts for power, counts in near.items() if power != me]
        centres = threatened = chances = 0
        for c in self.centres:
            owner = occupant.get(c) or ownership.get(c)
            mine = mine_near.get(c, 0)
            if owner == me:
                centres += 1
                # threatened: one enemy power reaches it with more units than we do
                for counts in others:
                    if counts.get(c, 0) > mine:
                        threatened += 1
                        break
            elif mine:
                # a chance: we reach it with more units than any one other power
                for counts in others:
                    if counts.get(c, 0) >= mine:
                        break
                else:
                    chances += 1
        return (s.centre * centres - s.threat * threatened + s.chance * chances
                + s.unit * units + self.norm * position)


class LookaheadBot:
    """Plays the best of its candidate order sets against sampled futures."""

    name = "LookaheadBot"

    def __init__(self, budget: Budget | None = None, settings: Settings = Settings()) -> None:
        self.budget = budget if budget is not None else Budget(iterations=DEFAULT_ITERATIONS)
        self.settings = settings
        self.reports: list[SearchReport] = []
        """One entry per phase this bot was asked for orders (the newest last)."""
        self.phases_cut = 0
        """Phases the CPU-time limit cut short (`bots.strategy.Searching`)."""

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        allowance = self.budget.start()
        search = _Search(view, rng, allowance, self.settings)
        kind = view.phase_kind
        if kind == MOVEMENT:
            chosen = search.movement()
        elif kind == RETREAT:
            chosen = search.retreats()
        else:
            assert kind == ADJUSTMENT
            chosen = search.adjustments()
        self.reports.append(SearchReport(
            phase=f"{view.season} {view.year}", kind=kind, iterations=allowance.used,
            candidates=search.candidates, seconds=allowance.elapsed(),
            stopped=allowance.stopped))
        del self.reports[:-1000]
        self.phases_cut += allowance.stopped == "time"
        return chosen


Plan = dict[str, UnitOrder]
"""Own orders by the province of the ordered unit."""


class _Search:
    """One phase's search (state shared by its steps)."""

    def __init__(self, view: BoardView, rng: random.Random, allowance: Allowance,
                 settings: Settings) -> None:
        self.view = view
        self.rng = rng
        self.allowance = allowance
        self.s = settings
        self.me = view.power
        self.geo: Geography = view.geography
        self.map: Map = map_of(view.geography)
        self.state = state_of(view)
        self.values = valuation(view)
        self.scorer = Scorer(view, self.values, settings)
        self.candidates = 0
        self.futures: list[dict[str, list[Order]]] = []

    # -- the others ----------------------------------------------------------

    def _predict(self, samples: int) -> None:
        """Sample the other powers' orders from the DumbBot model.

        DumbBot's valuation has no randomness, so it is computed once per
        power and only its noisy planning runs per sample (DumbBot's own
        phase steps, `bots.dumbbot`).
        """
        model = DumbBot()
        kind = self.view.phase_kind
        views = {}
        for power in self.geo.powers:
            view = replace(self.view, power=power)
            if power == self.me:
                continue
            if ((kind == MOVEMENT and view.my_units) or (kind == RETREAT and view.my_dislodged)
                    or (kind == ADJUSTMENT and view.adjustment != 0)):
                views[power] = view
        values = {power: valuation(view) for power, view in views.items()}
        for _ in range(samples):
            seed = self.rng.random()
            future: dict[str, list[Order]] = {}
            for power, view in views.items():
                rng = random.Random(f"{seed}/{power}")
                if kind == MOVEMENT:
                    future[power] = _Movement(view, values[power], rng).plan()
                elif kind == RETREAT:
                    future[power] = model._retreats(view, values[power], rng)
                else:
                    future[power] = model._adjustments(view, values[power], rng)
            self.futures.append(future)

    # -- evaluation ------------------------------------------------------------

    def evaluate(self, own: Sequence[Order]) -> float | None:
        """Mean score of `own` over the sampled futures; None when over budget."""
        futures = self.futures or [{}]
        if not self.allowance.spend(len(futures)):
            return None
        self.candidates += 1
        total = 0.0
        own = list(own)
        for future in futures:
            orders = dict(future)
            orders[self.me] = own
            result = advance(self.map, self.state, orders)
            total += self.scorer.score(result.state, result.winner)
        return total / len(futures)

    # -- movement ----------------------------------------------------------------

    def movement(self) -> list[Order]:
        units = [u for u in self.state.units if u.power == self.me]
        self._predict(self.s.samples)
        tried: dict[frozenset[Order], float] = {}
        best: Plan | None = None
        best_score = float("-inf")
        for _ in range(self.s.own_samples):
            rng = random.Random(self.rng.random())
            plan = self._plan(_Movement(self.view, self.values, rng).plan())
            score = self._score_once(plan, tried)
            if score is None:
                break
            if score > best_score:
                best, best_score = plan, score
        if best is None:        # not even one evaluation allowed: DumbBot's plan
            return DumbBot().orders(self.view, self.rng)
        order = self._unit_order(units)
        improved = True
        while improved and self.allowance.stopped is None:
            improved = False
            for unit in order:
                for plan in self._alternatives(unit, best):
                    score = self._score_once(plan, tried)
                    if score is None:
                        break
                    if score > best_score + 1e-9:
                        best, best_score = plan, score
                        improved = True
                if self.allowance.stopped is not None:
                    break
        return [best[u.location.province] for u in units]

    def _score_once(self, plan: Plan, tried: dict[frozenset[Order], float]
                    ) -> float | None:
        """The plan's expected score, evaluated once: a plan already in `tried` scores
        -inf (never better, no adjudication spent); None when the budget ran out."""
        key = frozenset(plan.values())
        if key in tried:
            return float("-inf")
        score = self.evaluate(list(plan.values()))
        if score is not None:
            tried[key] = score
        return score

    def _plan(self, orders: Sequence[Order]) -> Plan:
        plan: Plan = {}
        for order in orders:
            if not isinstance(order, Waive):
                plan[order.unit.location.province] = order
        for unit in self.state.units:
            if unit.power == self.me and unit.location.province not in plan:
                plan[unit.location.province] = Hold(unit)
        return plan

    def _unit_order(self, units: list[Unit]) -> list[Unit]:
        """Units whose choices matter most first: those next to centres and enemies."""
        def weight(unit: Unit) -> tuple[int, str]:
            reach = self.scorer.reach(unit)
            centres = sum(1 for p in reach if p in self.geo.centres)
            return (-centres, unit.location.province)
        return sorted(units, key=weight)

    def _alternatives(self, unit: Unit, plan: Plan) -> Iterator[Plan]:
        """Plans differing from `plan` in this unit's order (and a supporter's)."""
        here = unit.location.province
        mine = {p: o for p, o in plan.items()}
        options: list[UnitOrder] = [Hold(unit)]
        node = (here, unit.location.coast)
        for dest in self.geo.neighbours(unit.kind, node):
            options.append(Move(unit, Location(dest[0], dest[1])))
        reach = self.geo.reachable_provinces(unit.kind, node)
        for province, order in mine.items():
            if province == here:
                continue
            other = order.unit
            target = _target(order)
            if target is None:
                if province in reach:
                    options.append(SupportHold(unit, other))
            elif target in reach:
                options.append(SupportMove(unit, other, target))
        for option in options:
            new = dict(plan)
            new[here] = option
            yield _consistent(new)
        # An attack with a supporter: the move plus one own unit supporting it.
        for option in options:
            if not isinstance(option, Move):
                continue
            target = option.dest.province
            for province in sorted(mine):
                if province == here:
                    continue
                helper = mine[province].unit
                if target not in self.scorer.reach(helper)[1:]:
                    continue
                new = dict(plan)
                new[here] = option
                new[province] = SupportMove(helper, unit, target)
                yield _consistent(new)

    # -- retreats ------------------------------------------------------------------

    def retreats(self) -> list[Order]:
        mine = [d for d in self.state.dislodged if d.unit.power == self.me]
        self._predict(self.s.retreat_samples)
        choices: list[list[Order]] = [
            [*(Retreat(d.unit, loc) for loc in d.retreats), Disband(d.unit)]
            for d in mine]
        return self._best_combination(choices)

    # -- adjustments -----------------------------------------------------------------

    def adjustments(self) -> list[Order]:
        owed = self.view.adjustment
        self._predict(self.s.retreat_samples)
        if owed < 0:
            units = sorted((u for u in self.state.units if u.power == self.me),
                           key=lambda u: u.location.province)
            return self._best_removals(units, -owed)
        sites = self.view.build_sites()
        options: list[list[Order]] = []
        for site in sites:
            site_options: list[Order] = []
            if self.geo.is_land(site):
                site_options.append(Build(Unit(self.me, AMY, Location(site))))
            for node in self.geo.fleet_nodes(site):
                site_options.append(Build(
                    Unit(self.me, FLT, Location(node[0], node[1]))))
            options.append(site_options)
        builds = min(owed, len(options))
        chosen = self._best_builds(options, builds)
        return chosen + [Waive(self.me)] * (owed - len(chosen))

    def _best_builds(self, options: list[list[Order]], builds: int) -> list[Order]:
        """The best `builds` builds, one per site (all combinations, or greedily)."""
        if builds == 0:
            return []
        combos = 0
        for sites in itertools.combinations(range(len(options)), builds):
            n = 1
            for i in sites:
                n *= len(options[i])
            combos += n
        if combos <= self.s.max_combinations:
            sets = [list(choice) for sites in itertools.combinations(range(len(options)), builds)
                    for choice in itertools.product(*(options[i] for i in sites))]
            return sets[self._best_index(sets)]
        chosen: list[Order] = []
        left = list(range(len(options)))
        for _ in range(builds):
            trials = [(chosen + [order], i) for i in left for order in options[i]]
            index = self._best_index([t for t, _ in trials])
            chosen = trials[index][0]
            left.remove(trials[index][1])
        return chosen

    def _best_removals(self, units: list[Unit], count: int) -> list[Order]:
        count = min(count, len(units))
        total = 1
        for i in range(count):
            total = total * (len(units) - i) // (i + 1)
        if total <= self.s.max_combinations:
            sets: list[list[Order]] = [[Remove(u) for u in combo]
                                            for combo in itertools.combinations(units, count)]
            return sets[self._best_index(sets)]
        chosen: list[Order] = []
        left = list(units)
        for _ in range(count):
            trials = [chosen + [Remove(u)] for u in left]
            index = self._best_index(trials)
            chosen = trials[index]
            left.pop(index)
        return chosen

    def _best_combination(self, choices: list[list[Order]]) -> list[Order]:
        """Best of every combination of one option per unit (greedy if too many)."""
        total = 1
        for c in choices:
            total *= len(c)
        if total <= self.s.max_combinations:
            sets = [list(combo) for combo in itertools.product(*choices)]
            return sets[self._best_index(sets)]
        current = [c[-1] for c in choices]
        for i, options in enumerate(choices):
            trials = [current[:i] + [o] + current[i + 1:] for o in options]
            current = trials[self._best_index(trials)]
        return current

    def _best_index(self, sets: Sequence[list[Order]]) -> int:
        """Index of the best-scoring order set (the first when the budget allows none)."""
        best_index = 0
        best_score = float("-inf")
        for index, orders in enumerate(sets):
            score = self.evaluate(orders)
            if score is None:
                break
            if score > best_score:
                best_index, best_score = index, score
        return best_index


def _target(order: Order) -> str | None:
    """The province a unit's order takes it to (None: it stays)."""
    return kind_of(order).goes_to(order)


def _consistent(plan: Plan) -> Plan:
    """Turn own supports and convoys that do not match their unit's order into
    holds (`bots.orders.agrees`), until all that are left match."""
    changed = True
    while changed:
        changed = False
        for province, order in list(plan.items()):
            if not agrees(order, plan):
                plan[province] = Hold(order.unit)
                changed = True
    return plan


__all__ = ["LookaheadBot", "Scorer", "SearchReport", "Settings"]
