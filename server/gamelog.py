"""The game log: what a game stores and reads back, and how a read merges the
journal with SQLite.

`GameLog` is what a game (`server.game.Game`) needs of storage; the
server's implementation is `server.store.Store`.  Each write returns once
the change is stored - a line of the journal (`server.journal`, the
write-ahead log) or an SQLite commit - and the game announces nothing
before it returns (docs/architecture.md "One turn", step 4).  The journal's
phases reach SQLite later, in batches (`server.fold`): SQLite is the folded
copy, and until a phase is in it, the journal has it.

So every read sees SQLite's copy with the journal's part that is not in it
yet on top, and `merge` is the one place where the two meet: the game's
phases are SQLite's followed by the journal's later ones, its position and
end are those after the last of them, and its accepted orders are SQLite's
``pending_orders`` rows of that turn with the journal's last line per power
of that turn over them (an empty line clears).  A reader in another process
(`Store.open_readonly`) reads the journal file first and the tables after
it, and the merge skips what the writer folded meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from server.fold import OrderEntries
from server.hosted import HostedState
from server.journal import PhaseEntry
from server.schema import utc
from server.settings import GameSettings


@dataclass(frozen=True)
class Seat:
    """One power of a game: its passcode and the client that took it."""

    power: str
    passcode: int
    client_name: str
    client_version: str


@dataclass(frozen=True)
class PhaseRecord:
    """One processed phase (``seq`` 0 = the start of the game).

    ``orders`` maps each power to the text of the orders adjudicated for it;
    ``messages`` are the texts announced, in order; ``sco``/``now`` describe
    the position after the phase (what HST answers).
    """

    seq: int
    turn: str
    orders: Mapping[str, tuple[str, ...]]
    messages: tuple[str, ...]
    sco: str
    now: str
    processed_at: str


@dataclass(frozen=True)
class PressRecord:
    """One delivered press message: ``seq`` is its place in the game's global
    press order (from 1), ``message`` the FRM text the recipients got."""

    seq: int
    turn: str
    sender: str
    recipients: tuple[str, ...]
    message: str
    sent_at: str


@dataclass(frozen=True)
class RefusalRecord:
    """What the server refused from ``power`` in ``turn`` ('' before the start): an order's
    text and the THX note it was answered with, or a message's text and HUH, PRN or REJ
    (`server.refusals`)."""

    seq: int
    turn: str
    power: str
    sent: str
    answer: str
    at: str


@dataclass(frozen=True)
class GameRecord:
    """A game as stored: enough to resume it or export it."""

    id: int
    settings: GameSettings
    status: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    turn: str | None
    sco: str | None
    now: str | None
    ending: tuple[str, ...]
    seats: tuple[Seat, ...]
    pending: Mapping[str, tuple[str, ...]]
    pending_turn: str | None
    hosted: HostedState | None = None
    """Invitations, bots and pause of a game a host created (`server.hosted`)."""


class GameLog(Protocol):
    """What a game stores, and reads back after a restart."""

    def start_game(self, game_id: int, seats: Sequence[Seat], turn: str,
                   sco: str, now: str, hosted: HostedState | None = None) -> None:
        """The start: seats and passcodes, the starting position as phase 0
        (and, for a hosted game, its state with the bots' powers)."""
        ...

    def save_orders(self, game_id: int, power: str, turn: str, orders: Sequence[str]) -> None:
        """Replace one power's accepted orders of the current turn (an empty list
        clears them), before THX or YES (NOT (SUB)) goes out."""
        ...

    def record_phase(self, game_id: int, turn: str, orders: Mapping[str, Sequence[str]],
                     messages: Sequence[str], sco: str, now: str, new_turn: str,
                     ending: Sequence[str] = ()) -> int:
        """One processed phase and the position after it, before it is announced:
        the orders adjudicated, the messages announced, the SCO and NOW after it,
        the new turn and, if the phase ended the game, its end (the SLO/DRW and
        SMR texts).  Makes the orders of ``turn`` dead; returns the phase's ``seq``."""
        ...

    def finish_game(self, game_id: int, ending: Sequence[str]) -> None:
        """End a game outside phase processing (an agreed draw)."""
        ...

    def abandon_forming(self, game_id: int) -> None:
        """Forget a game that never started."""
        ...

    def save_press(self, game_id: int, turn: str, sender: str, recipients: Sequence[str],
                   message: str) -> int:
        """One delivered press message, before the recipients get it; returns its
        ``seq`` in the game's press order."""
        ...

    def phases(self, game_id: int) -> list[PhaseRecord]:
        """Every processed phase of a game, the start (seq 0) first."""
        ...


def merge(folded: GameRecord, folded_seq: int, folded_phases: Sequence[PhaseRecord],
          journal: Sequence[PhaseEntry],
          orders: OrderEntries) -> tuple[GameRecord, list[PhaseRecord]]:
    """A game and its phases as SQLite and the journal hold them together (see the
    module docstring).

    ``folded`` is the game as SQLite has it (its ``pending`` the rows of its
    turn), ``folded_seq`` its last phase in SQLite (-1: none) and
    ``folded_phases`` those phases as far as the caller read them; ``journal``
    the game's phases in the journal in seq order, ``orders`` its order
    entries there.
    """
    later = [phase for phase in journal if phase.seq > folded_seq]
    game = folded
    if later:
        last = later[-1]
        game = replace(game, turn=last.new_turn, sco=last.sco, now=last.now)
        for phase in later:
            if phase.ending:
                game = replace(game, status="finished", finished_at=utc(phase.processed_at),
                               ending=tuple(phase.ending))
    pending = dict(folded.pending) if folded.pending_turn == game.turn else {}
    if game.status == "running":        # a game that ended holds no orders
        for power, (turn, texts) in orders.items():
            if turn != game.turn:
                continue
            if texts:
                pending[power] = texts
            else:
                pending.pop(power, None)
    game = replace(game, pending=dict(sorted(pending.items())),
                   pending_turn=game.turn if pending else None)
    phases = [*folded_phases, *(PhaseRecord(
        seq=p.seq, turn=p.turn, orders={power: tuple(o) for power, o in p.orders.items()},
        messages=tuple(p.messages), sco=p.sco, now=p.now, processed_at=utc(p.processed_at))
        for p in later)]
    return game, phases
