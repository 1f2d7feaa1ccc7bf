"""The connection's short road for DMs gives exactly what the general road gives.

`protocol.connection.Connection` reads a DM header by index and unpacks the
tokens in place from its buffer (`protocol.frames.dm_tokens`), with the
framing table cut per state (`protocol.connection.STEPS`).  The general road,
written here from the definitions alone - construct's ``Header`` and
``DmBody``, the four-enum :data:`~protocol.connection.TRANSITIONS` table,
`check_length`, `parse_body` - is :class:`Reference`.  Both are fed the same
seeded streams of good and broken frames (every frame type, bad lengths,
private-use tokens, unknown types, grammar and bracket errors, frames in the
wrong state, a close in the middle of a frame), whole, split at random and
one byte at a time, and must give the same events, the same EM bytes and
the same states.
"""

from __future__ import annotations

import random
import re
import struct

import pytest

from protocol.connection import (
    CLOSED,
    NEED_DATA,
    STEPS,
    TRANSITIONS,
    Connection,
    ConnectionClosed,
    Direction,
    Event,
    InitialReceived,
    LocalProtocolError,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
    RepresentationReceived,
    State,
)
from protocol.errors import BracketError, EncodeError, GrammarError
from protocol.frames import (
    MAGIC,
    MAX_SENT_BODY,
    PROTOCOL_VERSION,
    DiplomacyMessage,
    DmBody,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    FrameError,
    FrameType,
    Header,
    InitialMessage,
    RepresentationMessage,
    build_frame,
    check_length,
    dm_frame,
    dm_tokens,
    parse_body,
    parse_frames,
    parse_header,
)
from protocol.messages import Nme
from protocol.parse import Sender, error_reply, parse_message
from protocol.text import parse_text
from protocol.tokens import STANDARD, Representation

# --- the pieces: frame header and DM body ------------------------------------------------


def test_parse_header_is_the_construct_header() -> None:
    rng = random.Random(13)
    headers = [bytes([t, pad, hi, lo]) for t in (0, 1, 2, 3, 4, 5, 0x7F, 0xFF)
               for pad in (0, 0xFF) for hi, lo in ((0, 0), (0, 1), (4, 0), (0xFF, 0xFF), (0x12, 0x34))]
    headers += [rng.randbytes(4) for _ in range(2000)]
    for data in headers:
        want = Header.parse(data)
        assert parse_header(data) == (want.type, want.length)
        assert parse_header(bytearray(data)) == (want.type, want.length)
        assert parse_header(data + b"\x02\x00") == (want.type, want.length)   # the header only
    for short in (b"", b"\x02", b"\x02\x00\x00"):
        # the compiled construct struct raises struct.error: the same for both
        with pytest.raises(Exception) as general:  # noqa: PT011
            Header.parse(short)
        with pytest.raises(Exception) as fast:  # noqa: PT011
            parse_header(short)
        assert type(fast.value) is type(general.value) and str(fast.value) == str(general.value)


def test_dm_tokens_are_the_construct_body_read_in_place() -> None:
    rng = random.Random(14)
    for _ in range(2000):
        tokens = tuple(rng.choice((0x4000, 0x4100, 0x4810, 0x5000, 0x6000, 0xFFFF, 0x57FF))
                       if rng.random() < 0.7 else rng.randrange(0x10000)
                       for _ in range(rng.randint(1, 40)))
        body = struct.pack(f">{len(tokens)}H", *tokens)
        private = any(0x58 <= t >> 8 <= 0x5F for t in tokens)
        frame = b"\x02\x00" + len(body).to_bytes(2, "big") + body
        junk = rng.randbytes(rng.randint(0, 5))
        buf = bytearray(frame + junk)
        if private:
            with pytest.raises(FrameError) as in_place:
                dm_tokens(buf, 4, 4 + len(body))
            with pytest.raises(FrameError) as general:
                parse_body(FrameType.DM, body)
            for caught in (in_place, general):
                assert caught.value.code is ErrorCode.INVALID_TOKEN
                assert caught.value.reason == "private-use token in a DM"
        else:
            assert dm_tokens(buf, 4, 4 + len(body)) == DmBody.parse(body) == tokens
            assert parse_body(FrameType.DM, body) == DiplomacyMessage(tokens)
            assert parse_frames(frame + junk[:3]) == ([DiplomacyMessage(tokens)], junk[:3])
    # a body longer than the remembered struct lengths
    long = tuple(range(0x4000, 0x4000 + 3000))
    body = struct.pack(f">{len(long)}H", *long)
    assert dm_tokens(body, 0, len(body)) == long == DmBody.parse(body)


def _old_dm_frame(tokens: tuple[int, ...]) -> bytes:
    """A DM frame as the general road builds it: construct's Header, the
    ``_Tokens`` adapter's bytes, then the checks, in this order."""
    if not tokens:
        raise EncodeError("a DM holds at least one token")
    try:
        body = DmBody.build(tokens)
    except struct.error as exc:
        raise EncodeError(f"token values must be 0..0xFFFF: {exc}") from None
    if _PRIVATE.search(body[0::2]):
        raise EncodeError("private-use tokens (0x58xx-0x5Fxx) must never be sent")
    if len(body) > MAX_SENT_BODY:
        raise EncodeError(f"body of {len(body)} bytes exceeds {MAX_SENT_BODY}")
    return Header.build({"type": 2, "pad": 0, "length": len(body)}) + body


def test_dm_frames_are_the_construct_bytes_and_fail_alike() -> None:
    rng = random.Random(15)
    cases: list[tuple] = [(), (0x4810,), (0x5800,), (0x4000, 0x5FFF), (0x10000,), (-1,), (0x4000, 1.5),
                          (0x4000, "x"), (0x4100,) * 16383, (0x4100,) * 16384, (0x5F00,) * 16384,
                          (0x4100,) * 3000, tuple(range(0x4000, 0x4100))]
    for _ in range(2000):
        cases.append(tuple(rng.choice((0x4000, 0x4100, 0x4810, 0x6000, 0xFFFF, 0x57FF, 0x5800))
                           if rng.random() < 0.8 else rng.randrange(-2, 0x10002)
                           for _ in range(rng.randint(1, 30))))
    sent = 0
    for tokens in cases:
        try:
            want: bytes | str = _old_dm_frame(tokens)
        except EncodeError as exc:
            want = f"EncodeError: {exc}"
        for build in (lambda: dm_frame(tokens), lambda: build_frame(DiplomacyMessage(tokens))):  # noqa: B023
            try:
                got: bytes | str = build()
            except EncodeError as exc:
                got = f"EncodeError: {exc}"
            assert got == want, tokens[:8]
        if isinstance(want, bytes):
            sent += 1
            assert parse_frames(want) == ([DiplomacyMessage(tuple(tokens))], b"")
    assert 300 < sent < len(cases) - 300


def test_a_message_is_sent_as_its_dm_frame_in_the_states_that_allow_it() -> None:
    client = Connection(Sender.CLIENT)
    with pytest.raises(LocalProtocolError, match="may not send DM in state start"):
        client.send(Nme("bot", "1"))
    assert client.state is State.START
    client.send(InitialMessage())
    nme = client.send(Nme("bot", "1"))          # before the RM (docs/protocol.md §19.2)
    assert nme == build_frame(DiplomacyMessage(Nme("bot", "1").to_tokens(STANDARD)))
    assert client.state is State.AWAIT_RM
    server = Connection(Sender.SERVER)
    server.receive_data(build_frame(InitialMessage()))
    assert server.next_event() == InitialReceived(1)
    with pytest.raises(LocalProtocolError):
        server.send(Nme("bot", "1"))            # no DM before the server's RM
    server.send(RepresentationMessage())
    assert server.send(Nme("bot", "1")) == nme and server.state is State.READY


def test_the_per_state_steps_are_the_transition_table() -> None:
    for role in Sender:
        for state in State:
            receiving, sending = STEPS[(role, state)]
            for raw in range(256):
                for direction, cut in ((Direction.RECEIVE, receiving), (Direction.SEND, sending)):
                    try:
                        frame_type = FrameType(raw)
                    except ValueError:
                        assert raw not in cut
                        continue
                    assert cut.get(raw) is TRANSITIONS.get((role, state, direction, frame_type))


# --- the general road ----------------------------------------------------------------------

_PRIVATE = re.compile(rb"[\x58-\x5f]")


class Reference:
    """A DAIDE connection as the definitions say it, one lookup and one construct
    parse at a time (the road every frame took before the DM short road)."""

    def __init__(self, role: Sender, rep: Representation = STANDARD, level: int | None = None):
        self.role = role
        self.peer = Sender.CLIENT if role is Sender.SERVER else Sender.SERVER
        self.state = State.AWAIT_IM if role is Sender.SERVER else State.START
        self.representation = rep
        self.level = level
        self.buffer = bytearray()
        self.eof = False
        self.header: tuple[FrameType, int] | None = None

    def receive_data(self, data: bytes) -> None:
        if data:
            if not self.eof:
                self.buffer += data
        else:
            self.eof = True

    def sent(self, frame_type: FrameType) -> None:
        step = TRANSITIONS[(self.role, self.state, Direction.SEND, frame_type)]
        assert isinstance(step, State)
        self.state = step

    def next_event(self) -> object:
        if self.state is State.CLOSED:
            return CLOSED
        try:
            return self._next_event()
        except FrameError as exc:
            self.state = State.CLOSED
            self.buffer.clear()
            return ProtocolViolation(exc.code, exc.reason, build_frame(ErrorMessage(exc.code)))

    def _need_data(self) -> object:
        if self.eof:
            self.state = State.CLOSED
            return ConnectionClosed("EOF", partial=bool(self.buffer))
        return NEED_DATA

    def _next_event(self) -> object:
        buf = self.buffer
        while True:
            if self.header is None:
                if len(buf) < 4:
                    return self._need_data()
                h = Header.parse(bytes(buf[:4]))
                try:
                    frame_type = FrameType(h.type)
                except ValueError:
                    raise FrameError(ErrorCode.UNKNOWN_TYPE, f"message type {h.type}") from None
                step = TRANSITIONS.get((self.role, self.state, Direction.RECEIVE, frame_type))
                if isinstance(step, ErrorCode):
                    raise FrameError(step, f"{frame_type.name} not allowed in state {self.state.value}")
                if frame_type is FrameType.IM and h.length == 0x0400:
                    raise FrameError(ErrorCode.IM_WRONG_ENDIAN, "IM length field is byte-swapped")
                check_length(frame_type, h.length)
                self.header = (frame_type, h.length)
            frame_type, length = self.header
            if len(buf) < 4 + length:
                return self._need_data()
            body = bytes(buf[4:4 + length])
            del buf[:4 + length]
            self.header = None
            step = TRANSITIONS[(self.role, self.state, Direction.RECEIVE, frame_type)]
            assert isinstance(step, State)
            if frame_type is FrameType.DM:
                if _PRIVATE.search(body[0::2]):
                    raise FrameError(ErrorCode.INVALID_TOKEN, "private-use token in a DM")
                tokens = DmBody.parse(body)
                try:
                    message = parse_message(tokens, self.representation, sender=self.peer,
                                            level=self.level)
                except (BracketError, GrammarError) as exc:
                    return MessageRejected(tokens, exc, error_reply(exc))
                return MessageReceived(message, tokens)
            frame = parse_body(frame_type, body)
            if isinstance(frame, InitialMessage):
                if frame.magic == 0x10DA:
                    raise FrameError(ErrorCode.IM_WRONG_ENDIAN, "IM magic is byte-swapped")
                if frame.magic != MAGIC:
                    raise FrameError(ErrorCode.IM_WRONG_MAGIC, f"IM magic 0x{frame.magic:04X}")
                if frame.version != PROTOCOL_VERSION:
                    raise FrameError(ErrorCode.VERSION_INCOMPATIBLE, f"version {frame.version}")
                self.state = step
                return InitialReceived(frame.version)
            if isinstance(frame, RepresentationMessage):
                self.representation = frame.representation()
                self.state = step
                return RepresentationReceived(self.representation, not frame.entries)
            self.state = State.CLOSED
            if isinstance(frame, ErrorMessage):
                return ConnectionClosed("EM", frame.code)
            return ConnectionClosed("FM")


# --- the streams ----------------------------------------------------------------------------

TEXTS = [
    "SUB ( ( ENG FLT LON ) MTO NTH ) ( ( ENG FLT EDI ) MTO NWG ) ( ( ENG AMY LVP ) MTO YOR )",
    "SUB ( ( AUS AMY VIE ) MTO BUD ) ( ( AUS FLT TRI ) HLD )",
    "NME ( 'bot' ) ( '1.0' )", "OBS", "IAM ( ENG ) ( 1234 )", "HLO", "NOW", "MAP", "YES ( MAP ( 'STANDARD' ) )",
    "MAP ( 'STANDARD' )", "HLO ( ENG ) ( 1234 ) ( ( LVL 0 ) )", "OFF",
    "SUB ( ( ENG FLT LON ) MTO )",            # grammar: HUH
    "SUB ( ( ENG FLT LON ) MTO NTH",          # brackets: PRN
    "NME ( 'a' ) )", "HUH ( SUB ERR )", "PRN ( SUB", "SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )",
]
DMS = [build_frame(DiplomacyMessage(parse_text(t))) for t in TEXTS]
RAW_DMS = [
    bytes.fromhex("02000002 5800"),                   # private-use token: EM 0x0E
    bytes.fromhex("02000004 4810 5F01"),
    bytes.fromhex("02000003 480A00"),                 # odd length: EM 0x09
    bytes.fromhex("02000000"),                        # empty: EM 0x09
    bytes.fromhex("02000002 4B10"),                   # a lone token
    bytes.fromhex("02FF0002 4000"),                   # pad byte set: ignored
]
OTHERS = [
    build_frame(InitialMessage()),
    bytes.fromhex("00000004 0001 10DA"), bytes.fromhex("00000400 0001 DA10"),
    bytes.fromhex("00000004 0001 1234"), bytes.fromhex("00000004 0002 DA10"),
    bytes.fromhex("00000006 0001 DA10 0000"),
    build_frame(RepresentationMessage()), build_frame(RepresentationMessage(((0x4100, "XYZ"),))),
    bytes.fromhex("01000006 4100 58595A 01"), bytes.fromhex("01000005 4100 58595A"),
    build_frame(FinalMessage()), build_frame(ErrorMessage(ErrorCode.IM_TIMER)),
    bytes.fromhex("04000003 000100"),
    bytes.fromhex("05000000"), bytes.fromhex("FF000002 0000"),
]


def _stream(rng: random.Random, role: Sender) -> bytes:
    """A stream a peer of ``role`` might receive: mostly well-formed, now and then broken."""
    out = [build_frame(InitialMessage())] if role is Sender.SERVER and rng.random() < 0.9 else []
    if role is Sender.CLIENT and rng.random() < 0.9:
        out.append(build_frame(RepresentationMessage()))
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        out.append(rng.choice(DMS) if roll < 0.75 else rng.choice(RAW_DMS) if roll < 0.88
                   else rng.choice(OTHERS))
    data = b"".join(out)
    if rng.random() < 0.15:
        data = data[:rng.randrange(len(data) + 1)]          # cut short: EOF mid-frame
    return data


def _chunks(rng: random.Random, data: bytes, mode: str) -> list[bytes]:
    if mode == "whole":
        return [data]
    if mode == "bytes":
        return [data[i:i + 1] for i in range(len(data))]
    out, pos = [], 0
    while pos < len(data):
        step = rng.randint(1, 9)
        out.append(data[pos:pos + step])
        pos += step
    return out


def _same(a: object, b: object) -> None:
    assert a == b
    if isinstance(a, MessageRejected):
        assert isinstance(b, MessageRejected)
        assert type(a.error) is type(b.error) and str(a.error) == str(b.error)


def _run(conn: Connection, ref: Reference, chunks: list[bytes], eof: bool) -> list[object]:
    seen: list[object] = []

    def drain() -> None:
        while True:
            got, want = conn.next_event(), ref.next_event()
            _same(got, want)
            assert conn.state is ref.state
            if got is NEED_DATA or got is CLOSED:
                return
            seen.append(got)
            if isinstance(got, InitialReceived):
                # the server answers the IM with its RM (docs/protocol.md §4.2)
                assert conn.send(RepresentationMessage()) == build_frame(RepresentationMessage())
                ref.sent(FrameType.RM)

    for chunk in [*chunks, *([b""] if eof else [])]:
        conn.receive_data(chunk)
        ref.receive_data(chunk)
        drain()
    return seen


@pytest.mark.parametrize("role", [Sender.SERVER, Sender.CLIENT])
@pytest.mark.parametrize("mode", ["whole", "random", "bytes"])
def test_the_short_road_gives_what_the_general_road_gives(role: Sender, mode: str) -> None:
    rng = random.Random(f"{role.value}-{mode}")
    kinds: set[type] = set()
    for _ in range(150 if mode == "bytes" else 400):
        conn = Connection(role, level=rng.choice((None, 0, 10)))
        ref = Reference(role, level=conn.level)
        if role is Sender.CLIENT:
            conn.send(InitialMessage())
            ref.sent(FrameType.IM)
        data = _stream(rng, role)
        events = _run(conn, ref, _chunks(rng, data, mode), eof=rng.random() < 0.5)
        kinds.update(type(e) for e in events)
    # the streams reached every kind of event
    assert {MessageReceived, MessageRejected, ConnectionClosed, ProtocolViolation} <= kinds
    assert (InitialReceived if role is Sender.SERVER else RepresentationReceived) in kinds


def _events(conn: Connection, data: bytes) -> list[Event]:
    conn.receive_data(data)
    out: list[Event] = []
    while (event := conn.next_event()) is not NEED_DATA and event is not CLOSED:
        assert not isinstance(event, type(NEED_DATA))
        out.append(event)
    return out


def test_golden_dm_events_whole_and_byte_at_a_time() -> None:
    for feed in ("whole", "bytes"):
        conn = Connection(Sender.SERVER)
        stream = bytes.fromhex("00000004 0001 DA10") + DMS[0] + bytes.fromhex("02000002 5801")
        got: list[Event] = []
        for chunk in ([stream] if feed == "whole" else [stream[i:i + 1] for i in range(len(stream))]):
            got += _events(conn, chunk)
            if got and isinstance(got[0], InitialReceived) and conn.state is State.GOT_IM:
                conn.send(RepresentationMessage())
        assert got[0] == InitialReceived(1)
        assert isinstance(got[1], MessageReceived) and got[1].tokens == parse_text(TEXTS[0])
        # a private-use token: EM 0x0E, byte for byte (docs/protocol.md §4.5)
        assert got[2] == ProtocolViolation(ErrorCode.INVALID_TOKEN, "private-use token in a DM",
                                           bytes.fromhex("04000002 000E"))
        assert conn.state is State.CLOSED and conn.next_event() is CLOSED
