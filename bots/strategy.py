"""The strategy interface: a board in, orders out.

A strategy is a pure decision function.  It is given a read-only
`BoardView` (whose power it plays, the phase, every unit, centre owners) and
a seeded `random.Random`, and returns the orders for that phase as values
of the one order model (`orders`: ``Hold``, ``Move`` ...; `bots.orders` makes
their units from the view's).  It never sees a socket, a clock or the client:
the same strategy plays over TCP (`bots.client`) and in process
(`bots.local`), and the same seed gives the same orders.

Return every order the phase needs (see docs/protocol.md §9.1):

* movement: one order per own unit (a missing one holds);
* retreat: one RTO or DSB per own dislodged unit;
* adjustment: builds and one ``power WVE`` per unused build, or exactly the
  removals owed.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from bots.board import BoardView
from orders import Order


class Strategy(Protocol):
    """What a bot author implements."""

    name: str
    """Short name shown in NME and logs, e.g. ``"DumbBot"``."""

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        """Choose this phase's orders for ``view.power``."""
        ...


@runtime_checkable
class Searching(Protocol):
    """A strategy that searches within a `bots.budget.Budget` (LookaheadBot, RegretBot)."""

    phases_cut: int
    """Phases whose search the CPU-time limit cut short.  With an iteration budget the
    bot plays the same orders for a seed on any machine until this is above zero; a
    game with a phase cut may not replay from its seed (`bots.budget`)."""


def phase_rng(seed: int, power: str, season: str, year: int) -> random.Random:
    """The generator a strategy gets for one phase.

    Derived from the bot's seed and the phase alone, so the orders do not
    depend on message timing, reconnections or how many phases this process
    has seen (the determinism the demo's ``--seed`` relies on).  A string seed
    is hashed with SHA-512 by `random.Random`, independent of PYTHONHASHSEED.
    """
    return random.Random(f"{seed}/{power}/{season}/{year}")
