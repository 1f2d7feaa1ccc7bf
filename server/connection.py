"""One TCP connection: a reader task and a writer task around `protocol.connection`.

The reader feeds received bytes to the sans-IO `Connection` and acts on its
events: the IM gets the RM (PROTOCOL.md 4.2), a parsed DM goes to the lobby
(which passes it on to the client's game), a bad DM is answered with its
PRN/HUH, a framing fault with its EM and a close (4.5).  The writer drains
the client's bounded queue, writing one whole frame per ``send_all``
(PROTOCOL.md 19.9).  Nothing a peer sends can raise out of here: every
fault becomes an EM, a PRN/HUH or a log line, and the connection is closed
in ``finally`` whatever happens.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import structlog
import trio

from protocol.connection import (
    NEED_DATA,
    ConnectionClosed,
    InitialReceived,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
)
from protocol.connection import Connection as Machine
from protocol.errors import ProtocolError
from protocol.frames import FinalMessage, RepresentationMessage
from protocol.messages import Message
from protocol.parse import Role as Sender
from server.session import Client, Close, Outgoing

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.connection")

READ_SIZE = 65536


def peer_name(stream: trio.SocketStream) -> str:
    """``host:port`` of the peer."""
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


async def handle_connection(stream: trio.SocketStream, lobby: Lobby) -> None:
    """Serve one client from accept to close."""
    settings = lobby.settings
    try:
        stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    except OSError:
        pass
    machine = Machine(Sender.SERVER, lobby.variant.rep, level=settings.game.level)
    send_channel, receive_channel = trio.open_memory_channel[Outgoing](settings.outbound_queue)
    client = Client(peer_name(stream), send_channel, level=settings.game.level)
    with structlog.contextvars.bound_contextvars(conn=client.id, peer=client.peer):
        log.info("connection_opened")
        lobby.connected(client)
        try:
            async with trio.open_nursery() as nursery:
                client.cancel_scope = nursery.cancel_scope
                nursery.start_soon(_writer, stream, machine, receive_channel, client)
                await _reader(stream, machine, client, lobby)
        except trio.BrokenResourceError as exc:
            client.close_reason = client.close_reason or f"socket error: {exc}"
        except Exception:
            # A bug must cost this connection only, never the server.
            log.exception("connection_failed")
            client.close_reason = "internal error"
        finally:
            client.closed = True
            with trio.CancelScope(shield=True):
                await lobby.disconnected(client)
                await trio.aclose_forcefully(stream)
            log.info("connection_closed", reason=client.close_reason or "closed",
                     power=client.power)


async def _reader(stream: trio.SocketStream, machine: Machine, client: Client,
                  lobby: Lobby) -> None:
    """Read until the peer closes or breaks the protocol; returns when reading is over."""
    # PROTOCOL.md 2: the 30-second initial-message timer.
    with trio.move_on_after(lobby.settings.im_timeout) as im_timer:
        if not await _pump(stream, machine, client, lobby, until_im=True):
            return
    if im_timer.cancelled_caught:
        client.close_reason = "no IM within the initial-message timer"
        client.send(machine.im_timer_expired())
        client.finish(client.close_reason, fm=False)
        await trio.sleep_forever()    # the writer flushes the EM, then cancels us
    await _pump(stream, machine, client, lobby, until_im=False)


async def _pump(stream: trio.SocketStream, machine: Machine, client: Client,
                lobby: Lobby, *, until_im: bool) -> bool:
    """Feed the machine and act on its events.

    With ``until_im`` returns True once the IM arrived; otherwise runs until
    the connection ends.  Returns False when the connection ended.
    """
    while True:
        machine.level = client.level      # the level of the client's game (PROTOCOL.md 7.2)
        event = machine.next_event()
        if event is NEED_DATA:
            data = await stream.receive_some(READ_SIZE)
            machine.receive_data(data)
            continue
        match event:
            case InitialReceived():
                rm = RepresentationMessage.for_representation(lobby.variant.rep)
                client.send(machine.send(rm))
                if until_im:
                    return True
            case MessageReceived(message, tokens):
                await lobby.received(client, message, tokens)
            case MessageRejected(tokens, error, reply):
                log.info("message_rejected", reason=error.reason, tokens=len(tokens))
                if reply is not None:
                    client.send(reply)
            case ConnectionClosed(reason, code, partial):
                client.close_reason = client.close_reason or f"peer sent {reason}" + (
                    f" 0x{code:02X}" if code is not None else "") + (
                    " mid-frame" if partial else "")
                client.abort(client.close_reason)
                return False
            case ProtocolViolation(code, reason, data):
                log.warning("protocol_violation", code=f"0x{int(code):02X}", reason=reason)
                client.close_reason = f"protocol violation: {reason}"
                client.send(data)
                client.finish(client.close_reason, fm=False)
                await trio.sleep_forever()    # the writer flushes the EM, then cancels us
            case _:
                return False


async def _writer(stream: trio.SocketStream, machine: Machine,
                  queue: trio.MemoryReceiveChannel[Outgoing], client: Client) -> None:
    """Write queued messages, one frame per call; a close marker ends the connection."""
    async for item in queue:
        if isinstance(item, Close):
            if item is Close.WITH_FM:
                try:
                    await stream.send_all(machine.send(FinalMessage()))
                except ProtocolError:
                    pass
            break
        if isinstance(item, bytes):
            data = item
        else:
            try:
                data = machine.send(item) if isinstance(item, Message) else b""
            except ProtocolError as exc:
                log.error("unsendable_message", kind=getattr(item, "COMMAND", "?"), error=str(exc))
                continue
        await stream.send_all(data)
    client.abort(client.close_reason or "closed")

