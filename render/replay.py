"""A stored game as one self-contained HTML page: every phase drawn, a slider, a chart.

Each processed phase becomes a frame: the position the orders were given in
(the NOW and SCO announced before it), its orders as arrows with their
results, and a caption; a last frame shows the final position.  All frames
are inline SVG in one file (no external file, no network), shown one at a
time by a few lines of inline JavaScript (slider, previous/next, arrow
keys).  The supply-centre chart is an inline SVG too: one line per power,
the count after the last phase of each year.

The input is plain data: the phases as the server's store keeps them
(anything with ``seq``, ``turn``, ``messages``, ``sco`` and ``now``, e.g.
``server.store.PhaseRecord``) - this module never imports the server.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Protocol

from maps.model import Map
from render.board import Board, RenderError, board_from_daide, parse_sco
from render.notation import ending_words, power_name, result_words
from render.svg import NO_POWER, power_colours, render_svg
from render.turns import turn_words


class PhaseLike(Protocol):
    """A processed phase as the server's store keeps it (read-only attributes)."""

    @property
    def seq(self) -> int: ...
    @property
    def turn(self) -> str: ...
    @property
    def messages(self) -> Sequence[str]: ...
    @property
    def sco(self) -> str: ...
    @property
    def now(self) -> str: ...


@dataclass(frozen=True)
class Frame:
    board: Board
    caption: str


def frames_of(map_: Map, phases: Iterable[PhaseLike]) -> list[Frame]:
    """One frame per processed phase (its orders on the position before it), then the end."""
    frames: list[Frame] = []
    before_now: str | None = None
    before_sco: str | None = None
    for phase in sorted(phases, key=lambda p: p.seq):
        if phase.seq > 0 and before_now is not None:
            orders = [m for m in phase.messages if m.startswith("ORD")]
            board = board_from_daide(map_, before_now, before_sco, orders)
            done = sum(1 for o in board.orders if o.results and o.results[0] == "SUC")
            frames.append(Frame(board, f"{turn_words(phase.turn)}: {len(board.orders)} orders, "
                                       f"{len(board.orders) - done} did not succeed"))
        before_now, before_sco = phase.now, phase.sco
    if before_now is not None:
        final = board_from_daide(map_, before_now, before_sco)
        frames.append(Frame(final, f"{turn_words(final.turn)}: position"))
    return frames


def centre_counts(phases: Iterable[PhaseLike]) -> list[tuple[str, dict[str, int]]]:
    """(label, power -> centres) at the start and after the last phase of every year."""
    points: dict[str, dict[str, int]] = {}
    for phase in sorted(phases, key=lambda p: p.seq):
        try:
            owners = parse_sco(phase.sco)
        except RenderError:
            continue
        counts: dict[str, int] = {}
        for power in owners.values():
            if power != "UNO":
                counts[power] = counts.get(power, 0) + 1
        label = "start" if phase.seq == 0 else phase.turn.split()[-1]
        points[label] = counts
    return list(points.items())


def centre_chart_svg(series: Sequence[tuple[str, Mapping[str, int]]],
                     colours: Mapping[str, str], powers: Sequence[str],
                     names: Mapping[str, str] | None = None) -> str:
    """Centre counts per year as an inline SVG line chart, each line named by its
    power's name (``names``, the map's; the mnemonic without one)."""
    w, h, left, bottom, top, right = 680, 260, 40, 30, 14, 110
    n = max(1, len(series) - 1)
    most = max([c for _label, counts in series for c in counts.values()] + [1])
    ymax = max(4, most + 1)

    def x(i: int) -> float:
        return left + (w - left - right) * i / n

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - v / ymax)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="centre-chart" width="{w}" '
           f'height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Arial, sans-serif" '
           f'font-size="11">']
    for v in range(0, ymax + 1, max(1, ymax // 6)):
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{w - right}" y2="{y(v):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{v}</text>')
    step = max(1, len(series) // 10)
    for i, (label, _counts) in enumerate(series):
        if i % step == 0 or i == len(series) - 1:
            out.append(f'<text x="{x(i):.1f}" y="{h - 10}" text-anchor="middle">'
                       f'{escape(label)}</text>')
    for k, power in enumerate(powers):
        pts = " ".join(f"{x(i):.1f},{y(counts.get(power, 0)):.1f}"
                       for i, (_l, counts) in enumerate(series))
        colour = colours.get(power, NO_POWER)
        out.append(f'<polyline data-power="{power}" points="{pts}" fill="none" '
                   f'stroke="{colour}" stroke-width="2.2"/>')
        last = series[-1][1].get(power, 0) if series else 0
        out.append(f'<text x="{w - right + 8}" y="{top + 14 * k + 8}" fill="{colour}" '
                   f'font-weight="bold">{escape(power_name(power, names or {}))} {last}</text>')
    out.append("</svg>")
    return "\n".join(out)


_STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 1em; color: #222; }
.bar { display: flex; gap: .6em; align-items: center; margin: .4em 0; flex-wrap: wrap; }
.bar input[type=range] { flex: 1; min-width: 12em; }
.frame { display: none; }
.frame.on { display: block; }
.frame svg.daide-map { max-width: 100%; height: auto; border: 1px solid #bbb; }
ul.orders { font-size: 12px; margin-top: .5em; padding-left: 1.2em; columns: 3 16em; }
.fail { color: #b00; }
.legend { font-size: 12px; color: #555; }
"""

_SCRIPT = """
(function () {
  var frames = document.querySelectorAll('.frame');
  var slider = document.getElementById('phase');
  var label = document.getElementById('phase-label');
  function show(i) {
    i = Math.max(0, Math.min(frames.length - 1, i));
    frames.forEach(function (f, k) { f.classList.toggle('on', k === i); });
    slider.value = i;
    label.textContent = frames[i].getAttribute('data-caption');
  }
  slider.addEventListener('input', function () { show(+slider.value); });
  document.getElementById('prev').onclick = function () { show(+slider.value - 1); };
  document.getElementById('next').onclick = function () { show(+slider.value + 1); };
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowLeft') show(+slider.value - 1);
    if (e.key === 'ArrowRight') show(+slider.value + 1);
  });
  show(0);
})();
"""

LEGEND = ("Arrows: moves (solid), supports (dashed, to the move they support), convoys "
          "(dotted), retreats (orange). Red bar: bounced; red cross: support cut or convoy "
          "disrupted; grey cross: void order; red ring: dislodged; green ring: build.")


def replay_html(map_: Map, phases: Iterable[PhaseLike], *, title: str,
                info: Sequence[str] = (), ending: Sequence[str] = ()) -> str:
    """The whole replay page (see the module docstring)."""
    phases = list(phases)
    frames = frames_of(map_, phases)
    colours = power_colours(map_)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{escape(title)}</h1>"]
    parts.extend(f"<p>{escape(line)}</p>" for line in info)
    names = map_.power_names
    if ending:
        said = [ending_words(e, names) for e in ending]
        parts.append("<p>Ending: " + escape("; ".join(w for w in said if w) or "-") + "</p>")
        # the DAIDE texts, for bot authors
        parts.append("<details><summary>in DAIDE</summary>"
                     + " ".join(f"<code>{escape(e)}</code>" for e in ending) + "</details>")
    if not frames:
        parts.append("<p>The game has not started: there is nothing to show yet.</p>"
                     "</body></html>")
        return "\n".join(parts) + "\n"
    parts.append('<div class="bar"><button id="prev" type="button">&#9664; previous</button>'
                 f'<input id="phase" type="range" min="0" max="{max(0, len(frames) - 1)}" '
                 'value="0" aria-label="phase">'
                 '<button id="next" type="button">next &#9654;</button>'
                 '<span id="phase-label"></span></div>')
    parts.append(f'<p class="legend">{escape(LEGEND)}</p>')
    for i, frame in enumerate(frames):
        parts.append(f'<div class="frame" data-turn="{escape(frame.board.turn)}" '
                     f'data-caption="{escape(frame.caption)}">')
        parts.append(render_svg(map_, frame.board, element_id=f"map-{i}"))
        if frame.board.orders:
            # A dislodged unit missing from the next position's retreats was destroyed.
            after = frames[i + 1].board.units if i + 1 < len(frames) else ()
            retreating = {(u.power, u.province) for u in after if u.dislodged}
            parts.append('<ul class="orders">')
            # by power, as the adjudicators' reports list them; each line names its power
            by_power = sorted(frame.board.orders,
                              key=lambda o: power_name(o.unit.power, names))
            for order in by_power:
                destroyed = (order.unit.power, order.unit.province) not in retreating
                cls = ' class="fail"' if order.failed else ""
                # the DAIDE text stays on each line (data-order, and its tooltip)
                daide = f"{order.text()} ({' '.join(order.results)})" if order.results \
                    else order.text()
                line = result_words(order, names, destroyed)
                if order.action != "WVE":          # a waive names its power already
                    line = f"{power_name(order.unit.power, names)}: {line}"
                parts.append(f'<li{cls} data-order="{escape(order.text())}" '
                             f'title="{escape(daide)}">{escape(line)}</li>')
            parts.append("</ul>")
        parts.append("</div>")
    parts.append("<h2>Supply centres per year</h2>")
    parts.append(centre_chart_svg(centre_counts(phases), colours, map_.powers, names))
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def game_replay(store: Any, game_id: int, map_loader: Any = None, *,
                title: str | None = None) -> str:
    """The replay of game ``game_id`` of a server store (``server.store.Store``, duck-typed).

    ``map_loader(name)`` gives the map of the game's variant (default
    :func:`engine.variants.variant_map`); ``title`` replaces "Game N" (a
    server that lives for one game names it better).  The store's own errors
    propagate.
    """
    if map_loader is None:
        from engine.variants import variant_map as map_loader
    record = store.game(game_id)
    phases = store.phases(game_id)
    map_ = map_loader(record.settings.variant)
    players = ", ".join(f"{power_name(s.power, map_.power_names)}: {s.client_name or '?'}"
                        for s in record.seats)
    info = [f"Variant {record.settings.variant}; status {record.status}; "
            f"started {record.started_at or '-'}; finished {record.finished_at or '-'}."]
    if players:
        info.append(f"Players: {players}.")
    return replay_html(map_, phases, title=title or f"Game {game_id}", info=info,
                       ending=record.ending)


__all__ = ["Frame", "centre_chart_svg", "centre_counts", "frames_of", "game_replay",
           "replay_html"]
