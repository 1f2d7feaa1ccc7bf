"""A map picture for any MDF, from its adjacency graph alone.

1. Graph distances: breadth-first search over the union of army and fleet
   adjacencies (a province's neighbours are the provinces it touches).
2. Positions: classical multidimensional scaling of those distances (the two
   leading eigenvectors, by power iteration from a fixed start, so the result
   is deterministic), stress majorization (SMACOF, weights 1/d^2) so
   neighbours end up about one step apart, then a Fruchterman-Reingold pass
   that untangles crossing adjacencies, and a minimum spacing for labels.
3. Shapes: the dual of the drawn adjacency graph (:mod:`render.dual`), so
   two provinces share a border exactly when they are adjacent; an adjacency
   whose edge had to cross another is drawn as a link between the two units.

Pure Python, O(n^2) per iteration: a few seconds for the 195 provinces of
world3, so the result is precomputed into render/data/layouts/ by
``python -m render.precompute`` and loaded from there (see render.maps).
"""

from __future__ import annotations

import math
from collections import deque

from maps.model import Map
from render.cells import cell_regions
from render.dual import dual_regions
from render.geometry import Point
from render.layout import SHOWN_BORDER, MapLayout, build_layout, fingerprint, neighbours
from render.legibility import measure

FONT = 11.0
STEP = 46.0          # target distance between neighbouring provinces
CELL_RADIUS = 1.0    # a cell's reach from its province (render.cells), in steps


def graph_distances(adj: list[set[int]]) -> list[list[float]]:
    n = len(adj)
    far = float(n)
    out = []
    for s in range(n):
        d = [far] * n
        d[s] = 0.0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if d[v] == far:
                    d[v] = d[u] + 1
                    queue.append(v)
        out.append(d)
    # unreachable pairs (an island with no link): one step beyond the longest path
    longest = max((x for row in out for x in row if x < far), default=1.0)
    return [[x if x < far else longest + 1 for x in row] for row in out]


def classical_mds(d: list[list[float]]) -> list[Point]:
    n = len(d)
    sq = [[x * x for x in row] for row in d]
    row_mean = [sum(r) / n for r in sq]
    total = sum(row_mean) / n
    b = [[-0.5 * (sq[i][j] - row_mean[i] - row_mean[j] + total) for j in range(n)]
         for i in range(n)]
    vecs: list[list[float]] = []
    vals: list[float] = []
    for k in range(2):
        v = [math.sin(1.0 + i * (k + 1.618)) for i in range(n)]   # fixed, not random
        lam = 0.0
        for _ in range(120):
            w = [sum(bi[j] * v[j] for j in range(n)) for bi in b]
            for u, lu in zip(vecs, vals, strict=True):             # deflate found vectors
                dot = sum(u[j] * v[j] for j in range(n))
                w = [w[j] - lu * dot * u[j] for j in range(n)]
            norm = math.sqrt(sum(x * x for x in w)) or 1.0
            lam = norm
            v = [x / norm for x in w]
        vecs.append(v)
        vals.append(lam)
    return [(vecs[0][i] * math.sqrt(vals[0]), vecs[1][i] * math.sqrt(vals[1])) for i in range(n)]


def smacof(d: list[list[float]], start: list[Point], iterations: int = 150) -> list[Point]:
    """Stress majorization with weights d^-2 (Gansner, Koren & North 2004)."""
    n = len(d)
    x = [list(p) for p in start]
    w = [[0.0 if i == j else 1.0 / (d[i][j] ** 2) for j in range(n)] for i in range(n)]
    wsum = [sum(row) for row in w]
    for _ in range(iterations):
        new = []
        for i in range(n):
            xi, yi = x[i]
            sx = sy = 0.0
            wi, di = w[i], d[i]
            for j in range(n):
                if j == i:
                    continue
                xj, yj = x[j]
                dx, dy = xi - xj, yi - yj
                dist = math.sqrt(dx * dx + dy * dy) or 1e-9
                f = wi[j] * di[j] / dist
                sx += wi[j] * xj + f * dx
                sy += wi[j] * yj + f * dy
            new.append([sx / wsum[i], sy / wsum[i]])
        x = new
    return [(p[0], p[1]) for p in x]


def _spread(points: list[Point], min_gap: float, rounds: int = 60) -> list[Point]:
    """Push sites closer than ``min_gap`` apart (keeps labels and units readable)."""
    pts = [list(p) for p in points]
    n = len(pts)
    for _ in range(rounds):
        moved = False
        for i in range(n):
            for j in range(i + 1, n):
                dx = pts[j][0] - pts[i][0]
                dy = pts[j][1] - pts[i][1]
                dist = math.hypot(dx, dy)
                if dist < min_gap:
                    if dist < 1e-6:
                        dx, dy, dist = 1.0, 0.5, math.hypot(1.0, 0.5)
                    push = (min_gap - dist) / 2 + 0.01
                    ux, uy = dx / dist, dy / dist
                    pts[i][0] -= ux * push
                    pts[i][1] -= uy * push
                    pts[j][0] += ux * push
                    pts[j][1] += uy * push
                    moved = True
        if not moved:
            break
    return [(p[0], p[1]) for p in pts]


def untangle(pos: list[Point], adj: list[set[int]], step: float, iterations: int = 300
             ) -> list[Point]:
    """Fruchterman-Reingold from the stress layout: springs along adjacencies, every
    near pair pushed apart, a cooling step limit.  It removes about half of the
    edge crossings a stress layout leaves (fewer adjacencies drawn as links)."""
    n = len(pos)
    p = [list(q) for q in pos]
    near = [sorted(j for j in a if j > i) for i, a in enumerate(adj)]
    k2 = step * step
    limit = step * 0.5
    for _ in range(iterations):
        disp = [[0.0, 0.0] for _ in range(n)]
        for i in range(n):
            xi, yi = p[i]
            di = disp[i]
            for j in range(i + 1, n):
                dx = xi - p[j][0]
                dy = yi - p[j][1]
                d2 = dx * dx + dy * dy
                if d2 > 9 * k2:
                    continue
                if d2 < 1e-6:
                    dx, dy, d2 = 0.1, 0.1, 0.02
                f = k2 / d2
                di[0] += dx * f
                di[1] += dy * f
                disp[j][0] -= dx * f
                disp[j][1] -= dy * f
            for j in near[i]:
                dx = xi - p[j][0]
                dy = yi - p[j][1]
                f = math.hypot(dx, dy) / step
                di[0] -= dx * f
                di[1] -= dy * f
                disp[j][0] += dx * f
                disp[j][1] += dy * f
        for i in range(n):
            dx, dy = disp[i]
            d = math.hypot(dx, dy)
            if d > 0:
                m = min(d, limit)
                p[i][0] += dx / d * m
                p[i][1] += dy / d * m
        limit = max(step * 0.02, limit * 0.98)
    return [(q[0], q[1]) for q in p]


#: Fewest provinces named as on the standard map for the layout to be turned like it.
KNOWN_PLACES = 4


def orient_by_known_places(map_: Map, pos: list[Point]) -> list[Point] | None:
    """``pos`` turned (and mirrored if need be) so that the provinces named as on
    the standard map sit as they do there - Britain west of the continent,
    Russia east - or None when fewer than `KNOWN_PLACES` are.

    The best rotation of two centred point sets is a closed form (orthogonal
    Procrustes in the plane); the mirror image is tried too and the better kept.
    """
    from engine.variants import variant_map
    from render.standard import ASPECT, SITES

    standard = {p.name.lower(): p.mnemonic for p in variant_map("standard").provinces}
    pairs: list[tuple[Point, Point]] = []
    for p in map_.provinces:
        known = standard.get(p.name.lower())
        if known in SITES:
            lon, lat = SITES[known][0]
            pairs.append((pos[p.id], (lon * ASPECT, -lat)))     # y down, as drawn
    if len(pairs) < KNOWN_PLACES:
        return None
    ax = sum(a[0] for a, _ in pairs) / len(pairs)
    ay = sum(a[1] for a, _ in pairs) / len(pairs)
    bx = sum(b[0] for _, b in pairs) / len(pairs)
    by = sum(b[1] for _, b in pairs) / len(pairs)
    best: tuple[float, float, float] | None = None        # (score, mirror, angle)
    for mirror in (1.0, -1.0):
        c = sum(mirror * (a[0] - ax) * (b[0] - bx) + (a[1] - ay) * (b[1] - by) for a, b in pairs)
        s = sum(mirror * (a[0] - ax) * (b[1] - by) - (a[1] - ay) * (b[0] - bx) for a, b in pairs)
        score = math.hypot(c, s)
        if best is None or score > best[0] + 1e-9:
            best = (score, mirror, math.atan2(s, c))
    assert best is not None
    _, mirror, angle = best
    cos, sin = math.cos(angle), math.sin(angle)
    out: list[Point] = []
    for x, y in pos:
        dx, dy = mirror * (x - ax), y - ay
        out.append((ax + dx * cos - dy * sin, ay + dx * sin + dy * cos))
    return out


def auto_layout(map_: Map) -> MapLayout:
    """The layout of any map, from its graph (deterministic)."""
    n = len(map_.provinces)
    adj = neighbours(map_)
    d = graph_distances(adj)
    pos = smacof(d, classical_mds(d)) if n > 2 else [(float(i), 0.0) for i in range(n)]
    pos = [(x * STEP, y * STEP) for x, y in pos]
    pos = untangle(pos, adj, STEP)
    pos = _spread(pos, STEP * 0.8)
    oriented = orient_by_known_places(map_, pos)
    if oriented is not None:
        pos = oriented
    else:
        # landscape orientation: put the widest spread along x
        xs = [p[0] for p in pos]
        ys = [p[1] for p in pos]
        if max(ys) - min(ys) > max(xs) - min(xs):
            pos = [(y, x) for x, y in pos]
    margin = STEP * 0.55
    edges = sorted({(min(i, j), max(i, j)) for i in range(n) for j in adj[i]})
    # regions first in provisional coordinates, then everything shifted into the frame
    regions, borders, outlines, dropped = dual_regions(pos, edges, margin)
    layout = _assemble(map_, pos, regions, borders, outlines, dropped, [])
    figures = measure(layout)
    if figures.overlaps or figures.crossings:
        # The dual drew provinces over each other: cells that cannot overlap instead.
        cells, borders, outlines, dropped, walls = cell_regions(pos, edges, STEP * CELL_RADIUS)
        layout = _assemble(map_, pos, cells, borders, outlines, dropped, walls)
    return layout


def _assemble(map_: Map, pos: list[Point], regions: list[list[Point]],
              borders: list[tuple[int, int, list[Point]]],
              outlines: list[tuple[int, list[Point], bool]], dropped: list[tuple[int, int]],
              walls: list[list[Point]]) -> MapLayout:
    """The layout from the shapes and borders of `render.dual` or `render.cells`."""
    n = len(pos)
    pad = FONT * 1.2
    allpts = [q for r in regions for q in r] + pos
    x0 = min(q[0] for q in allpts) - pad
    y0 = min(q[1] for q in allpts) - pad - FONT * 1.6      # room for the title
    width = max(q[0] for q in allpts) - x0 + pad
    height = max(q[1] for q in allpts) - y0 + pad

    def sh(q: Point) -> Point:
        return q[0] - x0, q[1] - y0

    names = [p.mnemonic for p in map_.provinces]
    kinds = {p.mnemonic: p.kind.value for p in map_.provinces}
    sea = [p.is_sea for p in map_.provinces]
    centres = {p.mnemonic for p in map_.provinces if p.supply_centre}
    coasts = {p.mnemonic: p.coasts for p in map_.provinces if p.coasts}
    sites = {names[i]: [sh(pos[i])] for i in range(n)}
    polys = {names[i]: [[sh(q) for q in regions[i]]] for i in range(n)}
    land_borders: list[tuple[Point, Point]] = []
    sea_borders: list[tuple[Point, Point]] = []
    coast_edges: list[tuple[Point, Point]] = []
    for u, v, line in borders:
        segs = [(sh(a), sh(b)) for a, b in zip(line, line[1:], strict=False)]
        if sea[u] != sea[v]:
            coast_edges.extend(segs)
        elif sea[u]:
            sea_borders.extend(segs)
        else:
            land_borders.extend(segs)
    for line in walls:                      # touching but not adjacent: no passage
        coast_edges.extend((sh(a), sh(b)) for a, b in zip(line, line[1:], strict=False))
    for v, line, outside in outlines:
        segs = [(sh(a), sh(b)) for a, b in zip(line, line[1:], strict=False)]
        if outside and not sea[v]:
            coast_edges.extend(segs)        # the edge of the map
        else:
            # round a hole (a gap between provinces that are not adjacent)
            (sea_borders if sea[v] else land_borders).extend(segs)
    coast_spots: dict[tuple[str, str], Point] = {}
    for p in map_.provinces:
        for c in p.coasts:
            # towards the provinces a fleet on this coast can reach
            reach = map_.fleet_reach[map_.location(p.mnemonic, c)]
            if not reach:
                continue
            tx = sum(pos[q][0] for q in reach) / len(reach) - pos[p.id][0]
            ty = sum(pos[q][1] for q in reach) / len(reach) - pos[p.id][1]
            r = math.hypot(tx, ty) or 1.0
            x, y = sh(pos[p.id])
            coast_spots[(p.mnemonic, c)] = (x + tx / r * STEP * 0.3,
                                            y + ty / r * STEP * 0.3 + FONT * 0.3)
    layout = build_layout(map_.name, kinds, centres, coasts, sites, width=width,
                          height=height, font=FONT, coast_spots=coast_spots,
                          shapes=polys)
    layout.land_borders = land_borders
    layout.sea_borders = sea_borders
    layout.coast_edges = coast_edges
    # A border too short to be seen does not show the adjacency: a link does.
    short = {(u, v) for u, v, line in borders
             if sum(math.dist(a, b) for a, b in zip(line, line[1:], strict=False))
             < FONT * SHOWN_BORDER}
    layout.touching = sorted((min(names[u], names[v]), max(names[u], names[v]))
                             for u, v, _line in borders if (u, v) not in short)
    layout.links = sorted((min(names[u], names[v]), max(names[u], names[v]))
                          for u, v in [*dropped, *short])
    layout.fingerprint = fingerprint(map_)
    return layout
