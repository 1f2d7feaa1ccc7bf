"""What travels between the lobby, the connections and a game actor.

Connection tasks put these events on a game's inbox (a bounded memory
channel); the game actor (`server.game`) is their only reader.
`GameHandle` is the part of a game the lobby may look at.
"""

from __future__ import annotations

from collections.abc import Callable
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


@dataclass(slots=True)
class Request:
    """Any other message from a client of this game, with its tokens as received.

    Not frozen, unlike the other events: one is made for every message a
    client sends, and a frozen dataclass sets each field through
    ``object.__setattr__`` (three times the cost); nothing changes one.
    """

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

    Events go to the inbox through `send` / `send_nowait`, which count them
    in ``in_flight`` until the actor has taken them (`server.game_actor`):
    `server.game.Game.deliver` handles an event in the sender's task only
    while nothing is in flight, so no event overtakes another.
    """

    id: int
    seats: int
    inbox: trio.MemorySendChannel[Event]
    claimed: int = 0
    status: str = "forming"
    passcodes: dict[str, int] = field(default_factory=dict)
    deliver: Callable[[Event], bool] | None = None   # `server.game.Game.deliver`
    in_flight: int = 0                               # sent, not yet taken by the actor

    def send_nowait(self, event: Event) -> None:
        """Put ``event`` on the inbox now (trio.WouldBlock when it is full)."""
        self.inbox.send_nowait(event)
        self.in_flight += 1

    async def send(self, event: Event) -> None:
        """Put ``event`` on the inbox, waiting for room (backpressure)."""
        self.in_flight += 1             # counted while it waits for room, too
        try:
            await self.inbox.send(event)
        except BaseException:
            self.in_flight -= 1
            raise

    @property
    def open_seats(self) -> int:
        return self.seats - self.claimed if self.status == "forming" else 0
