"""Convoy routes: which seas lie on a simple route from one coast to another.

A convoy route is a chain of distinct seas, each holding a convoying fleet,
from a sea touching the army's province to a sea touching the destination.
A fleet is *on a route* when some such simple chain passes through it; a
fleet in a dead end next to the route is not (DATC 4.E.1 d: its convoy order
can never be valid).  DATC v3.0 asks more of a convoy order: its fleet must
be *necessary* for some route (:func:`necessary_seas`, 6.G.19).

Test for one sea ``s``: it lies on a simple route iff there are two paths
from ``s``, sharing no sea but ``s``, one reaching the army's shore and one
the destination's.  That is a unit-capacity max-flow of 2 on the sea graph
with split vertices - two breadth-first augmentations on a graph of at most
a few dozen nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

_SHORE_A: Final = -1  # virtual node: the army's shore
_SHORE_B: Final = -2  # virtual node: the destination's shore
_SINK: Final = -3


def route_seas(
    reach: Sequence[frozenset[int]], seas: Iterable[int], src: int, dst: int
) -> set[int]:
    """The seas of ``seas`` on at least one simple route ``src`` -> ``dst``.

    ``reach[s]`` is the set of provinces adjacent to sea ``s``.
    """
    pool = set(seas)
    if src == dst:
        return set()
    # Seas connected (through pool) to both shores.
    fwd = _flood([s for s in pool if src in reach[s]], pool, reach)
    back = _flood([s for s in pool if dst in reach[s]], pool, reach)
    cand = fwd & back
    if len(cand) <= 1:
        return cand  # a single sea must touch both shores
    return {s for s in cand if _on_simple_route(reach, cand, s, src, dst)}


def _flood(start: list[int], pool: set[int], reach: Sequence[frozenset[int]]) -> set[int]:
    seen = set(start)
    todo = list(start)
    while todo:
        s = todo.pop()
        for q in reach[s]:
            if q in pool and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen


def _on_simple_route(
    reach: Sequence[frozenset[int]], cand: set[int], s: int, src: int, dst: int
) -> bool:
    # Node-split residual graph: (x, 0) = x_in, (x, 1) = x_out.
    Node = tuple[int, int]
    cap: dict[tuple[Node, Node], int] = {}
    adj: dict[Node, list[Node]] = {}

    def edge(a: Node, b: Node, c: int) -> None:
        if (a, b) not in cap:
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, []).append(a)
            cap[(a, b)] = 0
            cap.setdefault((b, a), 0)
        cap[(a, b)] += c

    for x in cand:
        edge((x, 0), (x, 1), 2 if x == s else 1)
        for y in reach[x]:
            if y in cand:
                edge((x, 1), (y, 0), 1)
        if src in reach[x]:
            edge((x, 1), (_SHORE_A, 0), 1)
        if dst in reach[x]:
            edge((x, 1), (_SHORE_B, 0), 1)
    edge((_SHORE_A, 0), (_SINK, 0), 1)
    edge((_SHORE_B, 0), (_SINK, 0), 1)
    start: Node = (s, 1)
    sink: Node = (_SINK, 0)
    for _ in range(2):
        parent: dict[Node, Node] = {start: start}
        todo = [start]
        head = 0
        while head < len(todo) and sink not in parent:
            a = todo[head]
            head += 1
            for b in adj.get(a, ()):
                if b not in parent and cap[(a, b)] > 0:
                    parent[b] = a
                    todo.append(b)
        if sink not in parent:
            return False
        b = sink
        while b != start:
            a = parent[b]
            cap[(a, b)] -= 1
            cap[(b, a)] += 1
            b = a
    return True


def necessary_seas(
    reach: Sequence[frozenset[int]], seas: Iterable[int], src: int, dst: int
) -> set[int]:
    """The seas of ``seas`` that some convoy route ``src`` -> ``dst`` needs.

    DATC v3.0, 4.E.1: "a convoy order for which the fleet is not necessary
    for any convoy route is illegal" (6.G.19).  A fleet is necessary for a
    route when the route without it is no route, so the routes that count
    are the minimal ones: chains in which no sea touches a later sea but
    its successor, only the first touches the army's shore and only the
    last the destination's (induced paths).  Marseilles - Gulf of Lyon -
    Western Mediterranean - Spain is a simple route but not a minimal one
    (the Gulf of Lyon touches Spain), so the Western Mediterranean is not
    needed.  The sea graphs are tiny, so the minimal chains are enumerated.
    """
    if src == dst:
        return set()
    cand = route_seas(reach, seas, src, dst)
    needed: set[int] = set()

    def extend(path: list[int]) -> None:
        last = path[-1]
        if dst in reach[last]:
            needed.update(path)  # a longer chain would skip nothing: it is not minimal
            return
        for nxt in reach[last]:
            if (
                nxt in cand
                and nxt not in path
                and src not in reach[nxt]
                and not any(nxt in reach[s] for s in path[:-1])
            ):
                path.append(nxt)
                extend(path)
                path.pop()

    for first in sorted(cand):
        if src in reach[first]:
            extend([first])
    return needed


__all__ = ["necessary_seas", "route_seas"]
