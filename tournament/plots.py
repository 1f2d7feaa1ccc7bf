"""SVG plots, written by hand (no plotting dependency): scores and centres.

* `score_chart` - one bar per bot (its mean score) with the bootstrap
  interval as an error bar, bots in ranking order;
* `centre_chart` - centre counts of every power after each phase of one
  game, one line per power, labelled with the bot that played it.

Both return the SVG document as text; the output is deterministic (fixed
formatting of every number), so a report can be compared byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from tournament.stats import BotSummary

#: Line colours of the powers (the usual board colours, darkened for white paper).
POWER_COLOURS: Mapping[str, str] = {
    "AUS": "#c0392b", "ENG": "#2c3e91", "FRA": "#3498db", "GER": "#4d4d4d",
    "ITA": "#27ae60", "RUS": "#8e44ad", "TUR": "#d4a017",
}
_OTHER_COLOURS = ("#e67e22", "#16a085", "#7f8c8d", "#c71585", "#2e8b57", "#8b4513")
BAR_COLOUR = "#4a78b0"


def _f(x: float) -> str:
    """A coordinate, at most one decimal."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten) covering [low, high]."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _tick_label(value: float) -> str:
    return f"{value:g}"


class _Svg:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = []

    def add(self, element: str) -> None:
        self.parts.append(element)

    def text(self, x: float, y: float, content: str, *, anchor: str = "middle",
             size: int = 12, weight: str = "normal", rotate: float | None = None) -> None:
        transform = f' transform="rotate({_f(rotate)} {_f(x)} {_f(y)})"' if rotate else ""
        self.add(f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{size}"'
                 f' font-weight="{weight}"{transform}>{escape(content)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, *, stroke: str = "#000",
             width: float = 1.0, dash: str | None = None) -> None:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"'
                 f' stroke="{stroke}" stroke-width="{_f(width)}"{extra}/>')

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}"'
                f' height="{self.height}" viewBox="0 0 {self.width} {self.height}"'
                ' font-family="DejaVu Sans, Arial, sans-serif">')
        body = "\n".join(self.parts)
        return f'{head}\n<rect width="100%" height="100%" fill="#fff"/>\n{body}\n</svg>\n'


def score_chart(summaries: Sequence[BotSummary], *, title: str, unit: str = "score") -> str:
    """Bars of mean score per bot with 95 % error bars."""
    width = max(360, 110 + 90 * len(summaries))
    height = 360
    left, right, top, bottom = 70, 20, 40, 60
    svg = _Svg(width, height)
    svg.text(width / 2, 22, title, size=14, weight="bold")
    lows = [s.score.low for s in summaries] + [0.0]
    highs = [s.score.high for s in summaries] + [0.0]
    ticks = nice_ticks(min(lows), max(highs))
    lo, hi = ticks[0], ticks[-1]
    plot_h = height - top - bottom

    def y_of(value: float) -> float:
        return top + plot_h * (hi - value) / (hi - lo)

    for tick in ticks:
        svg.line(left, y_of(tick), width - right, y_of(tick), stroke="#ddd")
        svg.text(left - 6, y_of(tick) + 4, _tick_label(tick), anchor="end", size=11)
    svg.line(left, y_of(0.0), width - right, y_of(0.0), stroke="#000")
    svg.text(18, top + plot_h / 2, unit, size=12, rotate=-90)
    slot = (width - left - right) / max(1, len(summaries))
    for i, summary in enumerate(summaries):
        centre = left + slot * (i + 0.5)
        bar_w = min(60.0, slot * 0.6)
        y0, y1 = sorted((y_of(0.0), y_of(summary.score.mean)))
        svg.add(f'<rect x="{_f(centre - bar_w / 2)}" y="{_f(y0)}" width="{_f(bar_w)}"'
                f' height="{_f(max(y1 - y0, 0.5))}" fill="{BAR_COLOUR}"/>')
        ylo, yhi = y_of(summary.score.low), y_of(summary.score.high)
        svg.line(centre, ylo, centre, yhi, width=1.5)
        svg.line(centre - 8, ylo, centre + 8, ylo, width=1.5)
        svg.line(centre - 8, yhi, centre + 8, yhi, width=1.5)
        svg.text(centre, height - bottom + 18, summary.bot, size=12)
        svg.text(centre, height - bottom + 34, f"{summary.score.mean:.1f}", size=11)
    svg.text(width / 2, height - 8, "mean per seat, bars: 95 % bootstrap interval", size=10)
    return svg.render()


def centre_chart(history: Sequence[tuple[str, Mapping[str, int]]],
                 players: Mapping[str, str], *, title: str) -> str:
    """Centre counts after every phase, one line per power (legend: power and bot)."""
    width, height = 720, 400
    left, right, top, bottom = 50, 170, 40, 50
    svg = _Svg(width, height)
    svg.text((width - right + left) / 2, 22, title, size=14, weight="bold")
    powers = sorted(players)
    most = max([c for _, counts in history for c in counts.values()] + [1])
    ticks = nice_ticks(0, max(most, 18 if most > 12 else most))
    hi = ticks[-1]
    plot_w = width - left - right
    plot_h = height - top - bottom
    steps = max(1, len(history) - 1)

    def x_of(i: int) -> float:
        return left + plot_w * i / steps

    def y_of(value: float) -> float:
        return top + plot_h * (hi - value) / hi

    for tick in ticks:
        svg.line(left, y_of(tick), left + plot_w, y_of(tick), stroke="#ddd")
        svg.text(left - 6, y_of(tick) + 4, _tick_label(tick), anchor="end", size=11)
    if hi >= 18:
        svg.line(left, y_of(18), left + plot_w, y_of(18), stroke="#999", dash="4 3")
        svg.text(left + plot_w - 2, y_of(18) - 4, "solo (18)", anchor="end", size=10)
    svg.line(left, y_of(0), left + plot_w, y_of(0))
    svg.line(left, top, left, y_of(0))
    for i, (turn, _) in enumerate(history):
        season, _, year = turn.partition(" ")
        if season == "SPR" or i == 0:
            svg.line(x_of(i), y_of(0), x_of(i), y_of(0) + 4)
            svg.text(x_of(i), y_of(0) + 17, year, size=10)
    svg.text(left + plot_w / 2, height - 10, "phase (years marked at spring)", size=11)
    svg.text(16, top + plot_h / 2, "supply centres", size=12, rotate=-90)
    for n, power in enumerate(powers):
        colour = POWER_COLOURS.get(power, _OTHER_COLOURS[n % len(_OTHER_COLOURS)])
        points = " ".join(f"{_f(x_of(i))},{_f(y_of(counts.get(power, 0)))}"
                          for i, (_, counts) in enumerate(history))
        svg.add(f'<polyline points="{points}" fill="none" stroke="{colour}"'
                f' stroke-width="2"/>')
        ly = top + 8 + n * 20
        svg.line(width - right + 14, ly, width - right + 34, ly, stroke=colour, width=2.5)
        svg.text(width - right + 40, ly + 4, f"{power} {players[power]}", anchor="start",
                 size=11)
    return svg.render()
