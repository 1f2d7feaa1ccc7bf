"""Every variant's drawing measured for legibility (issue 28, finding 16).

`render.legibility.measure` counts the pairs of provinces drawn over each
other, the borders that cross and the labels' size: every variant's drawing
has no overlapping provinces and no crossing borders, and its labels are at
least 11 px when the picture is drawn at its default size.
"""

from __future__ import annotations

import re

import pytest

from engine.variants import variant_map, variant_names
from render import render_svg
from render.geometry import Point
from render.layout import MapLayout, ProvinceShape
from render.legibility import measure, properly_cross
from render.maps import layout_for


@pytest.mark.parametrize("variant", variant_names())
def test_every_variant_is_drawn_without_overlaps_or_crossings(variant: str) -> None:
    the_map = variant_map(variant)
    figures = measure(layout_for(the_map))
    assert figures.overlaps == () and figures.crossings == 0, figures.line()
    assert figures.label_px >= 11, figures.line()
    # The drawn labels themselves, at the default size (one layout unit, one pixel).
    svg = render_svg(the_map)
    sizes = [float(s) for s in re.findall(r'class="label"[^>]*font-size="([\d.]+)"', svg)]
    assert sizes and min(sizes) >= 11


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
