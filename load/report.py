"""The load harness's figures: percentiles, the memory fit, and the printed table."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def linear_fit(points: list[tuple[float, float]]) -> tuple[float, float, float]:
    """Least squares ``y = slope * x + intercept``; returns (slope, intercept, r squared)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx if sxx else 0.0
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for _, y in points)
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in points)
    return slope, intercept, 1 - ss_res / ss_tot if ss_tot else 1.0


@dataclass
class RunResult:
    """One load run (one game count)."""

    games: int
    max_year: int
    bot_procs: int
    server_latencies: list[float]
    client_latencies: list[float]
    phases: int
    phases_per_second: float
    wall_seconds: float
    join_seconds: float
    peak_concurrent: int
    think: float
    stagger: float
    load_before: float
    server_cpu_seconds: float
    fsyncs: int
    idle_rss: int
    peak_rss: int
    gc_pauses: dict[str, dict[str, float]] = field(default_factory=dict)
    loop_lag_ms: dict[str, float] = field(default_factory=dict)
    slowest_store_ms: dict[str, float] = field(default_factory=dict)
    durability: str = "os"
    slowest_fsync_ms: float = 0.0
    db_dir: str = ""
    problems: list[str] = field(default_factory=list)
    bot_errors: list[str] = field(default_factory=list)
    unfinished_clients: int = 0
    server_warnings: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return (len(self.problems) + len(self.bot_errors) + self.unfinished_clients
                + sum(self.server_warnings.values()))

    @property
    def ok(self) -> bool:
        return self.errors == 0

    def summary(self) -> dict[str, Any]:
        ms = 1000
        return {
            "games": self.games, "max_year": self.max_year, "bot_procs": self.bot_procs,
            "think_seconds": self.think, "stagger_seconds": self.stagger,
            "load_average_before": round(self.load_before, 2),
            "server_cpu_share": round(self.server_cpu_seconds / self.wall_seconds, 2),
            "phases": self.phases, "phases_per_second": round(self.phases_per_second, 1),
            "server_turn_ms": {"p50": round(percentile(self.server_latencies, 50) * ms, 2),
                               "p99": round(percentile(self.server_latencies, 99) * ms, 2),
                               "max": round(max(self.server_latencies, default=0) * ms, 2),
                               "n": len(self.server_latencies)},
            "client_turn_ms": {"p50": round(percentile(self.client_latencies, 50) * ms, 2),
                               "p99": round(percentile(self.client_latencies, 99) * ms, 2),
                               "n": len(self.client_latencies)},
            "wall_seconds": round(self.wall_seconds, 1),
            "join_seconds": round(self.join_seconds, 1),
            "peak_concurrent_games": self.peak_concurrent,
            "server_cpu_seconds": round(self.server_cpu_seconds, 1),
            "fsyncs": self.fsyncs,
            "server_idle_rss_mb": round(self.idle_rss / 2**20, 1),
            "server_peak_rss_mb": round(self.peak_rss / 2**20, 1),
            "growth_per_game_kb": round((self.peak_rss - self.idle_rss) / self.games / 1024, 1),
            "durability": self.durability, "slowest_fsync_ms": self.slowest_fsync_ms,
            "database_dir": self.db_dir,
            "gc_pauses": self.gc_pauses, "loop_lag_ms": self.loop_lag_ms,
            "slowest_store_write_ms": self.slowest_store_ms,
            "errors": self.errors, "problems": self.problems[:5], "bot_errors": self.bot_errors[:5],
            "unfinished_clients": self.unfinished_clients, "server_warnings": self.server_warnings,
        }


def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}, "
            f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}")


def format_runs(runs: list[RunResult], fit: tuple[float, float, float] | None = None) -> str:
    lines = [f"machine: {machine()}",
             "games  think  load  live  phases  phases/s  server turn p50/p99/max ms  bot-side p50/p99 ms  "
             "server CPU s  fsyncs  RSS idle->peak MB  per game KB  errors"]
    for r in runs:
        s = r.summary()
        st, ct = s["server_turn_ms"], s["client_turn_ms"]
        lines.append(
            f"{r.games:5d}  {r.think:5.2f}  {r.load_before:4.1f}  {r.peak_concurrent:4d}  {r.phases:6d}  {s['phases_per_second']:8.1f}  "
            f"{st['p50']:7.2f} / {st['p99']:6.2f} / {st['max']:6.1f}     "
            f"{ct['p50']:7.2f} / {ct['p99']:7.2f}   "
            f"{s['server_cpu_seconds']:10.1f}  {r.fsyncs:6d}  "
            f"{s['server_idle_rss_mb']:6.1f} -> {s['server_peak_rss_mb']:6.1f}  "
            f"{s['growth_per_game_kb']:10.1f}  {r.errors:6d}")
        gc2 = r.gc_pauses.get("2", {})
        lines.append(f"       stalls: gen-2 GC {gc2.get('count', 0)} x, max {gc2.get('max_ms', 0)} ms; "
                     f"event-loop lag p99/max {r.loop_lag_ms.get('p99', 0)}/"
                     f"{r.loop_lag_ms.get('max', 0)} ms; slowest DB write "
                     f"{max(r.slowest_store_ms.values(), default=0)} ms; durability "
                     f"{r.durability}, slowest fsync {r.slowest_fsync_ms} ms; server CPU "
                     f"{1000 * r.server_cpu_seconds / max(r.phases, 1):.1f} ms per phase "
                     f"(start-up included)")
        if r.errors:
            lines.append(f"       errors: problems {r.problems[:3]}, bot errors {r.bot_errors[:3]}, "
                         f"unfinished clients {r.unfinished_clients}, "
                         f"server warnings {r.server_warnings}")
    if fit is not None:
        slope, intercept, r2 = fit
        lines.append(f"peak memory ~= {intercept / 2**20:.1f} MB + {slope / 1024:.1f} KB per game "
                     f"(least squares over {len(runs)} runs, r^2 = {r2:.4f})")
    return "\n".join(lines)
