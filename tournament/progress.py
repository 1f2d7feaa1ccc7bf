"""The progress bar: games done, running (with their current year), queued; the ETA.

`ProgressBar` turns `tournament.runner.Progress` snapshots into one line::

    [########------------]  7/14 done  2 running: g8 1905, g9 SPR 1903  12 s  ETA 12 s

A Ray run (`tournament.cluster`) adds the games still queued and, per node,
the games done there in this run and running there now::

    [####----------------]  4/20 done  2 running: g5 1902, g6 1901  14 queued
      nodes: 10.0.0.5#1f2e3d4c 3 done 1 running, 10.0.0.6#9a8b7c6d 1 done 1 running
      8 s  ETA 32 s

(one line; wrapped here).

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
    if p.queued:
        parts.append(f"{p.queued} queued")
    if p.nodes:
        parts.append("nodes: " + ", ".join(f"{node} {done} done {now} running"
                                           for node, (done, now) in sorted(p.nodes.items())))
    if p.failed:
        parts.append(f"{p.failed} failed")
    if p.bot_failures:
        parts.append(f"{p.bot_failures} bot failure(s)")
    parts.append(f"{p.elapsed:.0f} s")
    eta = p.eta
    if eta is not None and p.done + p.failed < p.total:
        parts.append(f"ETA {eta:.0f} s")
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
