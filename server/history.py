"""The processed phases of a game, as clients may ask for them again.

HST (turn) answers with one phase's ORDs, then the SCO and NOW after it;
a bare ORD with the results of the last movement phase and every phase
after it (docs/protocol.md §8.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.wire import Packet


@dataclass(frozen=True, slots=True)
class PlayedPhase:
    """A processed phase as clients may ask for it again (HST, ORD)."""

    turn: str
    results: Packet | None      # its ORD messages, one packet (None: no results)
    sco: Packet                 # the ownership after it
    now: Packet                 # the phase after it


class History(list[PlayedPhase]):
    """Every phase of a game in order; entry 0 is the start (turn ``""``)."""

    def last_results(self) -> list[Packet]:
        """ORDs of the last movement phase and the phases after it (bare ORD)."""
        out: list[Packet] = []
        for phase in reversed(self[1:]):
            if phase.results is not None:
                out.insert(0, phase.results)
            if phase.turn.split()[0] in ("SPR", "FAL"):
                break
        return out

    def of_turn(self, turn: str) -> list[Packet] | None:
        """HST (turn): the phase's ORDs, then SCO and NOW after it; None if no such phase."""
        for phase in self[1:]:
            if phase.turn == turn:
                return [*([phase.results] if phase.results else []), phase.sco, phase.now]
        return None
