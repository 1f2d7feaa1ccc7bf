"""What travels between the lobby, the connections and a game actor.

Connection tasks put these events on a game's inbox (a bounded memory
channel), through the lobby - the one road in to a game; the game actor
(`server.game_actor`) is their only reader.  `GameHandle` is the part of a
game the lobby may look at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import trio

from protocol.messages import Message
from server.session import Client

#: Capacity of a game's inbox; a full inbox makes senders wait (backpressure).
INBOX_SIZE = 128


@dataclass(frozen=True)
class Join:
    """An NME the lobby sent to this (forming) game."""

    client: Client
    message: Message


@dataclass(frozen=True)
class Observe:
    """An OBS the lobby sent to this game."""

    client: Client
    message: Message


@dataclass(frozen=True)
class Rejoin:
    """An IAM whose power and passcode match a seat of this game."""

    client: Client
    message: Message
    power: str


@dataclass(frozen=True)
class Request:
    """Any other message from a client of this game, with its tokens as received."""

    client: Client
    message: Message
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class Announce:
    """A message for every joined client (ADM from a client outside the game)."""

    message: Message


@dataclass(frozen=True)
class Left:
    """The client's connection is gone."""

    client: Client


Event = Join | Observe | Rejoin | Request | Announce | Left


@dataclass(eq=False)
class GameHandle:
    """What the lobby knows of a game: its inbox and how full it is.

    ``claimed`` counts NMEs sent to a forming game (the lobby increments it,
    the game decrements it when a joining client leaves), so the lobby can
    choose the game that is filling without asking the actor.  ``passcodes``
    lets the lobby route an IAM to the game it belongs to.
    """

    id: int
    seats: int
    inbox: trio.MemorySendChannel[Event]
    claimed: int = 0
    status: str = "forming"
    passcodes: dict[str, int] = field(default_factory=dict)

    async def send(self, event: Event) -> None:
        """Put ``event`` on the inbox, waiting for room only when it is full
        (backpressure); the sender goes on without a turn of the scheduler."""
        try:
            self.inbox.send_nowait(event)
        except trio.WouldBlock:
            await self.inbox.send(event)

    @property
    def open_seats(self) -> int:
        return self.seats - self.claimed if self.status == "forming" else 0
