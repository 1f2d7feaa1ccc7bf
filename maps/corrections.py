"""Corrections to the reference server's variant files, as a "normal" diff.

The DAIDE variant archive (David Norman's AiServer files) has known faults:
a misspelt province in African2, language mnemonics reused as province or
power names (``BRA``, ``NEC``, ``SEC``, ``CHO``, forbidden by docs/protocol.md
§11), an army adjacency into a sea in Americas4, and province tokens whose
category byte contradicts the map in many ``.REM`` files (docs/protocol.md §6.5).
The corrections are kept as data, ``maps/data/CORRECTIONS.diff``: the
Parlance project's patch against the archive (``diff`` output without
context: ``diff OLD NEW`` headers, ``8c8`` / ``12a13`` / ``5,6d4`` commands,
``<`` and ``>`` lines), followed by this project's own additions in the same
format.  ``maps/data/CORRECTIONS.md`` says what each one fixes.

This module parses such a diff and applies it to a file's text, checking
that every line it replaces is really there (a patch for another version of
a file is an error, never a silent change).  The variant data under
``maps/data/<variant>/`` is the archive with these corrections applied; the
tests check that this is still so.  Pure: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from types import MappingProxyType


class CorrectionError(ValueError):
    """A corrections diff is malformed or does not fit the file it patches."""


@dataclass(frozen=True, slots=True)
class Hunk:
    """One diff command: lines ``first..last`` (1-based) of the old file.

    ``kind`` is ``"c"`` (change), ``"a"`` (add after line ``first``; then
    ``old`` is empty) or ``"d"`` (delete; then ``new`` is empty).
    """

    kind: str
    first: int
    last: int
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Patch:
    """The hunks for one file, named by its lower-case base name (``african2.mdf``)."""

    name: str
    hunks: tuple[Hunk, ...]

    def apply(self, text: str) -> str:
        """``text`` with the hunks applied; :class:`CorrectionError` if it does not fit.

        Lines are compared without trailing white space or carriage returns
        (the archive mixes line ends); the result uses ``\\n`` line ends.
        """
        lines = [ln.rstrip() for ln in text.splitlines()]
        out: list[str] = []
        pos = 0  # lines[:pos] are done
        for hunk in self.hunks:
            start = hunk.first if hunk.kind == "a" else hunk.first - 1
            if start < pos:
                raise CorrectionError(f"{self.name}: hunks out of order at line {hunk.first}")
            end = start + len(hunk.old)
            if end > len(lines):
                raise CorrectionError(f"{self.name}: line {hunk.first} is past the end of the file")
            for k, line in enumerate(lines[start:end]):
                if not _fits(line, k, hunk):
                    raise CorrectionError(f"{self.name}: line {start + k + 1} is {line!r}, "
                                          f"the correction expects {hunk.old[k]!r}")
            out.extend(lines[pos:start])
            out.extend(hunk.new)
            pos = end
        out.extend(lines[pos:])
        return "\n".join(out) + "\n"


def _fits(line: str, k: int, hunk: Hunk) -> bool:
    """Line ``k`` of a hunk is the faulty original, or already corrected.

    Some archive copies carry part of a correction already (south_east_asia3
    spells ``Chb`` where the Parlance patch replaces ``Cho`` with ``ChB``);
    mnemonics are case-insensitive (docs/protocol.md §11), so such a line counts
    as corrected and is replaced by the patch's form.
    """
    if line == hunk.old[k]:
        return True
    return len(hunk.new) == len(hunk.old) and line.lower() == hunk.new[k].lower()


_COMMAND = re.compile(r"^(\d+)(?:,(\d+))?([acd])(\d+)(?:,(\d+))?$")


def parse_diff(text: str) -> Mapping[str, Patch]:
    """The patches of a normal diff, by lower-case base name of the file patched.

    Each file starts with a ``diff OLD NEW`` line; the base name of OLD names
    the patch (``aiserver/variants/African2.MDF`` -> ``african2.mdf``).
    """
    patches: dict[str, list[Hunk]] = {}
    current: list[Hunk] | None = None
    lines = [ln.rstrip("\r\n") for ln in text.splitlines()]
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("diff "):
            parts = line.split()
            if len(parts) < 3:
                raise CorrectionError(f"corrections line {i}: bad header {line!r}")
            name = PurePosixPath(parts[-2]).name.lower()
            if name in patches:
                raise CorrectionError(f"corrections line {i}: {name} patched twice")
            current = patches[name] = []
            continue
        found = _COMMAND.match(line)
        if found is None or current is None:
            raise CorrectionError(f"corrections line {i}: expected a diff command, got {line!r}")
        first = int(found.group(1))
        last = int(found.group(2) or first)
        kind = found.group(3)
        new_first = int(found.group(4))
        new_last = int(found.group(5) or new_first)
        old_count = 0 if kind == "a" else last - first + 1
        new_count = 0 if kind == "d" else new_last - new_first + 1
        old, i = _take(lines, i, "<", old_count)
        if kind == "c":
            if i >= len(lines) or lines[i] != "---":
                raise CorrectionError(f"corrections line {i + 1}: expected '---'")
            i += 1
        new, i = _take(lines, i, ">", new_count)
        current.append(Hunk(kind, first, last, old, new))
    return MappingProxyType({n: Patch(n, tuple(h)) for n, h in patches.items()})


def _take(lines: list[str], i: int, mark: str, count: int) -> tuple[tuple[str, ...], int]:
    taken: list[str] = []
    for _ in range(count):
        if i >= len(lines) or not (lines[i] == mark or lines[i].startswith(mark + " ")):
            raise CorrectionError(f"corrections line {i + 1}: expected a {mark!r} line")
        taken.append(lines[i][2:].rstrip())
        i += 1
    return tuple(taken), i


__all__ = ["CorrectionError", "Hunk", "Patch", "parse_diff"]
