"""What a client knows about its game, updated message by message (sans-IO).

`GameTracker` is fed every message the server sends, as a typed
:mod:`protocol.messages` value (`read_server_message` turns a received tree
into one with the server grammar of :func:`protocol.parse.parse_message`),
and keeps the latest HLO (power, passcode, variant options), SCO, NOW,
the ORD results of the last processed phase, deadlines (TME), civil-disorder
notices and the end of the game (SLO, DRW, SMR).  It turns the latest NOW
and SCO into the `BoardView` a strategy is given.  It does no I/O, so it is
tested with plain messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.geography import Geography
from bots.orders import board_unit
from maps.model import Map
from protocol.errors import ProtocolError
from protocol.mapdef import CentreGroup
from protocol.messages import (
    Ccd,
    Drw,
    Hlo,
    Message,
    NotMessage,
    Now,
    Ord,
    Sco,
    Slo,
    Smr,
    Tme,
)
from protocol.orders import Turn  # str() is "SPR 1901"
from protocol.parse import Sender, parse_message
from protocol.tokens import STANDARD, Representation
from protocol.tree import from_tree

Tree = tuple[Any, ...]


def read_server_message(tree: Tree, rep: Representation = STANDARD) -> Message | None:
    """A message received from the server, typed; None if it does not parse.

    Trees are what a `bots.link.Transport` delivers (and what the game
    record keeps); the grammar is the server's direction of
    docs/protocol.md §14, in the representation the link decodes with.
    """
    try:
        return parse_message(from_tree(tree, rep), rep, sender=Sender.SERVER)
    except ProtocolError:
        return None


@dataclass(frozen=True)
class TrackedPosition:
    """One NOW: the turn and every unit, dislodged ones apart."""

    turn: Turn
    units: tuple[BoardUnit, ...]
    dislodged: tuple[BoardUnit, ...]

    @classmethod
    def from_now(cls, now: Now) -> TrackedPosition:
        units: list[BoardUnit] = []
        dislodged: list[BoardUnit] = []
        for position in now.units:
            unit = board_unit(position.unit, position.retreats)  # MRT places if dislodged
            (dislodged if unit.retreats is not None else units).append(unit)
        return cls(now.turn, tuple(units), tuple(dislodged))


def ownership_of(groups: tuple[CentreGroup, ...]) -> dict[str, str | None]:
    """SCO groups as centre -> owner (None for UNO)."""
    owners: dict[str, str | None] = {}
    for group in groups:
        owner = None if group.owner == "UNO" else str(group.owner)
        for centre in group.centres:
            owners[centre] = owner
    return owners


@dataclass(frozen=True)
class GameEnd:
    """How the game ended: a solo (winner set) or a draw (winner None)."""

    winner: str | None
    turn: Turn | None
    draw_powers: tuple[str, ...] = ()


@dataclass
class GameTracker:
    """The client's knowledge of one game (see the module docstring)."""

    geography: Geography | None = None
    game_map: Map | None = None
    """The map built from the server's MDF; its ``rep`` is the representation
    the MDF came in (the RM's tokens, docs/protocol.md §4.2), None over a transport
    that does not say."""
    map_name: str | None = None
    power: str | None = None
    passcode: int | None = None
    level: int = 0
    """The press level from HLO (0 before HLO)."""
    ownership: Mapping[str, str | None] = field(default_factory=dict)
    position: TrackedPosition | None = None
    results: list[Ord] = field(default_factory=list)
    """ORD messages of the last processed phase."""
    deadline: int | None = None
    """Seconds to the deadline from the last TME (None: no deadlines seen)."""
    disorder: set[str] = field(default_factory=set)
    end: GameEnd | None = None
    summary: Smr | None = None
    _results_turn: Turn | None = None

    @property
    def started(self) -> bool:
        return self.power is not None

    def on_message(self, message: Message) -> None:
        """Update from one server message (other kinds are ignored here)."""
        match message:
            case Hlo(power=power, passcode=passcode, variant=variant):
                self.power, self.passcode, self.level = power, passcode, variant.level
            case Sco(ownership=groups):
                self.ownership = ownership_of(groups)
            case Now():
                self.position = TrackedPosition.from_now(message)
            case Ord(turn=turn):
                if turn != self._results_turn:
                    self.results = []
                    self._results_turn = turn
                self.results.append(message)
            case Tme(seconds=seconds) if seconds is not None:
                self.deadline = seconds
            case Ccd(power=power):
                self.disorder.add(power)
            case NotMessage(message=Ccd(power=power)):
                self.disorder.discard(power)
            case Slo(power=power):
                now = self.position.turn if self.position else None
                self.end = GameEnd(winner=power, turn=now)
            case Drw(powers=powers):
                now = self.position.turn if self.position else None
                self.end = GameEnd(winner=None, turn=now, draw_powers=powers)
            case Smr():
                self.summary = message

    # -- what is owed ---------------------------------------------------------

    def owes_orders(self) -> bool:
        """Whether our power has something to order in the current phase."""
        # A seat taken over with IAM may hear a NOW before its map is read: nothing
        # can be ordered until it is (`bots.client` asks for the position again then).
        if (self.power is None or self.position is None or self.geography is None
                or self.end is not None):
            return False
        view = self.view()
        kind = view.phase_kind
        if kind == MOVEMENT:
            return bool(view.my_units)
        if kind == RETREAT:
            return bool(view.my_dislodged)
        assert kind == ADJUSTMENT
        return view.adjustment != 0

    def view(self) -> BoardView:
        """The strategy's view of the current position."""
        if self.geography is None or self.position is None or self.power is None:
            raise RuntimeError("no map, position or power yet")
        return BoardView(
            geography=self.geography,
            power=self.power,
            season=self.position.turn.season,
            year=self.position.turn.year,
            units=self.position.units,
            dislodged=self.position.dislodged,
            owners=dict(self.ownership),
        )
