"""The progress bar: games done, games running (with their current year).

`ProgressBar` turns `tournament.runner.Progress` snapshots into one line::

    [########------------]  7/14 done  2 running: g8 1905, g9 SPR 1903  0 failed  12 s

On a terminal the line is redrawn in place (carriage return) at most
``interval`` seconds apart; otherwise (a log file, CI) a line is printed
only when a game finishes, so the output stays short.
"""

from __future__ import annotations

import time
from typing import TextIO

from tournament.runner import Progress


def progress_line(p: Progress, width: int = 20) -> str:
    """The text of the bar for one snapshot."""
    filled = round(width * p.done / p.total) if p.total else width
    bar = "#" * filled + "-" * (width - filled)
    running = ", ".join(f"g{n} {turn}" for n, turn in p.running.items())
    parts = [f"[{bar}] {p.done:>{len(str(p.total))}}/{p.total} done",
             f"{len(p.running)} running" + (f": {running}" if running else "")]
    if p.failed:
        parts.append(f"{p.failed} failed")
    if p.bot_failures:
        parts.append(f"{p.bot_failures} bot failure(s)")
    parts.append(f"{p.elapsed:.0f} s")
    return "  ".join(parts)


class ProgressBar:
    """Callable given to `run_tournament` as ``on_progress``."""

    def __init__(self, stream: TextIO, *, interval: float = 0.2) -> None:
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.interval = interval
        self._last = 0.0
        self._done = -1
        self._width = 0

    def __call__(self, p: Progress) -> None:
        if self.tty:
            now = time.monotonic()
            if p.done == self._done and now - self._last < self.interval:
                return
            self._last, self._done = now, p.done
            line = progress_line(p)
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
        elif p.done != self._done:
            self._done = p.done
            self.stream.write(progress_line(p) + "\n")
            self.stream.flush()

    def close(self) -> None:
        """End the redrawn line (terminal only)."""
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
