"""How much search a bot may do per phase: adjudications, CPU seconds, or both.

A search asks `Allowance.spend(n)` before each batch of ``n`` adjudications
and stops expanding when it is refused.  Counting adjudications keeps a
game reproducible - the same seed plays the same orders on any machine -
while the CPU-time limit (``time.process_time``) is a safety net that makes
the result depend on the machine's speed once it is reached.

The command-line form (`Budget.parse`, ``daide bot lookahead --budget``):
``0.3`` or ``0.3s`` - CPU seconds per phase; ``800it`` - adjudications per
phase (the CPU limit stays at its default); both, comma-separated:
``800it,0.5s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_SECONDS = 1.0
"""CPU seconds a phase may take at most (issue 16: 1 s on one core)."""


class BudgetError(ValueError):
    """A budget text that is not ``SECONDS[s]``, ``Nit`` or both."""


@dataclass(frozen=True)
class Budget:
    """Limits of one phase's search; None means no limit of that kind."""

    iterations: int | None = None
    """Adjudications per phase."""
    seconds: float | None = DEFAULT_SECONDS
    """CPU seconds per phase (`time.process_time`)."""
    clock: Callable[[], float] = field(default=time.process_time, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise BudgetError("an iteration budget must be at least 1")
        if self.seconds is not None and not self.seconds > 0:
            raise BudgetError("a time budget must be positive")

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``0.3``, ``0.3s``, ``800it`` or ``800it,0.5s`` (see the module doc)."""
        iterations: int | None = None
        seconds: float | None = None
        parts = [p.strip().lower() for p in text.split(",") if p.strip()]
        if not parts or len(parts) > 2:
            raise BudgetError(f"budget {text!r}: expected SECONDS, Nit or Nit,SECONDS")
        for part in parts:
            try:
                if part.endswith("it"):
                    if iterations is not None:
                        raise BudgetError(f"budget {text!r}: two iteration counts")
                    iterations = int(part[:-2])
                else:
                    if seconds is not None:
                        raise BudgetError(f"budget {text!r}: two times")
                    seconds = float(part.removesuffix("s"))
            except ValueError as exc:
                if isinstance(exc, BudgetError):
                    raise
                raise BudgetError(f"budget {text!r}: {part!r} is neither SECONDS nor Nit"
                                  ) from None
        if iterations is not None and seconds is None:
            seconds = DEFAULT_SECONDS
        return cls(iterations=iterations, seconds=seconds)

    def start(self) -> Allowance:
        """The allowance of one phase, starting now."""
        return Allowance(self, self.clock())

    def __str__(self) -> str:
        parts = []
        if self.iterations is not None:
            parts.append(f"{self.iterations}it")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g}s")
        return ",".join(parts) or "unlimited"


@dataclass
class Allowance:
    """What is left of a budget during one phase's search."""

    budget: Budget
    started: float
    used: int = 0
    """Adjudications spent so far."""
    stopped: str | None = None
    """Why expansion stopped: ``iterations`` or ``time`` (None: not stopped)."""

    def spend(self, n: int) -> bool:
        """Reserve ``n`` adjudications; False (and stop for good) when over budget."""
        if self.stopped is not None:
            return False
        limit = self.budget.iterations
        if limit is not None and self.used + n > limit:
            self.stopped = "iterations"
            return False
        seconds = self.budget.seconds
        if seconds is not None and self.budget.clock() - self.started >= seconds:
            self.stopped = "time"
            return False
        self.used += n
        return True

    def elapsed(self) -> float:
        return self.budget.clock() - self.started
