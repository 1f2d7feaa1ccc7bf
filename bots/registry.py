"""The sample bots by name, as `daide bot`, `daide demo` and the benchmark use them."""

from __future__ import annotations

from collections.abc import Callable

from bots.dumbbot import DumbBot
from bots.holdbot import HoldBot
from bots.randbot import RandBot
from bots.strategy import Strategy

STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "holdbot": HoldBot,
    "randbot": RandBot,
    "dumbbot": DumbBot,
}
"""Lower-case name -> factory of a fresh strategy."""


def make_strategy(name: str) -> Strategy:
    """A new strategy by name (``holdbot``, ``randbot``, ``dumbbot``); KeyError if unknown."""
    return STRATEGIES[name.lower()]()
