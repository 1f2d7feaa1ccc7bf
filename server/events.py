"""What travels between the lobby, the connections and a game actor.

Connection tasks put these events on a game's inbox (a bounded memory
channel), through the lobby - the one road in to a game; the game actor
(`server.game_actor`) is their only reader.  `GameHandle` is the part of a
game the lobby may look at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from protocol.messages import Message
from server.hosted import HostedState, Invitation
from server.session import Client

if TYPE_CHECKING:
    from engine.variants import Variant

#: Capacity of a game's inbox; a full inbox makes senders wait (backpressure).
INBOX_SIZE = 128


@dataclass(frozen=True)
class Join:
    """An NME the lobby sent to this (forming) game, with the invitation it used."""

    client: Client
    message: Message
    invitation: Invitation | None = None


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


class ActionReply:
    """The answer to a `HostAction`, set once by the game actor and awaited by the host."""

    def __init__(self) -> None:
        self.done = trio.Event()
        self.value: dict[str, Any] | None = None
        self.error: Exception | None = None

    def set(self, value: dict[str, Any] | None = None, error: Exception | None = None) -> None:
        self.value, self.error = value, error
        self.done.set()


@dataclass(frozen=True)
class HostAction:
    """A host's action on this game (`server.hosting`): ``act(game)`` runs in the actor
    and returns the answer, or raises `server.hosting.HostingError`."""

    act: Callable[[Any], dict[str, Any]]
    reply: ActionReply


Event = Join | Observe | Rejoin | Request | Announce | Left | HostAction


@dataclass(eq=False)
class GameHandle:
    """What the lobby knows of a game: its inbox and how full it is.

    ``claimed`` counts NMEs without an invitation sent to a forming game (the
    lobby increments it, the game decrements it when such a client leaves), so the lobby can
    choose the game that is filling without asking the actor.  ``passcodes``
    lets the lobby route an IAM to the game it belongs to.
    """

    id: int
    seats: int
    inbox: trio.MemorySendChannel[Event]
    variant: Variant
    claimed: int = 0
    status: str = "forming"
    passcodes: dict[str, int] = field(default_factory=dict)
    #: A host's game: its invitations, bots and pause (the actor keeps it current).
    hosted: HostedState | None = None
    #: Open to anyone who joins through its door (False: by invitation only).
    open_access: bool = True
    #: Its own TCP port (None: the shared port's games).
    port: int | None = None

    async def send(self, event: Event) -> None:
        """Put ``event`` on the inbox, waiting for room only when it is full
        (backpressure); the sender goes on without a turn of the scheduler."""
        try:
            self.inbox.send_nowait(event)
        except trio.WouldBlock:
            await self.inbox.send(event)

    @property
    def open_seats(self) -> int:
        """Seats an NME without an invitation may take (invitations hold theirs)."""
        if self.status != "forming" or not self.open_access:
            return 0
        reserved = len(self.hosted.invitations) if self.hosted is not None else 0
        return max(0, self.seats - reserved - self.claimed)
