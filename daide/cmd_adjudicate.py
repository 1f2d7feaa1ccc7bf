"""`daide adjudicate`: adjudicate positions given as DAIDE text, block by block.

    daide adjudicate [--variant standard] [--rules datc-2.4] [--expedite] [FILE]

Input (FILE or stdin): blocks separated by an empty line.  A block holds one
``SCO ...`` line (ownership), one ``NOW ...`` line (phase and units; MRT
lists in a retreat phase) and any number of ``SUB ...`` lines with orders of
any powers - each order is submitted by the power named in it (its unit's
owner, or the power of ``power WVE``); ``AS <power> SUB ...`` submits for an
explicit power, as in case files.

Output, per block and in input order, exactly what a server sends
(docs/protocol.md §8.3, 8.4): a ``THX`` line for every order whose note is not
MBV, every ``ORD``, then ``SCO``, ``NOW`` (the next phase in which somebody
must act) and ``SLO`` if the game ended in a solo; then an empty line.  A
malformed block gives one line ``ERROR block <n> (line <l>): <reason>``
(followed by the empty line), the run goes on, and the exit status is 1.

Blocks are read and written one at a time (flushed per block), so any
number of them stream through one process.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import TextIO

from daide.blocks import Block, read_blocks
from daide.errors import CommandError
from engine.phase_text import (
    RULE_PRESETS,
    InputError,
    LineError,
    Setting,
    phase_lines,
    rulebook,
    setting,
)

NAME = "adjudicate"
HELP = "adjudicate positions and orders given as DAIDE text (SCO, NOW, SUB blocks)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", default="standard",
                        help="map / variant name, case-insensitive (default: standard; "
                             "`daide variants` lists them)")
    parser.add_argument("--rules", default="datc-2.4", choices=RULE_PRESETS,
                        help="rule preset (default: datc-2.4)")
    parser.add_argument("--expedite", action="store_true",
                        help="the expedited removal of players, a house rule "
                             "(docs/adjudication-conventions.md)")
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="input file (default: standard input)")


def adjudicate_block(game: Setting, block: Block) -> list[str]:
    """The output lines of one well-formed block (:func:`engine.phase_text.phase_lines`);
    :class:`~engine.phase_text.LineError` otherwise."""
    return phase_lines(game, block.lines)


def adjudicate_stream(game: Setting, lines: Iterable[str], out: TextIO) -> int:
    """Process every block of ``lines``, writing to ``out``; the exit status."""
    status = 0
    for block in read_blocks(lines):
        try:
            result = adjudicate_block(game, block)
        except LineError as exc:
            result = [f"ERROR block {block.number} (line {exc.line}): {exc.reason}"]
            status = 1
        except Exception as exc:  # an engine fault: report it with the block, go on
            result = [f"ERROR block {block.number} (line {block.lines[0].number}): "
                      f"internal error: {type(exc).__name__}: {exc}"]
            status = 1
        out.write("\n".join(result) + "\n\n")
        out.flush()
    return status


def run(args: argparse.Namespace) -> int:
    try:
        game = setting(args.variant, rulebook(args.rules).with_expedite(args.expedite))
    except InputError as exc:
        raise CommandError(str(exc)) from None
    try:
        source = _stdin_utf8() if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {args.file}: {exc.strerror}") from None
    with source as stream:
        try:
            return adjudicate_stream(game, stream, sys.stdout)
        except UnicodeDecodeError as exc:
            # Blocks before the bad bytes have been answered; the rest cannot be read.
            name = "input" if args.file == "-" else args.file
            raise CommandError(f"{name} is not UTF-8 text: {exc.reason}") from None


def _stdin_utf8() -> AbstractContextManager[TextIO]:
    """Standard input read as UTF-8 whatever the locale says (the format is UTF-8)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:             # replaced by a text stream (in-process callers)
        return nullcontext(sys.stdin)
    return nullcontext(io.TextIOWrapper(buffer, encoding="utf-8"))
