"""A client's link to a server: the `Transport` it talks through and what a link delivers.

`bots.client.BotClient` plays through any `Transport`: the TCP one
(`bots.transport.TcpTransport`, which does the framing over a trio socket),
a timed wrapper of it, or a scripted one in a test; a `Connector` makes one
for a host and port.  A transport hands over each message as a `Received`
and raises `ConnectionLost` when the connection breaks.  This module is what
the client and the transports share, so neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bots.tracking import read_server_message
from protocol.messages import Message
from protocol.tokens import STANDARD, Representation

Tree = tuple[Any, ...]


class ConnectionLost(Exception):
    """Raised by a `Transport` when the connection breaks."""


@dataclass(frozen=True)
class Received:
    """One message from the server, as a `Transport` delivers it.

    ``tree`` is the message as decoded (what the game record keeps, and what
    echoes of our own SNDs are matched against); ``message`` its typed
    reading with the server grammar (docs/protocol.md §14), None when the
    grammar refused it - such a message is logged and otherwise ignored.
    """

    tree: Tree
    message: Message | None

    @classmethod
    def read(cls, tree: Tree, rep: Representation = STANDARD) -> Received:
        """A received tree with its typed reading (for transports that decode trees)."""
        return cls(tree, read_server_message(tree, rep))


class Transport(Protocol):
    """One connection to a server, message by message (framing done inside)."""

    async def send(self, message: Tree) -> None:
        """Send one language message (raises `ConnectionLost`)."""
        ...

    async def receive(self) -> Received | None:
        """The next message; None when the server closed the connection."""
        ...

    async def aclose(self) -> None:
        """Orderly close (FM, then close)."""
        ...

    async def abort(self) -> None:
        """Drop the connection without an FM, as a network failure would."""
        ...


Connector = Callable[[str, int], Awaitable[Transport]]
"""Opens a `Transport` to a host and port (the client's default: `bots.transport.open_transport`)."""
