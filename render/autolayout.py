"""A map picture for any MDF, from its adjacency graph alone.

1. Graph distances: breadth-first search over the union of army and fleet
   adjacencies (a province's neighbours are the provinces it touches).
2. Positions: classical multidimensional scaling of those distances (the two
   leading eigenvectors, by power iteration from a fixed start, so the result
   is deterministic), then stress majorization (SMACOF, weights 1/d^2) so
   neighbours end up about one step apart.
3. Spacing: scaled so the closest pair of provinces is far enough apart for
   a label and a unit; a ring of empty "void" sites around the hull bounds the
   Voronoi diagram so edge provinces do not run to the frame.

Pure Python, O(n^2) per iteration: a few seconds for the 195 provinces of
world3, so the result is precomputed into render/data/layouts/ by
``python -m render.precompute`` and loaded from there (see render.maps).
"""

from __future__ import annotations

import math
from collections import deque

from maps.model import Map
from render.geometry import Point, convex_hull
from render.layout import MapLayout, build_layout, fingerprint

FONT = 11.0
STEP = 46.0          # target distance between neighbouring provinces


def neighbours(map_: Map) -> list[set[int]]:
    adj: list[set[int]] = [set(a) for a in map_.army_adj]
    for p in range(len(map_.provinces)):
        for loc in map_.fleet_locs[p]:
            adj[p] |= set(map_.fleet_reach[loc])
    for p, ns in enumerate(adj):       # symmetric, no self loops
        ns.discard(p)
        for q in ns:
            adj[q].add(p)
    return adj


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


def auto_layout(map_: Map) -> MapLayout:
    """The layout of any map, from its graph (deterministic)."""
    n = len(map_.provinces)
    adj = neighbours(map_)
    d = graph_distances(adj)
    pos = smacof(d, classical_mds(d)) if n > 2 else [(float(i), 0.0) for i in range(n)]
    # landscape orientation: put the widest spread along x
    xs = [p[0] for p in pos]
    ys = [p[1] for p in pos]
    if max(ys) - min(ys) > max(xs) - min(xs):
        pos = [(y, x) for x, y in pos]
    pos = [(x * STEP, y * STEP) for x, y in pos]
    pos = _spread(pos, STEP * 0.8)
    hull = convex_hull(pos)
    cx = sum(p[0] for p in pos) / n
    cy = sum(p[1] for p in pos) / n
    void: list[Point] = []
    for i in range(len(hull)):               # a ring of empty sites one step outside the hull
        (x1, y1), (x2, y2) = hull[i - 1], hull[i]
        seg = math.hypot(x2 - x1, y2 - y1)
        k = max(1, int(seg / (STEP * 0.8)))
        for t in range(k):
            px = x1 + (x2 - x1) * t / k
            py = y1 + (y2 - y1) * t / k
            dx, dy = px - cx, py - cy
            r = math.hypot(dx, dy) or 1.0
            void.append((px + dx / r * STEP * 1.1, py + dy / r * STEP * 1.1))
    allpts = pos + void
    margin = STEP * 0.3
    x0 = min(p[0] for p in allpts) - margin
    y0 = min(p[1] for p in allpts) - margin
    width = max(p[0] for p in allpts) - x0 + margin
    height = max(p[1] for p in allpts) - y0 + margin
    sites = {map_.provinces[i].mnemonic: [(pos[i][0] - x0, pos[i][1] - y0 + FONT * 0.6)]
             for i in range(n)}
    void = [(x - x0, y - y0 + FONT * 0.6) for x, y in void]
    kinds = {p.mnemonic: p.kind.value for p in map_.provinces}
    centres = {p.mnemonic for p in map_.provinces if p.supply_centre}
    coasts = {p.mnemonic: p.coasts for p in map_.provinces if p.coasts}
    layout = build_layout(map_.name, kinds, centres, coasts, sites, width=width,
                          height=height + FONT, font=FONT, void=void)
    layout.fingerprint = fingerprint(map_)
    return layout
