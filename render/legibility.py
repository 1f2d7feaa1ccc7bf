"""How legible a map's drawing is: overlapping provinces, crossing borders, label size.

A picture a person can read has no two provinces drawn over each other, no
border crossing another, and labels big enough to read.  :func:`measure`
counts these for a :class:`~render.layout.MapLayout`:

* ``overlaps``: pairs of provinces whose shapes overlap - an edge of one
  properly crosses an edge of the other, or a corner of one lies inside the
  other (shared borders and touching corners do not count);
* ``crossings``: pairs of drawn border segments (land, sea and coast) that
  properly cross.

Both by more than `TOLERANCE` (a quarter of a pixel at the default size).

A layout with a land outline (the standard map's, `render.standard`) draws
its seas under the land on purpose - the coast is the outline - so there
only land with land and sea with sea count.
* ``label_px``: the labels' font size in pixels when the picture is drawn at
  its default size (``render_svg`` without ``width``: one unit, one pixel).

* ``unshown``: pairs of adjacent provinces (as the caller gives them, from
  the map) that a person cannot see are adjacent: their drawn shapes share
  no border at least `render.layout.SHOWN_BORDER` label heights long, and no link (the dashed
  line between two units) joins them.  The border is what the picture shows:
  on each side of every edge of a province, which province is drawn on top
  there (land over the seas under it, an island over both) - so a coast
  between a land and the sea under it counts, a border hidden under another
  shape does not.

Pure geometry over the layout's polygons; pairs are looked up in a grid of
cells so that a map of 200 provinces is measured in about a second.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from render.geometry import Point, point_in_polygon
from render.layout import SHOWN_BORDER, MapLayout

#: Overlaps by less than this (layout units: pixels at the default size) cannot be
#: seen and are touching, not crossing - the stored layouts round to 0.1.
TOLERANCE = 0.25
#: How far (layout units) beyond an edge the picture is looked at, and how often along it.
_PROBE, _SAMPLE_EVERY = 0.5, 2.0

Segment = tuple[Point, Point]


@dataclass(frozen=True)
class Legibility:
    """The figures of one map's drawing (see the module doc)."""

    variant: str
    overlaps: tuple[tuple[str, str], ...]
    crossings: int
    label_px: float
    unshown: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        return (f"{self.variant}: {len(self.overlaps)} overlapping province pairs, "
                f"{self.crossings} crossing borders, labels {self.label_px:g} px, "
                f"{len(self.unshown)} adjacencies neither a border nor a link")


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def properly_cross(p: Segment, q: Segment, tolerance: float = TOLERANCE) -> bool:
    """The two segments cross, each reaching more than ``tolerance`` beyond the other's line."""
    (a, b), (c, d) = p, q
    cd = math.dist(c, d)
    ab = math.dist(a, b)
    if cd == 0 or ab == 0:
        return False
    d1, d2 = _orient(c, d, a) / cd, _orient(c, d, b) / cd     # distances from the line c-d
    d3, d4 = _orient(a, b, c) / ab, _orient(a, b, d) / ab
    t = tolerance
    return ((d1 > t and d2 < -t) or (d1 < -t and d2 > t)) and \
        ((d3 > t and d4 < -t) or (d3 < -t and d4 > t))


def _box(segment: Segment) -> tuple[float, float, float, float]:
    (x1, y1), (x2, y2) = segment
    return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)


def _grid_pairs(items: Sequence[tuple[float, float, float, float]], cell: float
                ) -> Iterable[tuple[int, int]]:
    """Index pairs of boxes that share a grid cell, each pair once."""
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (x0, y0, x1, y1) in enumerate(items):
        for gx in range(int(x0 // cell), int(x1 // cell) + 1):
            for gy in range(int(y0 // cell), int(y1 // cell) + 1):
                grid[gx, gy].append(i)
    seen: set[tuple[int, int]] = set()
    for members in grid.values():
        for k, i in enumerate(members):
            for j in members[k + 1:]:
                pair = (i, j) if i < j else (j, i)
                if pair not in seen:
                    seen.add(pair)
                    yield pair


def _inside(p: Point, poly: Sequence[Point]) -> bool:
    """Strictly inside: in the polygon and not within TOLERANCE of its boundary."""
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if _near_segment(p, poly[i], poly[(i + 1) % n]):
            return False
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _near_segment(p: Point, a: Point, b: Point, tolerance: float = TOLERANCE) -> bool:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length))
    cx, cy = ax + t * dx, ay + t * dy
    return (px - cx) ** 2 + (py - cy) ** 2 <= tolerance * tolerance


def _crossing_pairs(segments: Sequence[Segment], cell: float) -> list[tuple[int, int]]:
    boxes = [_box(s) for s in segments]
    return [(i, j) for i, j in _grid_pairs(boxes, cell)
            if properly_cross(segments[i], segments[j])]


def shown_borders(layout: MapLayout) -> dict[tuple[str, str], float]:
    """Pairs of provinces (sorted) -> the length of border the picture shows between them.

    Along every edge of every province, every `_SAMPLE_EVERY` units, the shape
    drawn on top just beyond each side of the edge; where one side is the province
    itself and the other another province, that much border between them is seen."""
    layered = bool(layout.coast)
    # The drawing's order (render.svg): seas, then land, then islands (no province).
    shapes: list[tuple[int, str | None, list[Point]]] = []
    for name in sorted(layout.provinces):
        shape = layout.provinces[name]
        level = 0 if layered and shape.kind == "sea" else 1
        shapes.extend((level, name, list(poly)) for poly in shape.polys if len(poly) >= 3)
    shapes.extend((2, None, list(poly)) for poly in layout.islands if len(poly) >= 3)
    shapes.sort(key=lambda item: item[0])
    cell = max(layout.width, layout.height) / 60 or 1.0
    grid: dict[tuple[int, int], list[int]] = defaultdict(list)
    boxes = []
    for i, (_level, _name, poly) in enumerate(shapes):
        x0, y0 = min(x for x, _ in poly), min(y for _, y in poly)
        x1, y1 = max(x for x, _ in poly), max(y for _, y in poly)
        boxes.append((x0, y0, x1, y1))
        for gx in range(int(x0 // cell), int(x1 // cell) + 1):
            for gy in range(int(y0 // cell), int(y1 // cell) + 1):
                grid[gx, gy].append(i)

    def on_top(p: Point) -> str | None:
        top: str | None = None
        for i in grid.get((int(p[0] // cell), int(p[1] // cell)), ()):
            x0, y0, x1, y1 = boxes[i]
            if x0 <= p[0] <= x1 and y0 <= p[1] <= y1 and point_in_polygon(p, shapes[i][2]):
                top = shapes[i][1]          # in drawing order: the last one is on top
        return top

    seen: dict[tuple[str, str, str], float] = defaultdict(float)
    for _level, walker, poly in shapes:
        if walker is None:
            continue
        for k in range(len(poly)):
            (ax, ay), (bx, by) = poly[k - 1], poly[k]
            length = math.hypot(bx - ax, by - ay)
            if length <= TOLERANCE:
                continue
            nx, ny = -(by - ay) / length * _PROBE, (bx - ax) / length * _PROBE
            count = max(1, math.ceil(length / _SAMPLE_EVERY))
            for j in range(count):
                t = (j + 0.5) / count
                mx, my = ax + (bx - ax) * t, ay + (by - ay) * t
                one, other = on_top((mx + nx, my + ny)), on_top((mx - nx, my - ny))
                if one != walker:
                    one, other = other, one
                if one == walker and other is not None and other != walker:
                    seen[min(walker, other), max(walker, other), walker] += length / count
    # A border is walked from each of its sides; a side drawn under another shape (a
    # sea under the land) does not see it: the longer walk is what the picture shows.
    shown: dict[tuple[str, str], float] = {}
    for (a, b, _walker), length in seen.items():
        shown[a, b] = max(shown.get((a, b), 0.0), length)
    return shown


def unshown_adjacencies(layout: MapLayout, adjacent: Iterable[tuple[str, str]]
                        ) -> tuple[tuple[str, str], ...]:
    """The ``adjacent`` pairs neither drawn as sharing a border nor joined by a link."""
    pairs = {(min(a, b), max(a, b)) for a, b in adjacent}
    if not pairs:
        return ()
    borders = shown_borders(layout)
    links = {(min(a, b), max(a, b)) for a, b in layout.links}
    least = layout.font * SHOWN_BORDER
    return tuple(sorted(p for p in pairs if p not in links and borders.get(p, 0.0) < least))


def measure(layout: MapLayout, adjacent: Iterable[tuple[str, str]] = ()) -> Legibility:
    """The legibility figures of ``layout``; ``adjacent``: the map's adjacent pairs
    (for ``unshown``)."""
    cell = max(layout.width, layout.height) / 40 or 1.0
    layered = bool(layout.coast)
    sea = {name for name, shape in layout.provinces.items() if shape.kind == "sea"}

    def hidden(a: str, b: str) -> bool:
        """A sea under the land of a layout with an outline: drawn so on purpose."""
        return layered and ((a in sea) != (b in sea))

    edges: list[Segment] = []
    owner: list[str] = []
    for name, shape in layout.provinces.items():
        for poly in shape.polys:
            for i in range(len(poly)):
                edges.append((poly[i], poly[(i + 1) % len(poly)]))
                owner.append(name)
    overlapping: set[tuple[str, str]] = set()
    for i, j in _crossing_pairs(edges, cell):
        if owner[i] != owner[j] and not hidden(owner[i], owner[j]):
            a, b = sorted((owner[i], owner[j]))
            overlapping.add((a, b))
    # A corner of one province inside another (a shape drawn wholly over another).
    shapes = [(name, poly) for name, shape in layout.provinces.items() for poly in shape.polys]
    boxes = [(min(x for x, _ in poly), min(y for _, y in poly),
              max(x for x, _ in poly), max(y for _, y in poly)) for _, poly in shapes]
    for i, j in _grid_pairs(boxes, cell):
        (na, pa), (nb, pb) = shapes[i], shapes[j]
        if na == nb or hidden(na, nb) or tuple(sorted((na, nb))) in overlapping:
            continue
        if any(_inside(p, pb) for p in pa) or any(_inside(p, pa) for p in pb):
            a, b = sorted((na, nb))
            overlapping.add((a, b))
    if layered:      # the sea borders are under the land: each layer on its own
        crossings = sum(len(_crossing_pairs(list(layer), cell))
                        for layer in (layout.land_borders, layout.sea_borders))
    else:
        borders = list(layout.land_borders) + list(layout.sea_borders) + list(layout.coast_edges)
        crossings = len(_crossing_pairs(borders, cell))
    return Legibility(layout.variant, tuple(sorted(overlapping)), crossings, layout.font,
                      unshown_adjacencies(layout, adjacent))
