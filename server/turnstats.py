"""Turn latency as the server sees it: last order in -> NOW out to every player.

Off by default (``ServerSettings.turn_stats``); the load harness (`load/`)
turns it on.  The connection tasks report two moments, both taken with the
trio clock right where the bytes cross the socket:

* `order_in`: a chunk holding a SUB of a player of game G has just been
  read from that player's socket;
* `now_out`: a write holding the NOW of turn T of game G has just been
  handed completely to a player's socket.

The latency of the phase that ended with NOW T is the time from the last
SUB read for G before the first NOW T went out, to the moment the NOW T
went out to the last of G's players.  Phases processed without a SUB in
between (a deadline, civil disorder) are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class _Round:
    started: float
    players: int
    written: int = 0


@dataclass
class TurnStats:
    """Per-phase latencies (seconds), in the order the phases completed."""

    latencies: list[float] = field(default_factory=list)
    phases: int = 0
    _last_order: dict[int, float] = field(default_factory=dict)
    _rounds: dict[tuple[int, str], _Round] = field(default_factory=dict)

    def order_in(self, game: int, now: float) -> None:
        self._last_order[game] = now

    def now_out(self, game: int, turn: str, players: int, now: float) -> None:
        key = (game, turn)
        current = self._rounds.get(key)
        if current is None:
            started = self._last_order.pop(game, None)
            if started is None:
                return
            current = self._rounds[key] = _Round(started, players)
        current.written += 1
        if current.written >= current.players:
            del self._rounds[key]
            self.phases += 1
            self.latencies.append(now - current.started)
