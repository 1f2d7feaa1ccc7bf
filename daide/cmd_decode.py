"""`daide decode`: DAIDE frames (hex or raw binary) -> one text line per frame.

    daide decode [FILE] [--hex | --binary] [--rep FILE.rem] [--body]

Reads FILE (default: stdin).  The input is hex (with or without spaces and
line breaks) or raw binary; by default the form is detected (a raw stream
starts with a frame type byte 0-4, never a hex digit).  Each frame prints as
one line (see `protocol.frame_text`)::

    IM version=1
    RM empty
    DM NOW ( SPR 1901 ) ( AUS AMY BUD ) ...
    FM

A non-empty RM switches the representation for the DMs after it; ``--rep``
gives the one to start with (a ``.REM`` file).  ``--body`` reads a single DM
body (tokens only, no header) and prints its text.  Bad input prints one
error line and exits 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from daide.errors import CommandError
from protocol.errors import ProtocolError
from protocol.frame_text import FrameTextCodec
from protocol.frames import parse_frames
from protocol.text import render_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import bytes_to_tokens

NAME = "decode"
HELP = "decode DAIDE frames (hex or binary) into text lines"

_HEX_TEXT = re.compile(rb"[0-9A-Fa-f\s]*")
_LAST_FRAME_TYPE = 4  # EM; the frame types are 0..4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--hex", dest="form", action="store_const", const="hex", help="the input is hex text"
    )
    form.add_argument(
        "--binary", dest="form", action="store_const", const="binary", help="the input is raw bytes"
    )
    parser.add_argument(
        "--rep", type=Path, default=None, help="representation file (.REM) in force before any RM"
    )
    parser.add_argument("--body", action="store_true",
                        help="the input is one DM body (no frame header)")  # fmt: skip


def read_input(name: str) -> bytes:
    """The raw input bytes of FILE or stdin."""
    try:
        if name == "-":
            return sys.stdin.buffer.read()
        return Path(name).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror}") from None


def load_representation(path: Path | None) -> Representation:
    """The representation of a ``.REM`` file, or the standard one."""
    if path is None:
        return STANDARD
    try:
        return Representation.from_rem(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from None
    except ProtocolError as exc:
        raise CommandError(f"{path}: {exc}") from None


def to_bytes(data: bytes, form: str | None) -> bytes:
    """Decode hex input (auto-detected unless ``form`` says)."""
    if form == "binary":
        return data
    if form is None and not _HEX_TEXT.fullmatch(data):
        # Auto-detected as raw bytes: a raw stream starts with a frame type
        # byte (IM 0 .. EM 4, docs/protocol.md §4); anything else is text that
        # is not hex, and parsing it as frames would only name a strange type.
        if data[0] > _LAST_FRAME_TYPE:
            raise CommandError("the input is neither hex nor a DAIDE frame "
                               "(hex: digits 0-9 A-F and spaces only; raw frames start "
                               "with a type byte 0-4; `daide encode` turns text into frames)")
        return data
    digits = b"".join(data.split())
    if len(digits) % 2:
        raise CommandError(f"odd number of hex digits ({len(digits)})")
    try:
        return bytes.fromhex(digits.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise CommandError("input is not hex (use --binary for raw bytes)") from None


def run(args: argparse.Namespace) -> int:
    rep = load_representation(args.rep)
    data = to_bytes(read_input(args.file), args.form)
    out = sys.stdout
    if args.body:
        if not data or len(data) % 2:
            raise CommandError(f"a DM body has a non-zero even length, got {len(data)} bytes")
        out.write(render_text(bytes_to_tokens(data), rep) + "\n")
        return 0
    codec = FrameTextCodec(rep)
    try:
        frames, rest = parse_frames(data)
    except ProtocolError as exc:
        raise CommandError(str(exc)) from None
    try:
        for frame in frames:
            out.write(codec.to_line(frame) + "\n")
    except ProtocolError as exc:
        raise CommandError(str(exc)) from None
    if rest:
        raise CommandError(f"incomplete frame at the end: {len(rest)} bytes left over")
    return 0
