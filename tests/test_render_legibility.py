"""Every variant's drawing measured for legibility (issue 28, finding 16).

`render.legibility.measure` counts the pairs of provinces drawn over each
other, the borders that cross, the labels' size and the adjacent provinces
a person cannot see are adjacent: every variant's drawing has no overlapping
provinces and no crossing borders, its labels are at least 11 px when the
picture is drawn at its default size, and every adjacency of the map is a
border seen on the drawing or a link drawn between the two provinces.
"""

from __future__ import annotations

import re

import pytest

from engine.variants import variant_map, variant_names
from render import render_svg
from render.geometry import Point
from render.layout import MapLayout, ProvinceShape, adjacent_pairs
from render.legibility import measure, properly_cross, shown_borders
from render.maps import layout_for


@pytest.mark.parametrize("variant", variant_names())
def test_every_variant_is_drawn_without_overlaps_or_crossings(variant: str) -> None:
    the_map = variant_map(variant)
    layout = layout_for(the_map)
    adjacent = adjacent_pairs(the_map)
    figures = measure(layout, adjacent)
    assert figures.overlaps == () and figures.crossings == 0, figures.line()
    assert figures.label_px >= 11, figures.line()
    assert figures.unshown == (), figures.line() + f": {figures.unshown}"
    # The drawn labels themselves, at the default size (one layout unit, one pixel).
    svg = render_svg(the_map)
    sizes = [float(s) for s in re.findall(r'class="label"[^>]*font-size="([\d.]+)"', svg)]
    assert sizes and min(sizes) >= 11
    # The links the measure relied on are drawn: one dashed line per link, from the
    # unit spot of one province to the other's, and each joins adjacent provinces.
    assert set(layout.links) <= adjacent
    drawn = re.search(r'<path class="links" d="([^"]*)"', svg)
    lines = re.findall(r"M([\d.]+),([\d.]+)L([\d.]+),([\d.]+)", drawn.group(1)) if drawn else []
    assert len(lines) == len(layout.links)
    for (a, b), line in zip(layout.links, lines, strict=True):
        ends = [float(v) for v in line]
        spots = [*layout.provinces[a].unit, *layout.provinces[b].unit]
        assert all(abs(e - s) <= 0.05 for e, s in zip(ends, spots, strict=True)), (a, b)


def square(x: float, y: float, side: float = 10.0) -> list[Point]:
    return [(x, y), (x + side, y), (x + side, y + side), (x, y + side)]


def layout_of(polys: dict[str, list[Point]], borders: list[tuple[Point, Point]]) -> MapLayout:
    shapes = {name: ProvinceShape(name, "inland", [poly], poly[0], poly[0], None)
              for name, poly in polys.items()}
    return MapLayout("test", 100, 100, 11.0, 5.0, shapes, borders, [], [], [])


def test_the_measure_sees_overlaps_and_crossings_and_not_shared_borders() -> None:
    # Side by side, sharing an edge: legible.
    tidy = measure(layout_of({"A": square(0, 0), "B": square(10, 0)},
                             [((10, 0), (10, 10))]))
    assert tidy.overlaps == () and tidy.crossings == 0
    # One drawn half over the other, and one wholly inside another.
    messy = measure(layout_of({"A": square(0, 0), "B": square(5, 5), "C": square(30, 30, 20),
                               "D": square(35, 35, 5)},
                              [((0, 0), (10, 10)), ((0, 10), (10, 0))]))
    assert messy.overlaps == (("A", "B"), ("C", "D")) and messy.crossings == 1
    assert properly_cross(((0, 0), (2, 2)), ((0, 2), (2, 0)))
    assert not properly_cross(((0, 0), (2, 0)), ((2, 0), (4, 0)))     # end to end


def test_the_measure_sees_an_adjacency_only_as_a_long_enough_border_or_a_link() -> None:
    # A and B share a whole side, B and C one unit of a corner (a sliver of 1 px, seen
    # as at most one sample's 2 px), A and D do not touch: only A-B is seen; the others
    # are seen once linked.
    polys = {"A": square(0, 0), "B": square(10, 0),
             "C": [(20, 9), (30, 9), (30, 20), (21, 20)], "D": square(50, 50)}
    borders = shown_borders(layout_of(polys, []))
    assert abs(borders[("A", "B")] - 10) < 0.5 and borders.get(("B", "C"), 0) <= 2
    adjacent = [("A", "B"), ("B", "C"), ("A", "D")]
    assert measure(layout_of(polys, []), adjacent).unshown == (("A", "D"), ("B", "C"))
    linked = layout_of(polys, [])
    linked.links = [("A", "D"), ("B", "C")]
    assert measure(linked, adjacent).unshown == ()
    # Drawn under another shape, a border is not seen: a sea under the land.
    land = layout_of({"L": square(0, 0), "S": square(0, 0, 30)}, [])
    land.provinces["S"].kind = "sea"
    land.coast = [square(0, 0)]
    borders = shown_borders(land)
    assert set(borders) == {("L", "S")} and abs(borders[("L", "S")] - 20) < 0.5
