"""Province shapes that can never overlap: Voronoi cells cut to a disc.

The dual of the adjacency drawing (:mod:`render.dual`) makes borders follow
the adjacencies exactly, but where the positions leave faces that are not
convex its regions run over each other and its borders cross
(`render.legibility` counts them).  These shapes are the other way round:
each province is the part of its Voronoi cell (of the province positions)
within ``radius`` of its position, so no two shapes overlap and no border
crosses another - every border is an edge of two convex cells.

What is given up: two provinces whose cells touch are not always adjacent.
Such a border is returned as a *wall* (drawn like a coast: no passage), and
an adjacency whose cells do not touch is returned as dropped, to be drawn as
a link between the two units, as the dual layout does for its crossing
edges.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from render.geometry import Point, Polygon, clip_polygon, clip_segment, voronoi_cells

#: Sides of the polygon standing for the disc a cell is cut to.
DISC_SIDES = 24
#: Shorter shared edges than this (layout units) do not count as touching.
MIN_BORDER = 2.0


def _disc(centre: Point, radius: float) -> Polygon:
    x, y = centre
    return [(x + radius * math.cos(2 * math.pi * k / DISC_SIDES),
             y + radius * math.sin(2 * math.pi * k / DISC_SIDES)) for k in range(DISC_SIDES)]


def cell_regions(pos: Sequence[Point], edges: Sequence[tuple[int, int]], radius: float
                 ) -> tuple[list[Polygon], list[tuple[int, int, list[Point]]],
                            list[tuple[int, list[Point], bool]], list[tuple[int, int]],
                            list[list[Point]]]:
    """``(regions, borders, outlines, dropped, walls)`` as :func:`render.dual.dual_regions`
    returns them, plus the walls between touching provinces that are not adjacent."""
    adjacent = {(min(u, v), max(u, v)) for u, v in edges}
    xs = [p[0] for p in pos] or [0.0]
    ys = [p[1] for p in pos] or [0.0]
    pad = radius * 2
    bound = [(min(xs) - pad, min(ys) - pad), (max(xs) + pad, min(ys) - pad),
             (max(xs) + pad, max(ys) + pad), (min(xs) - pad, max(ys) + pad)]
    cells = voronoi_cells(pos, bound)
    discs = [_disc(p, radius) for p in pos]
    regions = [clip_polygon(cell, discs[i]) for i, (cell, _labels) in enumerate(cells)]
    shared: dict[tuple[int, int], list[Point]] = {}
    for i, (cell, labels) in enumerate(cells):
        for k, j in enumerate(labels):
            if j <= i:                      # each pair once (and not the frame, -1)
                continue
            pieces = clip_segment(cell[k - 1], cell[k], discs[i])
            pieces = [(a, b) for a, b in pieces if math.dist(a, b) >= MIN_BORDER]
            if pieces:
                a, b = pieces[0][0], pieces[-1][1]
                shared[(i, j)] = [a, b]
    borders = [(u, v, line) for (u, v), line in sorted(shared.items()) if (u, v) in adjacent]
    walls = [line for pair, line in sorted(shared.items()) if pair not in adjacent]
    dropped = sorted(pair for pair in adjacent if pair not in shared)
    outlines: list[tuple[int, list[Point], bool]] = []
    for i, region in enumerate(regions):
        others = [j for j in cells[i][1] if j >= 0]
        for k in range(len(region)):
            a, b = region[k - 1], region[k]
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            own = math.dist(mid, pos[i])
            # on the disc's edge, not on a border shared with a neighbour
            if all(math.dist(mid, pos[j]) - own > 1e-6 for j in others):
                outlines.append((i, [a, b], True))
    return regions, borders, outlines, dropped, walls
