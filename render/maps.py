"""The layout of a map, computed once and cached.

* maps with the standard board's provinces (standard, 1898, 1900, fleet_rome,
  shift_around...) use the hand-placed geography of :mod:`render.standard`;
* any other map uses :func:`render.autolayout.auto_layout`.  The layouts of
  the variants in maps/data are precomputed into ``render/data/layouts/``
  (``python -m render.precompute``): pure-Python layout of the larger maps
  takes seconds, and a committed file is reviewable, identical on every
  machine and never written by a server at run time.  A file is used only
  while its fingerprint (provinces, kinds, adjacencies) matches the map, so a
  changed or custom MDF falls back to computing its layout (then cached in
  memory for the process).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from maps.model import Map
from render.layout import MapLayout, fingerprint

LAYOUT_DIR = Path(__file__).resolve().parent / "data" / "layouts"

#: (map name, fingerprint) -> layout: per process, shared by equal maps
_cache: dict[tuple[str, str], MapLayout] = {}
_lock = threading.Lock()


def uses_standard_geography(map_: Map) -> bool:
    from render.standard import SITES

    return {p.mnemonic for p in map_.provinces} == set(SITES)


def compute_layout(map_: Map) -> MapLayout:
    """The layout of ``map_`` computed now (no cache)."""
    if uses_standard_geography(map_):
        from render.standard import standard_layout

        return standard_layout(map_)
    from render.autolayout import auto_layout

    return auto_layout(map_)


def layout_for(map_: Map) -> MapLayout:
    """The layout of ``map_``: from the memory cache, the precomputed file, or computed.

    Kept with the map object too (``Map.derived``), so asking again for the
    same map does not compute its fingerprint again."""
    return map_.derived("render.layout", _layout_for)


def _layout_for(map_: Map) -> MapLayout:
    key = (map_.name, fingerprint(map_))
    with _lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    layout = None
    if not uses_standard_geography(map_):
        path = LAYOUT_DIR / f"{map_.name.lower()}.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("fingerprint") == key[1]:
                layout = MapLayout.from_json(data)
    if layout is None:
        layout = compute_layout(map_)
        layout.fingerprint = key[1]
    with _lock:
        _cache.setdefault(key, layout)
        return _cache[key]
