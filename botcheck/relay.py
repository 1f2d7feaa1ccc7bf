"""The relay between the bot under test and the embedded server.

The bot is told to connect to a `Relay` on a loopback port; the relay opens
its own connection to the server and copies whole frames both ways
(docs/protocol.md §3), writing every one into the transcript as DAIDE text
with the time it passed.  It also lets a scenario act as the server would,
which a real game does not do on demand:

* `Relay.inject` sends the bot a message the server did not (an unknown
  command, a malformed message, press the bot did not ask for, ADM, CCD...);
* `Relay.drop` cuts the connection (no FM), as a network failure would; the
  relay keeps listening, so a bot may come back with ``IAM``.

Its only change to what passes is the bot's ``NME``: the name becomes
``'POW:name'`` (docs/protocol.md §8.1), so the server seats it at the
scenario's power.  The transcript keeps the name the bot sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import trio

from protocol.errors import ProtocolError
from protocol.frames import (
    HEADER_SIZE,
    MAGIC,
    PROTOCOL_VERSION,
    DiplomacyMessage,
    ErrorMessage,
    FrameType,
    InitialMessage,
    RepresentationMessage,
    dm_frame,
    parse_body,
    take_frames,
)
from protocol.messages import Hlo, MapMessage, Message, Nme, Off, Smr, Yes
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD, Representation
from tournament.proxy import rm_representation

_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)

#: Who a transcript line is from.
BOT = "bot"
SERVER = "server"
INJECTED = "injected"   # sent to the bot by the checker, as if by the server
EVENT = "event"         # what happened to the connection (opened, closed, dropped)


@dataclass(frozen=True)
class Line:
    """One transcript line: seconds since the scenario began, who, DAIDE text."""

    at: float
    who: str
    text: str
    message: Message | None = None

    def render(self) -> str:
        arrow = {BOT: "bot    >", SERVER: "server <", INJECTED: "checker<", EVENT: "       *"}
        return f"{self.at:7.2f} {arrow.get(self.who, self.who)} {self.text}"


@dataclass(eq=False)
class _BotConnection:
    upstream: trio.SocketStream
    downstream: trio.abc.Stream
    scope: trio.CancelScope
    down_lock: trio.Lock = field(default_factory=trio.Lock)


class Relay:
    """One bot's connection(s) to the server, recorded (see the module docstring)."""

    def __init__(self, server_port: int, power: str, clock: Callable[[], float]) -> None:
        self.server_port = server_port
        self.power = power
        self.clock = clock
        self.rep: Representation = STANDARD
        self.lines: list[Line] = []
        self.connections = 0
        self.accepted = trio.Event()
        """The bot answered MAP with YES (MAP ...)."""
        self.started = trio.Event()
        """HLO reached the bot."""
        self.over = trio.Event()
        """SMR or OFF reached the bot."""
        self.off_at: float | None = None
        self.closed = trio.Event()
        """The bot closed (or lost) its connection; reset when it connects again."""
        self.reconnected = trio.Event()
        """A second connection came (after `drop`)."""
        self.dropping = False
        self.on_server: Callable[[Line], None] | None = None
        """Called with every line from the server (the scenario's cue for injections)."""
        self._link: _BotConnection | None = None
        self._scope = trio.CancelScope()
        self._changed = trio.Event()

    # --- lifetime ------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on 127.0.0.1 (a free port, given to the starter) until `shut`."""
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = int(listeners[0].socket.getsockname()[1])
        try:
            with self._scope:
                async with trio.open_nursery() as nursery:
                    await nursery.start(partial(trio.serve_listeners, self._serve, listeners,
                                                handler_nursery=nursery))
                    task_status.started(port)
        finally:
            with trio.CancelScope(shield=True):
                for listener in listeners:
                    await listener.aclose()

    def shut(self) -> None:
        self._scope.cancel()

    @property
    def connected(self) -> bool:
        return self._link is not None

    def note(self, who: str, text: str, message: Message | None = None) -> Line:
        line = Line(round(self.clock(), 3), who, text, message)
        self.lines.append(line)
        self._changed.set()
        self._changed = trio.Event()
        return line

    async def changed(self) -> None:
        """Wait for the next transcript line."""
        await self._changed.wait()

    # --- acting as the server -------------------------------------------------------

    async def inject(self, text: str, tokens: tuple[int, ...] | None = None) -> bool:
        """Send the bot ``text`` (or raw ``tokens``, shown as ``text``) as from the server;
        False when it is not connected."""
        link = self._link
        if link is None:
            return False
        frame = dm_frame(tokens if tokens is not None else parse_text(text, self.rep))
        self.note(INJECTED, text)
        try:
            async with link.down_lock:
                await link.downstream.send_all(frame)
        except _BROKEN:
            return False
        return True

    def drop(self) -> None:
        """Cut the bot's current connection, both ways, without an FM."""
        link = self._link
        if link is not None:
            self.dropping = True
            self.note(EVENT, "the checker drops the connection (no FM), as a network failure would")
            link.scope.cancel()

    # --- relaying ------------------------------------------------------------------

    async def _serve(self, downstream: trio.abc.Stream) -> None:
        async with downstream:
            try:
                upstream = await trio.open_tcp_stream("127.0.0.1", self.server_port)
            except OSError as exc:
                self.note(EVENT, f"the embedded server is unreachable: {exc}")
                return
            self.connections += 1
            if self.connections > 1:
                self.reconnected.set()
            self.closed = trio.Event()
            self.note(EVENT, f"the bot connects (connection {self.connections})")
            with trio.CancelScope() as scope:
                link = _BotConnection(upstream, downstream, scope)
                self._link = link
                try:
                    async with upstream, trio.open_nursery() as nursery:
                        nursery.start_soon(self._pump_up, link, nursery.cancel_scope)
                        nursery.start_soon(self._pump_down, link, nursery.cancel_scope)
                finally:
                    self._link = None
            self.closed.set()

    async def _pump_up(self, link: _BotConnection, scope: trio.CancelScope) -> None:
        """Bot -> server."""
        buffer = bytearray()
        try:
            while True:
                data = await link.downstream.receive_some(65536)
                if not data:
                    self.note(EVENT, "the bot closed its connection")
                    break
                buffer += data
                try:
                    frames = take_frames(buffer)
                except ProtocolError as exc:
                    self.note(EVENT, f"the bot sent bytes that are not a frame: {exc}")
                    break
                for raw in frames:
                    await link.upstream.send_all(self._from_bot(raw))
        except _BROKEN:
            if not self.dropping:
                self.note(EVENT, "the bot's connection broke")
        scope.cancel()

    async def _pump_down(self, link: _BotConnection, scope: trio.CancelScope) -> None:
        """Server -> bot."""
        buffer = bytearray()
        try:
            while True:
                data = await link.upstream.receive_some(65536)
                if not data:
                    self.note(EVENT, "the server closed the connection")
                    break
                buffer += data
                for raw in take_frames(buffer):
                    line = self._from_server(raw)
                    async with link.down_lock:
                        await link.downstream.send_all(raw)
                    if line is not None and self.on_server is not None:
                        self.on_server(line)
        except _BROKEN:
            pass
        scope.cancel()

    # --- reading frames --------------------------------------------------------------

    def _describe(self, raw: bytes, sender: Sender) -> tuple[str, Message | None]:
        """The text of a frame, and its message when it is a DM that parses."""
        kind = raw[0]
        body = raw[HEADER_SIZE:]
        try:
            frame = parse_body(FrameType(kind), body)
        except (ProtocolError, ValueError) as exc:
            return f"(a frame that does not parse: {exc})", None
        if isinstance(frame, InitialMessage):
            ok = frame.version == PROTOCOL_VERSION and frame.magic == MAGIC
            return (f"IM (version {frame.version}, magic 0x{frame.magic:04X}"
                    f"{'' if ok else ' - expected version 1, magic 0xDA10'})"), None
        if isinstance(frame, RepresentationMessage):
            return (f"RM ({len(frame.entries)} tokens)" if frame.entries
                    else "RM (the standard tokens)"), None
        if isinstance(frame, ErrorMessage):
            return f"EM (error code 0x{frame.code:02X})", None
        if not isinstance(frame, DiplomacyMessage):
            return "FM", None
        text = render_text(frame.tokens, self.rep)
        try:
            return text, parse_message(frame.tokens, self.rep, sender=sender)
        except ProtocolError:
            return text, None

    def _from_bot(self, raw: bytes) -> bytes:
        text, message = self._describe(raw, Sender.CLIENT)
        self.note(BOT, text, message)
        match message:
            case Nme(name=name, version=version):
                return dm_frame(Nme(f"{self.power}:{name}", version).to_tokens(self.rep))
            case Yes(message=MapMessage()):
                self.accepted.set()
        return raw

    def _from_server(self, raw: bytes) -> Line:
        announced = rm_representation(raw)
        if announced is not None:
            self.rep = announced
        text, message = self._describe(raw, Sender.SERVER)
        line = self.note(SERVER, text, message)
        match message:
            case Hlo():
                self.started.set()
            case Smr():
                self.over.set()
            case Off():
                self.off_at = line.at
                self.over.set()
        return line


__all__ = ["BOT", "EVENT", "INJECTED", "SERVER", "Line", "Relay"]
