"""Streaming reader of ``daide adjudicate`` input blocks.

A block is a run of non-empty lines; blocks are separated by empty lines
(several empty lines count as one separator).  ``#`` comments are removed as
in case files (:func:`daide.datc_cases.strip_comment`), and a line holding
only a comment is neither content nor a separator.  Lines are read one at a
time, so a block is handed on as soon as its closing empty line (or the end
of the input) arrives: thousands of blocks stream through in constant memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from daide.datc_cases import SourceLine, strip_comment


class Block(NamedTuple):
    """One input block: its 1-based number and its content lines."""

    number: int
    lines: tuple[SourceLine, ...]


def read_blocks(lines: Iterable[str]) -> Iterator[Block]:
    """Group ``lines`` (e.g. an open text file) into blocks, lazily."""
    current: list[SourceLine] = []
    number = 0
    make_line = tuple.__new__  # the NamedTuple SourceLine without its Python-level __new__
    for line_no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            if current:
                number += 1
                yield Block(number, tuple(current))
                current = []
            continue
        if "#" in text:
            text = strip_comment(text)
            if not text:  # only a comment: neither content nor a separator
                continue
        current.append(make_line(SourceLine, (line_no, text)))
    if current:
        yield Block(number + 1, tuple(current))
