"""Opponent models that are not one bot: a mixture of policies, and beliefs
per power updated from the orders each power was seen to give.

RegretBot (`bots.regret`) does not assume its opponents play like any one
program.  For every power it keeps a *belief*: a weight per policy of
`POLICIES`, each a plausible way to play a movement phase -

* ``dumbbot``: DumbBot's planning on its own valuation (`bots.dumbbot`,
  `bots.values`);
* ``attacker``: the same planning with attack weighed up and defence down;
* ``defender``: defend home - own threatened centres weigh most;
* ``weakest``: attack the weakest neighbour - the centres of the smallest
  power next to its units are worth three times more;
* ``sensible``: random but sensible - DumbBot's planning (no self-bounces,
  matching supports) on values drawn at random, so it goes anywhere;
* ``holder``: every unit holds (a static or absent player);
* ``random``: uniformly random legal orders (`bots.randbot`).

Each phase every policy is sampled for every other power (`sample`); the
samples are both the candidate order sets the search considers for that
power and, once the phase's orders are known (the ORD results, which the
client hands to the bot's ``observe``), the evidence that updates the belief
(`Beliefs.update`): per unit, a policy's likelihood of the order actually
given is the share of its samples that gave it, smoothed; ``random``'s is
one over the unit's number of choices.  The update is tempered and the
weights keep a floor, so one odd phase does not rule a policy out for good.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bots.board import BoardView
from bots.dumbbot import _Movement
from bots.holdbot import HoldBot
from bots.randbot import RandBot
from bots.values import (
    DEFAULT_WEIGHTS,
    Valuation,
    Weights,
    base_values,
    spread_valuation,
    valuation,
)
from orders import Order, Waive

_ATTACK = Weights(attack={"SPR": 1.0, "SUM": 1.0, "FAL": 0.9, "AUT": 0.9, "WIN": 0.6},
                  defence={"SPR": 0.05, "SUM": 0.05, "FAL": 0.1, "AUT": 0.1, "WIN": 0.3},
                  neutral=75.0)
_DEFEND = Weights(attack={"SPR": 0.35, "SUM": 0.35, "FAL": 0.3, "AUT": 0.3, "WIN": 0.3},
                  defence={"SPR": 0.8, "SUM": 0.8, "FAL": 1.0, "AUT": 1.0, "WIN": 1.0})
WEAKEST_FACTOR = 3.0
"""How much more the weakest neighbour's centres are worth to ``weakest``."""


@dataclass(frozen=True)
class Policy:
    """One way to play a movement phase, and how sure a sample of it is."""

    name: str
    prior: float
    """Belief weight before any order is seen (normalised over the policies)."""
    samples: int
    """Samples drawn per power and phase (1 for a policy without randomness)."""


POLICIES: tuple[Policy, ...] = (
    Policy("dumbbot", 3.0, 2),
    Policy("attacker", 2.0, 2),
    Policy("defender", 1.5, 2),
    Policy("weakest", 1.5, 2),
    Policy("sensible", 1.0, 2),
    Policy("holder", 0.5, 1),
    Policy("random", 0.5, 2),
)
POLICY_INDEX = {p.name: i for i, p in enumerate(POLICIES)}

FLOOR = 0.03
"""Share of every belief spread evenly over the policies (none is ever ruled out)."""
TEMPER = 0.5
"""Evidence of one phase counts this much (log-likelihoods are multiplied by it)."""
SMOOTH = 0.25
"""Pseudo-count of an order no sample of a policy gave."""


def weakest_neighbours(view: BoardView) -> frozenset[str]:
    """The powers with fewest centres among those with a unit next to ours (none
    when no other power is next to us).

    Every power tied for fewest is one: a tie broken by name would make the
    first power in the alphabet (AUS on the standard map, where everyone starts
    with three) the target of all its neighbours' ``weakest`` samples from the
    first phase on - and RegretBot's own candidates include those samples.
    """
    geo = view.geography
    mine: set[str] = set()
    for unit in view.my_units:
        mine.add(unit.province)
        mine |= geo.reachable_provinces(unit.kind, unit.node)
    near = {u.power for u in view.units if u.power != view.power and u.province in mine}
    if not near:
        return frozenset()
    fewest = min(view.centre_count(p) for p in near)
    return frozenset(p for p in near if view.centre_count(p) == fewest)


def _weakest_valuation(view: BoardView) -> Valuation:
    base = base_values(view, DEFAULT_WEIGHTS)
    targets = weakest_neighbours(view)
    for centre, owner in view.owners.items():
        if owner in targets:
            base[centre] *= WEAKEST_FACTOR
    return spread_valuation(view.geography, base, DEFAULT_WEIGHTS.rounds)


def _noisy(values: Valuation, rng: random.Random) -> Valuation:
    """Values with noise as large as their whole range (random but sensible)."""
    every = [*values.army.values(), *values.fleet.values()]
    scale = (max(every) - min(every)) if every else 1.0
    scale = scale or 1.0
    return Valuation(army={n: v + scale * rng.random() for n, v in values.army.items()},
                     fleet={n: v + scale * rng.random() for n, v in values.fleet.items()},
                     base=values.base)


@dataclass
class PowerModels:
    """The valuations of one power's policies for one phase (computed once)."""

    view: BoardView
    dumbbot: Valuation
    _cache: dict[str, Valuation] = field(default_factory=dict)

    def values(self, name: str) -> Valuation:
        if name == "dumbbot":
            return self.dumbbot
        found = self._cache.get(name)
        if found is None:
            if name == "attacker":
                found = valuation(self.view, _ATTACK)
            elif name == "defender":
                found = valuation(self.view, _DEFEND)
            else:
                assert name == "weakest"
                found = _weakest_valuation(self.view)
            self._cache[name] = found
        return found


Plan = list[Order]


def sample(models: PowerModels, policy: Policy, rng: random.Random) -> Plan:
    """One movement order set of the power of ``models.view`` under ``policy``."""
    view = models.view
    name = policy.name
    if name == "holder":
        return HoldBot().orders(view, rng)
    if name == "random":
        return RandBot().orders(view, rng)
    if name == "sensible":
        return _Movement(view, _noisy(models.dumbbot, rng), rng).plan()
    return _Movement(view, models.values(name), rng).plan()


def models_for(view: BoardView, power: str) -> PowerModels:
    """The policies' valuations for `power` in the position of `view`."""
    theirs = replace(view, power=power)
    return PowerModels(theirs, valuation(theirs))


@dataclass
class Evidence:
    """What the policies predicted for one power in one movement phase."""

    samples: list[list[Plan]]
    """Per policy (in `POLICIES` order), its sampled order sets."""
    choices: Mapping[str, int]
    """Own unit province -> how many orders that unit could be given (roughly)."""


def evidence_of(view: BoardView, samples: list[list[Plan]]) -> Evidence:
    geo = view.geography
    choices = {u.province: 2 * (1 + len(geo.neighbours(u.kind, u.node))) for u in view.my_units}
    return Evidence(samples, choices)


def _by_unit(plan: Sequence[Order]) -> dict[str, Order]:
    return {o.unit.location.province: o for o in plan if not isinstance(o, Waive)}


class Beliefs:
    """Per power, the log-weight of every policy (see the module doc)."""

    def __init__(self, policies: Sequence[Policy] = POLICIES) -> None:
        self.policies = tuple(policies)
        self._log: dict[str, list[float]] = {}
        self.updates: dict[str, int] = {}
        """How many phases of evidence each power's belief has taken in."""

    def _logs(self, power: str) -> list[float]:
        found = self._log.get(power)
        if found is None:
            total = sum(p.prior for p in self.policies)
            found = self._log[power] = [math.log(p.prior / total) for p in self.policies]
        return found

    def weights(self, power: str) -> list[float]:
        """The belief: one weight per policy, summing to 1, none below the floor."""
        logs = self._logs(power)
        top = max(logs)
        raw = [math.exp(v - top) for v in logs]
        total = sum(raw)
        n = len(raw)
        return [(1 - FLOOR) * r / total + FLOOR / n for r in raw]

    def update(self, power: str, evidence: Evidence, actual: Sequence[Order]) -> None:
        """Take in the orders `power` gave in the phase `evidence` was sampled for."""
        given = _by_unit(actual)
        if not given:
            return
        logs = self._logs(power)
        random_index = POLICY_INDEX.get("random")
        for i, plans in enumerate(evidence.samples):
            total = 0.0
            sampled = [_by_unit(p) for p in plans]
            for province, order in given.items():
                k = evidence.choices.get(province, 10)
                if i == random_index or not sampled:
                    p = 1.0 / k
                else:
                    hits = sum(1 for s in sampled if s.get(province) == order)
                    p = (hits + SMOOTH) / (len(sampled) + SMOOTH * k)
                total += math.log(p)
            logs[i] += TEMPER * total
        top = max(logs)
        for i in range(len(logs)):       # keep the numbers small; only differences count
            logs[i] -= top
        self.updates[power] = self.updates.get(power, 0) + 1

    def summary(self, power: str) -> dict[str, float]:
        """The belief of one power by policy name (for reports and tests)."""
        return {p.name: round(w, 3) for p, w in zip(self.policies, self.weights(power),
                                                     strict=True)}



__all__ = ["POLICIES", "Beliefs", "Evidence", "Policy", "PowerModels", "evidence_of",
           "models_for", "sample", "weakest_neighbours"]
