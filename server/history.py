"""The processed phases of a game, as clients may ask for them again.

HST (turn) answers with one phase's ORDs, then the SCO and NOW after it;
a bare ORD with the results of the last movement phase and every phase
after it (PROTOCOL.md 8.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.messages import Message, Now, Ord, Sco


@dataclass(frozen=True)
class Phase:
    """A processed phase as clients may ask for it again (HST, ORD)."""

    turn: str
    messages: tuple[Message, ...]
    sco: Sco
    now: Now

    @property
    def results(self) -> list[Message]:
        return [m for m in self.messages if isinstance(m, Ord)]


class History(list[Phase]):
    """Every phase of a game in order; entry 0 is the start (turn ``""``)."""

    def last_results(self) -> list[Message]:
        """ORDs of the last movement phase and the phases after it (bare ORD)."""
        out: list[Message] = []
        for phase in reversed(self[1:]):
            out[:0] = phase.results
            if phase.turn.split()[0] in ("SPR", "FAL"):
                break
        return out

    def of_turn(self, turn: str) -> list[Message] | None:
        """HST (turn): the phase's ORDs, then SCO and NOW after it; None if no such phase."""
        for phase in self[1:]:
            if phase.turn == turn:
                return [*phase.results, phase.sco, phase.now]
        return None
