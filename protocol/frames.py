"""The five DAIDE frame types (docs/protocol.md §3, 4), parsed and built with construct.

This is the only module that uses ``construct``; everything else sees the
frozen dataclasses :class:`InitialMessage`, :class:`RepresentationMessage`,
:class:`DiplomacyMessage`, :class:`FinalMessage` and :class:`ErrorMessage`.

Every frame is ``type (u8), pad (u8), remaining length (u16 BE), body``.
The pad byte is ignored on receive (the reference server sends arbitrary
values, docs/protocol.md §3 and 19.1) and written as 0.  A body that breaks the
rules of its type raises :class:`FrameError` with the EM code to answer
(section 4.5); the state rules (which frame may come when) live in
:mod:`protocol.connection`.

Every call of a construct parser or builder allocates a context
``Container`` and a ``BytesIO`` that refer to each other, i.e. cyclic
garbage only the garbage collector frees (measured: 1 object per DM body,
3 per header).  A busy server handles hundreds of DMs per second, and that
garbage made its full collections pause it for up to 0.2 s (``make load``).
So the hot path avoids the per-call machinery, not the definitions: headers
are built by construct once per distinct header and remembered
(:func:`_header`); a received header is read by :func:`parse_header` with
two byte indexes (the construct ``Header`` is the definition it must agree
with, tests/test_protocol_frames_fast.py); and DM bodies - a plain array
of big-endian 16-bit values, the ``DmBody`` definition - are packed and
unpacked by a ``struct`` made once per body length: read in place from the
receive buffer (:func:`dm_tokens`), written without a frame object
(:func:`dm_frame`; these tests compare both with construct's bytes).  IM,
RM and EM bodies go through construct.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from typing import Any, Final

import construct as cs

from protocol.errors import EncodeError, ProtocolError, RepresentationError
from protocol.tokens import STANDARD, Representation
from protocol.tree import body_tokens, bytes_to_tokens, dm_body, tokens_to_bytes

PROTOCOL_VERSION = 1
MAGIC = 0xDA10
#: The DN client keeps lengths in a signed 16-bit variable (docs/protocol.md §3).
MAX_SENT_BODY = 32766
HEADER_SIZE: Final = 4     # Final: compiled readers use it as a constant


class FrameType(enum.IntEnum):
    """Byte 0 of the header."""

    IM = 0
    RM = 1
    DM = 2
    FM = 3
    EM = 4


class ErrorCode(enum.IntEnum):
    """EM error codes (docs/protocol.md §4.5)."""

    IM_TIMER = 0x01
    IM_NOT_FIRST = 0x02
    IM_WRONG_ENDIAN = 0x03
    IM_WRONG_MAGIC = 0x04
    VERSION_INCOMPATIBLE = 0x05
    IM_REPEATED = 0x06
    IM_FROM_SERVER = 0x07
    UNKNOWN_TYPE = 0x08
    BAD_LENGTH = 0x09
    DM_BEFORE_RM = 0x0A
    RM_NOT_FIRST = 0x0B
    RM_REPEATED = 0x0C
    RM_FROM_CLIENT = 0x0D
    INVALID_TOKEN = 0x0E


class FrameError(ProtocolError):
    """A frame-level error by the peer: send EM ``code`` and close."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        self.code = code
        self.reason = reason
        super().__init__(f"EM 0x{int(code):02X} ({code.name}): {reason}")


# --- the frames, as the rest of the package sees them -----------------------


@dataclass(frozen=True, slots=True)
class InitialMessage:
    """IM: ``version`` and ``magic`` as received (validated by the connection)."""

    version: int = PROTOCOL_VERSION
    magic: int = MAGIC


@dataclass(frozen=True, slots=True)
class RepresentationMessage:
    """RM: ``(value, mnemonic)`` entries; empty = the standard map."""

    entries: tuple[tuple[int, str], ...] = ()

    @classmethod
    def for_representation(
        cls, rep: Representation, *, full: bool = False
    ) -> RepresentationMessage:
        """The RM announcing ``rep``: empty for the standard map unless ``full``.

        Real clients need the empty form for the standard map (docs/protocol.md §19.3).
        """
        if rep.is_standard and not full:
            return cls()
        return cls(rep.entries)

    def representation(self) -> Representation:
        """The representation this RM defines (4.2); raises RepresentationError."""
        return Representation.from_entries(self.entries) if self.entries else STANDARD


@dataclass(frozen=True, slots=True)
class DiplomacyMessage:
    """DM: one language message as 16-bit token values."""

    tokens: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FinalMessage:
    """FM: orderly close."""


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """EM: a framing error code; the sender closes right after."""

    code: int


Frame = InitialMessage | RepresentationMessage | DiplomacyMessage | FinalMessage | ErrorMessage


# --- construct definitions ----------------------------------------------------


class _Tokens(cs.Adapter):  # type: ignore[misc]
    """Big-endian 16-bit token values <-> a tuple of ints (struct does the work)."""

    def _decode(self, obj: bytes, context: Any, path: str) -> tuple[int, ...]:
        return bytes_to_tokens(obj)

    def _encode(self, obj: tuple[int, ...], context: Any, path: str) -> bytes:
        return tokens_to_bytes(obj)


Header = cs.Struct(
    "type" / cs.Int8ub,
    "pad" / cs.Int8ub,
    "length" / cs.Int16ub,
).compile()

ImBody = cs.Struct("version" / cs.Int16ub, "magic" / cs.Int16ub).compile()

RmEntry = cs.Struct(
    "value" / cs.Int16ub,
    "name" / cs.Bytes(3),
    cs.Const(b"\x00"),
)
RmBody = cs.GreedyRange(RmEntry)

DmBody = _Tokens(cs.GreedyBytes)

EmBody = cs.Struct("code" / cs.Int16ub).compile()

#: Expected body lengths known from the header alone (docs/protocol.md §3, 4).
_FIXED_LENGTH = {FrameType.IM: 4, FrameType.FM: 0, FrameType.EM: 2}

_MNEMONIC = re.compile(rb"[A-Za-z0-9]{3}")


def parse_header(data: bytes | bytearray) -> tuple[int, int]:
    """``(type, length)`` of a 4-byte header (the pad byte is ignored).

    What ``Header.parse`` gives, read directly: type is byte 0, the length
    bytes 2-3 big-endian (docs/protocol.md §3).
    """
    if len(data) < HEADER_SIZE:
        # construct's own error for a short header
        h = Header.parse(bytes(data))
        return h.type, h.length
    return data[0], (data[2] << 8) | data[3]


def take_frames(buffer: bytearray) -> list[bytes]:
    """Remove and return the whole raw frames (4-byte header and body) at the front of
    ``buffer``; an incomplete frame stays for the next bytes (docs/protocol.md §3).

    For byte streams that pass frames on whole without reading them: the WebSocket
    door (one frame per WebSocket message), the tournament's and the bot checker's
    relays.
    """
    frames: list[bytes] = []
    start = 0
    end = len(buffer)
    while end - start >= HEADER_SIZE:
        size = HEADER_SIZE + int.from_bytes(buffer[start + 2:start + 4], "big")
        if end - start < size:
            break
        frames.append(bytes(buffer[start:start + size]))
        start += size
    del buffer[:start]
    return frames


@functools.lru_cache(maxsize=4096)
def _header(frame_type: int, length: int) -> bytes:
    """The header of a frame (pad 0), built once per distinct type and length."""
    return bytes(Header.build({"type": frame_type, "pad": 0, "length": length}))


def check_length(frame_type: FrameType, length: int) -> None:
    """Length rules that the header alone decides; FrameError 0x09 otherwise."""
    expected = _FIXED_LENGTH.get(frame_type)
    if expected is not None and length != expected:
        raise FrameError(ErrorCode.BAD_LENGTH, f"{frame_type.name} body must be {expected} bytes")
    if frame_type is FrameType.DM and (length == 0 or length % 2):
        raise FrameError(ErrorCode.BAD_LENGTH, "DM body must be a non-zero even length")
    if frame_type is FrameType.RM and length % 6:
        raise FrameError(ErrorCode.BAD_LENGTH, "RM body must be a multiple of 6 bytes")


_DM = int(FrameType.DM)
#: the error of a DM holding a private-use token (EM 0x0E, docs/protocol.md §4.5)
PRIVATE_TOKEN = "private-use token in a DM"


def dm_tokens(buf: bytes | bytearray, start: int, end: int) -> tuple[int, ...]:
    """The tokens of the DM body ``buf[start:end]`` (a non-zero even length),
    read in place: what ``parse_body(FrameType.DM, ...)`` gives, without the
    copy of the body or the frame object; FrameError 0x0E for a private-use
    token (`protocol.tree.body_tokens`, compiled, which the connection's short
    road calls itself)."""
    tokens = body_tokens(buf, start, end)
    if tokens is None:
        raise FrameError(ErrorCode.INVALID_TOKEN, PRIVATE_TOKEN)
    return tokens


def parse_body(frame_type: FrameType, body: bytes) -> Frame:
    """Decode a body whose length passed :func:`check_length`."""
    if frame_type is FrameType.DM:
        return DiplomacyMessage(dm_tokens(body, 0, len(body)))
    if frame_type is FrameType.IM:
        im = ImBody.parse(body)
        return InitialMessage(im.version, im.magic)
    if frame_type is FrameType.EM:
        return ErrorMessage(EmBody.parse(body).code)
    if frame_type is FrameType.FM:
        return FinalMessage()
    entries = RmBody.parse(body)  # GreedyRange stops at the first bad entry
    if len(entries) * 6 != len(body):
        raise FrameError(ErrorCode.INVALID_TOKEN, "RM entry not terminated by 0x00")
    out = []
    for e in entries:
        if not _MNEMONIC.fullmatch(e.name):
            raise FrameError(ErrorCode.INVALID_TOKEN, f"RM mnemonic {e.name!r} is not A-Z/0-9")
        out.append((e.value, e.name.decode("ascii").upper()))
    rm = RepresentationMessage(tuple(out))
    try:
        rm.representation()
    except RepresentationError as exc:
        raise FrameError(ErrorCode.INVALID_TOKEN, str(exc)) from None
    return rm


def build_frame(frame: Frame) -> bytes:
    """The bytes of a frame (pad 0).  EncodeError if it may not be sent."""
    if isinstance(frame, DiplomacyMessage):
        return dm_frame(frame.tokens)
    if isinstance(frame, InitialMessage):
        body = ImBody.build({"version": frame.version, "magic": frame.magic})
        frame_type = FrameType.IM
    elif isinstance(frame, RepresentationMessage):
        entries = []
        for value, name in frame.entries:
            raw = name.upper().encode("ascii", "replace")
            if not _MNEMONIC.fullmatch(raw):
                raise EncodeError(f"RM mnemonic {name!r} must be 3 characters A-Z/0-9")
            entries.append({"value": value, "name": raw})
        body = RmBody.build(entries)
        frame_type = FrameType.RM
    elif isinstance(frame, FinalMessage):
        body, frame_type = b"", FrameType.FM
    else:
        body = EmBody.build({"code": frame.code})
        frame_type = FrameType.EM
    if len(body) > MAX_SENT_BODY:
        raise EncodeError(f"body of {len(body)} bytes exceeds {MAX_SENT_BODY}")
    return _header(frame_type, len(body)) + bytes(body)


def dm_frame(tokens: tuple[int, ...]) -> bytes:
    """The frame of a DM holding ``tokens``: ``build_frame(DiplomacyMessage(tokens))``
    without the frame object.  EncodeError if it may not be sent."""
    return dm_frame_of_body(dm_body(tokens))


def dm_frame_of_body(body: bytes) -> bytes:
    """The DM frame around a body made by `protocol.tree.dm_body` (or several
    joined); EncodeError if it is longer than a frame may carry."""
    if len(body) > MAX_SENT_BODY:
        raise EncodeError(f"body of {len(body)} bytes exceeds {MAX_SENT_BODY}")
    return _header(_DM, len(body)) + body


def parse_frames(data: bytes) -> tuple[list[Frame], bytes]:
    """Decode every complete frame in ``data`` (no state rules): ``(frames, rest)``.

    For tools (``daide decode``); raises FrameError on a malformed frame.
    """
    frames: list[Frame] = []
    pos = 0
    while len(data) - pos >= HEADER_SIZE:
        raw_type, length = parse_header(data[pos : pos + HEADER_SIZE])
        try:
            frame_type = FrameType(raw_type)
        except ValueError:
            raise FrameError(ErrorCode.UNKNOWN_TYPE, f"message type {raw_type}") from None
        check_length(frame_type, length)
        end = pos + HEADER_SIZE + length
        if end > len(data):
            break
        frames.append(parse_body(frame_type, data[pos + HEADER_SIZE : end]))
        pos = end
    return frames, data[pos:]
