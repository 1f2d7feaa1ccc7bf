"""Where everything of a map is drawn: province shapes, borders, label and unit spots.

A :class:`MapLayout` is built from *sites* (one or more points per province)
by :func:`build_layout`:

* with a land outline (the standard map, :mod:`render.standard`): land
  provinces are the Voronoi cells of the land sites clipped to the outline's
  polygons, seas are the Voronoi cells of the sea sites (drawn under the
  land, so the coast is the outline);
* with the shapes already drawn (every other variant: :mod:`render.autolayout`
  draws them as the dual of the adjacency graph, :mod:`render.dual`), only
  the spots are placed.

Labels sit at the site, nudged apart until no two label boxes overlap; the
unit stands just below its label, the centre marker to the right of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from maps.model import Map
from render import geometry as geo
from render.geometry import Point, Polygon

#: Label box estimate: width = chars x CHAR_WIDTH x font size, height = font size.
CHAR_WIDTH = 0.62
#: The owner of a frame edge in a Voronoi diagram (no province).
VOID = ""
#: Two adjacent provinces are drawn as touching when their shared border is at least
#: this many label heights long; a shorter border is not seen as one, and such a pair
#: is joined by a link too (`render.svg`; `render.legibility` checks the drawing).
SHOWN_BORDER = 0.4


@dataclass
class ProvinceShape:
    mnemonic: str
    kind: str            # inland / sea / coastal / bicoastal
    polys: list[Polygon]
    label: Point
    unit: Point
    sc: Point | None
    coasts: dict[str, Point] = field(default_factory=dict)


@dataclass
class MapLayout:
    variant: str
    width: float
    height: float
    font: float                      # label font size
    unit_size: float                 # unit symbol radius
    provinces: dict[str, ProvinceShape]
    land_borders: list[tuple[Point, Point]]
    sea_borders: list[tuple[Point, Point]]
    coast: list[Polygon]             # closed land outlines (empty for auto layouts)
    coast_edges: list[tuple[Point, Point]]   # land/sea edges of auto layouts
    fingerprint: str = ""
    islands: list[Polygon] = field(default_factory=list)   # land that is no province
    #: pairs of provinces (sorted) whose shapes share a drawn border or coast
    touching: list[tuple[str, str]] = field(default_factory=list)
    #: adjacent pairs whose shapes do not touch: drawn as links between their units
    links: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        r = _round
        return {
            "variant": self.variant, "width": r(self.width), "height": r(self.height),
            "font": r(self.font), "unit_size": r(self.unit_size),
            "fingerprint": self.fingerprint,
            "provinces": {
                m: {"kind": p.kind, "polys": [[[r(x), r(y)] for x, y in poly] for poly in p.polys],
                    "label": [r(p.label[0]), r(p.label[1])],
                    "unit": [r(p.unit[0]), r(p.unit[1])],
                    "sc": None if p.sc is None else [r(p.sc[0]), r(p.sc[1])],
                    "coasts": {c: [r(x), r(y)] for c, (x, y) in p.coasts.items()}}
                for m, p in self.provinces.items()},
            "land_borders": [[r(a[0]), r(a[1]), r(b[0]), r(b[1])] for a, b in self.land_borders],
            "sea_borders": [[r(a[0]), r(a[1]), r(b[0]), r(b[1])] for a, b in self.sea_borders],
            "coast": [[[r(x), r(y)] for x, y in poly] for poly in self.coast],
            "coast_edges": [[r(a[0]), r(a[1]), r(b[0]), r(b[1])] for a, b in self.coast_edges],
            "islands": [[[r(x), r(y)] for x, y in poly] for poly in self.islands],
            "touching": [list(pair) for pair in self.touching],
            "links": [list(pair) for pair in self.links],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MapLayout:
        def seg(s: Sequence[float]) -> tuple[Point, Point]:
            return (s[0], s[1]), (s[2], s[3])

        provinces = {
            m: ProvinceShape(m, p["kind"], [[(x, y) for x, y in poly] for poly in p["polys"]],
                             tuple(p["label"]), tuple(p["unit"]),
                             None if p["sc"] is None else tuple(p["sc"]),
                             {c: tuple(v) for c, v in p["coasts"].items()})
            for m, p in d["provinces"].items()}
        return cls(d["variant"], d["width"], d["height"], d["font"], d["unit_size"], provinces,
                   [seg(s) for s in d["land_borders"]], [seg(s) for s in d["sea_borders"]],
                   [[(x, y) for x, y in poly] for poly in d["coast"]],
                   [seg(s) for s in d["coast_edges"]], d.get("fingerprint", ""),
                   [[(x, y) for x, y in poly] for poly in d.get("islands", [])],
                   [(a, b) for a, b in d.get("touching", [])],
                   [(a, b) for a, b in d.get("links", [])])


def _round(v: float) -> float:
    return round(v, 1)


def label_box(x: float, y: float, text: str, font: float) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a centred label whose baseline middle is at (x, y+0.35 font)."""
    w = len(text) * CHAR_WIDTH * font
    return x - w / 2, y - font / 2, x + w / 2, y + font / 2


def separate_labels(spots: dict[str, Point], font: float, rounds: int = 400) -> dict[str, Point]:
    """Move label centres apart until no two boxes overlap (a small margin kept)."""
    pos = {m: [x, y] for m, (x, y) in spots.items()}
    names = sorted(pos)
    margin = font * 0.15
    for _ in range(rounds):
        moved = False
        boxes = {m: label_box(pos[m][0], pos[m][1], m, font) for m in names}
        for i, a in enumerate(names):
            ba = boxes[a]
            for b in names[i + 1:]:
                bb = boxes[b]
                if not (ba[0] - margin < bb[2] and bb[0] - margin < ba[2]
                        and ba[1] - margin < bb[3] and bb[1] - margin < ba[3]):
                    continue
                # push apart along the axis needing the smaller move
                ox = min(ba[2], bb[2]) - max(ba[0], bb[0]) + margin
                oy = min(ba[3], bb[3]) - max(ba[1], bb[1]) + margin
                if oy <= ox:
                    d = oy / 2 + 0.01
                    s = 1 if pos[a][1] <= pos[b][1] else -1
                    pos[a][1] -= s * d
                    pos[b][1] += s * d
                else:
                    d = ox / 2 + 0.01
                    s = 1 if pos[a][0] <= pos[b][0] else -1
                    pos[a][0] -= s * d
                    pos[b][0] += s * d
                moved = True
                boxes[a] = label_box(pos[a][0], pos[a][1], a, font)
                boxes[b] = label_box(pos[b][0], pos[b][1], b, font)
                ba = boxes[a]
        if not moved:
            break
    return {m: (x, y) for m, (x, y) in pos.items()}


def _merge_segments(cells: list[tuple[Polygon, list[int]]], owner: Sequence[str]
                    ) -> list[tuple[Point, Point, str, str]]:
    """Edges between cells of different provinces: (p, q, province a, province b), once each."""
    out = []
    for i, (poly, labels) in enumerate(cells):
        for k, j in enumerate(labels):
            if j < 0 and owner[i] == VOID:
                continue
            other = owner[j] if j >= 0 else VOID
            if other == owner[i] or (j >= 0 and j < i and owner[j] != VOID):
                continue
            out.append((poly[k - 1], poly[k], owner[i], other))
    return out


def build_layout(variant: str, kinds: Mapping[str, str], centres: set[str],
                 coasts: Mapping[str, Sequence[str]], sites: Mapping[str, Sequence[Point]],
                 *, width: float, height: float, font: float,
                 land: Sequence[Polygon] = (),
                 coast_spots: Mapping[tuple[str, str], Point] | None = None,
                 islands: Sequence[Polygon] = (),
                 shapes: Mapping[str, list[Polygon]] | None = None) -> MapLayout:
    """Cells, borders and spots from the sites of every province (see the module doc)."""
    frame: Polygon = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    polys: dict[str, list[Polygon]] = {m: [] for m in kinds}
    land_borders: list[tuple[Point, Point]] = []
    sea_borders: list[tuple[Point, Point]] = []
    coast_edges: list[tuple[Point, Point]] = []
    border_length: dict[tuple[str, str], float] = {}

    def touch(a: str, b: str, pieces: list[tuple[Point, Point]],
              length: float | None = None) -> None:
        if a != VOID and b != VOID:
            key = (min(a, b), max(a, b))
            if length is not None:
                border_length[key] = border_length.get(key, 0.0) + length
                return
            for p, q in pieces:
                mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
                if not any(geo.point_in_polygon(mid, isle) for isle in islands):
                    border_length[key] = border_length.get(key, 0.0) + distance(p, q)

    if shapes is not None:
        # the caller drew the shapes (render.dual): only the spots are placed here
        polys = {m: list(shapes[m]) for m in kinds}
    else:
        # Seas: one diagram of the sea sites, drawn under the land.
        owner = [m for m in sorted(sites) if kinds[m] == "sea" for _ in sites[m]]
        pts = [p for m in sorted(sites) if kinds[m] == "sea" for p in sites[m]]
        cells = geo.voronoi_cells(pts, frame)
        for m, (cell, _labels) in zip(owner, cells, strict=True):
            polys[m].append(cell)
        sea_owner, sea_pts = owner, pts
        for p, q, a, b in _merge_segments(cells, owner):
            sea_borders.append((p, q))
            # the part of a sea border not hidden under land
            hidden = sum(distance(u, v) for outline in land
                         for u, v in geo.clip_segment(p, q, outline))
            if distance(p, q) - hidden > 0:
                touch(a, b, [(p, q)], distance(p, q) - hidden)
        # Land: each land mass is shared out among the sites standing on it only,
        # so no province reaches across water onto another island or coast.
        groups: list[list[tuple[str, Point]]] = [[] for _ in land]
        for m in sorted(sites):
            if kinds[m] == "sea":
                continue
            for site in sites[m]:
                inside = [i for i, outline in enumerate(land) if geo.point_in_polygon(site, outline)]
                k = inside[0] if inside else min(
                    range(len(land)), key=lambda i: geo.edge_distance(site, land[i]))
                groups[k].append((m, site))
        for outline, group in zip(land, groups, strict=True):
            if not group:
                continue
            owner = [m for m, _ in group]
            cells = geo.voronoi_cells([p for _, p in group], frame)
            for m, (cell, _labels) in zip(owner, cells, strict=True):
                piece = geo.clip_polygon(outline, cell)
                if len(piece) >= 3 and abs(geo.area(piece)) > 1e-6:
                    polys[m].append(piece)
            for p, q, a, b in _merge_segments(cells, owner):
                pieces = geo.clip_segment(p, q, outline)
                land_borders.extend(pieces)
                touch(a, b, pieces)
            # coasts: each stretch of this outline between the nearest land and sea sites
            group_pts = [p for _, p in group]
            for i in range(len(outline)):
                p, q = outline[i - 1], outline[i]
                steps = max(1, int(distance(p, q) / 6))
                for k in range(steps):
                    u = (p[0] + (q[0] - p[0]) * k / steps, p[1] + (q[1] - p[1]) * k / steps)
                    v = (p[0] + (q[0] - p[0]) * (k + 1) / steps,
                         p[1] + (q[1] - p[1]) * (k + 1) / steps)
                    mid = ((u[0] + v[0]) / 2, (u[1] + v[1]) / 2)
                    if not (0 <= mid[0] <= width and 0 <= mid[1] <= height):
                        continue
                    near_land = owner[_nearest(group_pts, mid)]
                    near_sea = sea_owner[_nearest(sea_pts, mid)]
                    touch(near_land, near_sea, [(u, v)])
    # Spots: the label over the first site, the unit under it, the centre right of it.
    unit_size = font * 0.62
    labels_at: dict[str, Point] = {}
    for m in kinds:
        x, y = sites[m][0]
        labels_at[m] = (x, y - font * 0.9)
    labels_at = separate_labels(labels_at, font)
    provinces: dict[str, ProvinceShape] = {}
    for m in sorted(kinds):
        lx, ly = labels_at[m]
        unit = (lx, ly + font * 0.5 + unit_size * 1.15)
        if polys[m] and not any(geo.point_in_polygon(unit, poly) for poly in polys[m]):
            # a thin shape: the unit goes to its roomiest point instead
            unit = geo.pole(max(polys[m], key=lambda poly: abs(geo.area(poly))))
        sc = (lx + len(m) * CHAR_WIDTH * font / 2 + font * 0.5, ly) if m in centres else None
        spots: dict[str, Point] = {}
        for c in coasts.get(m, ()):
            if coast_spots and (m, c) in coast_spots:
                spots[c] = coast_spots[(m, c)]
            else:
                spots[c] = _default_coast_spot(unit, c, unit_size)
        provinces[m] = ProvinceShape(m, kinds[m], polys[m], (lx, ly), unit, sc, spots)
    return MapLayout(variant, width, height, font, unit_size, provinces, land_borders,
                     sea_borders, list(land or ()), coast_edges, islands=list(islands),
                     touching=sorted(k for k, v in border_length.items()
                                     if v >= font * SHOWN_BORDER))


_COAST_DIRECTION = {"NCS": (0, -1), "SCS": (0, 1), "ECS": (1, 0), "WCS": (-1, 0)}


def _default_coast_spot(unit: Point, coast: str, size: float) -> Point:
    dx, dy = _COAST_DIRECTION.get(coast, (1, 1))
    return unit[0] + dx * size * 2.4, unit[1] + dy * size * 2.4


def _nearest(points: Sequence[Point], p: Point) -> int:
    return min(range(len(points)), key=lambda i: (points[i][0] - p[0]) ** 2
               + (points[i][1] - p[1]) ** 2)


def neighbours(map_: Map) -> list[set[int]]:
    """Each province's adjacent provinces (by army or fleet), by index, both ways."""
    adj: list[set[int]] = [set(a) for a in map_.army_adj]
    for p in range(len(map_.provinces)):
        for loc in map_.fleet_locs[p]:
            adj[p] |= set(map_.fleet_reach[loc])
    for p, ns in enumerate(adj):       # symmetric, no self loops
        ns.discard(p)
        for q in ns:
            adj[q].add(p)
    return adj


def adjacent_pairs(map_: Map) -> set[tuple[str, str]]:
    """Every pair of adjacent provinces (by army or fleet), as sorted mnemonics."""
    names = [p.mnemonic for p in map_.provinces]
    return {(min(names[p], names[q]), max(names[p], names[q]))
            for p, near in enumerate(neighbours(map_)) for q in near}


def fingerprint(map_: Map) -> str:
    """A short hash of what a layout depends on: provinces, kinds and adjacencies."""
    import hashlib

    h = hashlib.sha256()
    for p in map_.provinces:
        h.update(f"{p.mnemonic}:{p.kind}:{','.join(p.coasts)}:{int(p.supply_centre)};".encode())
        adj = sorted(map_.provinces[q].mnemonic for q in map_.army_adj[p.id])
        reach = sorted({map_.provinces[map_.loc_province[loc]].mnemonic
                        for loc0 in map_.fleet_locs[p.id] for loc in map_.fleet_adj[loc0]})
        h.update((",".join(adj) + "|" + ",".join(reach) + ";").encode())
    return h.hexdigest()[:16]


def distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
