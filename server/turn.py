"""What the players said during the current phase: orders, GOF, draw votes.

`TurnState` is reset at the start of every phase.  Orders replace each
other per unit in movement and retreat phases (docs/protocol.md §8.3: "later
orders for the same unit replace earlier ones"); adjustment orders
accumulate (each build, removal or waive is its own order).  Draw votes
lapse when the phase is processed (docs/protocol.md §8.10) and GOF is assumed
again at the start of every phase (docs/protocol.md §8.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.position import keep_order
from orders import Order


@dataclass
class TurnState:
    """Orders, readiness and draw votes of the phase being played."""

    season: str
    orders: dict[str, list[Order]] = field(default_factory=dict)
    waiting: set[str] = field(default_factory=set)          # sent NOT (GOF)
    draw_all: set[str] = field(default_factory=set)         # bare DRW votes
    draw_sets: dict[str, set[frozenset[str]]] = field(default_factory=dict)  # DRW (powers)
    revisions: dict[str, int] = field(default_factory=dict)  # power -> changes to its orders

    def revision(self, power: str) -> int:
        """A number that changes whenever the power's orders change (for caches)."""
        return self.revisions.get(power, 0)

    def _changed(self, power: str) -> None:
        self.revisions[power] = self.revisions.get(power, 0) + 1

    def of(self, power: str) -> list[Order]:
        """The power's accepted orders (a copy)."""
        return list(self.orders.get(power, ()))

    def held(self, power: str) -> Sequence[Order]:
        """The power's accepted orders as they stand (not a copy: read, do not keep)."""
        return self.orders.get(power, ())

    def accept(self, power: str, order: Order) -> None:
        """Store an accepted order, replacing the unit's earlier one where that applies."""
        keep_order(self.orders.setdefault(power, []), order, self.season)
        self._changed(power)

    def cancel(self, power: str, order: Order) -> bool:
        """Remove one accepted order equal to ``order``; False if there is none."""
        held = self.orders.get(power, [])
        if order in held:
            held.remove(order)
            self._changed(power)
            return True
        return False

    def clear(self, power: str) -> None:
        """Forget all of the power's orders (NOT (SUB))."""
        self.orders.pop(power, None)
        self._changed(power)

    # --- draws ---------------------------------------------------------------

    def vote_draw(self, power: str, powers: frozenset[str] | None = None) -> None:
        """A bare DRW (``powers`` None) or a partial draw set (PDA)."""
        if powers is None:
            self.draw_all.add(power)
        else:
            self.draw_sets.setdefault(power, set()).add(powers)

    def withdraw_draw(self, power: str, powers: frozenset[str] | None = None) -> None:
        """NOT (DRW) cancels the bare vote only; NOT (DRW (powers)) one set."""
        if powers is None:
            self.draw_all.discard(power)
        else:
            self.draw_sets.get(power, set()).discard(powers)

    def agreed_draw(self, survivors: frozenset[str]) -> frozenset[str] | None:
        """The draw every survivor has voted for, if any (docs/protocol.md §8.10, 16.2).

        A bare DRW counts as the set of all survivors.  Returns the drawing
        powers, or None while the votes do not agree.
        """
        if not survivors:
            return None
        acceptable: set[frozenset[str]] | None = None
        for power in survivors:
            sets = set(self.draw_sets.get(power, ()))
            if power in self.draw_all:
                sets.add(survivors)
            acceptable = sets if acceptable is None else acceptable & sets
            if not acceptable:
                return None
        assert acceptable
        # Several common sets: the largest (then the first in order) is declared.
        return sorted(acceptable, key=lambda s: (-len(s), sorted(s)))[0]
