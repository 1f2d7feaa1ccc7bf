"""The games of a server database, one summary each: `daide games`, the web API.

`list_games(db_path)` reads the database read-only (`Store.open_readonly`):
it is safe while a server runs on the file - a WAL reader sees the last
committed state and never blocks the server's writes - and it never
creates, migrates or locks anything.

A game's stored status is ``forming``, ``running`` or ``finished``.  A
running game whose database no live server holds (`server.lock`) is
reported as ``suspended``: nobody is playing it now, and the next server
started on this database resumes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from server.lock import holder_pid
from server.store import GameRecord, Store, StoreError

STATUSES = ("forming", "running", "suspended", "finished")


@dataclass(frozen=True)
class Player:
    """Who holds a power: the name and version its client gave in NME."""

    power: str
    name: str
    version: str


@dataclass(frozen=True)
class GameSummary:
    """One game of a database, as `daide games` lists it (see the module doc)."""

    id: int
    variant: str
    status: str
    """One of `STATUSES`."""
    turn: str | None
    """The current (or, once finished, the last) turn, e.g. ``FAL 1905``; None while forming."""
    players: tuple[Player, ...]
    centres: Mapping[str, int]
    """Supply centres per power in the current position (powers without any left out)."""
    result: str
    """``solo FRA``, ``draw AUS ENG FRA`` (the powers sharing it), or ``""`` while unfinished."""
    created_at: str
    started_at: str | None
    finished_at: str | None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (for a web API)."""
        data = asdict(self)
        data["centres"] = dict(self.centres)
        return data

    def line(self) -> str:
        """The one line `daide games` prints."""
        players = ", ".join(f"{p.power} {p.name}" for p in self.players) or "-"
        return (f"{self.id:>5}  {self.variant:<16} {self.status:<9}  {self.turn or '-':<9}  "
                f"{self.result or '-':<24}  {players}")


HEADER = f"{'game':>5}  {'variant':<16} {'status':<9}  {'turn':<9}  {'result':<24}  players"


def list_games(db_path: Path | str) -> list[GameSummary]:
    """Every game of the database at ``db_path``, oldest first.

    StoreError (one line) when there is no such file or it is not a server
    database.
    """
    path = Path(db_path)
    if not path.is_file():
        raise StoreError(f"no database at {path}")
    served = holder_pid(path) is not None
    store = Store.open_readonly(path)
    try:
        return [summarize(record, served=served) for record in store.games()]
    finally:
        store.close()


def summarize(record: GameRecord, *, served: bool) -> GameSummary:
    """The summary of one stored game; ``served``: a live server holds its database."""
    status = record.status
    if status == "running" and not served:
        status = "suspended"
    centres = centre_counts(record.sco) if record.sco else {}
    return GameSummary(
        id=record.id, variant=record.settings.variant.lower(), status=status,
        turn=final_turn(record.ending) or record.turn,
        players=tuple(Player(s.power, s.client_name, s.client_version) for s in record.seats),
        centres=centres, result=result_text(record.ending, centres),
        created_at=record.created_at, started_at=record.started_at,
        finished_at=record.finished_at)


def centre_counts(sco: str) -> dict[str, int]:
    """``SCO ( AUS BUD TRI VIE ) ( ENG ... ) ( UNO ... )`` -> ``{"AUS": 3, "ENG": ...}``.

    Neutral centres (UNO) are not counted; a power's count is the number of
    provinces in its group (docs/protocol.md §8.2).
    """
    counts: dict[str, int] = {}
    for group in _groups(sco):
        if group and group[0] != "UNO":
            counts[group[0]] = len(group) - 1
    return counts


def result_text(ending: tuple[str, ...], centres: Mapping[str, int]) -> str:
    """``solo FRA`` / ``draw AUS ENG`` from the stored end messages; "" if none.

    A DRW without powers is shared by every power still holding a centre
    (docs/protocol.md §8.10; partial draws §16.3); a partial draw
    names its powers.
    """
    for message in ending:
        words = message.replace("(", " ").replace(")", " ").split()
        if not words:
            continue
        if words[0] == "SLO" and len(words) > 1:
            return f"solo {words[1]}"
        if words[0] == "DRW":
            powers = words[1:] or sorted(p for p, n in centres.items() if n > 0)
            return "draw " + " ".join(powers)
    return ""


def final_turn(ending: tuple[str, ...]) -> str | None:
    """The turn an ended game ended in: the first group of its SMR (§8.10), if stored."""
    for message in ending:
        if message.split(maxsplit=1)[:1] == ["SMR"]:
            groups = _groups(message)
            if groups and len(groups[0]) == 2:
                return " ".join(groups[0])
    return None


def _groups(text: str) -> list[list[str]]:
    """The top-level parenthesised groups of a message text, as word lists."""
    groups: list[list[str]] = []
    depth = 0
    for word in text.replace("(", " ( ").replace(")", " ) ").split():
        if word == "(":
            depth += 1
            if depth == 1:
                groups.append([])
        elif word == ")":
            depth -= 1
        elif depth >= 1:
            groups[-1].append(word)
    return groups
