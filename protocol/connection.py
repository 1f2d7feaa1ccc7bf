"""A sans-IO DAIDE connection for either end, in the style of h11.

Theory of operation
-------------------

The connection eats bytes and produces events; it never touches a socket,
a clock or a task.  The caller:

* feeds whatever arrived with :meth:`Connection.receive_data` (``b""`` =
  the peer closed TCP);
* calls :meth:`Connection.next_event` until it returns :data:`NEED_DATA`
  (read more) or :data:`CLOSED` (stop reading);
* turns what it wants to say into bytes with :meth:`Connection.send`
  (a :class:`~protocol.messages.Message` becomes a DM) and writes each
  result in one call (docs/protocol.md §19.9).

Events are frozen dataclasses:

* :class:`InitialReceived` (server) - a valid IM: send the RM next;
* :class:`RepresentationReceived` (client) - the RM; a non-empty one has
  already switched :attr:`Connection.representation` (docs/protocol.md §4.2);
* :class:`MessageReceived` - a DM that parsed as the peer's message;
* :class:`MessageRejected` - a DM with bad brackets or grammar; ``reply`` is
  the PRN/HUH to send (None when a HUH/PRN itself was faulty, 14.2);
* :class:`ConnectionClosed` - the peer sent FM or EM, or closed TCP;
* :class:`ProtocolViolation` - the peer broke the framing rules: ``data``
  is the EM to send before closing (section 4.5).

After a :class:`ConnectionClosed` or :class:`ProtocolViolation`, and after
this end sent an FM or EM, the connection is closed: :meth:`next_event`
returns :data:`CLOSED` and :meth:`send` raises :class:`LocalProtocolError`.

All framing rules are the single table :data:`TRANSITIONS` below; the
EM codes that depend on a frame's contents (IM byte order, magic, version;
lengths; private-use tokens) are checked in :meth:`Connection._on_frame`
and :mod:`protocol.frames`.  The server's 30-second IM timer is the
caller's (it owns the clock): when it expires, send
:meth:`Connection.im_timer_expired`'s bytes (EM 0x01) and close.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

from protocol.errors import BracketError, GrammarError, ProtocolError
from protocol.frames import (
    HEADER_SIZE,
    MAGIC,
    PRIVATE_TOKEN,
    PROTOCOL_VERSION,
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    Frame,
    FrameError,
    FrameType,
    InitialMessage,
    RepresentationMessage,
    build_frame,
    check_length,
    dm_frame,
    parse_body,
)
from protocol.messages import Message
from protocol.parse import Sender, error_reply
from protocol.reader import MessageReader, process_reader
from protocol.tokens import STANDARD, Representation
from protocol.tree import body_tokens


class LocalProtocolError(ProtocolError):
    """This end tried to do something the protocol forbids (a bug in the caller)."""


class State(enum.Enum):
    """Framing states.  Server: AWAIT_IM -> GOT_IM -> READY; client: START -> AWAIT_RM -> READY."""

    START = "start"  # client: nothing sent yet
    AWAIT_IM = "await IM"  # server: nothing received yet
    GOT_IM = "got IM"  # server: IM received, RM not yet sent
    AWAIT_RM = "await RM"  # client: IM sent, RM not yet received
    READY = "ready"  # RM exchanged: DMs flow both ways
    CLOSED = "closed"


class Direction(enum.Enum):
    RECEIVE = "receive"
    SEND = "send"


S, C = Sender.SERVER, Sender.CLIENT
IM, RM, DM, FM, EM = FrameType.IM, FrameType.RM, FrameType.DM, FrameType.FM, FrameType.EM
R, W = Direction.RECEIVE, Direction.SEND

#: (role, state, direction, frame type) -> next state, or the EM code to send
#: (receiving) - a missing key when sending is a LocalProtocolError.
#: FM and EM end the connection from any open state, either way.
TRANSITIONS: dict[tuple[Sender, State, Direction, FrameType], State | ErrorCode] = {
    # --- server -------------------------------------------------------------
    (S, State.AWAIT_IM, R, IM): State.GOT_IM,
    (S, State.AWAIT_IM, R, DM): ErrorCode.IM_NOT_FIRST,
    (S, State.AWAIT_IM, R, RM): ErrorCode.RM_FROM_CLIENT,
    (S, State.GOT_IM, R, IM): ErrorCode.IM_REPEATED,
    (S, State.GOT_IM, R, RM): ErrorCode.RM_FROM_CLIENT,
    # docs/protocol.md §19.2: clients send NME right after their IM, before they
    # have seen the RM - accept a DM any time after a valid IM.
    (S, State.GOT_IM, R, DM): State.GOT_IM,
    (S, State.GOT_IM, W, RM): State.READY,
    (S, State.READY, R, IM): ErrorCode.IM_REPEATED,
    (S, State.READY, R, RM): ErrorCode.RM_FROM_CLIENT,
    (S, State.READY, R, DM): State.READY,
    (S, State.READY, W, DM): State.READY,
    # --- client -------------------------------------------------------------
    (C, State.START, W, IM): State.AWAIT_RM,
    # Before the RM: an IM breaks "RM first" (0x0B), a DM is 0x0A (4.3);
    # after it, an IM is "IM sent by the server" (0x07).
    (C, State.START, R, IM): ErrorCode.RM_NOT_FIRST,
    (C, State.START, R, DM): ErrorCode.DM_BEFORE_RM,
    (C, State.START, R, RM): State.READY,
    (C, State.AWAIT_RM, R, IM): ErrorCode.RM_NOT_FIRST,
    (C, State.AWAIT_RM, R, DM): ErrorCode.DM_BEFORE_RM,
    (C, State.AWAIT_RM, R, RM): State.READY,
    (C, State.AWAIT_RM, W, DM): State.AWAIT_RM,
    (C, State.READY, R, IM): ErrorCode.IM_FROM_SERVER,
    (C, State.READY, R, RM): ErrorCode.RM_REPEATED,
    (C, State.READY, R, DM): State.READY,
    (C, State.READY, W, DM): State.READY,
}
for _role in Sender:
    for _state in State:
        if _state is not State.CLOSED:
            for _direction in Direction:
                TRANSITIONS[(_role, _state, _direction, FM)] = State.CLOSED
                TRANSITIONS[(_role, _state, _direction, EM)] = State.CLOSED

#: :data:`TRANSITIONS` cut by (role, state): ``(receiving, sending)``, each a
#: dict from the frame's type byte to the step.  A connection keeps the pair of
#: its state, so a frame's step is one dict hit on an int (a key of four enums
#: costs four calls of the Python-level ``Enum.__hash__``).
_Steps = dict[int, State | ErrorCode]
STEPS: dict[tuple[Sender, State], tuple[_Steps, _Steps]] = {
    (_role, _state): ({}, {}) for _role in Sender for _state in State
}
for (_role, _state, _direction, _type), _step in TRANSITIONS.items():
    STEPS[(_role, _state)][0 if _direction is R else 1][int(_type)] = _step
_DM: Final = int(FrameType.DM)
#: State.CLOSED, looked up once: an enum member read from its class is a
#: descriptor call, and next_event asks twice per message
_CLOSED_STATE: Final = State.CLOSED


# --- events -----------------------------------------------------------------


class _Sentinel(enum.Enum):
    NEED_DATA = "NEED_DATA"
    CLOSED = "CLOSED"


#: :meth:`Connection.next_event`: feed more bytes first.
NEED_DATA: Final = _Sentinel.NEED_DATA
#: :meth:`Connection.next_event`: the connection has ended; nothing more will come.
CLOSED: Final = _Sentinel.CLOSED


@dataclass(frozen=True, slots=True)
class InitialReceived:
    """Server: a valid IM arrived; send the RM now."""

    version: int


@dataclass(frozen=True, slots=True)
class RepresentationReceived:
    """Client: the RM arrived (``representation`` is now in force)."""

    representation: Representation
    empty: bool


@dataclass(frozen=True, slots=True)
class MessageReceived:
    """A DM that parsed: the typed message and its tokens as received."""

    message: Message
    tokens: tuple[int, ...]

    # Written out (as protocol.orders.Turn): compiled, a frozen dataclass's
    # generated __init__ stays interpreted, and one is made per message.
    def __init__(self, message: Message, tokens: tuple[int, ...]) -> None:
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "tokens", tokens)


@dataclass(frozen=True, slots=True)
class MessageRejected:
    """A DM that did not parse; send ``reply`` (PRN or HUH) unless it is None."""

    tokens: tuple[int, ...]
    error: BracketError | GrammarError = field(compare=False)
    reply: Message | None


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The peer ended the connection: ``reason`` is "FM", "EM" or "EOF".

    ``code`` is the EM's code; ``partial`` is True when TCP closed in the
    middle of a frame.
    """

    reason: str
    code: int | None = None
    partial: bool = False


@dataclass(frozen=True, slots=True)
class ProtocolViolation:
    """The peer broke the framing rules: send ``data`` (the EM) and close."""

    code: ErrorCode
    reason: str
    data: bytes


Event = (
    InitialReceived
    | RepresentationReceived
    | MessageReceived
    | MessageRejected
    | ConnectionClosed
    | ProtocolViolation
)


class Connection:
    """One end of a DAIDE connection (``role`` = which end *this* is).

    ``representation`` starts as ``rep`` (a server passes its game's map; a
    client STANDARD) and follows the RM.  ``level`` is the game's press level
    used to check a client's messages on the server side (None = no level
    checks); the session sets it when it knows the game.  Received DMs are
    read by ``reader`` (a :class:`~protocol.reader.MessageReader` for
    ``rep``; by default the process's, which every connection speaking
    ``rep`` shares) until the representation changes, then by the process's
    reader for the new one.
    """

    def __init__(
        self, role: Sender, rep: Representation = STANDARD, *, level: int | None = None,
        reader: MessageReader | None = None,
    ) -> None:
        self.role = role
        self.peer = Sender.CLIENT if role is Sender.SERVER else Sender.SERVER
        self.state = State.START
        self._receiving: _Steps = {}
        self._sending: _Steps = {}
        self._dm_ok = False
        self._set_state(State.AWAIT_IM if role is Sender.SERVER else State.START)
        self.representation = rep
        self.level = level
        self._reader = reader if reader is not None else process_reader(rep)
        self._reader_for = rep  # the representation self._reader was chosen for
        self._buffer = bytearray()
        self._eof = False
        # the header of the frame being received (checked): type byte, body length;
        # -1 = no header yet
        self._type = 0
        self._length = -1

    def _set_state(self, state: State) -> None:
        """Move to ``state`` (``state`` is read-only for callers: this keeps the
        state's steps at hand)."""
        self.state = state
        self._receiving, self._sending = STEPS[(self.role, state)]
        # A DM received in this state is allowed and keeps it (the DM fast path).
        self._dm_ok = self._receiving.get(_DM) is state

    # --- receiving -----------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Add received bytes; ``b""`` means the peer closed the TCP connection."""
        if data:
            if not self._eof:
                self._buffer += data
        else:
            self._eof = True

    def next_event(self) -> Event | _Sentinel:
        """The next event, or NEED_DATA, or CLOSED.  Never raises for peer faults."""
        if self.state is _CLOSED_STATE:
            return CLOSED
        try:
            return self._next_event()
        except FrameError as exc:
            return self._violation(exc.code, exc.reason)

    def _next_event(self) -> Event | _Sentinel:
        # The DM of a connection in the state that takes it - nearly every frame -
        # goes the short road: its header read by index, its tokens unpacked in
        # place; the checks it skips cannot fail for it (a DM allowed in this
        # state, a non-zero even length).  Everything else goes through
        # _check_header / parse_body / _on_frame.  Both give the same events
        # and errors (tests/test_protocol_frames_fast.py).
        buf = self._buffer
        while True:
            length = self._length
            if length < 0:
                if len(buf) < HEADER_SIZE:
                    return self._need_data()
                # protocol.frames.parse_header, inlined
                raw_type, length = buf[0], (buf[2] << 8) | buf[3]
                if raw_type != _DM or not self._dm_ok or not length or length & 1:
                    self._check_header(raw_type, length)
                self._type = raw_type
                self._length = length
            end = HEADER_SIZE + length
            if len(buf) < end:
                return self._need_data()
            raw_type = self._type
            self._length = -1
            if raw_type == _DM and self._dm_ok:
                tokens = body_tokens(buf, HEADER_SIZE, end)
                if tokens is None:
                    raise FrameError(ErrorCode.INVALID_TOKEN, PRIVATE_TOKEN)
                del buf[:end]
                return self._on_dm(tokens)
            body = bytes(buf[HEADER_SIZE:end])
            del buf[:end]
            frame_type = FrameType(raw_type)
            event = self._on_frame(frame_type, parse_body(frame_type, body))
            if event is not None:
                return event

    def _need_data(self) -> Event | _Sentinel:
        if self._eof:
            self._set_state(State.CLOSED)
            return ConnectionClosed("EOF", partial=bool(self._buffer))
        return NEED_DATA

    def _check_header(self, raw_type: int, length: int) -> tuple[FrameType, int]:
        """Everything a header alone decides: type, state table, length."""
        try:
            frame_type = FrameType(raw_type)
        except ValueError:
            raise FrameError(ErrorCode.UNKNOWN_TYPE, f"message type {raw_type}") from None
        step = self._receiving.get(raw_type)
        if isinstance(step, ErrorCode):
            raise FrameError(step, f"{frame_type.name} not allowed in state {self.state.value}")
        if frame_type is FrameType.IM and length == 0x0400:
            # The client wrote the length little-endian (Parlance's check, 4.1).
            raise FrameError(ErrorCode.IM_WRONG_ENDIAN, "IM length field is byte-swapped")
        check_length(frame_type, length)
        return frame_type, length

    def _on_frame(self, frame_type: FrameType, frame: Frame) -> Event | None:
        step = self._receiving[frame_type]
        assert isinstance(step, State)
        if isinstance(frame, DiplomacyMessage):
            return self._on_dm(frame.tokens)
        if isinstance(frame, InitialMessage):
            if frame.magic == 0x10DA:
                raise FrameError(ErrorCode.IM_WRONG_ENDIAN, "IM magic is byte-swapped")
            if frame.magic != MAGIC:
                raise FrameError(ErrorCode.IM_WRONG_MAGIC, f"IM magic 0x{frame.magic:04X}")
            if frame.version != PROTOCOL_VERSION:
                raise FrameError(ErrorCode.VERSION_INCOMPATIBLE, f"version {frame.version}")
            self._set_state(step)
            return InitialReceived(frame.version)
        if isinstance(frame, RepresentationMessage):
            self.representation = frame.representation()
            self._set_state(step)
            return RepresentationReceived(self.representation, not frame.entries)
        self._set_state(State.CLOSED)
        if isinstance(frame, ErrorMessage):
            return ConnectionClosed("EM", frame.code)
        return ConnectionClosed("FM")

    def _on_dm(self, tokens: tuple[int, ...]) -> Event:
        reader = self._reader
        if self._reader_for is not self.representation:  # changed by an RM or by the caller
            reader = self._reader = process_reader(self.representation)
            self._reader_for = self.representation
        try:
            message = reader.read(tokens, sender=self.peer, level=self.level)
        except (BracketError, GrammarError) as exc:
            return MessageRejected(tokens, exc, error_reply(exc))
        return MessageReceived(message, tokens)

    def _violation(self, code: ErrorCode, reason: str) -> ProtocolViolation:
        self._set_state(State.CLOSED)
        self._buffer.clear()
        return ProtocolViolation(code, reason, build_frame(ErrorMessage(code)))

    # --- sending ---------------------------------------------------------------

    def send(self, item: Message | Frame) -> bytes:
        """The bytes to write for a message (sent as a DM) or a frame.

        Raises :class:`LocalProtocolError` if the framing rules forbid it
        now (e.g. a server DM before its RM), and EncodeError for a message
        that cannot be encoded (over 32 766 bytes, unknown mnemonic...).
        """
        if isinstance(item, Message):
            # the common case: no frame object, and the DM's step read by its type byte
            tokens = item.to_tokens(self.representation)
            step = self._sending.get(_DM)
            if not isinstance(step, State):
                raise LocalProtocolError(
                    f"{self.role.value} may not send DM in state {self.state.value}")
            data = dm_frame(tokens)
            if step is not self.state:
                self._set_state(step)
            return data
        frame: Frame = item
        frame_type = _FRAME_TYPES[type(frame)]
        step = self._sending.get(frame_type)
        if not isinstance(step, State):
            raise LocalProtocolError(
                f"{self.role.value} may not send {frame_type.name} in state {self.state.value}"
            )
        data = build_frame(frame)
        if isinstance(frame, RepresentationMessage):
            self.representation = frame.representation()
        self._set_state(step)
        return data

    def im_timer_expired(self) -> bytes:
        """Server: no IM within 30 s (docs/protocol.md §2): the EM 0x01 to send; closes."""
        if self.role is not Sender.SERVER or self.state is not State.AWAIT_IM:
            raise LocalProtocolError("the IM timer only applies to a server awaiting the IM")
        return self.send(ErrorMessage(ErrorCode.IM_TIMER))


_FRAME_TYPES: dict[type, FrameType] = {
    InitialMessage: FrameType.IM,
    RepresentationMessage: FrameType.RM,
    DiplomacyMessage: FrameType.DM,
    FinalMessage: FrameType.FM,
    ErrorMessage: FrameType.EM,
}
