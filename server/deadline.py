"""Phase deadlines and TME requests, on trio's clock.

`PhaseClock` is the deadline of the current phase.  It is plain bookkeeping
over an injected ``now()`` (``trio.current_time`` in the server, so
`trio.testing.MockClock` drives it in tests); the game actor turns
`PhaseClock.deadline` into a cancel scope (``trio.move_on_at``) around its
wait for the next event, so moving the deadline - a DSD pause or resume - is
just a new value for the next wait.

`TimeRequests` holds the clients' ``TME (seconds)`` requests (docs/protocol.md
§15): "also send me TME when ``seconds`` are left, every turn".  Each request
fires at most once per phase.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field

from server.settings import MAX_DAIDE_INT

INF = math.inf


def whole_seconds(seconds: float) -> int:
    """Seconds as sent in TME: rounded up, clamped to the DAIDE range 0..8191."""
    return max(0, min(MAX_DAIDE_INT, math.ceil(seconds - 1e-9)))


@dataclass
class PhaseClock:
    """The deadline of one phase, which can be paused (DSD) and resumed.

    States: *none* (no deadline for this phase), *running* (``deadline`` is a
    point on the clock), *paused* (``left`` seconds are frozen).
    """

    now: Callable[[], float]
    _deadline: float = INF
    _left: float | None = None
    _limit: int | None = None

    def start(self, limit: int | None, *, paused: bool = False) -> None:
        """Start a phase with ``limit`` seconds (``None``: no deadline)."""
        self._limit = limit
        self._left = None
        self._deadline = INF
        if limit is None:
            return
        if paused:
            self._left = float(limit)
        else:
            self._deadline = self.now() + limit

    @property
    def limit(self) -> int | None:
        """The phase's full time limit, or None."""
        return self._limit

    @property
    def has_deadline(self) -> bool:
        return self._limit is not None

    @property
    def paused(self) -> bool:
        return self._left is not None

    @property
    def running(self) -> bool:
        return self._limit is not None and self._left is None

    @property
    def deadline(self) -> float:
        """When the phase must be processed; infinity without a deadline or while paused."""
        return self._deadline if self.running else INF

    def remaining(self) -> float | None:
        """Seconds left (frozen while paused), or None without a deadline."""
        if self._limit is None:
            return None
        if self._left is not None:
            return self._left
        return max(0.0, self._deadline - self.now())

    def pause(self) -> float:
        """Stop the clock (DSD); returns the seconds left.  Idempotent."""
        left = self.remaining()
        if left is None:
            raise ValueError("no deadline to pause")
        self._left = left
        return left

    def resume(self) -> float:
        """Restart a paused clock; returns the seconds left."""
        if self._left is None:
            raise ValueError("the clock is not paused")
        left = self._left
        self._left = None
        self._deadline = self.now() + left
        return left

    def extend(self, seconds: float) -> float:
        """Move the deadline ``seconds`` later (a host's ``extend``); returns the seconds left."""
        if self._limit is None:
            raise ValueError("no deadline to extend")
        if self._left is not None:
            self._left += seconds
        else:
            self._deadline += seconds
        left = self.remaining()
        assert left is not None
        return left

    def expired(self) -> bool:
        """True once a running deadline has been reached."""
        return self.running and self.now() >= self._deadline


@dataclass
class TimeRequests:
    """Per-client ``TME (seconds)`` requests, each firing once per phase."""

    _requests: dict[Hashable, set[int]] = field(default_factory=dict)
    _fired: set[tuple[Hashable, int]] = field(default_factory=set)

    def add(self, client: Hashable, seconds: int) -> None:
        self._requests.setdefault(client, set()).add(seconds)

    def cancel(self, client: Hashable, seconds: int) -> bool:
        """Cancel one request; False if there was no such request."""
        held = self._requests.get(client, set())
        if seconds not in held:
            return False
        held.discard(seconds)
        return True

    def cancel_all(self, client: Hashable) -> None:
        self._requests.pop(client, None)

    def new_phase(self) -> None:
        """Every request may fire again in the new phase."""
        self._fired.clear()

    def _pending(self) -> Iterator[tuple[Hashable, int]]:
        for client, held in self._requests.items():
            for seconds in sorted(held, reverse=True):
                if (client, seconds) not in self._fired:
                    yield client, seconds

    def next_time(self, clock: PhaseClock) -> float:
        """The next clock time at which a request is due (infinity if none)."""
        if not clock.running:
            return INF
        return min((clock.deadline - s for _, s in self._pending()), default=INF)

    def due(self, clock: PhaseClock) -> list[tuple[Hashable, int]]:
        """Requests due now (remaining time at or below their seconds); marks them fired.

        Requests longer than the whole phase fire at its start, which is
        when the remaining time first is at or below them.
        """
        if not clock.running:
            return []
        left = clock.remaining()
        assert left is not None
        due = [(c, s) for c, s in self._pending() if left <= s + 1e-9]
        self._fired.update(due)
        return due
