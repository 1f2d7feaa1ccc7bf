"""Watching a game: progress lines, the final table and the game record.

A `GameWatcher` is fed every message an observer receives (in order).  It
keeps the DAIDE text of each one (the ``.daide`` record: one message per
line, exactly as received), the centre counts after every year, the current
units, the result (SLO or DRW, and the year) and the SMR; it renders the
progress lines and the final table the demo prints, and the JSON summary
stored next to the record.  Pure: no I/O besides `write`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.tracking import TrackedPosition, ownership_of
from protocol.messages import Drw, Message, Now, Sco, Slo, Smr
from protocol.orders import Turn
from protocol.text import format_tree

if TYPE_CHECKING:
    from bots.link import Received


@dataclass(frozen=True)
class FinalRow:
    """One power's line of the final table."""

    power: str
    player: str
    centres: int
    units: int
    eliminated: int | None
    """Year of elimination (None: survived)."""


@dataclass
class GameWatcher:
    """Follows a game from an observer's messages (see the module doc)."""

    powers: tuple[str, ...] = ()
    players: Mapping[str, str] = field(default_factory=dict)
    """power -> bot name shown in the table."""
    echo: Callable[[str], None] | None = None
    """Where progress lines go (None: nowhere)."""
    lines: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    position: TrackedPosition | None = None
    counts: dict[str, int] = field(default_factory=dict)
    eliminated: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    draw: bool = False
    final_turn: Turn | None = None
    summary: Smr | None = None

    def on_message(self, received: Received) -> Message | None:
        """Take one received message; returns it typed (None if it did not parse)."""
        # Written without a representation's lookups: the same text for any map.
        self.lines.append(format_tree(received.tree))
        typed = received.message
        match typed:
            case Sco(ownership=groups):
                counts = {p: 0 for p in self.powers}
                for owner in ownership_of(groups).values():
                    if owner is not None:
                        counts[owner] = counts.get(owner, 0) + 1
                self.counts = counts
            case Now() as now:
                self.position = TrackedPosition.from_now(now)
                turn = self.position.turn
                for power in self.powers:
                    if (self.counts.get(power, 0) == 0 and power not in self.eliminated
                            and not any(u.power == power for u in self.position.units)):
                        self.eliminated[power] = turn.year - 1 if turn.season == "SPR" \
                            else turn.year
                self.history.append({"turn": str(turn), "centres": dict(self.counts)})
                self._progress()
            case Slo(power=power):
                self.winner = power
            case Drw():
                self.draw = True
            case Smr(turn=turn, entries=entries) as summary:
                self.summary = summary
                self.final_turn = turn
                # The server's own account wins: names, and the years of elimination.
                for entry in entries:
                    self.players = {**self.players,
                                    entry.power: self.players.get(entry.power, entry.name)}
                    if entry.eliminated is not None:
                        self.eliminated[entry.power] = entry.eliminated
        return typed

    @property
    def finished(self) -> bool:
        return self.summary is not None or self.winner is not None or self.draw

    # -- presentation -------------------------------------------------------------

    def _progress(self) -> None:
        if self.echo is None or self.position is None:
            return
        turn = self.position.turn
        cells = "  ".join(f"{p} {self.counts.get(p, 0):2d}" for p in self.powers)
        self.echo(f"  {turn.year}  {turn.season}   {cells}")

    def result_text(self) -> str:
        turn = self.last_turn
        year = f" in {turn.year}" if turn else ""
        if self.winner:
            return f"solo victory for {self.winner}{year}"
        if self.draw:
            survivors = [p for p in self.powers if p not in self.eliminated]
            return f"draw between {' '.join(survivors)}{year}"
        return "unfinished"

    def table(self) -> list[FinalRow]:
        units: dict[str, int] = {}
        if self.position is not None:
            for unit in self.position.units:
                units[unit.power] = units.get(unit.power, 0) + 1
        rows = [FinalRow(p, self.players.get(p, "?"), self.counts.get(p, 0), units.get(p, 0),
                         self.eliminated.get(p)) for p in self.powers]
        # Most centres first; among the eliminated, the last to fall first.
        return sorted(rows, key=lambda r: (-r.centres, -r.units,
                                           -(r.eliminated or 10**6), r.power))

    def table_lines(self) -> list[str]:
        out = [f"  {'power':<6}{'bot':<12}{'centres':>8}{'units':>7}  eliminated"]
        for row in self.table():
            gone = str(row.eliminated) if row.eliminated is not None else "-"
            out.append(f"  {row.power:<6}{row.player:<12}{row.centres:>8}{row.units:>7}  {gone}")
        out.append(f"  result: {self.result_text()}")
        return out

    # -- the record ------------------------------------------------------------------

    @property
    def last_turn(self) -> Turn | None:
        return self.final_turn or (self.position.turn if self.position else None)

    def to_json(self, **extra: Any) -> dict[str, Any]:
        turn = self.last_turn
        return {
            **extra,
            "result": {"winner": self.winner, "draw": self.draw,
                       "turn": str(turn) if turn else None, "text": self.result_text()},
            "players": dict(self.players),
            "final": [row.__dict__ for row in self.table()],
            "history": self.history,
        }

    def write(self, directory: Path, game_id: str, **extra: Any) -> tuple[Path, Path]:
        """Write ``<id>.daide`` (every message, as text) and ``<id>.json``."""
        directory.mkdir(parents=True, exist_ok=True)
        daide = directory / f"{game_id}.daide"
        daide.write_text("".join(line + "\n" for line in self.lines), encoding="utf-8")
        summary = directory / f"{game_id}.json"
        summary.write_text(json.dumps(self.to_json(id=game_id, **extra), indent=2) + "\n",
                           encoding="utf-8")
        return daide, summary
