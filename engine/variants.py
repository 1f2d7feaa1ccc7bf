"""The variants this project can play: one registry for the server and the CLI.

A variant is a folder ``maps/data/<name>/`` (see :mod:`engine.mapfiles`):
the standard map and the 25 maps of the reference server's variant archive,
corrected as ``maps/data/CORRECTIONS.md`` says.  Names are case-insensitive
(``AFRICAN2``, ``african2``) and are the folder names, lower case, letters,
digits and ``_`` (a MAP name, docs/protocol.md §8.1).

:class:`Variant` is a playable map: its MAP name, the map, its token
representation and its MDF message; :func:`load_variant` finds one by name
(once; everything in it is immutable), :func:`variant_map` just its map.  A
variant whose data is faulty beyond correction raises a one-line
:class:`MapError` naming the file and the fault, as an unknown name raises
:class:`UnknownVariant`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.values import initial_state
from engine import convert
from engine.mapfiles import DATA_DIR, MapFiles, load_files
from engine.position import Engine
from maps import Map, MapError
from protocol.messages import Mdf, Now, Sco
from protocol.tokens import Representation


class VariantError(ValueError):
    """The variant is not available."""


@dataclass(frozen=True, eq=False)
class Variant:
    """A map the server can host: name, MDF, representation, start."""

    name: str                   # as sent in MAP (docs/protocol.md §8.1)
    map: Map
    rep: Representation
    mdf: Mdf

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    def start(self, rulebook: Rulebook = DEFAULT) -> Engine:
        """The starting position."""
        return Engine(self.map, initial_state(self.map), rulebook)

    def position(self, sco: Sco, now: Now, rulebook: Rulebook = DEFAULT) -> Engine:
        """The position an SCO and a NOW describe (a stored game)."""
        return Engine(self.map, convert.state_from_messages(sco, now), rulebook)


class UnknownVariant(MapError):
    """No variant of that name."""


@cache
def variant_names() -> tuple[str, ...]:
    """Every variant with data, sorted (``1898`` ... ``standard`` ... ``world3``)."""
    return tuple(sorted(p.name for p in DATA_DIR.iterdir()
                        if p.is_dir() and (p / f"{p.name}.mdf").exists()))


def canonical_name(name: str) -> str:
    """The registry's name for ``name`` (case-insensitive); :class:`UnknownVariant` if none."""
    key = name.strip().lower()
    if key not in variant_names():
        raise UnknownVariant(f"unknown variant {name!r} (known: {', '.join(variant_names())})")
    return key


@cache
def _files(key: str) -> MapFiles:
    return load_files(key)


def variant_files(name: str) -> MapFiles:
    """A variant's map with its representation and MDF, by case-insensitive name (loaded once).

    Raises :class:`UnknownVariant`, or :class:`MapError` (one line, naming
    the file) when the variant's data cannot be played.
    """
    return _files(canonical_name(name))


def variant_map(name: str) -> Map:
    """The map of a variant (:func:`variant_files`)."""
    return variant_files(name).map


def standard_map() -> Map:
    """The standard map (loaded once, then shared: it is immutable)."""
    return _files("standard").map


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
        files = _files(canonical_name(name))
    except MapError as exc:
        raise VariantError(str(exc)) from None
    return Variant(files.map.name.upper(), files.map, files.rep, files.mdf)


__all__ = ["UnknownVariant", "Variant", "VariantError", "canonical_name", "load_variant",
           "standard_map", "variant_files", "variant_map", "variant_names"]
