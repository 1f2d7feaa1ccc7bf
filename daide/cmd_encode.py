"""`daide encode`: text lines -> DAIDE frames (hex or raw binary).

    daide encode [FILE] [--binary] [--rep FILE.rem] [--body]

Reads FILE (default: stdin), one frame per line in the form `daide decode`
prints (``IM version=1``, ``RM empty``, ``DM NOW ( SPR 1901 ) ...``, ``FM``,
``EM 0x01``); a line without a type word is a DM, e.g.
``NME ( 'Bot' ) ( '1.0' )``.  Blank lines and lines starting with ``#`` are
skipped.  Output: one line of spaced hex per frame, or the raw bytes with
``--binary``.  ``--body`` writes only DM bodies (no headers; every line must
be a message).  ``--rep`` gives the representation (a ``.REM`` file) in force
before any RM line.  A bad line prints one error line and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from daide.cmd_decode import load_representation, read_input
from daide.errors import CommandError
from protocol.errors import ProtocolError
from protocol.frame_text import FrameTextCodec
from protocol.frames import DiplomacyMessage, build_frame
from protocol.tree import tokens_to_bytes

NAME = "encode"
HELP = "encode text lines into DAIDE frames (hex or binary)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="input file (default: stdin)")
    parser.add_argument("--binary", action="store_true", help="write raw bytes, not hex")
    parser.add_argument(
        "--rep", type=Path, default=None, help="representation file (.REM) in force before any RM"
    )
    parser.add_argument("--body", action="store_true",
                        help="write DM bodies only (no frame headers)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    codec = FrameTextCodec(load_representation(args.rep))
    try:
        text = read_input(args.file).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"input is not UTF-8 text: {exc.reason}") from None
    chunks: list[bytes] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            frame = codec.from_line(line)
            if args.body:
                if not isinstance(frame, DiplomacyMessage):
                    raise CommandError(
                        f"line {number}: --body needs messages, not {line.split()[0]}"
                    )
                chunks.append(tokens_to_bytes(frame.tokens))
            else:
                chunks.append(build_frame(frame))
        except ProtocolError as exc:
            raise CommandError(f"line {number}: {exc}") from None
    if args.binary:
        sys.stdout.buffer.write(b"".join(chunks))
        sys.stdout.buffer.flush()
    else:
        for chunk in chunks:
            sys.stdout.write(chunk.hex(" ").upper() + "\n")
    return 0
