"""The relay in front of an external bot: seating by name, hang detection.

An external DAIDE program (an Albert or DumbBot binary, a Parlance or
DipGame bot) is told to connect to a `SeatProxy` on a loopback port, which
opens its own connection to the real server and copies the frames both ways
(docs/protocol.md §3: ``type, pad, length, body``), whole frames at a time.  It
reads only what it must:

* the bot's ``NME ('name') ('version')`` is rewritten to
  ``NME ('POW:name#tag') ('version')``, so the server seats the bot at the
  power the tournament plan gives it (the ``'FRA:name'`` convention of
  docs/protocol.md §8.1 that `server.assignment` honours) and the game
  can be found again in the server's ``seats`` table by that name;
* the bot's ``YES (MAP ...)`` says its seat is taken (`SeatProxy.accepted`);
* the server's ``HLO`` (passcode), ``NOW`` (turn), ``SMR``/``OFF`` (the
  game is over for this seat).

Hang detection: when a turn has lasted ``move_timeout`` seconds, the relay
asks the server on the bot's behalf for ``MIS`` (docs/protocol.md §8.5) and keeps
the answer to itself.  A bare ``MIS`` means the bot has done its part (the
game is waiting for someone else); a ``MIS`` that lists units - or no
answer because the relay's writes to the bot are blocked, i.e. the bot does
not even read what it is sent - means the bot is hung: the relay cuts both
connections, the server puts the power in civil disorder (``CCD``) and the
game goes on without it (`server.game`, "Who is waited for").  No answer
while nothing is blocked is the server's silence, not the bot's fault: it
is logged and left to the game's time limit.

The relay accepts more than one connection in a row, so a bot that loses
its connection may come back with ``IAM`` (docs/protocol.md §13.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import structlog
import trio

from protocol.errors import ProtocolError
from protocol.frames import (
    HEADER_SIZE,
    DiplomacyMessage,
    FrameType,
    RepresentationMessage,
    dm_frame,
    parse_body,
    take_frames,
)
from protocol.messages import Hlo, MapMessage, Message, Mis, MisRequest, Nme, Now, Off, Smr, Yes
from protocol.parse import Sender, parse_message
from protocol.text import render_text
from protocol.tokens import STANDARD, Representation

log = structlog.get_logger("tournament.proxy")

_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


class FrameSplitter:
    """Cuts a byte stream into whole raw frames (4-byte header + body)."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        self._buffer += data
        return take_frames(self._buffer)


def decode_dm(raw: bytes, rep: Representation, sender: Sender) -> Message | None:
    """The message in a raw DM frame, typed as ``sender``'s (the bot is the
    client), or None: another frame type, or a message that does not parse
    (passed on as it came: the server answers the bot's faults itself)."""
    if raw[0] != FrameType.DM:
        return None
    try:
        frame = parse_body(FrameType.DM, raw[HEADER_SIZE:])
        assert isinstance(frame, DiplomacyMessage)
        return parse_message(frame.tokens, rep, sender=sender)
    except ProtocolError:
        return None


def rm_representation(raw: bytes) -> Representation | None:
    """The representation a raw RM frame announces (docs/protocol.md §4.2); None for
    another frame or an RM that does not parse (the client then keeps its own)."""
    if raw[0] != FrameType.RM:
        return None
    try:
        rm = parse_body(FrameType.RM, raw[HEADER_SIZE:])
    except ProtocolError:
        return None
    assert isinstance(rm, RepresentationMessage)
    return rm.representation()


def encode_dm(message: Message, rep: Representation) -> bytes:
    return dm_frame(message.to_tokens(rep))


@dataclass(eq=False)
class _Link:
    """One connection of the bot and the relay's connection to the server for it."""

    upstream: trio.SocketStream
    downstream: trio.abc.Stream
    up_lock: trio.Lock = field(default_factory=trio.Lock)
    delivering: bool = False
    """True while a write to the bot is under way (it blocks when the bot stops reading)."""


class SeatProxy:
    """Relay for one external bot at one power (see the module docstring)."""

    def __init__(self, host: str, port: int, *, power: str, tag: str,
                 move_timeout: float) -> None:
        self.upstream = (host, port)
        self.power = power
        self.tag = tag
        self.move_timeout = move_timeout
        self.claimed = trio.Event()
        """The server answered the bot's NME with MAP: its seat is claimed."""
        self.accepted = trio.Event()
        """The bot accepted the map (YES (MAP)): it holds its seat."""
        self.started = trio.Event()
        """HLO arrived: the game has begun."""
        self.stopped = trio.Event()
        """The relay was shut or cut."""
        self.over = False
        """SMR or OFF reached the bot: the game is over for this seat."""
        self.failure: tuple[str, str] | None = None
        """(kind, detail) when the relay cut a hung bot off."""
        self.name: str | None = None
        """The name given to the server (after the rewrite)."""
        self.passcode: int | None = None
        self.connections = 0
        self.rep: Representation = STANDARD
        self._scope = trio.CancelScope()
        self._link: _Link | None = None
        self._turn: str | None = None
        self._turn_since = 0.0
        self._changed = trio.Event()
        self._probe_pending = False
        self._probe_answer: Mis | None = None
        self._probe_event = trio.Event()
        self.log = log.bind(power=power, tag=tag)

    # --- lifetime ------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen on 127.0.0.1 (a free port, given to the starter) until shut."""
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = int(listeners[0].socket.getsockname()[1])
        try:
            with self._scope:
                async with trio.open_nursery() as nursery:
                    await nursery.start(partial(trio.serve_listeners, self._serve, listeners,
                                                handler_nursery=nursery))
                    nursery.start_soon(self._watchdog)
                    task_status.started(port)
        finally:
            self.stopped.set()
            with trio.CancelScope(shield=True):
                for listener in listeners:
                    await listener.aclose()

    def shut(self) -> None:
        """Close every connection and stop listening (the game is over)."""
        self._scope.cancel()

    def cut(self, kind: str, detail: str) -> None:
        """Cut a failing bot off: record why, then shut."""
        if self.failure is None and not self.over:
            self.failure = (kind, detail)
            self.log.warning("bot_cut_off", kind=kind, detail=detail)
        self.shut()

    # --- relaying ------------------------------------------------------------------

    async def _serve(self, downstream: trio.abc.Stream) -> None:
        async with downstream:
            try:
                upstream = await trio.open_tcp_stream(*self.upstream)
            except OSError as exc:
                self.log.error("server_unreachable", error=str(exc))
                return
            link = _Link(upstream, downstream)
            self._link = link
            self.connections += 1
            try:
                async with upstream, trio.open_nursery() as nursery:
                    nursery.start_soon(self._pump_up, link, nursery.cancel_scope)
                    nursery.start_soon(self._pump_down, link, nursery.cancel_scope)
            finally:
                if self._link is link:
                    self._link = None
                if self.over:
                    self.shut()     # the game is over for this seat: nothing more to relay

    async def _pump_up(self, link: _Link, scope: trio.CancelScope) -> None:
        """Bot -> server."""
        splitter = FrameSplitter()
        try:
            while True:
                data = await link.downstream.receive_some(65536)
                if not data:
                    break
                for raw in splitter.feed(data):
                    out = self._from_bot(raw)
                    async with link.up_lock:
                        await link.upstream.send_all(out)
        except _BROKEN:
            pass
        scope.cancel()

    async def _pump_down(self, link: _Link, scope: trio.CancelScope) -> None:
        """Server -> bot."""
        splitter = FrameSplitter()
        try:
            while True:
                data = await link.upstream.receive_some(65536)
                if not data:
                    break
                kept = [raw for raw in splitter.feed(data) if self._from_server(raw)]
                if kept:
                    link.delivering = True
                    await link.downstream.send_all(b"".join(kept))
                    link.delivering = False
        except _BROKEN:
            pass
        scope.cancel()

    def _from_bot(self, raw: bytes) -> bytes:
        """Inspect one frame from the bot; returns the frame to send on."""
        match decode_dm(raw, self.rep, Sender.CLIENT):
            case Nme(name=original, version=version):
                self.name = f"{self.power}:{original}#{self.tag}"
                return encode_dm(Nme(self.name, version), self.rep)
            case Yes(message=MapMessage()):
                self.accepted.set()
        return raw

    def _from_server(self, raw: bytes) -> bool:
        """Inspect one frame from the server; False to keep it from the bot."""
        if raw[0] == FrameType.RM:
            announced = rm_representation(raw)
            if announced is not None:
                self.rep = announced
            return True
        match decode_dm(raw, self.rep, Sender.SERVER):
            case MapMessage():
                self.claimed.set()
            case Hlo(passcode=passcode):
                self.passcode = passcode
                self.started.set()
            case Now(turn=now_turn):
                turn = str(now_turn)
                if turn != self._turn:
                    self._turn = turn
                    self._turn_since = trio.current_time()
                    self._changed.set()
                    self._changed = trio.Event()
            case Smr() | Off():
                self.over = True
                self._changed.set()
            case Mis() as missing if self._probe_pending:
                self._probe_pending = False
                self._probe_answer = missing
                self._probe_event.set()
                return False
        return True

    # --- hang detection ------------------------------------------------------------

    async def _watchdog(self) -> None:
        checked: str | None = None
        while not self.over:
            changed = self._changed
            turn = self._turn
            if turn is None or turn == checked:
                await changed.wait()
                continue
            with trio.move_on_at(self._turn_since + self.move_timeout):
                await changed.wait()
            if self.over or self._turn != turn:
                continue
            checked = turn
            missing = await self._probe()
            if missing is not None and self._turn == turn and not self.over:
                self.cut("hang", f"no complete orders for {turn} after "
                                 f"{self.move_timeout:g} s ({missing})")
                return

    async def _probe(self) -> str | None:
        """Ask the server for MIS on the bot's behalf; None if nothing is missing."""
        link = self._link
        if link is None:
            return None     # not connected: the server already treats it as away
        self._probe_event = trio.Event()
        self._probe_pending = True
        try:
            async with link.up_lock:
                await link.upstream.send_all(encode_dm(MisRequest(), self.rep))
        except _BROKEN:
            return None
        with trio.move_on_after(self.move_timeout):
            await self._probe_event.wait()
            answer = self._probe_answer
            if answer is None or answer == Mis():
                return None
            return render_text(answer.to_tokens(self.rep), self.rep)
        self._probe_pending = False
        if link.delivering:
            # The answer is stuck behind messages the bot does not read.
            return "the bot does not read what the server sends"
        # Nothing is stuck on our side: the server itself did not answer, which
        # is no fault of the bot's.  Say so, and let the game's time limit act.
        self.log.warning("server_did_not_answer_mis", turn=self._turn)
        return None
