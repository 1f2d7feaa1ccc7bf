"""The sample bots by name, as `daide bot`, `daide demo` and the benchmark use them."""

from __future__ import annotations

from collections.abc import Callable

from bots.budget import Budget
from bots.dumbbot import DumbBot
from bots.holdbot import HoldBot
from bots.lookahead import LookaheadBot
from bots.randbot import RandBot
from bots.regret import RegretBot
from bots.strategy import Strategy

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "holdbot": HoldBot,
    "randbot": RandBot,
    "dumbbot": DumbBot,
    "lookahead": LookaheadBot,
    "regret": RegretBot,
}
"""Lower-case name -> factory of a fresh strategy."""

BUDGETED: dict[str, Callable[[Budget], Strategy]] = {
    "lookahead": LookaheadBot,
    "regret": RegretBot,
}
"""The bots that search, and so take a `Budget` (``daide bot --budget``): name -> factory."""


def make_strategy(name: str, budget: Budget | None = None) -> Strategy:
    """A new strategy by name (``holdbot``, ``randbot``, ``dumbbot``, ``lookahead``,
    ``regret``).

    KeyError if unknown; ValueError when a budget is given to a bot that does
    not search.
    """
    key = name.lower()
    factory = STRATEGIES[key]
    if budget is None:
        return factory()
    if key not in BUDGETED:
        raise ValueError(f"{name} does not search: a budget applies to "
                         f"{', '.join(sorted(BUDGETED))} only")
    return BUDGETED[key](budget)
