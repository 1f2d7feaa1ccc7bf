"""The client's TCP transport: trio socket + `protocol.connection.Connection`.

The sans-IO `Connection` does all the framing (IM, RM, DM, FM, EM; the RM
may switch the token representation for a variant map); this module only
moves bytes.  Messages are sent as `protocol.tree` trees and received as
`bots.link.Received` values: the tree, decoded with the connection's
current representation, and the typed message the connection parsed.  Each frame is written with one
``send_all`` (docs/protocol.md §19.9).
"""

from __future__ import annotations

import socket
from typing import Any

import structlog
import trio

from bots.link import ConnectionLost, Received
from protocol.connection import (
    CLOSED,
    NEED_DATA,
    Connection,
    ConnectionClosed,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
    RepresentationReceived,
    State,
)
from protocol.errors import EncodeError, ProtocolError
from protocol.frames import DiplomacyMessage, FinalMessage, InitialMessage
from protocol.parse import Sender
from protocol.press_tokens import PressNumbering, press_representation
from protocol.tokens import CAT_POWER, is_province
from protocol.tree import from_tree, to_tree

Tree = tuple[Any, ...]

log = structlog.get_logger("bots.transport")

_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


class TcpTransport:
    """One client connection to a DAIDE server (see `bots.link.Transport`)."""

    def __init__(self, stream: trio.abc.Stream,
                 numbering: PressNumbering = PressNumbering.DAIDE) -> None:
        self.stream = stream
        self.numbering = numbering
        self.connection = Connection(Sender.CLIENT)
        self._renumber()
        self._rm_seen = False
        self._early: list[Received] = []       # messages read while waiting for the RM

    def _renumber(self) -> None:
        """The RM names powers and provinces only; the disputed press tokens
        follow the numbering camp the server uses (docs/protocol.md §6.7)."""
        conn = self.connection
        conn.representation = press_representation(conn.representation, self.numbering)

    async def start(self) -> None:
        """Send the IM (docs/protocol.md §4.1); messages may follow before the RM arrives."""
        await self._write(self.connection.send(InitialMessage()))

    async def send(self, message: Tree) -> None:
        try:
            tokens = from_tree(message, self.connection.representation)
        except EncodeError:
            if self._rm_seen:
                raise
            tokens = ()
        if not self._rm_seen and (not tokens or any(
                t >> 8 == CAT_POWER or is_province(t) for t in tokens)):
            # A power or province (an IAM right after the IM): its token is the RM's,
            # which the server sends first - a variant's map numbers them its own way,
            # and IAM (RUS) of the standard map would be another power of modern.
            await self._await_representation()
            tokens = from_tree(message, self.connection.representation)
        try:
            data = self.connection.send(DiplomacyMessage(tokens))
        except ProtocolError as exc:
            raise ConnectionLost(f"cannot send now: {exc}") from exc
        await self._write(data)

    async def _await_representation(self) -> None:
        while not self._rm_seen:
            received = await self._receive(until_rm=True)
            if received is None and not self._rm_seen:
                raise ConnectionLost("closed before the representation message")
            if received is not None:
                self._early.append(received)

    async def receive(self) -> Received | None:
        if self._early:
            return self._early.pop(0)
        return await self._receive()

    async def _receive(self, until_rm: bool = False) -> Received | None:
        conn = self.connection
        while True:
            event = conn.next_event()
            if event is NEED_DATA:
                try:
                    data = await self.stream.receive_some(65536)
                except _BROKEN as exc:
                    raise ConnectionLost(str(exc)) from exc
                conn.receive_data(bytes(data))
                continue
            if event is CLOSED or isinstance(event, ConnectionClosed):
                return None
            if isinstance(event, RepresentationReceived):
                self._renumber()
                self._rm_seen = True
                if until_rm:
                    return None
                continue
            if isinstance(event, MessageReceived):
                return Received(to_tree(event.tokens, conn.representation), event.message)
            if isinstance(event, MessageRejected):
                # A server message our grammar does not accept: say so, and use
                # it anyway when its brackets allow (be lenient in what we read).
                log.warning("unexpected server message", error=str(event.error))
                try:
                    return Received(to_tree(event.tokens, conn.representation), None)
                except ProtocolError:
                    continue
            if isinstance(event, ProtocolViolation):
                log.error("server broke the framing rules", code=int(event.code),
                          reason=event.reason)
                await self._write_quietly(event.data)
                await self.stream.aclose()
                return None

    async def aclose(self) -> None:
        if self.connection.state is not State.CLOSED:
            try:
                await self._write_quietly(self.connection.send(FinalMessage()))
            except ProtocolError:
                pass
        await self.stream.aclose()

    async def abort(self) -> None:
        await self.stream.aclose()

    async def _write(self, data: bytes) -> None:
        try:
            await self.stream.send_all(data)
        except _BROKEN as exc:
            raise ConnectionLost(str(exc)) from exc

    async def _write_quietly(self, data: bytes) -> None:
        try:
            await self.stream.send_all(data)
        except _BROKEN:
            pass


async def open_transport(host: str, port: int,
                         numbering: PressNumbering = PressNumbering.DAIDE) -> TcpTransport:
    """Connect, set SO_KEEPALIVE and send the IM (docs/protocol.md §2)."""
    stream = await trio.open_tcp_stream(host, port)
    try:
        stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        transport = TcpTransport(stream, numbering)
        await transport.start()
    except BaseException:
        # Cancelled or failed before the caller owns the transport: close the
        # socket here, or it leaks (and warns) when collected.
        await trio.aclose_forcefully(stream)
        raise
    return transport

