"""One connected client as the rest of the server sees it.

A `Client` holds the client's role (anonymous, joining, player, observer),
its power and game, and its bounded outbound queue - the one road out to
the client.  Every message for the client goes through `Client.send`, which
only queues and never blocks: when the queue is full the client is
disconnected (its power then goes into civil disorder), so a client that
stops reading can never stall a game.  The connection's writer task
(`server.connection`) is the only one that writes to the client's stream:
it drains the queue, whole frames per write, through trio.

Only the connection task and the task that owns the client's game touch a
`Client`; trio runs one task at a time, so no locks are needed.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field

import structlog
import trio

from protocol.messages import Message
from server.assignment import NO_PREFERENCE, Wish
from server.limits import TokenBucket
from server.wire import Packet

log = structlog.get_logger("server.session")

_ids = itertools.count(1)

#: ADM is relayed to every client of a game (or, from outside a game, of all
#: games, docs/protocol.md §8.9), so each connection may send only a few.
ADM_PER_MINUTE = 10
ADM_BURST = 5
#: Close reason of a connection the peer reset (ECONNRESET), or whose socket
#: broke under a write.
RESET = "reset by peer"


class Role(enum.Enum):
    """Where a client stands (docs/protocol.md §5)."""

    ANONYMOUS = "anonymous"          # after IM/RM, before NME/OBS/IAM: replies only
    JOINING = "joining"              # NME accepted, MAP sent, waiting for YES (MAP)
    WATCHING = "watching"            # OBS accepted, MAP sent, waiting for YES (MAP)
    PLAYER = "player"                # plays a power
    OBSERVER = "observer"            # watches a game

    @property
    def joined(self) -> bool:
        """Joined clients receive the game's broadcasts."""
        return self in (Role.PLAYER, Role.OBSERVER)


class Close(enum.Enum):
    """Queue markers for the writer: stop after everything queued before."""

    WITH_FM = "fm"       # orderly: send FM, then close (docs/protocol.md §4.4)
    NO_FM = "no-fm"      # after an EM: close without FM (docs/protocol.md §4.5)


#: What the outbound queue carries: a message, frames encoded once for many
#: clients (`server.wire.Packet`), a raw frame (RM, EM), or a close marker.
Outgoing = Message | Packet | bytes | Close


@dataclass(eq=False)
class Client:
    """A connected client: identity, role, and the bounded queue to its writer."""

    peer: str
    outbox: trio.MemorySendChannel[Outgoing]
    id: int = field(default_factory=lambda: next(_ids))
    role: Role = Role.ANONYMOUS
    power: str | None = None
    game_id: int | None = None        # the game it joined, watches or joins (`Lobby.games`)
    name: str = ""
    version: str = ""
    iam_failures: int = 0
    map_accepted: bool = False        # sent YES (MAP) while joining: waits for the start
    level: int | None = None          # press level its messages are parsed at (its game's)
    press_numbering: str = ""         # FCT/FOR/FWD numbering its press proved (server.press)
    closed: bool = False
    close_reason: str = ""
    cancel_scope: trio.CancelScope | None = None
    adm_bucket: TokenBucket | None = None
    watch_game: int | None = None     # the game an OBS asks to watch (web page: /daide?watch=N)
    door: int | None = None           # the game whose own door it came in by (None: the shared one)
    wish: Wish = NO_PREFERENCE        # the power it asked for (server.assignment); never logged
    admin: bool = False               # showed the admin token ('Server: admin TOKEN')

    def adm_allowed(self, now: float) -> bool:
        """ADM within ``ADM_PER_MINUTE`` (bursts of ``ADM_BURST``); over that it is refused."""
        if self.adm_bucket is None:
            self.adm_bucket = TokenBucket(ADM_PER_MINUTE / 60, ADM_BURST, now)
        return self.adm_bucket.take(now)

    @property
    def settled(self) -> bool:
        """In a game for good: a player or observer, or a joiner waiting for the start.

        Clients that are not settled are closed when they idle too long
        (``join_idle_timeout``): an anonymous connection, or an NME whose map
        was never accepted and which holds a seat of a forming game.
        """
        return self.role.joined or (self.role is Role.JOINING and self.map_accepted)

    @property
    def address(self) -> str:
        """The peer's host, without the port (for per-address limits)."""
        host, _, _port = self.peer.rpartition(":")
        return host or self.peer

    def send(self, message: Message | Packet | bytes) -> bool:
        """Queue one message for the writer; False (and the client is dropped)
        if the queue is full or the writer is gone."""
        if self.closed:
            return False
        try:
            self.outbox.send_nowait(message)
        except trio.WouldBlock:
            log.warning("client_too_slow", conn=self.id, peer=self.peer, power=self.power)
            self.abort("outbound queue full")
            return False
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.abort("writer gone")
            return False
        return True

    def finish(self, reason: str, *, fm: bool = True) -> None:
        """Close after the queued messages have been written (OFF at game end)."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        try:
            self.outbox.send_nowait(Close.WITH_FM if fm else Close.NO_FM)
        except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
            self._cancel()

    def abort(self, reason: str) -> None:
        """Drop the connection now, without flushing."""
        if not self.closed:
            self.closed = True
            self.close_reason = reason
        self._cancel()

    def _cancel(self) -> None:
        if self.cancel_scope is not None:
            self.cancel_scope.cancel()
