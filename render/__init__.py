"""Map pictures: layouts for every variant and the one SVG renderer.

Sits above maps/ (it reads :class:`maps.Map`) and below server/ and daide/,
which call it.  The public API (docs/render.md):

* :func:`render_svg` - a board drawn as a standalone ``<svg>`` string;
* :class:`Board`, :class:`DrawnUnit`, :class:`Order` - what is drawn, plain data;
  :func:`board_from_daide` builds one from NOW/SCO/ORD text,
  :func:`starting_board` from the map;
* :func:`layout_for` / :func:`map_geometry` - where things are drawn;
* :func:`replay_html` - a self-contained HTML replay of a stored game.
"""

from __future__ import annotations

from typing import Any

from render.board import (
    Board,
    DrawnUnit,
    Order,
    RenderError,
    board_from_daide,
    parse_now,
    parse_order,
    parse_sco,
    starting_board,
)
from render.maps import layout_for
from render.svg import power_colours, render_svg


def map_geometry(map_: Any) -> dict[str, Any]:
    """The layout of ``map_`` as JSON-ready data (viewBox units), for a page that draws itself."""
    from render.svg import _path

    layout = layout_for(map_)
    return {
        "variant": map_.name, "width": round(layout.width, 1), "height": round(layout.height, 1),
        "font": layout.font, "unit_size": round(layout.unit_size, 2),
        "colours": power_colours(map_),
        "provinces": {
            m: {"kind": s.kind, "path": "".join(_path(p) for p in s.polys),
                "label": [round(v, 1) for v in s.label], "unit": [round(v, 1) for v in s.unit],
                "sc": None if s.sc is None else [round(v, 1) for v in s.sc],
                "coasts": {c: [round(v, 1) for v in xy] for c, xy in s.coasts.items()}}
            for m, s in sorted(layout.provinces.items())},
        # adjacent provinces whose shapes do not touch (drawn as dashed links)
        "links": [list(pair) for pair in layout.links],
    }


def replay_html(*args: Any, **kwargs: Any) -> str:
    from render.replay import replay_html as _replay

    return _replay(*args, **kwargs)


__all__ = ["Board", "Order", "RenderError", "DrawnUnit", "board_from_daide", "layout_for",
           "map_geometry", "parse_now", "parse_order", "parse_sco", "power_colours",
           "render_svg", "replay_html", "starting_board"]
