"""One TCP connection: a reader task and a writer task around `protocol.connection`.

The reader feeds received bytes to the sans-IO `Connection` and acts on its
events: the IM gets the RM (docs/protocol.md §4.2), a parsed DM goes to the lobby
(which passes it on to the client's game), a bad DM is answered with its
PRN/HUH, a framing fault with its EM and a close (4.5).  The writer is the
one road out: everything for the client is queued by `Client.send`, and the
writer drains that queue through the trio stream, whole frames per write
(docs/protocol.md §19.9), after the database is durable (`server.durability`:
nobody hears of an order or a phase before it is on disk).
The HUH, PRN and REJ the writer sends a player of a game are kept in the
store, for its author's log (`server.refusals`).

Nothing a peer sends can raise out of here: every fault becomes an EM, a
PRN/HUH or a log line, and the connection is closed in ``finally`` whatever
happens.  A peer that resets its connection (ECONNRESET: a client closing
with unread data, or killed) is an ordinary disconnect, logged at info level
with reason ``reset by peer``.

When the server ends a connection (OFF at the end of a game or at shutdown,
an EM, a limit) it closes in order: the writer sends what is queued, shuts
down its sending side (TCP FIN, ``send_eof``), and the reader reads and
discards until the peer closes too or ``CLOSE_DRAIN`` seconds pass; only
then is the socket closed.  Closing at once with the peer's data unread
would make the kernel send a reset, which loses what is still in flight
towards the peer (the SMR, the OFF) and makes clients report a TCP error.  The limits of `server.limits` are enforced here, per connection:

* admission (`ConnectionGate`): over the total or per-address count the
  socket is closed before a byte is read;
* the IM timer (EM 0x01), a frame over ``max_frame_body`` or a frame left
  incomplete for ``frame_timeout`` seconds (EM 0x09, slow-loris), a client
  idle for ``join_idle_timeout`` seconds before it settled in a game (OFF,
  FM, close);
* ``message_rate``: each DM takes a token; without one the reader waits,
  so a flood is read at the allowed rate and the peer's TCP window closes;
* the writer: a client whose queue fills (`Client.send`) or whose socket
  takes nothing for ``send_timeout`` seconds is dropped - its power goes
  into civil disorder and the game never waits on its socket.
"""

from __future__ import annotations

import math
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
    State,
)
from protocol.connection import Connection as Machine
from protocol.errors import ProtocolError
from protocol.frames import (
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    RepresentationMessage,
    build_frame,
    dm_frame,
)
from protocol.messages import Message, Now, Off
from protocol.parse import Sender
from protocol.press_tokens import mentions_disputed
from server.durability import DurabilityLost
from server.limits import ConnectionGate
from server.press import packet_frames
from server.reading import Incoming, Intake
from server.refusals import NOTED, RefusalKeeper
from server.session import RESET, Client, Close, Outgoing, Role
from server.websocket_stream import WebSocketStream
from server.wire import Packet

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.connection")

READ_SIZE = 65536
#: Most queued items one write takes (their frames go out in one ``send_all``).
WRITE_BATCH = 64
#: Seconds the server waits for the peer to close after shutting down its sending side.
CLOSE_DRAIN = 2.0
#: the machine's states before its RM went out, when no DM may be sent
_BEFORE_RM = (State.AWAIT_IM, State.GOT_IM)


def peer_name(stream: trio.abc.Stream) -> str:
    """``host:port`` of the peer (``?`` when the stream has no socket)."""
    try:
        host, port = stream.socket.getpeername()[:2]  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        return "?"
    return f"{host}:{port}"


#: WebSocket sessions are admitted by the web door (server.web_door) in its own budget;
#: this gate only counts them.
_WEB_GATE = ConnectionGate(total=1 << 62, per_address=1 << 62)

async def handle_connection(stream: trio.abc.Stream, lobby: Lobby, peer: str | None = None,
                            *, watch_game: int | None = None, door: int | None = None) -> None:
    """Serve one client from accept to close (``peer`` names it when the stream cannot;
    ``watch_game``: the game its OBS watches, `server.http`'s ``/daide?watch=N``;
    ``door``: the game whose own port it came in by - its RM and its NME, OBS and
    IAM are that game's, docs/hosting.md)."""
    settings = lobby.settings
    peer = peer or peer_name(stream)
    # A WebSocket was admitted by the web door's own budget (server.web_door):
    # web peers never take the DAIDE TCP clients' slots.
    gate = _WEB_GATE if isinstance(stream, WebSocketStream) else lobby.gate
    refusal = gate.admit(_host(peer))
    if refusal is not None:
        log.warning("connection_refused", peer=peer, reason=refusal)
        await trio.aclose_forcefully(stream)
        return
    try:
        if isinstance(stream, trio.SocketStream):
            try:
                stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            except OSError:
                pass
        machine = Machine(Sender.SERVER, lobby.door_variant(door).rep, level=settings.game.level)
        send_channel, receive_channel = trio.open_memory_channel[Outgoing](settings.outbound_queue)
        client = Client(peer, send_channel, level=settings.game.level, watch_game=watch_game,
                        door=door)
        with structlog.contextvars.bound_contextvars(conn=client.id, peer=client.peer):
            log.info("connection_opened")
            lobby.connected(client)
            try:
                async with trio.open_nursery() as nursery:
                    client.cancel_scope = nursery.cancel_scope
                    reader = _Reader(stream, machine, client, lobby)
                    nursery.start_soon(_writer, stream, machine, receive_channel, client,
                                       lobby, reader.peer_closed)
                    await reader.run()
            except Exception as exc:
                if _socket_gone(exc):
                    # The peer went away under a read or write: a disconnect, no fault.
                    client.close_reason = client.close_reason or RESET
                else:
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
    finally:
        gate.release(_host(peer))


def _host(peer: str) -> str:
    host, _, _port = peer.rpartition(":")
    return host or peer


def _socket_gone(exc: BaseException) -> bool:
    """The exception (or every exception of a group) says the socket is gone."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_socket_gone(inner) for inner in exc.exceptions)
    return isinstance(exc, (trio.BrokenResourceError, trio.ClosedResourceError,
                            ConnectionError))


class _Reader:
    """Reads until the peer closes, breaks the protocol or runs into a limit.

    The task only awaits; what happens between two awaits is one call of
    `server.reading.Intake.take`, which returns what needs an await here
    (`_act`): each parsed message goes to the lobby, `Lobby.received`.
    """

    def __init__(self, stream: trio.abc.Stream, machine: Machine,
                 client: Client, lobby: Lobby) -> None:
        self.stream = stream
        self.machine = machine
        self.client = client
        self.lobby = lobby
        self.settings = settings = lobby.settings
        now = trio.current_time()
        self.im_deadline: float | None = now + settings.im_timeout
        self.intake = Intake(machine, client, settings, lobby.door_variant(client.door).rep,
                             lobby.turn_stats, now)
        self.frames = self.intake.frames
        self.numbering = self.intake.numbering
        #: Set when the peer has closed (EOF) or reset: the writer's orderly close waits for it.
        self.peer_closed = trio.Event()
        #: the last read got less than it asked for: the socket was empty then
        self.drained = False

    async def run(self) -> None:
        take = self.intake.take
        data: bytes | None = None
        while True:
            event = take(data)
            data = None
            if event is NEED_DATA:
                if self.intake.oversize is not None:
                    await self._refuse_oversize()
                data = await self._read()
            elif not await self._act(event):
                return

    async def _act(self, event: object) -> bool:
        """What `Intake.take` left to an await; False when reading is over."""
        machine, client, lobby = self.machine, self.client, self.lobby
        match event:
            case Incoming():
                if event.wait > 0:
                    await trio.sleep(event.wait)
                await lobby.received(client, event.message, event.tokens)
            case InitialReceived():
                self.im_deadline = None
                rm = RepresentationMessage.for_representation(
                    lobby.door_variant(client.door).rep)
                client.send(machine.send(rm))
                # The RM carries only powers and provinces; the disputed press
                # tokens follow the connection's numbering (docs/protocol.md §6.7).
                machine.representation = self.numbering.representation
            case MessageReceived() | MessageRejected() if not self.numbering.known \
                    and mentions_disputed(event.tokens):
                await self._settle_numbering(event)
            case MessageRejected(tokens, error, reply):
                await self._rejected(tokens, error.reason, reply)
            case ConnectionClosed(reason, code, partial):
                client.close_reason = client.close_reason or f"peer sent {reason}" + (
                    f" 0x{code:02X}" if code is not None else "") + (
                    " mid-frame" if partial else "")
                self.peer_closed.set()
                client.abort(client.close_reason)
                return False
            case ProtocolViolation(code, reason, data):
                log.warning("protocol_violation", code=f"0x{int(code):02X}", reason=reason)
                await self._close_with(data, f"protocol violation: {reason}")
            case _:
                # This end sent its FM or EM: nothing more is read, only discarded.
                await self._drain()
                return False
        return True

    async def _rejected(self, tokens: tuple[int, ...], reason: str,
                        reply: Message | None) -> None:
        wait = self.intake.throttle()
        if wait > 0:
            await trio.sleep(wait)
        log.info("message_rejected", reason=reason, tokens=len(tokens))
        if reply is not None:
            self.client.send(reply)

    async def _settle_numbering(self, event: MessageReceived | MessageRejected) -> None:
        """A message with a value FCT, FOR or FWD has in some numbering, while the
        connection's numbering is open: maybe it proves one (`NumberingDetector`)."""
        numbering, client = self.numbering, self.client
        message = numbering.settle(event.tokens, self.machine.level)
        if message is not None:
            self.machine.representation = numbering.representation
            client.press_numbering = numbering.numbering.value
            log.info("press_numbering_detected", numbering=client.press_numbering,
                     power=client.power)
        elif isinstance(event, MessageReceived):
            message = event.message
        else:
            await self._rejected(event.tokens, event.error.reason, event.reply)
            return
        wait = self.intake.throttle()
        if wait > 0:
            await trio.sleep(wait)
        await self.lobby.received(client, message, event.tokens)

    async def _read(self) -> bytes:
        """One chunk (``b""`` at EOF) within the deadlines; a limit that expires closes."""
        while True:
            deadline, expired = self._deadline()
            if deadline == math.inf:         # a settled client between frames: no timer
                return await self._receive_some()
            with trio.move_on_at(deadline):
                return await self._receive_some()
            if self._expired(expired):
                await self._on_timeout(expired)

    async def _receive_some(self) -> bytes:
        """One chunk; a reset connection reads as the end of the stream.

        A read that got less than it asked for emptied the socket, and a game
        client then waits for an answer before it sends again: the next read
        waits for data first (trio's ``wait_readable``) instead of trying the
        socket and failing (EAGAIN, an exception and an epoll registration in
        trio's socket layer - half of all reads without this wait).
        """
        try:
            if self.drained and isinstance(self.stream, trio.SocketStream):
                await trio.lowlevel.wait_readable(self.stream.socket)
            data = bytes(await self.stream.receive_some(READ_SIZE))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return self._reset()
        self.drained = len(data) < READ_SIZE
        return data

    def _reset(self) -> bytes:
        """The connection was reset (or closed under us): the end of the stream."""
        self.client.close_reason = self.client.close_reason or RESET
        return b""

    async def _drain(self) -> None:
        """After this end closed: read and discard until the peer closes (the
        writer gives up after `CLOSE_DRAIN` seconds and cancels us)."""
        while await self._receive_some():
            pass
        self.peer_closed.set()
        await trio.sleep_forever()            # the writer finishes the close

    async def _refuse_oversize(self) -> None:
        oversize = self.intake.oversize
        log.warning("frame_too_large", reason=oversize)
        await self._close_with(build_frame(ErrorMessage(ErrorCode.BAD_LENGTH)),
                               f"frame too large: {oversize}")

    def _deadline(self) -> tuple[float, str]:
        """The earliest limit that can end the wait for data, and its name (on a
        tie the first of "frame", "idle", "im"); ``(inf, "")`` when none applies."""
        deadline, which = math.inf, ""
        partial_since = self.frames.partial_since
        if partial_since is not None:
            deadline, which = partial_since + self.settings.frame_timeout, "frame"
        if not self.client.settled:
            idle = self.intake.last_heard + self.settings.join_idle_timeout
            if idle < deadline:
                deadline, which = idle, "idle"
        if self.im_deadline is not None and self.im_deadline < deadline:
            deadline, which = self.im_deadline, "im"
        return deadline, which

    def _expired(self, which: str) -> bool:
        # The client may have settled (joined, game started) while we waited.
        return which != "idle" or not self.client.settled

    async def _on_timeout(self, which: str) -> None:
        client = self.client
        if which == "im":
            # docs/protocol.md §2: the 30-second initial-message timer.
            await self._close_with(self.machine.im_timer_expired(),
                                   "no IM within the initial-message timer")
        elif which == "frame":
            # Slow-loris: a frame begun and not finished (Parlance answers EM 0x09).
            log.warning("frame_timeout", seconds=self.settings.frame_timeout)
            await self._close_with(build_frame(ErrorMessage(ErrorCode.BAD_LENGTH)),
                                   "frame not completed in time")
        else:
            log.info("idle_timeout", seconds=self.settings.join_idle_timeout,
                     role=client.role.value)
            if self.machine.state is State.READY:
                client.send(Off())
            client.finish("idle without joining a game", fm=self.machine.state is State.READY)
            await self._drain()               # the writer flushes, then closes

    async def _close_with(self, em: bytes, reason: str) -> None:
        """Send an EM (already encoded) and close without FM (docs/protocol.md §4.5)."""
        self.client.close_reason = reason
        self.client.send(em)
        self.client.finish(reason, fm=False)
        await self._drain()                   # the writer flushes the EM, then closes


# --- writing ------------------------------------------------------------------------

def _frame_of(machine: Machine, message: Message) -> bytes | None:
    """The DM frame of ``message``; None before the RM (no DM may be sent yet).

    Raises EncodeError for a message that cannot be put on the wire.  After
    the peer broke the protocol or closed, the machine is closed for
    receiving, but what was queued before the EM still goes out first.
    Broadcasts arrive already encoded (`server.wire.Packet`).
    """
    if machine.state in _BEFORE_RM:
        return None
    return dm_frame(message.to_tokens(machine.representation))


async def _writer(stream: trio.abc.Stream, machine: Machine,
                  queue: trio.MemoryReceiveChannel[Outgoing], client: Client,
                  lobby: Lobby, peer_closed: trio.Event) -> None:
    """Write queued messages in batches of whole frames; a close marker ends the connection."""
    # One cancel scope for the writer's life, its deadline armed only while a
    # write is under way (a scope per write would be one more object per write).
    orderly = False
    with trio.CancelScope() as watchdog:
        try:
            orderly = await _write_loop(stream, machine, queue, client, lobby, watchdog)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            client.close_reason = client.close_reason or RESET
    if watchdog.cancelled_caught:
        log.warning("client_too_slow", power=client.power,
                    reason=f"no write completed in {lobby.settings.send_timeout} s")
        client.abort("socket blocked")
        return
    if orderly:
        await _close_orderly(stream, peer_closed)
    client.abort(client.close_reason or "closed")


async def _close_orderly(stream: trio.abc.Stream, peer_closed: trio.Event) -> None:
    """Everything is written: send FIN, then give the peer `CLOSE_DRAIN` seconds to
    close its side (the reader discards what still arrives) before the socket closes."""
    if isinstance(stream, trio.abc.HalfCloseableStream):
        try:
            with trio.move_on_after(CLOSE_DRAIN):
                await stream.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return                             # the peer is gone already
    with trio.move_on_after(CLOSE_DRAIN):
        await peer_closed.wait()


async def _write_loop(stream: trio.abc.Stream, machine: Machine,
                      queue: trio.MemoryReceiveChannel[Outgoing], client: Client,
                      lobby: Lobby, watchdog: trio.CancelScope) -> bool:
    """Write until the queue ends; True when a close marker ended it (an orderly close).

    Each write takes what is queued, up to `WRITE_BATCH` items, as one
    ``send_all``: a phase's broadcasts to a client go out in one system call.
    """
    send_timeout = lobby.settings.send_timeout
    # The HUH, PRN and REJ this player is sent go to the store (`server.refusals`).
    refusals = RefusalKeeper(lobby.store, client, lobby.games)
    noted: list[Message | str] = []
    while True:
        try:
            # parked on the queue only when it is empty
            try:
                items = [queue.receive_nowait()]
            except trio.WouldBlock:
                items = [await queue.receive()]
        except trio.EndOfChannel:
            return False
        while len(items) < WRITE_BATCH:
            try:
                items.append(queue.receive_nowait())
            except (trio.WouldBlock, trio.EndOfChannel):
                break
        chunks, done = _frames(machine, items, noted)
        if noted or refusals.waiting:
            refusals.note(noted, machine.representation)
            noted.clear()
        if chunks:
            try:
                await lobby.durability.wait()
            except DurabilityLost as exc:
                client.abort(f"storage failed: {exc}")
                return False
            watchdog.deadline = trio.current_time() + send_timeout
            await stream.send_all(b"".join(chunks))
            watchdog.deadline = math.inf
            if lobby.turn_stats is not None and client.game_id is not None \
                    and client.role is Role.PLAYER:
                _note_now_out(lobby, client, items)
        if done:
            return True


def _frames(machine: Machine, items: list[Outgoing],
            noted: list[Message | str]) -> tuple[list[bytes], bool]:
    """The frames of a batch of queued items, and whether a close marker ended it;
    the HUH, PRN and REJ among them and the NOWs (a packet's turn) are added to
    ``noted``, in order (`server.refusals.RefusalKeeper`)."""
    chunks: list[bytes] = []
    for item in items:
        if isinstance(item, Packet):
            if machine.state in _BEFORE_RM:
                log.info("message_before_rm_dropped", kind=item.command)
                continue
            try:
                chunks.append(packet_frames(item, machine.representation))
            except ProtocolError as exc:
                log.error("unsendable_message", kind=item.command, error=str(exc))
                continue
            if item.turn is not None:
                noted.append(item.turn)
            continue
        if isinstance(item, bytes):
            chunks.append(item)
            continue
        if isinstance(item, Close):
            if item is Close.WITH_FM:
                try:
                    chunks.append(machine.send(FinalMessage()))
                except ProtocolError:
                    pass
            return chunks, True
        try:
            frame = _frame_of(machine, item)
        except ProtocolError as exc:
            log.error("unsendable_message", kind=getattr(item, "COMMAND", "?"), error=str(exc))
            continue
        if frame is None:
            log.info("message_before_rm_dropped", kind=getattr(item, "COMMAND", "?"))
        else:
            chunks.append(frame)
            if item.__class__ in NOTED:
                noted.append(item)
    return chunks, False


def _note_now_out(lobby: Lobby, client: Client, items: list[Outgoing]) -> None:
    """Turn statistics: a NOW has just been handed to a player's socket."""
    handle = lobby.games.get(client.game_id) if client.game_id is not None else None
    if lobby.turn_stats is None or handle is None:
        return
    for item in items:
        turn = item.turn if isinstance(item, Packet) else \
            str(item.turn) if isinstance(item, Now) else None
        if turn is not None:
            lobby.turn_stats.now_out(handle.id, turn, handle.seats, trio.current_time())
