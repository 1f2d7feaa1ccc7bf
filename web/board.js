// The board on a page: the server draws it (POST /api/render, the one SVG
// renderer of the project) and the page puts the SVG in the DOM, which then
// carries the state: the map root's data-turn, each unit's data-unit, each
// centre's data-sc / data-owner.  Clicks are reported as province and unit names.
import { api } from "./daide.js";

export class Board {
  constructor(container) {
    this.container = container;
    this.onProvince = () => {};
    this.onUnit = () => {};
    this.shown = null;
    this.game = null;          // the game drawn: its own map (a hosted game may have another)
    this.drawing = Promise.resolve();
    container.addEventListener("click", (event) => {
      const unit = event.target.closest("[data-unit]");
      if (unit) { this.onUnit(unit.dataset.unit, event); return; }
      const province = event.target.closest("[data-province]");
      if (province) this.onProvince(province.dataset.province, event);
    });
  }

  // Draw a position: NOW and SCO texts, ORD texts (or bare orders) for arrows.
  show(now, sco, orders = []) {
    const key = JSON.stringify([now, sco, orders]);
    if (key === this.shown) return this.drawing;
    this.shown = key;
    this.drawing = this.drawing.then(async () => {
      if (key !== this.shown) return;            // a newer position was asked for meanwhile
      const answer = await api("/api/render", this.game ? { now, sco, orders, game: this.game } : { now, sco, orders });
      if (key !== this.shown) return;
      this.container.innerHTML = answer.svg;
      this.container.dataset.shown = this.turn();
    }).catch((error) => { this.container.dataset.error = error.message; });
    return this.drawing;
  }

  turn() {
    const svg = this.container.querySelector("svg");
    return svg ? svg.dataset.turn : null;
  }

  // The picture's title in words ("standard - Summer retreats 1903"): the turn
  // as a person reads it, from a function of the DAIDE turn.
  retitle(season) {
    const title = this.container.querySelector("svg text.turn");
    const svg = this.container.querySelector("svg");
    if (title && svg && svg.dataset.turn) title.textContent = `${svg.dataset.variant} - ${season(svg.dataset.turn)}`;
  }

  // Province labels in the page's language: {PAR: "Par", BUR: "Bou"...}.
  relabel(names) {
    for (const label of this.container.querySelectorAll("text[data-label]")) {
      const name = names[label.dataset.label];
      if (name) label.textContent = name;
    }
  }

  select(unitText) {
    for (const node of this.container.querySelectorAll(".selected")) node.classList.remove("selected");
    if (!unitText) return;
    const node = this.container.querySelector(`[data-unit="${unitText}"]`);
    if (node) node.classList.add("selected");
  }
}

// Centre counts as a line chart: rows = [{label, counts: {FRA: 5, ...}}].
export function drawChart(container, rows, powers, colours) {
  const width = 320, height = 160, pad = 22;
  const max = Math.max(18, ...rows.flatMap((r) => Object.values(r.counts)));
  const x = (i) => pad + (rows.length <= 1 ? 0 : (i * (width - 2 * pad)) / (rows.length - 1));
  const y = (n) => height - pad - (n * (height - 2 * pad)) / max;
  const lines = powers.map((p) => {
    const points = rows.map((r, i) => `${x(i).toFixed(1)},${y(r.counts[p] || 0).toFixed(1)}`).join(" ");
    return `<polyline data-power="${p}" fill="none" stroke="${colours[p] || "#444"}" stroke-width="2" points="${points}"><title>${p}</title></polyline>`;
  });
  const labels = rows.map((r, i) => (i % Math.ceil(rows.length / 6 || 1) === 0
    ? `<text x="${x(i)}" y="${height - 6}" font-size="9" text-anchor="middle">${r.label}</text>` : ""));
  container.innerHTML = `<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%">
    <line x1="${pad}" y1="${y(0)}" x2="${width - pad}" y2="${y(0)}" stroke="#999"/>
    <text x="4" y="${y(max) + 4}" font-size="9">${max}</text>
    ${lines.join("")}${labels.join("")}</svg>`;
  container.dataset.points = rows.length;
}

// Centre counts from an SCO text: {FRA: 5, ...} (UNO left out).
export function centreCounts(sco) {
  const counts = {};
  for (const m of (sco || "").matchAll(/\(\s*(\w{3})((?:\s+\w{3})*)\s*\)/g)) {
    if (m[1] !== "UNO") counts[m[1]] = m[2].trim().split(/\s+/).filter(Boolean).length;
  }
  return counts;
}

// "SPR 1901" from a NOW, ORD or HST text.
export function turnOf(text) {
  const m = /\(\s*(SPR|SUM|FAL|AUT|WIN)\s+(-?\d+)\s*\)/.exec(text || "");
  return m ? `${m[1]} ${m[2]}` : null;
}

// Deadline countdown from TME ( seconds ).  In the last minute it warns: the
// node gets data-warning="true" (coloured by the style sheet) and, with
// {title: true}, the tab's title starts with the time left.
export class Countdown {
  constructor(node, { title = false, left = "left", none = "no deadline", stopped = "clock stopped" } = {}) {
    this.node = node;
    this.texts = { left, none, stopped };
    this.until = null;
    this.title = title;
    this.baseTitle = document.title;
    setInterval(() => this.tick(), 500);
  }
  set(seconds) { this.until = Date.now() + seconds * 1000; this.tick(); }
  stop() { this.until = null; this.node.textContent = this.texts.none; this.warn(null); }
  // NOT ( TME ( n ) ): the clock stands with n seconds left (docs/protocol.md §13.1).
  pause(seconds) {
    this.until = null;
    this.node.textContent = `${this.texts.stopped}, ${clock(seconds)} ${this.texts.left}`;
    this.node.dataset.seconds = seconds;
    this.warn(null);
  }
  tick() {
    if (this.until === null) return;
    const left = Math.max(0, Math.round((this.until - Date.now()) / 1000));
    this.node.textContent = `${clock(left)} ${this.texts.left}`;
    this.node.dataset.seconds = left;
    this.warn(left <= 60 ? left : null);
  }
  warn(left) {
    const on = left !== null;
    this.node.dataset.warning = String(on);
    this.node.classList.toggle("warning", on);
    if (this.title) document.title = on ? `${clock(left)} ${this.texts.left}! ${this.baseTitle}` : this.baseTitle;
  }
}

function clock(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
