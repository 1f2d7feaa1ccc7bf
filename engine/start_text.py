"""A game's start position given as DAIDE text (``daide serve --start-from FILE``).

The text holds a ``NOW (...)`` - the turn and the units, dislodged units
with their ``MRT`` lists (docs/protocol.md §8.2) - and an ``SCO (...)`` -
who owns which centre - one message per line, in the variant's tokens as a
server would send them; blank lines and ``#`` comments are skipped.
Without an SCO the map's starting ownership is used.

It is read by the same reader as ``daide adjudicate`` positions
(`engine.phase_text.read_position`: the grammar, the SCO's owners and
centres, then the adjudicator's checks of the position,
`adjudicator.position_checks`) and must be a turn of the map: not before its
first.  Every fault is an `engine.phase_text.InputError` of one line.
"""

from __future__ import annotations

from adjudicator.rulebook import Rulebook
from adjudicator.values import Phase
from engine.phase_text import InputError, read_position, setting
from engine.position import Engine
from engine.variants import Variant


def start_lines(text: str) -> tuple[str | None, str]:
    """The SCO line (None when there is none) and the NOW line of a start text."""
    found: dict[str, list[str]] = {"SCO": [], "NOW": []}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head = line.split(maxsplit=1)[0].upper()
        if head not in found:
            raise InputError(f"line {number}: expected an NOW or SCO message, not {head}")
        found[head].append(line)
    for head, lines in found.items():
        if len(lines) > 1:
            raise InputError(f"{len(lines)} {head} messages: a position has one")
    if not found["NOW"]:
        raise InputError("no NOW message: a position needs its turn and units")
    return (found["SCO"][0] if found["SCO"] else None), found["NOW"][0]


def read_start(variant: Variant, text: str, rulebook: Rulebook) -> Engine:
    """The engine of a game of ``variant`` starting from the position in ``text``."""
    sco, now = start_lines(text)
    state = read_position(setting(variant.name, rulebook), sco, now)
    first = Phase(*variant.map.start_phase)
    if state.phase.key < first.key:
        raise InputError(f"NOW: {state.phase} is before the map's first turn, {first}")
    return Engine(variant.map, state, rulebook)


__all__ = ["read_start", "start_lines"]
