"""Map data: the standard board and any map given as a DAIDE MDF.

* :class:`Map` - frozen, integer-indexed geography (``maps.model``);
* :func:`map_from_mdf` - build one from MDF/NOW/SCO message trees
  (``maps.mdf``, pure);
* :func:`standard_map`, :func:`load_map`, :func:`load_variant` - read the
  data files (``maps.loader``, which parses text with ``protocol.text``);
* :func:`variant_map`, :func:`variant_names` - the registry of playable
  variants in ``maps/data/`` (``maps.variants``), case-insensitive names;
* :meth:`Map.representation` - its tokens (``maps.tokens`` derives and
  checks them against the map).

The loader functions are imported lazily so that importing the pure parts
(as the adjudicator does) never pulls in the protocol package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from maps.mdf import SEASONS, MapError, map_from_mdf
from maps.model import Map, Province, ProvinceKind, StartUnit

if TYPE_CHECKING:
    from maps.loader import load_map, load_variant, map_from_text, standard_map
    from maps.variants import UnknownVariant, variant_map, variant_names

_LOADER_NAMES = ("load_map", "load_variant", "map_from_text", "standard_map")
_REGISTRY_NAMES = ("UnknownVariant", "variant_map", "variant_names")


def __getattr__(name: str) -> Any:
    if name in _LOADER_NAMES:
        from maps import loader

        return getattr(loader, name)
    if name in _REGISTRY_NAMES:
        from maps import variants

        return getattr(variants, name)
    raise AttributeError(f"module 'maps' has no attribute {name!r}")


__all__ = [
    "Map",
    "MapError",
    "Province",
    "ProvinceKind",
    "SEASONS",
    "StartUnit",
    "UnknownVariant",
    "load_map",
    "load_variant",
    "map_from_mdf",
    "map_from_text",
    "standard_map",
    "variant_map",
    "variant_names",
]
