"""Geography: provinces, coasts, adjacency, home and supply centres, the start.

* :class:`Map` - frozen, integer-indexed geography (``maps.model``);
* :func:`build_map` - build and check one from plain data in the shape of
  an MDF (``maps.build``); :class:`MapError` for data that does not make a
  consistent map.

This package imports nothing else of the project and holds no wire data:
reading a map from DAIDE messages or from the data files in ``maps/data/``
(which hold DAIDE text), and a map's token representation, are the
engine's (``engine.mapfiles``, ``engine.variants``, ``engine.tokens``).
"""

from __future__ import annotations

from maps.build import SEASONS, MapError, build_map
from maps.model import Map, Province, ProvinceKind, StartUnit

__all__ = [
    "Map",
    "MapError",
    "Province",
    "ProvinceKind",
    "SEASONS",
    "StartUnit",
    "build_map",
]
