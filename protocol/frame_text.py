"""One-line text form of whole frames, for tools, logs and tests.

The line for each frame type (the first word names the type)::

    IM version=1                     (magic shown only when not 0xDA10: IM version=1 magic=0x10DA)
    RM empty                         (the standard map)
    RM 4100:AUS 4101:ENG ... 574A:STP
    DM NOW ( SPR 1901 ) ( AUS AMY BUD ) ...
    FM
    EM 0x01 IM_TIMER

On input (:func:`line_to_frame`) a line without a type word is a DM, the
``EM`` name is optional and the IM fields default to version 1 and the DAIDE
magic.  A DM's text is the language's text form (docs/protocol.md §6.8,
:mod:`protocol.text`) under the representation in force: :func:`frame_to_line`
and :func:`line_to_frame` take it, and a non-empty RM switches it for the
following frames (:class:`FrameTextCodec` keeps track).
"""

from __future__ import annotations

from protocol.errors import RepresentationError, TextSyntaxError
from protocol.frames import (
    MAGIC,
    PROTOCOL_VERSION,
    DiplomacyMessage,
    ErrorCode,
    ErrorMessage,
    FinalMessage,
    Frame,
    InitialMessage,
    RepresentationMessage,
)
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD, Representation

_TYPE_WORDS = frozenset(("IM", "RM", "DM", "FM", "EM"))


def frame_to_line(frame: Frame, rep: Representation = STANDARD) -> str:
    """The one-line text of a frame (DMs rendered under ``rep``)."""
    if isinstance(frame, DiplomacyMessage):
        return "DM " + render_text(frame.tokens, rep)
    if isinstance(frame, InitialMessage):
        line = f"IM version={frame.version}"
        return line if frame.magic == MAGIC else f"{line} magic=0x{frame.magic:04X}"
    if isinstance(frame, RepresentationMessage):
        if not frame.entries:
            return "RM empty"
        return "RM " + " ".join(f"{v:04X}:{m}" for v, m in frame.entries)
    if isinstance(frame, FinalMessage):
        return "FM"
    try:
        name = " " + ErrorCode(frame.code).name
    except ValueError:
        name = ""
    return f"EM 0x{frame.code:02X}{name}"


def line_to_frame(line: str, rep: Representation = STANDARD) -> Frame:
    """Parse one line (see the module docstring); ProtocolError on faults."""
    text = line.strip()
    word, _, rest = text.partition(" ")
    if word.upper() not in _TYPE_WORDS:
        word, rest = "DM", text
    word, rest = word.upper(), rest.strip()
    if word == "DM":
        tokens = parse_text(rest, rep)
        if not tokens:
            raise TextSyntaxError("a DM needs at least one token", line, 0)
        return DiplomacyMessage(tokens)
    if word == "FM":
        _no_arguments(line, rest)
        return FinalMessage()
    if word == "EM":
        return ErrorMessage(_em_code(line, rest))
    if word == "IM":
        return _im(line, rest)
    if not rest or rest.lower() == "empty":
        return RepresentationMessage()
    entries = []
    for item in rest.split():
        value, sep, name = item.partition(":")
        try:
            entries.append((int(value, 16), name.upper()))
        except ValueError:
            raise TextSyntaxError(f"bad RM entry {item!r}", line, line.find(item)) from None
        if not sep:
            raise TextSyntaxError(f"bad RM entry {item!r}", line, line.find(item))
    rm = RepresentationMessage(tuple(entries))
    try:
        rm.representation()
    except RepresentationError as exc:
        raise TextSyntaxError(str(exc), line, 0) from None
    return rm


def _no_arguments(line: str, rest: str) -> None:
    if rest:
        raise TextSyntaxError("unexpected text", line, line.find(rest))


def _em_code(line: str, rest: str) -> int:
    parts = rest.split()
    if not parts or len(parts) > 2:
        raise TextSyntaxError("EM needs a code, e.g. EM 0x01", line, len(line))
    try:
        code = int(parts[0], 0)
    except ValueError:
        raise TextSyntaxError(f"bad EM code {parts[0]!r}", line, line.find(parts[0])) from None
    if not 0 <= code <= 0xFFFF:
        raise TextSyntaxError("EM code must be 0..0xFFFF", line, line.find(parts[0]))
    if len(parts) == 2 and (
        code not in ErrorCode._value2member_map_ or ErrorCode(code).name != parts[1]
    ):
        raise TextSyntaxError(
            f"{parts[1]!r} is not the name of code {code}", line, line.find(parts[1])
        )
    return code


def _im(line: str, rest: str) -> InitialMessage:
    fields = {"version": PROTOCOL_VERSION, "magic": MAGIC}
    for item in rest.split():
        key, sep, value = item.partition("=")
        if key not in fields or not sep:
            raise TextSyntaxError(f"bad IM field {item!r}", line, line.find(item))
        try:
            fields[key] = int(value, 0)
        except ValueError:
            raise TextSyntaxError(f"bad IM field {item!r}", line, line.find(item)) from None
        if not 0 <= fields[key] <= 0xFFFF:
            raise TextSyntaxError(f"{key} must be 0..0xFFFF", line, line.find(item))
    return InitialMessage(fields["version"], fields["magic"])


class FrameTextCodec:
    """Frames <-> lines over a stream, following the RM's representation."""

    def __init__(self, rep: Representation = STANDARD) -> None:
        self.representation = rep

    def _follow(self, frame: Frame) -> None:
        if isinstance(frame, RepresentationMessage):
            self.representation = frame.representation()

    def to_line(self, frame: Frame) -> str:
        line = frame_to_line(frame, self.representation)
        self._follow(frame)
        return line

    def from_line(self, line: str) -> Frame:
        frame = line_to_frame(line, self.representation)
        self._follow(frame)
        return frame


__all__ = ["FrameTextCodec", "frame_to_line", "line_to_frame"]
