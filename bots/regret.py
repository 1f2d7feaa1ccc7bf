"""RegretBot: a no-press bot whose strength does not rest on knowing its opponents.

Every movement phase it plays a small simultaneous-move game on the
project's adjudicator (`adjudicator.advance`, on the map `bots.futures`
rebuilds from the view, so any variant):

1. **Beliefs.**  For every other power, a weight per policy of a mixture
   (`bots.opponents`: DumbBot-like planning with several weightings,
   attack-the-weakest-neighbour, defend-home, random-but-sensible, holding,
   random), updated from the orders each power was seen to give in the
   previous movement phase (the ORD results: `observe`).
2. **Candidates.**  Every policy is sampled for every power; the others get
   the ``others`` most believed distinct order sets, weighted by belief
   (their *prior*); the bot itself gets up to ``own`` distinct sets from all
   policies but the random ones.  On the standard map in spring 1901 the
   well-known openings join both as a prior (`bots.openings`).
3. **Regret matching** (`bots.equilibrium`): sampled RM+ over the joint
   choices, every power's candidates valued by the evaluation of the
   adjudicated position for that power (`bots.evaluation`), each other
   power's draws anchored to its prior - the search expects to be predicted
   by opponents who also respond to it, without assuming they do so
   perfectly.
4. **Choice and refinement.**  The bot takes its candidate with the best
   mean value against the others' draws, then hill-climbs it (one unit's
   order at a time, or a move with a supporting unit) against a fixed set
   of joint predictions drawn from the others' final mixtures (their prior
   and their regret-matching strategy), with what is left of the budget.
   A plan's value there is half its mean over those predictions and half
   its worst (``caution``), and in part (``raid``) its value against the
   *raids* (`raids`): for each of the bot's centres (owned or occupied), the
   first prediction with the power that reaches that centre most attacking
   it - one unit walks in, its power's other units that reach it support -
   where the plan's value is its value against that prediction less what it
   loses in each raid, added up.  The predictions come from models; an
   opponent of another kind plays outside them and finds the hole a plan
   tuned to them leaves - the worst prediction and the raids are what keep
   the bot from leaving it for nothing.  One raid per centre, because a single
   raid on all of them must send each attacker to one centre, and a plan
   can guard exactly those (with Russia's army in Galicia sent to Budapest,
   Austria's army left Vienna open to it).

Retreats and adjustments: every combination of the bot's retreats, builds
or removals (greedily past ``max_combinations``), each adjudicated against
a few samples of the others' DumbBot-like choices and valued by the same
evaluation.

The search spends a `bots.budget.Budget` (``daide bot regret --budget``):
each adjudication is one iteration, and regret matching may use at most
``rm_share`` of it.  With an iteration budget the bot is deterministic for
a seed; the CPU-time limit (1 s by default) is a safety net.
`RegretBot.reports` keeps what each phase's search spent.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from adjudicator import advance
from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardView
from bots.budget import Allowance, Budget
from bots.dumbbot import DumbBot
from bots.equilibrium import draw, mix, solve
from bots.evaluation import Evaluator, EvalWeights
from bots.futures import map_of, state_of
from bots.geography import Geography
from bots.lookahead import _consistent, _target
from bots.openings import openings
from bots.opponents import (
    POLICIES,
    Beliefs,
    Evidence,
    PowerModels,
    evidence_of,
    models_for,
    sample,
)
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
)

DEFAULT_ITERATIONS = 2600
"""Adjudications per phase by default on a map the size of the standard one (and
at most 1 s of CPU: docs/bots.md); see `default_budget`."""

STANDARD_CENTRES = 34
"""The standard map's supply centres: the size `DEFAULT_ITERATIONS` is set for."""

Plan = dict[str, UnitOrder]
"""Own orders by the province of the ordered unit."""


@dataclass(frozen=True)
class RegretSettings:
    """Search sizes."""

    others: int = 4
    """Candidate order sets per other power."""
    own: int = 8
    """Candidate order sets of the bot's own."""
    opening_weight: float = 0.5
    """Share of an other power's prior given to the standard openings, when they apply."""
    anchor: float = 0.4
    """Share of each other power's draws taken from its prior (the rest: its RM strategy)."""
    rm_iterations: int = 100
    rm_share: float = 0.55
    """Share of the budget regret matching may use; the rest refines the choice."""
    futures: int = 10
    """Joint predictions the refinement judges the bot's orders against: with few,
    their worst is one unlucky draw and a plan tuned to the rest gets through."""
    caution: float = 0.5
    """Weight of a plan's worst outcome over the predictions against their mean."""
    raid: float = 0.3
    """Weight of the raids in the refinement's value of a plan (the rest: its value
    over the predictions)."""
    retreat_samples: int = 3
    max_combinations: int = 96
    weights: EvalWeights = EvalWeights()


@dataclass(frozen=True)
class RegretReport:
    """What one phase's search did."""

    phase: str
    kind: str
    iterations: int
    """Adjudications spent."""
    rm_iterations: int
    """Complete regret-matching iterations (movement phases)."""
    candidates: int
    """The bot's own order sets valued (regret-matching candidates and refinements)."""
    seconds: float
    stopped: str | None
    """``iterations`` or ``time`` when the budget cut the search short."""


@dataclass
class _Memory:
    """What the bot keeps from phase to phase for one power it plays."""

    beliefs: Beliefs = field(default_factory=Beliefs)
    evidence: dict[tuple[str, int], dict[str, Evidence]] = field(default_factory=dict)
    """(season, year) of a movement phase -> what the policies predicted for each power."""
    seen: dict[tuple[str, int], list[Order]] = field(default_factory=dict)
    """(season, year) -> the orders every power gave (ORD results)."""


class RegretBot:
    """Regret matching over candidates from a belief-weighted mixture of opponent
    models (see the module doc)."""

    name = "RegretBot"

    def __init__(self, budget: Budget | None = None,
                 settings: RegretSettings = RegretSettings()) -> None:
        self.budget = budget if budget is not None else Budget(iterations=DEFAULT_ITERATIONS)
        self._scaled = budget is None
        """Whether the budget is the default, scaled to each map (`default_budget`)."""
        self.settings = settings
        self.reports: list[RegretReport] = []
        """One entry per phase this bot was asked for orders (the newest last)."""
        self.phases_cut = 0
        """Phases the CPU-time limit cut short (`bots.strategy.Searching`)."""
        self._memory: dict[str, _Memory] = {}

    def beliefs(self, power: str) -> Beliefs:
        """The beliefs kept while playing `power`."""
        return self._memory.setdefault(power, _Memory()).beliefs

    def observe(self, season: str, year: int, orders: Sequence[Order]) -> None:
        """The orders given in a processed phase (every power's: the ORD results)."""
        for memory in self._memory.values():
            memory.seen[(season, year)] = list(orders)
            del_keys = list(memory.seen)[:-4]
            for key in del_keys:
                del memory.seen[key]

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        budget = default_budget(view.geography) if self._scaled else self.budget
        allowance = budget.start()
        memory = self._memory.setdefault(view.power, _Memory())
        _learn(memory)
        search = _RegretSearch(view, rng, allowance, self.settings, memory)
        kind = view.phase_kind
        if kind == MOVEMENT:
            chosen = search.movement()
        elif kind == RETREAT:
            chosen = search.retreats()
        else:
            assert kind == ADJUSTMENT
            chosen = search.adjustments()
        self.reports.append(RegretReport(
            phase=f"{view.season} {view.year}", kind=kind, iterations=allowance.used,
            rm_iterations=search.rm_iterations, candidates=search.candidates,
            seconds=allowance.elapsed(), stopped=allowance.stopped))
        del self.reports[:-1000]
        self.phases_cut += allowance.stopped == "time"
        return chosen


def default_budget(geo: Geography) -> Budget:
    """The default budget on `geo`: `DEFAULT_ITERATIONS`, fewer on a map with more
    centres than the standard one, in proportion.  An adjudication costs about in
    proportion to the units on the board, and they to the centres; so a phase of a
    larger variant (modern: 64 centres, ten powers) stays below the 1 s safety limit
    as on the standard map, and its games replay from their seeds."""
    share = min(1.0, STANDARD_CENTRES / max(1, len(geo.centres)))
    return Budget(iterations=max(1, round(DEFAULT_ITERATIONS * share)))


def _learn(memory: _Memory) -> None:
    """Update the beliefs from every phase both predicted and seen, then forget it."""
    for key in list(memory.evidence):
        seen = memory.seen.get(key)
        if seen is None:
            continue
        by_power: dict[str, list[Order]] = {}
        for order in seen:
            if not isinstance(order, Waive):
                by_power.setdefault(order.unit.power, []).append(order)
        for power, evidence in memory.evidence.pop(key).items():
            memory.beliefs.update(power, evidence, by_power.get(power, []))
    # predictions never matched by results (a missed ORD) are not kept for ever
    for key in list(memory.evidence)[:-2]:
        del memory.evidence[key]


class _RegretSearch:
    """One phase's search (state shared by its steps)."""

    def __init__(self, view: BoardView, rng: random.Random, allowance: Allowance,
                 settings: RegretSettings, memory: _Memory) -> None:
        self.view = view
        self.rng = rng
        self.allowance = allowance
        self.s = settings
        self.memory = memory
        self.me = view.power
        self.geo = view.geography
        self.map: Map = map_of(view.geography)
        self.state = state_of(view)
        self.models = {p: models_for(view, p) for p in self.geo.powers}
        self.evaluator = Evaluator(self.geo, {p: m.dumbbot for p, m in self.models.items()},
                                   settings.weights)
        self.candidates = 0
        self.rm_iterations = 0

    # -- budget --------------------------------------------------------------------

    def _within_share(self) -> bool:
        """Whether regret matching may go on (it may use ``rm_share`` of the budget)."""
        budget = self.allowance.budget
        share = self.s.rm_share
        if budget.iterations is not None and self.allowance.used >= share * budget.iterations:
            return False
        if budget.seconds is not None and self.allowance.elapsed() >= share * budget.seconds:
            return False
        return True

    def _adjudicate(self, orders: Mapping[str, Sequence[Order]]) -> dict[str, float] | None:
        """Every power's value of the position after `orders`; None when over budget."""
        if not self.allowance.spend(1):
            return None
        result = advance(self.map, self.state, orders)
        return self.evaluator.scores(result.state, result.winner)

    # -- movement --------------------------------------------------------------------

    def movement(self) -> list[Order]:
        view = self.view
        units = [u for u in self.state.units if u.power == self.me]
        powers = [p for p in self.geo.powers if view.units_of(p)]
        evidence: dict[str, Evidence] = {}
        cands: list[list[list[Order]]] = []
        priors: list[list[float]] = []
        anchors: list[float] = []
        for power in powers:
            samples = self._samples(self.models[power])
            if power == self.me:
                sets, prior = self._own_candidates(samples)
                anchors.append(0.0)
            else:
                evidence[power] = evidence_of(self.models[power].view, samples)
                sets, prior = self._their_candidates(power, samples)
                anchors.append(self.s.anchor)
            cands.append(sets)
            priors.append(prior)
        self.memory.evidence[(view.season, view.year)] = evidence
        me = powers.index(self.me)

        def payoff(joint: tuple[int, ...]) -> list[float] | None:
            orders = {p: cands[i][k] for i, (p, k) in enumerate(zip(powers, joint, strict=True))}
            got = self._adjudicate(orders)
            return None if got is None else [got[p] for p in powers]

        solution = solve([len(c) for c in cands], priors, anchors, payoff, self.rng,
                         self.s.rm_iterations, self._within_share)
        self.rm_iterations = solution.iterations
        self.candidates += len(cands[me])
        if solution.iterations == 0:        # not even one iteration allowed
            return DumbBot().orders(view, self.rng)
        values = solution.values[me]
        best_index = max(range(len(values)),
                         key=lambda k: (values[k], solution.average[me][k]))
        best = _plan_of(cands[me][best_index], units)
        # refine against joint predictions drawn from the others' final mixtures
        mixtures = [mix(priors[i], solution.average[i], anchors[i]) for i in range(len(powers))]
        futures = []
        for _ in range(max(1, self.s.futures)):      # the raids need a first one
            futures.append({p: cands[i][draw(mixtures[i], self.rng)]
                            for i, p in enumerate(powers) if i != me})
        best = self._climb(best, units, futures)
        return [best[u.location.province] for u in units]

    def _samples(self, models: PowerModels) -> list[list[list[Order]]]:
        """Per policy, its sampled order sets for one power."""
        out = []
        for policy in POLICIES:
            out.append([sample(models, policy, random.Random(self.rng.random()))
                        for _ in range(policy.samples)])
        return out

    def _their_candidates(self, power: str, samples: list[list[list[Order]]]
                          ) -> tuple[list[list[Order]], list[float]]:
        """The most believed distinct order sets of another power, and their prior."""
        weights = self.memory.beliefs.weights(power)
        pool: dict[frozenset[Order], tuple[list[Order], float]] = {}
        for w, plans in zip(weights, samples, strict=True):
            for plan in plans:
                key = frozenset(plan)
                old = pool.get(key)
                share = w / len(plans)
                pool[key] = (plan, share + (old[1] if old else 0.0))
        ranked = sorted(pool.values(), key=lambda pw: -pw[1])[:self.s.others]
        sets = [plan for plan, _ in ranked]
        prior = [w for _, w in ranked]
        known = openings(self.view, power)
        if known:
            total = sum(prior)
            prior = [w * (1 - self.s.opening_weight) / total for w in prior]
            for plan in known:
                sets.append(plan)
                prior.append(self.s.opening_weight / len(known))
        return sets, _normalised(prior)

    def _own_candidates(self, samples: list[list[list[Order]]]
                        ) -> tuple[list[list[Order]], list[float]]:
        """Distinct own order sets from the planning policies, the openings first."""
        seen: set[frozenset[Order]] = set()
        sets: list[list[Order]] = []
        for plan in openings(self.view, self.me):
            seen.add(frozenset(plan))
            sets.append(plan)
        ranked = sorted(range(len(POLICIES)), key=lambda i: -POLICIES[i].prior)
        # round-robin over the policies, so every kind of plan is among the candidates
        rounds = max(len(s) for s in samples)
        for r in range(rounds):
            for i in ranked:
                if POLICIES[i].name in ("random", "holder") or r >= len(samples[i]):
                    continue
                plan = samples[i][r]
                key = frozenset(plan)
                if key not in seen and len(sets) < self.s.own:
                    seen.add(key)
                    sets.append(plan)
        return sets, [1.0 / len(sets)] * len(sets)

    # -- refinement -------------------------------------------------------------------

    def _evaluate(self, plan: Plan, futures: list[dict[str, list[Order]]],
                  raided: list[dict[str, list[Order]]]) -> float | None:
        """Value of `plan` for the bot: its mean and its worst over `futures`
        (``caution``), weighed (``raid``) with its value against the raids on the
        first of them, `raided`: its value against that first prediction less
        what it loses in each raid; None when over budget."""
        own: list[Order] = list(plan.values())
        outcomes = []
        for future in [*futures, *raided]:
            got = self._adjudicate({**future, self.me: own})
            if got is None:
                return None
            outcomes.append(got[self.me])
        self.candidates += 1
        predicted, against = outcomes[:len(futures)], outcomes[len(futures):]
        caution = self.s.caution
        expected = (1 - caution) * sum(predicted) / len(predicted) + caution * min(predicted)
        # every centre a determined attack would take counts: the losses add up
        raided_value = predicted[0] + sum(value - predicted[0] for value in against)
        return (1 - self.s.raid) * expected + self.s.raid * raided_value

    def _climb(self, best: Plan, units: list[Unit], futures: list[dict[str, list[Order]]]
               ) -> Plan:
        # the raids are the same for every plan: the first prediction, raided
        # once per centre
        occupied = [u.location.province for u in units]
        raided = raids(self.geo, self.view.owners, self.me, futures[0], occupied)
        best_score = self._evaluate(best, futures, raided)
        if best_score is None:
            return best
        tried = {frozenset(best.values())}
        improved = True
        while improved and self.allowance.stopped is None:
            improved = False
            for unit in units:
                for plan in self._alternatives(unit, best):
                    key = frozenset(plan.values())
                    if key in tried:
                        continue
                    tried.add(key)
                    score = self._evaluate(plan, futures, raided)
                    if score is None:
                        return best
                    if score > best_score + 1e-9:
                        best, best_score = plan, score
                        improved = True
        return best

    def _alternatives(self, unit: Unit, plan: Plan) -> Iterator[Plan]:
        """Plans differing from `plan` in this unit's order (and a supporter's)."""
        here = unit.location.province
        node = (here, unit.location.coast)
        options: list[UnitOrder] = [Hold(unit)]
        for dest in self.geo.neighbours(unit.kind, node):
            options.append(Move(unit, Location(dest[0], dest[1])))
        reach = self.geo.reachable_provinces(unit.kind, node)
        for province, order in plan.items():
            if province == here:
                continue
            target = _target(order)
            if target is None:
                if province in reach:
                    options.append(SupportHold(unit, order.unit))
            elif target in reach:
                options.append(SupportMove(unit, order.unit, target))
        for option in options:
            new = dict(plan)
            new[here] = option
            yield _consistent(new)
        for option in options:        # an attack with a supporter
            if not isinstance(option, Move):
                continue
            target = option.dest.province
            for province in sorted(plan):
                helper = plan[province].unit
                if province == here or target not in self.geo.reachable_provinces(
                        helper.kind, (province, helper.location.coast)):
                    continue
                new = dict(plan)
                new[here] = option
                new[province] = SupportMove(helper, unit, target)
                yield _consistent(new)

    # -- retreats and adjustments ---------------------------------------------------------

    def _their_choices(self) -> list[dict[str, list[Order]]]:
        """Samples of the others' retreats or adjustments (DumbBot-like)."""
        model = DumbBot()
        kind = self.view.phase_kind
        out = []
        for _ in range(self.s.retreat_samples):
            future: dict[str, list[Order]] = {}
            for power, models in self.models.items():
                view = models.view
                if power == self.me:
                    continue
                rng = random.Random(self.rng.random())
                if kind == RETREAT and view.my_dislodged:
                    future[power] = model._retreats(view, models.dumbbot, rng)
                elif kind == ADJUSTMENT and view.adjustment != 0:
                    future[power] = model._adjustments(view, models.dumbbot, rng)
            out.append(future)
        return out

    def _best(self, sets: Sequence[list[Order]], futures: list[dict[str, list[Order]]]) -> int:
        """Index of the best of `sets` (the first when the budget allows none)."""
        best_index, best_score = 0, float("-inf")
        for index, own in enumerate(sets):
            total = 0.0
            for future in futures:
                got = self._adjudicate({**future, self.me: own})
                if got is None:
                    return best_index
                total += got[self.me]
            self.candidates += 1
            if total > best_score:
                best_index, best_score = index, total
        return best_index

    def retreats(self) -> list[Order]:
        mine = [d for d in self.state.dislodged if d.unit.power == self.me]
        futures = self._their_choices()
        choices: list[list[Order]] = [
            [*(Retreat(d.unit, loc) for loc in d.retreats), Disband(d.unit)] for d in mine]
        total = 1
        for c in choices:
            total *= len(c)
        if total <= self.s.max_combinations:
            sets = [list(combo) for combo in itertools.product(*choices)]
            return sets[self._best(sets, futures)]
        current = [c[-1] for c in choices]
        for i, options in enumerate(choices):
            trials = [current[:i] + [o] + current[i + 1:] for o in options]
            current = trials[self._best(trials, futures)]
        return current

    def adjustments(self) -> list[Order]:
        owed = self.view.adjustment
        futures = self._their_choices()
        if owed < 0:
            units = sorted((u for u in self.state.units if u.power == self.me),
                           key=lambda u: u.location.province)
            count = min(-owed, len(units))
            combos = list(itertools.islice(itertools.combinations(units, count),
                                           self.s.max_combinations + 1))
            if len(combos) <= self.s.max_combinations:
                sets: list[list[Order]] = [[Remove(u) for u in c] for c in combos]
                return sets[self._best(sets, futures)]
            chosen: list[Order] = []
            left = list(units)
            for _ in range(count):
                trials = [chosen + [Remove(u)] for u in left]
                index = self._best(trials, futures)
                chosen = trials[index]
                left.pop(index)
            return chosen
        options: list[list[Order]] = []
        for site in self.view.build_sites():
            site_options: list[Order] = []
            if self.geo.is_land(site):
                site_options.append(Build(Unit(self.me, AMY, Location(site))))
            for node in self.geo.fleet_nodes(site):
                site_options.append(Build(Unit(self.me, FLT, Location(node[0], node[1]))))
            options.append(site_options)
        builds = min(owed, len(options))
        picked: list[Order] = []
        left_sites = list(range(len(options)))
        # greedily, one build at a time: each the best given those already chosen
        for _ in range(builds):
            tries = [(picked + [order], i) for i in left_sites for order in options[i]]
            index = self._best([t for t, _ in tries], futures)
            picked = tries[index][0]
            left_sites.remove(tries[index][1])
        return picked + [Waive(self.me)] * (owed - len(picked))


def raids(geo: Geography, owners: Mapping[str, str | None], me: str,
          future: Mapping[str, Sequence[Order]],
          occupied: Sequence[str] = ()) -> list[dict[str, list[Order]]]:
    """One raid per centre of `me` - those it owns and those it occupies
    (`occupied`), which it owns at the winter if it keeps them - in name order:
    `future` (the other powers' orders) with the power whose units reach that
    centre most (the first in `future`'s order on a tie) attacking it, as a power
    would that meant the attack: the first of those units walks in and the others
    support it; every other order stays as it was (the adjudicator voids supports
    that no longer match).  A centre no other unit can walk into has no raid."""
    mine = sorted({c for c, owner in owners.items() if owner == me}
                  | (set(occupied) & geo.centres))
    out: list[dict[str, list[Order]]] = []
    for centre in mine:
        attack: tuple[str, list[tuple[int, Unit]]] | None = None
        """The raiding power and its units that reach the centre (with the index of
        each one's order); the first of them walks in."""
        for power, orders in future.items():
            reaching: list[tuple[int, Unit]] = []
            for i, order in enumerate(orders):
                if isinstance(order, Waive) or order.unit.location.province == centre:
                    continue
                unit = order.unit
                if centre in geo.reachable_provinces(unit.kind, (unit.location.province,
                                                                 unit.location.coast)):
                    reaching.append((i, unit))
            if reaching and (attack is None or len(reaching) > len(attack[1])):
                attack = (power, reaching)
        if attack is None:
            continue
        power, reaching = attack
        walker = reaching[0][1]
        dest = min((d for d in geo.neighbours(walker.kind, (walker.location.province,
                                                            walker.location.coast))
                    if d[0] == centre), key=str)
        orders = list(future[power])
        for i, unit in reaching:
            orders[i] = (Move(unit, Location(dest[0], dest[1])) if unit == walker
                         else SupportMove(unit, walker, centre))
        out.append({**{p: list(o) for p, o in future.items()}, power: orders})
    return out


def _plan_of(orders: Sequence[Order], units: list[Unit]) -> Plan:
    plan: Plan = {}
    for order in orders:
        if not isinstance(order, Waive):
            plan[order.unit.location.province] = order
    for unit in units:
        plan.setdefault(unit.location.province, Hold(unit))
    return _consistent(plan)


def _normalised(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights] if total > 0 else [1.0 / len(weights)] * len(weights)


__all__ = ["DEFAULT_ITERATIONS", "STANDARD_CENTRES", "RegretBot", "RegretReport",
           "RegretSettings", "default_budget", "raids"]
