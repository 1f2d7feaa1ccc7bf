"""The variants a game can be played on: a map with its tokens and MDF message.

`Variant` is a playable map: its MAP name, MDF message, token
representation and the map itself; :func:`load_variant` finds one by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import maps
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.values import initial_state
from engine import convert
from protocol.errors import ProtocolError
from protocol.messages import Mdf, Now, Sco
from protocol.parse import Role, parse_message
from protocol.tokens import Representation
from protocol.tree import from_tree

if TYPE_CHECKING:
    from engine.position import Engine


class VariantError(ValueError):
    """The variant is not available."""


@dataclass(frozen=True, eq=False)
class Variant:
    """A map the server can host: name, MDF, representation, start."""

    name: str                   # as sent in MAP (docs/protocol.md §8.1)
    map: maps.Map
    rep: Representation
    mdf: Mdf

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    def start(self, rulebook: Rulebook = DEFAULT) -> Engine:
        """The starting position."""
        from engine.position import Engine  # a position refers back to its variant

        return Engine(self, initial_state(self.map), rulebook)

    def position(self, sco: Sco, now: Now, rulebook: Rulebook = DEFAULT) -> Engine:
        """The position an SCO and a NOW describe (a stored game)."""
        from engine.position import Engine

        return Engine(self, convert.state_from_messages(sco, now), rulebook)


def available_variants() -> tuple[str, ...]:
    """Variant names that have map data in the ``maps`` package (``daide variants``)."""
    return maps.variant_names()


@cache
def load_variant(name: str) -> Variant:
    """The variant of that name (case-insensitive, as ``daide variants`` lists them), loaded once.

    The MAP name is the registry's name in upper case (the reference server
    sent ``'STANDARD'``, docs/protocol.md §8.1); the MDF is the map's own message
    and the representation its ``.rem`` file: the standard tokens (an empty
    RM, 4.2 and 19.3) for the standard board, the full list otherwise.
    Raises :class:`VariantError` with a one-line reason (unknown name, or
    data that cannot be played, naming the file).
    """
    try:
        the_map = maps.variant_map(name)
    except maps.MapError as exc:
        raise VariantError(str(exc)) from None
    rep = the_map.representation()
    try:
        mdf = parse_message(from_tree(the_map.mdf, rep), rep, sender=Role.SERVER)
    except ProtocolError as exc:
        raise VariantError(f"variant {name!r}: its MDF is not a valid message: {exc}") from None
    if not isinstance(mdf, Mdf):
        raise VariantError(f"variant {name!r}: its MDF is not an MDF message")
    return Variant(the_map.name.upper(), the_map, rep, mdf)
