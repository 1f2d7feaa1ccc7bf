"""Plane geometry in pure Python: polygons, clipping and Voronoi cells.

The standard map's province shapes are Voronoi cells: each site's cell is a
bounding polygon cut by the perpendicular bisector half-plane towards every
other site (O(n^2), fine for its 120 sites), then clipped to the land
outline.  Polygons are lists of (x, y) with no
repeated closing point; clipping keeps convexity of the clip polygon in mind
(Sutherland-Hodgman: the clip polygon must be convex, the subject need not).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Point = tuple[float, float]
Polygon = list[Point]


def area(poly: Sequence[Point]) -> float:
    """Signed area (positive when counter-clockwise in a y-up plane)."""
    s = 0.0
    for i in range(len(poly)):
        x1, y1 = poly[i - 1]
        x2, y2 = poly[i]
        s += x1 * y2 - x2 * y1
    return s / 2


def centroid(poly: Sequence[Point]) -> Point:
    a = area(poly)
    if abs(a) < 1e-9:
        xs = [p[0] for p in poly] or [0.0]
        ys = [p[1] for p in poly] or [0.0]
        return sum(xs) / len(xs), sum(ys) / len(ys)
    cx = cy = 0.0
    for i in range(len(poly)):
        x1, y1 = poly[i - 1]
        x2, y2 = poly[i]
        f = x1 * y2 - x2 * y1
        cx += (x1 + x2) * f
        cy += (y1 + y2) * f
    return cx / (6 * a), cy / (6 * a)


def clip_halfplane(poly: Sequence[Point], a: float, b: float, c: float) -> Polygon:
    """The part of ``poly`` where a*x + b*y <= c."""
    return _clip_labelled(poly, [0] * len(poly), a, b, c, 0)[0]


def _clip_labelled(poly: Sequence[Point], labels: list[int], a: float, b: float, c: float,
                   label: int) -> tuple[Polygon, list[int]]:
    """:func:`clip_halfplane` keeping a label per edge (``labels[i]`` is the edge
    ending at ``poly[i]``); the new edge along the cut gets ``label``."""
    out: Polygon = []
    out_labels: list[int] = []
    n = len(poly)
    for i in range(n):
        p = poly[i - 1]
        q = poly[i]
        fp = a * p[0] + b * p[1] - c
        fq = a * q[0] + b * q[1] - c
        if fq <= 0:
            if fp > 0:
                t = fp / (fp - fq)
                out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
                out_labels.append(label)          # along the cut, up to the entry point
            out.append(q)
            out_labels.append(labels[i])
        elif fp <= 0:
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
            out_labels.append(labels[i])
    return out, out_labels


def voronoi_cells(sites: Sequence[Point], bound: Sequence[Point]
                  ) -> list[tuple[Polygon, list[int]]]:
    """The Voronoi cell of every site inside the convex polygon ``bound``.

    Each cell comes with a label per edge: the index of the site on the other
    side, or -1 for an edge of ``bound``.  ``labels[i]`` belongs to the edge
    that ends at vertex ``i``.
    """
    cells: list[tuple[Polygon, list[int]]] = []
    for i, (xi, yi) in enumerate(sites):
        cell: Polygon = list(bound)
        labels = [-1] * len(cell)
        # Nearest sites first: the cell shrinks fast and later clips are cheap.
        order = sorted(range(len(sites)), key=lambda j: (sites[j][0] - xi) ** 2
                       + (sites[j][1] - yi) ** 2)
        for j in order:
            if j == i:
                continue
            xj, yj = sites[j]
            d2 = (xj - xi) ** 2 + (yj - yi) ** 2
            if d2 < 1e-12:
                continue
            # Once the nearest remaining site is farther than twice the cell's radius,
            # no bisector can cut the cell any more.
            r2 = max((px - xi) ** 2 + (py - yi) ** 2 for px, py in cell) if cell else 0.0
            if d2 > 4 * r2:
                break
            a, b = xj - xi, yj - yi
            c = (xj * xj + yj * yj - xi * xi - yi * yi) / 2
            cell, labels = _clip_labelled(cell, labels, a, b, c, j)
            if not cell:
                break
        cells.append((cell, labels))
    return cells


def clip_segment(p: Point, q: Point, poly: Sequence[Point]) -> list[tuple[Point, Point]]:
    """The pieces of segment p-q inside the (possibly concave) polygon ``poly``."""
    ts = [0.0, 1.0]
    dx, dy = q[0] - p[0], q[1] - p[1]
    for i in range(len(poly)):
        (x1, y1), (x2, y2) = poly[i - 1], poly[i]
        ex, ey = x2 - x1, y2 - y1
        den = dx * ey - dy * ex
        if abs(den) < 1e-12:
            continue
        t = ((x1 - p[0]) * ey - (y1 - p[1]) * ex) / den
        u = ((x1 - p[0]) * dy - (y1 - p[1]) * dx) / den
        if 0 < t < 1 and 0 <= u <= 1:
            ts.append(t)
    ts.sort()
    out: list[tuple[Point, Point]] = []
    for t0, t1 in zip(ts, ts[1:], strict=False):
        if t1 - t0 < 1e-9:
            continue
        tm = (t0 + t1) / 2
        if point_in_polygon((p[0] + tm * dx, p[1] + tm * dy), poly):
            out.append(((p[0] + t0 * dx, p[1] + t0 * dy), (p[0] + t1 * dx, p[1] + t1 * dy)))
    return out


def clip_polygon(subject: Sequence[Point], clip: Sequence[Point]) -> Polygon:
    """``subject`` clipped to the convex polygon ``clip`` (either orientation)."""
    out: Polygon = list(subject)
    sign = 1.0 if area(clip) > 0 else -1.0
    for i in range(len(clip)):
        if not out:
            break
        (x1, y1), (x2, y2) = clip[i - 1], clip[i]
        # inside = left of the edge for a counter-clockwise clip polygon
        a = sign * (y2 - y1)
        b = -sign * (x2 - x1)
        c = a * x1 + b * y1
        out = clip_halfplane(out, a, b, c)
    return out


def point_in_polygon(p: Point, poly: Sequence[Point]) -> bool:
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i - 1]
        x2, y2 = poly[i]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xc > x:
                inside = not inside
    return inside


def pole(poly: Sequence[Point]) -> Point:
    """A well-inside point of a polygon (a cheap stand-in for the pole of inaccessibility).

    The centroid when it lies inside; else the grid point farthest from the edges.
    """
    c = centroid(poly)
    if point_in_polygon(c, poly) and edge_distance(c, poly) > 0:
        best, best_d = c, edge_distance(c, poly)
    else:
        best, best_d = c, -1.0
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    steps = 12
    for i in range(1, steps):
        for j in range(1, steps):
            q = (x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * j / steps)
            if point_in_polygon(q, poly):
                d = edge_distance(q, poly)
                if d > best_d * 1.3:
                    best, best_d = q, d
    return best


def edge_distance(p: Point, poly: Sequence[Point]) -> float:
    """Distance from ``p`` to the nearest edge of ``poly``."""
    best = math.inf
    px, py = p
    for i in range(len(poly)):
        x1, y1 = poly[i - 1]
        x2, y2 = poly[i]
        dx, dy = x2 - x1, y2 - y1
        L = dx * dx + dy * dy
        t = 0.0 if L == 0 else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / L))
        qx, qy = x1 + t * dx, y1 + t * dy
        best = min(best, math.hypot(px - qx, py - qy))
    return best
