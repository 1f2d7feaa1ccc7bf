"""Province shapes whose borders are exactly the map's adjacencies.

Given positions of the provinces (from :mod:`render.autolayout`), draw the
adjacency graph with straight edges, keep the edges that cross no shorter
kept edge (a plane drawing), and give each province the region of the
"dual" of that drawing: around each province, in angular order, the
midpoint of every kept edge and a point inside every face between two
consecutive edges.  Two regions then share a border exactly when their
provinces are joined by a kept edge; provinces that only share a face meet
at most in its point.  The outer face - and any face too large or too
skinny for one shared point - gets instead a point beside each edge and one
or two per province corner, so the map ends in a margin and such a face
stays a hole.

Adjacencies left out because their edge crossed another are returned, to be
drawn as links.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from render.geometry import Point, Polygon, area, centroid, point_in_polygon, pole


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """Proper crossing of two segments that share no endpoint."""
    d1 = _cross(q1, q2, p1)
    d2 = _cross(q1, q2, p2)
    d3 = _cross(p1, p2, q1)
    d4 = _cross(p1, p2, q2)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def plane_edges(pos: Sequence[Point], edges: Sequence[tuple[int, int]]
                ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(kept, dropped): shortest edges first, an edge is kept unless it crosses a kept one."""
    def length(e: tuple[int, int]) -> float:
        (x1, y1), (x2, y2) = pos[e[0]], pos[e[1]]
        return math.hypot(x2 - x1, y2 - y1)

    kept: list[tuple[int, int]] = []
    dropped: list[tuple[int, int]] = []
    for e in sorted(edges, key=lambda e: (length(e), e)):
        a, b = pos[e[0]], pos[e[1]]
        ok = True
        for f in kept:
            if e[0] in f or e[1] in f:
                continue
            if _segments_cross(a, b, pos[f[0]], pos[f[1]]):
                ok = False
                break
        if ok:
            kept.append(e)
        else:
            dropped.append(e)
    return kept, dropped


def dual_regions(pos: Sequence[Point], edges: Sequence[tuple[int, int]], margin: float
                 ) -> tuple[list[Polygon], list[tuple[int, int, list[Point]]],
                            list[tuple[int, list[Point], bool]], list[tuple[int, int]]]:
    """Regions of every vertex, shared borders, outer borders and the dropped edges.

    Returns ``(regions, borders, outlines, dropped)``: ``borders`` are
    ``(u, v, polyline)`` for every kept edge (the polyline both regions
    share), ``outlines`` are ``(v, polyline, outside)`` where region v meets the
    margin (``outside``) or a hole.
    """
    n = len(pos)
    kept, dropped = plane_edges(pos, edges)
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for u, v in kept:
        nbrs[u].append(v)
        nbrs[v].append(u)

    def angle(v: int, u: int) -> float:
        return math.atan2(pos[u][1] - pos[v][1], pos[u][0] - pos[v][0])

    for v in range(n):
        nbrs[v].sort(key=functools.partial(angle, v))
    index = [{u: k for k, u in enumerate(nbrs[v])} for v in range(n)]
    # Faces: walk each half-edge u->v, turning to the neighbour of v after u in angular order.
    face_of: dict[tuple[int, int], int] = {}
    faces: list[list[int]] = []
    for u in range(n):
        for v in nbrs[u]:
            if (u, v) in face_of:
                continue
            cycle: list[int] = []
            a, b = u, v
            while (a, b) not in face_of:
                face_of[(a, b)] = len(faces)
                cycle.append(a)
                k = index[b][a]
                turn = nbrs[b][(k - 1) % len(nbrs[b])]
                a, b = b, turn
            faces.append(cycle)
    # The outer face of each connected part winds the other way (negative area in
    # y-down coordinates with this turning rule) - several parts give several.
    outer = set()          # faces drawn as margin or holes
    true_outer = set()     # the faces outside the drawing
    points: list[Point | None] = []
    for f, cycle in enumerate(faces):
        poly = [pos[v] for v in cycle]
        if len(set(cycle)) < 3 or area(poly) <= 0:
            outer.add(f)
            true_outer.add(f)
            points.append(None)
            continue
        c = centroid(poly)
        if not point_in_polygon(c, poly):
            c = pole(poly)
        # A large face (an adjacency dropped, or a wide ring of provinces) would
        # pull every region round it into a long spike to one point: it is left
        # as a hole instead, each region ending a little way into it.
        perimeter = sum(math.dist(poly[i - 1], poly[i]) for i in range(len(poly)))
        skinny = 4 * math.pi * area(poly) < 0.2 * perimeter * perimeter
        if len(cycle) > 4 or skinny or max(math.hypot(c[0] - pos[v][0], c[1] - pos[v][1])
                                           for v in cycle) > margin * 2.6:
            outer.add(f)
            points.append(None)
            continue
        points.append(c)

    def mid(u: int, v: int) -> Point:
        return ((pos[u][0] + pos[v][0]) / 2, (pos[u][1] + pos[v][1]) / 2)

    def is_bridge(u: int, v: int) -> bool:
        return face_of[(u, v)] == face_of[(v, u)]

    def side(a: int, b: int) -> Point:
        """The border's end on the left of half-edge a->b, shared by both regions:
        the face's point, or (outer face, or an edge with the same face on both
        sides) a point beside the edge's midpoint."""
        f = face_of[(a, b)]
        p = points[f]
        if p is not None and not is_bridge(a, b):
            return p
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dx, dy = x2 - x1, y2 - y1
        d = math.hypot(dx, dy) or 1.0
        off = margin if p is None else min(margin * 0.45, d * 0.3)
        m = mid(a, b)
        return m[0] - dy / d * off, m[1] + dx / d * off     # left normal (x right, y up)

    regions: list[Polygon] = []
    outlines: list[tuple[int, list[Point], bool]] = []
    for v in range(n):
        k = len(nbrs[v])
        if k == 0:
            x, y = pos[v]
            regions.append([(x + margin * math.cos(t * math.pi / 4),
                             y + margin * math.sin(t * math.pi / 4)) for t in range(8)])
            outlines.append((v, regions[-1] + [regions[-1][0]], True))
            continue
        ring: Polygon = []
        for i in range(k):
            u = nbrs[v][i]
            w = nbrs[v][(i + 1) % k]
            ring.append(mid(v, u))
            f = face_of[(v, u)]           # the wedge from u round to w
            plain = points[f] is not None and k > 1
            if not plain or is_bridge(v, u):
                ring.append(side(v, u))
            if plain:
                ring.append(points[f])    # type: ignore[arg-type]
            else:
                # into the margin or a hole: not farther than its own edges reach, so
                # it never lands in a neighbour's region
                reach = margin if f in true_outer else min(
                    margin * 0.8, 0.4 * math.dist(pos[v], pos[u]),
                    0.4 * math.dist(pos[v], pos[w]))
                corner = _wedge_points(pos[v], pos[u], pos[w], reach)
                ring.extend(corner)
                outlines.append((v, [side(v, u), *corner, side(w, v)], f in true_outer))
            if not plain or is_bridge(w, v):
                ring.append(side(w, v))
        regions.append(ring)
    borders = [(u, v, [side(v, u), mid(u, v), side(u, v)]) for u, v in kept]
    return regions, borders, outlines, dropped


def _wedge_points(v: Point, u: Point, w: Point, r: float) -> list[Point]:
    """One point in the wedge from u round to w at v, two when it is wider than a half turn."""
    a1 = math.atan2(u[1] - v[1], u[0] - v[0])
    a2 = math.atan2(w[1] - v[1], w[0] - v[0])
    span = (a2 - a1) % (2 * math.pi) or 2 * math.pi
    parts = 3 if span > math.pi else 2
    return [(v[0] + r * math.cos(a1 + span * i / parts), v[1] + r * math.sin(a1 + span * i / parts))
            for i in range(1, parts)]
