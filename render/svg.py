"""The one SVG renderer: a board (units, owners, orders with results) on a map layout.

Drawing order: sea cells, sea borders, land cells (coloured by the owner of
their supply centre), land borders, coast, centre markers, labels, order
arrows, units, dislodged units, result marks.  The DOM carries the state
(docs/render.md): ``data-turn`` on the root, ``data-province`` per cell,
``data-sc``/``data-owner`` per centre, ``data-unit`` per unit and
``data-order``/``data-result`` per order, so tests and the browser page read
the picture without parsing shapes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from maps.model import Map
from render.board import Board, DrawnUnit, Order, starting_board
from render.geometry import Point
from render.layout import MapLayout
from render.maps import layout_for
from render.notation import unit_tooltip
from render.turns import turn_words

SEA = "#b7d3e9"
SEA_BORDER = "#8fb3d1"
LAND = "#efe6cf"
LAND_BORDER = "#9a8f74"
COAST = "#4a6f8f"
VOID_BG = "#dfe7ee"

#: The conventional colours of the standard powers; other maps take PALETTE in order.
STANDARD_COLOURS = {
    "AUS": "#d64541", "ENG": "#3b4fb8", "FRA": "#3fb1e8", "GER": "#6b5b4e",
    "ITA": "#3aa35b", "RUS": "#9b59b6", "TUR": "#e8b923",
}
PALETTE = ("#d64541", "#3b4fb8", "#3fb1e8", "#6b5b4e", "#3aa35b", "#9b59b6", "#e8b923",
           "#e67e22", "#1abc9c", "#c2185b", "#7f8c8d", "#8d6e63", "#00838f", "#afb42b",
           "#5d4037", "#ff7043", "#283593")


def power_colours(map_: Map) -> dict[str, str]:
    if set(map_.powers) <= set(STANDARD_COLOURS):
        return {p: STANDARD_COLOURS[p] for p in map_.powers}
    return {p: PALETTE[i % len(PALETTE)] for i, p in enumerate(map_.powers)}


#: The colour of a power the map does not list (a unit read from a foreign NOW).
NO_POWER = "#555555"


def _rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` or ``#rgb`` as three 0-255 values."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    r, g, b = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
    return r, g, b


def _tint(colour: str, amount: float = 0.55) -> str:
    """``colour`` mixed with white (province fills are lighter than units)."""
    r, g, b = _rgb(colour)
    mix = [round(c + (255 - c) * amount) for c in (r, g, b)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def _f(v: float) -> str:
    return f"{v:.1f}"


def _spot(layout: MapLayout, province: str, coast: str | None) -> tuple[float, float]:
    shape = layout.provinces[province]
    if coast and coast in shape.coasts:
        return shape.coasts[coast]
    return shape.unit


def render_svg(map_: Map, board: Board | None = None, *, orders: bool = True,
               width: int | None = None, element_id: str | None = None) -> str:
    """The board drawn on the map as a standalone ``<svg>`` element (a string)."""
    layout = layout_for(map_)
    board = board if board is not None else starting_board(map_)
    colours = power_colours(map_)
    W, H = layout.width, layout.height
    out: list[str] = []
    size = f'width="{width}" height="{round(width * H / W)}"' if width else \
        f'width="{round(W)}" height="{round(H)}"'
    ident = f' id="{escape(element_id)}"' if element_id else ""
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg"{ident} class="daide-map" '
               f'viewBox="0 0 {_f(W)} {_f(H)}" {size} data-variant="{escape(map_.name)}" '
               f'data-turn="{escape(board.turn)}" font-family="DejaVu Sans, Arial, sans-serif">')
    out.append(f'<rect x="0" y="0" width="{_f(W)}" height="{_f(H)}" '
               f'fill="{SEA if layout.coast else VOID_BG}"/>')
    owner_of = {c: p for c, p in board.owners.items() if p != "UNO"}
    # -- provinces --------------------------------------------------------
    for want_sea in (True, False):
        out.append(f'<g class="{"seas" if want_sea else "lands"}">')
        for m in sorted(layout.provinces):
            shape = layout.provinces[m]
            if (shape.kind == "sea") != want_sea:
                continue
            d = "".join(_path(poly) for poly in shape.polys)
            if want_sea:
                fill = SEA
            else:
                owner = owner_of.get(m)
                fill = _tint(colours[owner]) if owner in colours else LAND
            # no stroke: the cells tile exactly, and a stroke would draw the
            # zero-width bridges that clipping leaves between pieces of a cell
            out.append(f'<path d="{d}" data-province="{m}" data-kind="{shape.kind}" '
                       f'class="prov {"sea" if want_sea else "land"}" fill="{fill}">'
                       f'<title>{_name(map_, m)}</title></path>')
        out.append("</g>")
        segs = layout.sea_borders if want_sea else layout.land_borders
        colour = SEA_BORDER if want_sea else LAND_BORDER
        out.append(f'<path class="borders" d="{_segments(segs)}" fill="none" stroke="{colour}" '
                   f'stroke-width="{0.9 if want_sea else 1.1}" pointer-events="none"/>')
        if want_sea:
            # seas lie under the land: repaint land-coloured background where the
            # outline is, so sea borders vanish under it before the cells go on top
            for poly in layout.coast:
                out.append(f'<path d="{_path(poly)}" fill="{LAND}" stroke="none" '
                           f'pointer-events="none"/>')
    for poly in layout.islands:
        out.append(f'<path class="island" d="{_path(poly)}" fill="#d8d2c4" stroke="{COAST}" '
                   f'stroke-width="1.1" pointer-events="none"/>')
    for poly in layout.coast:
        out.append(f'<path class="coast" d="{_path(poly)}" fill="none" stroke="{COAST}" '
                   f'stroke-width="1.4" pointer-events="none"/>')
    if layout.coast_edges:
        out.append(f'<path class="coast" d="{_segments(layout.coast_edges)}" fill="none" '
                   f'stroke="{COAST}" stroke-width="1.6" pointer-events="none"/>')
    if layout.links:
        # adjacent provinces whose shapes do not touch (across a strait, or an
        # adjacency the automatic layout could not draw as a border)
        d = "".join(f"M{_f(layout.provinces[a].unit[0])},{_f(layout.provinces[a].unit[1])}"
                    f"L{_f(layout.provinces[b].unit[0])},{_f(layout.provinces[b].unit[1])}"
                    for a, b in layout.links if a in layout.provinces and b in layout.provinces)
        out.append(f'<path class="links" d="{d}" fill="none" stroke="#5a6b7d" '
                   f'stroke-width="1" stroke-dasharray="2 3" opacity="0.8" '
                   f'pointer-events="none"/>')
    # -- centres and labels ---------------------------------------------------
    font = layout.font
    out.append('<g class="centres">')
    for m in sorted(layout.provinces):
        shape = layout.provinces[m]
        if shape.sc is None:
            continue
        owner = board.owners.get(m, "UNO")
        fill = colours.get(owner, "#ffffff")
        x, y = shape.sc
        out.append(f'<circle data-sc="{m}" data-owner="{owner}" cx="{_f(x)}" cy="{_f(y)}" '
                   f'r="{_f(font * 0.32)}" fill="{fill}" stroke="#222" stroke-width="0.9"/>')
    out.append("</g>")
    out.append(f'<g class="labels" font-size="{_f(font)}" text-anchor="middle" '
               f'pointer-events="none">')
    for m in sorted(layout.provinces):
        x, y = layout.provinces[m].label
        out.append(f'<text class="label" data-label="{m}" x="{_f(x)}" y="{_f(y + font * 0.35)}" '
                   f'font-size="{_f(font)}" fill="#333" stroke="#fff" stroke-width="2.2" '
                   f'stroke-opacity="0.7" paint-order="stroke">{m}</text>')
    # the coasts of bicoastal provinces, where their fleets stand
    for m in sorted(layout.provinces):
        for coast, (x, y) in sorted(layout.provinces[m].coasts.items()):
            out.append(f'<text class="coast-label" data-coast="{m} {coast}" x="{_f(x)}" '
                       f'y="{_f(y + layout.unit_size * 2.1)}" font-size="{_f(font * 0.62)}" '
                       f'font-style="italic" fill="#345">{coast[:2].lower()}</text>')
    out.append("</g>")
    # -- orders, units, marks -----------------------------------------------
    marks: list[str] = []
    if orders and board.orders:
        out.append('<g class="orders" pointer-events="none">')
        for order in board.orders:
            out.append(_order(layout, colours, board, order, marks))
        out.append("</g>")
    out.append('<g class="units">')
    for unit in board.units:
        if not unit.dislodged:
            out.append(_unit(layout, colours, unit, map_.power_names))
    for unit in board.units:
        if unit.dislodged:
            out.append(_unit(layout, colours, unit, map_.power_names))
    out.append("</g>")
    if marks:
        out.append('<g class="marks" pointer-events="none">' + "".join(marks) + "</g>")
    title = f"{map_.name} - {turn_words(board.turn)}"
    # small maps (pure) get a smaller title rather than a cut one
    tsize = min(font * 1.4, (W - font * 1.2) / (len(title) * 0.68))
    out.append(f'<text class="turn" x="{_f(font * 0.6)}" y="{_f(tsize * 1.1)}" '
               f'font-size="{_f(tsize)}" font-weight="bold" fill="#223">'
               f'{escape(title)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _name(map_: Map, m: str) -> str:
    p = map_.provinces[map_.ids[m]] if m in map_.ids else None
    return escape(f"{m} {p.name}" if p and p.name and p.name != m else m)


def _path(poly: Sequence[Point]) -> str:
    if len(poly) < 3:
        return ""
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in poly) + "Z"


def _segments(segs: Sequence[tuple[Point, Point]]) -> str:
    return "".join(f"M{a[0]:.1f},{a[1]:.1f}L{b[0]:.1f},{b[1]:.1f}" for a, b in segs)


# -- units ----------------------------------------------------------------------

def _unit_shape(kind: str, x: float, y: float, r: float, fill: str, extra: str = "") -> str:
    if kind == "FLT":
        # a hull with a sail
        pts = [(x - r * 1.25, y - r * 0.1), (x + r * 1.25, y - r * 0.1), (x + r * 0.8, y + r * 0.75),
               (x - r * 0.8, y + r * 0.75)]
        sail = [(x - r * 0.15, y - r * 0.2), (x - r * 0.15, y - r * 1.15), (x + r * 0.75, y - r * 0.2)]
        return (f'<path d="{_path(pts)}{_path(sail)}" fill="{fill}" stroke="#111" '
                f'stroke-width="1" {extra}/>')
    return (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{fill}" stroke="#111" '
            f'stroke-width="1" {extra}/>'
            f'<path d="M{_f(x - r * 0.45)},{_f(y + r * 0.45)}L{_f(x)},{_f(y - r * 0.5)}'
            f'L{_f(x + r * 0.45)},{_f(y + r * 0.45)}M{_f(x - r * 0.25)},{_f(y + r * 0.1)}'
            f'L{_f(x + r * 0.25)},{_f(y + r * 0.1)}" stroke="#111" stroke-width="1.1" fill="none"/>')


def _unit(layout: MapLayout, colours: dict[str, str], unit: DrawnUnit,
          names: Mapping[str, str]) -> str:
    if unit.province not in layout.provinces:
        return ""
    x, y = _spot(layout, unit.province, unit.coast)
    r = layout.unit_size
    attrs = f'class="unit" data-unit="{escape(unit.text())}" data-power="{unit.power}"'
    extra = ""
    if unit.dislodged:
        x, y = x + r * 0.9, y + r * 0.9
        attrs += f' data-dislodged="true" data-retreats="{" ".join(unit.retreats or ())}"'
        extra = 'stroke-dasharray="2 1.5" opacity="0.85"'
    body = _unit_shape(unit.kind, x, y, r, colours.get(unit.power, NO_POWER), extra)
    if unit.dislodged:
        body = (f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 1.45)}" fill="none" '
                f'stroke="#d00" stroke-width="1.4" stroke-dasharray="3 2"/>' + body)
    return f'<g {attrs}><title>{escape(unit_tooltip(unit, names))}</title>{body}</g>'


# -- orders -----------------------------------------------------------------

def _toward(a: Point, b: Point, gap: float) -> Point:
    """``b`` moved ``gap`` back towards ``a`` (arrows stop short of the unit symbol)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    g = min(gap, d * 0.4)
    return b[0] - dx / d * g, b[1] - dy / d * g


def _arrow(a: Point, b: Point, colour: str, width: float, dash: str = "", head: bool = True,
           opacity: float = 1.0) -> str:
    x1, y1 = a
    x2, y2 = b
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    hl = width * 3.6
    bx, by = x2 - ux * hl, y2 - uy * hl
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    line_end = (bx, by) if head else (x2, y2)
    s = (f'<path d="M{_f(x1)},{_f(y1)}L{_f(line_end[0])},{_f(line_end[1])}" stroke="{colour}" '
         f'stroke-width="{_f(width)}" fill="none"{dash_attr} opacity="{opacity}"/>')
    if head:
        px, py = -uy * hl * 0.55, ux * hl * 0.55
        s += (f'<path d="M{_f(x2)},{_f(y2)}L{_f(bx + px)},{_f(by + py)}L{_f(bx - px)},'
              f'{_f(by - py)}Z" fill="{colour}" opacity="{opacity}"/>')
    return s


def _cross(x: float, y: float, r: float, cls: str, colour: str = "#d00") -> str:
    return (f'<path class="mark {cls}" d="M{_f(x - r)},{_f(y - r)}L{_f(x + r)},{_f(y + r)}'
            f'M{_f(x - r)},{_f(y + r)}L{_f(x + r)},{_f(y - r)}" stroke="{colour}" '
            f'stroke-width="{_f(r * 0.55)}" fill="none"/>')


def _bar(a: Point, b: Point, r: float, cls: str) -> str:
    """A short bar across the end of an arrow: the move bounced."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    cx, cy = b[0] - ux * r * 0.2, b[1] - uy * r * 0.2
    px, py = -uy * r, ux * r
    return (f'<path class="mark {cls}" d="M{_f(cx + px)},{_f(cy + py)}L{_f(cx - px)},{_f(cy - py)}'
            f'" stroke="#d00" stroke-width="{_f(r * 0.45)}" fill="none"/>')


def _find_move(board: Board, other: DrawnUnit) -> Order | None:
    for o in board.orders:
        if o.unit.province == other.province and o.unit.power == other.power \
                and o.action in ("MTO", "CTO"):
            return o
    return None


def _order(layout: MapLayout, colours: dict[str, str], board: Board, order: Order,
           marks: list[str]) -> str:
    r = layout.unit_size
    res = " ".join(order.results)
    head = f'<g class="order" data-order="{escape(order.text())}" data-result="{res}" ' \
           f'data-action="{order.action}">'
    if order.action == "WVE" or order.unit.province not in layout.provinces:
        return head + "</g>"
    colour = colours.get(order.unit.power, NO_POWER)
    dark = _shade(colour)
    a = _spot(layout, order.unit.province, order.unit.coast)
    failed = order.failed
    opacity = 0.55 if failed else 1.0
    body = ""
    act = order.action
    if act in ("MTO", "CTO", "RTO") and order.target in layout.provinces:
        b = _spot(layout, order.target, order.target_coast)
        end = _toward(a, b, r * 1.1)
        start = _toward(b, a, r * 0.9)
        body = _arrow(start, end, "#b35400" if act == "RTO" else dark, 2.2, head=True,
                      dash="" if act != "CTO" else "7 3", opacity=opacity)
        if "BNC" in order.results:
            marks.append(_bar(start, end, r * 1.0, "bounce"))
        if act == "RTO" and failed:
            marks.append(_cross(end[0], end[1], r * 0.6, "bounce"))
    elif act in ("SUP", "CVY") and order.other is not None \
            and order.other.province in layout.provinces:
        s = _spot(layout, order.other.province, order.other.coast)
        if order.target and order.target in layout.provinces:
            t = layout.provinces[order.target].unit
            move = _find_move(board, order.other)
            if move is not None and move.target_coast:
                t = _spot(layout, order.target, move.target_coast)
            # aim at a point on the supported move, three quarters of the way
            aim = (s[0] + (t[0] - s[0]) * 0.7, s[1] + (t[1] - s[1]) * 0.7)
        else:
            aim = _toward(a, s, r * 1.5)
        start = _toward(aim, a, r * 0.9)
        dash = "4 3" if act == "SUP" else "1.5 2.5"
        body = _arrow(start, aim, dark, 1.6, dash=dash, head=False, opacity=opacity)
        if act == "SUP" and not order.target:
            body += (f'<circle cx="{_f(aim[0])}" cy="{_f(aim[1])}" r="{_f(r * 0.35)}" '
                     f'fill="none" stroke="{dark}" stroke-width="1.4" opacity="{opacity}"/>')
        else:
            body += (f'<circle cx="{_f(aim[0])}" cy="{_f(aim[1])}" r="{_f(r * 0.22)}" '
                     f'fill="{dark}" opacity="{opacity}"/>')
        mid = ((start[0] + aim[0]) / 2, (start[1] + aim[1]) / 2)
        if "CUT" in order.results:
            marks.append(_cross(mid[0], mid[1], r * 0.55, "cut"))
        elif "DSR" in order.results:
            marks.append(_cross(mid[0], mid[1], r * 0.55, "disrupted"))
    elif act == "HLD":
        body = (f'<circle cx="{_f(a[0])}" cy="{_f(a[1])}" r="{_f(r * 1.45)}" fill="none" '
                f'stroke="{dark}" stroke-width="1.6"/>')
    elif act == "BLD":
        body = _unit_shape(order.unit.kind, a[0], a[1], r, colour,
                           'stroke-dasharray="2 1.5" opacity="0.9"')
        body += (f'<circle cx="{_f(a[0])}" cy="{_f(a[1])}" r="{_f(r * 1.55)}" fill="none" '
                 f'stroke="#1a8f3a" stroke-width="1.8"/>')
        if failed:
            marks.append(_cross(a[0], a[1], r * 0.8, "void"))
    elif act in ("REM", "DSB"):
        marks.append(_cross(a[0], a[1], r * 1.0, "removed", "#b00"))
    if "NSO" in order.results or "FLD" in order.results:
        marks.append(_cross(a[0] + r * 1.2, a[1] - r * 1.2, r * 0.4, "void", "#777"))
    if "RET" in order.results:
        marks.append(f'<circle class="mark dislodged" cx="{_f(a[0])}" cy="{_f(a[1])}" '
                     f'r="{_f(r * 1.7)}" fill="none" stroke="#d00" stroke-width="1.8"/>')
    return head + body + "</g>"


def _shade(colour: str, amount: float = 0.25) -> str:
    """``colour`` darkened (the outline of an order's arrow)."""
    r, g, b = _rgb(colour)
    return "#" + "".join(f"{round(c * (1 - amount)):02x}" for c in (r, g, b))


__all__ = ["power_colours", "render_svg"]
