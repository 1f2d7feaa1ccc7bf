"""The variants this project can play: one registry for the server and the CLI.

A variant is a folder ``maps/data/<name>/`` (see :mod:`maps.loader`): the
standard map and the 25 maps of the reference server's variant archive,
corrected as ``maps/data/CORRECTIONS.md`` says.  Names are case-insensitive
(``AFRICAN2``, ``african2``) and are the folder names, lower case, letters,
digits and ``_`` (a MAP name, docs/protocol.md §8.1).

:func:`variant_map` loads one (once; maps are immutable).  A variant whose
data is faulty beyond correction raises a one-line :class:`MapError` naming
the file and the fault, as an unknown name raises :class:`UnknownVariant`.
"""

from __future__ import annotations

import functools

from maps.loader import DATA_DIR, load_map, standard_map
from maps.mdf import MapError
from maps.model import Map


class UnknownVariant(MapError):
    """No variant of that name."""


@functools.cache
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


@functools.cache
def _load(key: str) -> Map:
    return standard_map() if key == "standard" else load_map(key)


def variant_map(name: str) -> Map:
    """The map of a variant, by case-insensitive name (loaded once).

    Raises :class:`UnknownVariant`, or :class:`MapError` (one line, naming
    the file) when the variant's data cannot be played.
    """
    return _load(canonical_name(name))


__all__ = ["UnknownVariant", "canonical_name", "variant_map", "variant_names"]
