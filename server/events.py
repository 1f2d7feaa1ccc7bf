"""What travels between the lobby, the connections and a game actor.

Connection tasks put these events on a game's inbox (a bounded memory
channel), through the lobby - the one road in to a game; the game actor
(`server.game_actor`) is their only reader.  `GameHandle` is the part of a
game the lobby may look at.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
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
    """What the lobby knows of a game: its inbox, how full it is, which powers are free.

    ``claims`` holds the NMEs without an invitation sent to a forming game,
    each with the power its name asked for (``'FRA:alice'``, docs/protocol.md
    §8.1) or None for any power: the lobby adds one as it sends the NME on,
    the game removes it when that client is refused or leaves, and empties
    them at the start - so the lobby chooses the game that is filling, and
    the web page offers the powers still free (`free_powers`), without asking
    the actor, and an NME still in the inbox already counts.  A preference
    list (``alice [FRA ENG]``) claims a seat but no power: it is secret (the
    Guide, `server.assignment`) and promises nothing.  ``passcodes`` lets the
    lobby route an IAM to the game it belongs to; ``in_disorder`` is the
    actor's own answer (`server.game.Game.powers_in_disorder`) to which powers
    of a running game a replacement may take over.
    """

    id: int
    seats: int
    inbox: trio.MemorySendChannel[Event]
    variant: Variant
    status: str = "forming"
    passcodes: dict[str, int] = field(default_factory=dict)
    #: A host's game: its invitations, bots and pause (the actor keeps it current).
    hosted: HostedState | None = None
    #: Open to anyone who joins through its door (False: by invitation only).
    open_access: bool = True
    #: Its own TCP port (None: the shared port's games).
    port: int | None = None
    #: The turn being played, '' before the start (the actor keeps it current): what a
    #: connection stores with the HUH and REJ it sends a player (`server.refusals`).
    turn: str = ""
    #: NMEs without an invitation sent to this forming game -> the power asked for (or None).
    claims: dict[Client, str | None] = field(default_factory=dict)
    #: The powers of the running game in civil disorder that a replacement may take over.
    in_disorder: Callable[[], Collection[str]] = field(default=lambda: ())

    async def send(self, event: Event) -> None:
        """Put ``event`` on the inbox, waiting for room only when it is full
        (backpressure); the sender goes on without a turn of the scheduler."""
        try:
            self.inbox.send_nowait(event)
        except trio.WouldBlock:
            await self.inbox.send(event)

    @property
    def claimed(self) -> int:
        """Seats taken by NMEs without an invitation."""
        return len(self.claims)

    @property
    def open_seats(self) -> int:
        """Seats an NME without an invitation may take (invitations hold theirs)."""
        if self.status != "forming" or not self.open_access:
            return 0
        reserved = len(self.hosted.invitations) if self.hosted is not None else 0
        return max(0, self.seats - reserved - self.claimed)

    @property
    def free_powers(self) -> list[str]:
        """The powers a newcomer may still have, in the variant's order.

        Forming, with a seat free: every power that no joiner asked for by name
        and no invitation reserves - one asked for goes to its first asker
        (`server.assignment`, rule 1), one reserved to its invitation.  Running:
        the powers in civil disorder that a replacement may take over with the
        power's passcode (IAM; the host gives it, docs/hosting.md "eject").
        Otherwise none.
        """
        if self.status == "running":
            away = set(self.in_disorder())
            return [p for p in self.variant.powers if p in away]
        if self.open_seats <= 0:
            return []
        taken = set(self.claims.values())
        if self.hosted is not None:
            taken |= self.hosted.reserved_powers
        return [p for p in self.variant.powers if p not in taken]
