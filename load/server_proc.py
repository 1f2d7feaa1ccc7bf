"""The server process of the load harness: `server.app.Server` with turn statistics.

    python -m load.server_proc --port P --db PATH --max-year YEAR --stats OUT.json

It is the real server (``daide serve`` builds the same `Server`); the only
differences are the settings a load test needs - room for every bot of a
hundred games (``max_connections``; loopback is exempt from the per-address
limit anyway), turn statistics on (`server.turnstats`) - and the statistics
file it writes when SIGTERM stops it: every turn latency, its CPU time, its
peak memory (ru_maxrss), the fsyncs of the group commit, and what can stall
a single-threaded server: garbage-collector pauses per generation, how late
the event loop woke a 10 ms sleeper (``loop_lag_ms``) and, with
``--time-store``, the slowest call of each database write.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from server.app import Server
from server.logconfig import configure_logging
from server.runner import serve_until_signal
from server.settings import GameSettings, ServerSettings
from server.store import Store


def percentiles_ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values) or [0.0]
    return {"p50": round(1000 * ordered[len(ordered) // 2], 2),
            "p99": round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
            "max": round(1000 * ordered[-1], 2)}


class GcPauses:
    """Durations of the collector's runs, per generation (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = self._started_cpu = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.thread_time()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._started)
            # The CPU the collection took, apart from the time the process waited for a
            # core (on a busy machine the wall-clock pause is mostly that wait).
            self.cpu[info["generation"]].append(time.thread_time() - self._started_cpu)

    def summary(self) -> dict[str, dict[str, float]]:
        return {str(g): {"count": len(p), "max_ms": round(1000 * max(p, default=0), 2),
                         "total_ms": round(1000 * sum(p), 1),
                         "cpu_max_ms": round(1000 * max(self.cpu[g], default=0), 2),
                         "cpu_total_ms": round(1000 * sum(self.cpu[g]), 1)}
                for g, p in self.pauses.items()}


def time_store_writes(slowest: dict[str, float]) -> None:
    """Wrap the store's writes to keep the slowest duration of each."""
    for name in ("save_orders", "record_phase", "start_game", "create_game"):
        original: Callable[..., Any] = getattr(Store, name)

        def timed(self: Store, *args: Any, _original: Callable[..., Any] = original,
                  _name: str = name, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _original(self, *args, **kwargs)
            finally:
                took = time.perf_counter() - started
                slowest[_name] = max(slowest.get(_name, 0.0), took)

        setattr(Store, name, timed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.server_proc")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--max-year", type=int, required=True)
    parser.add_argument("--stats", type=Path, required=True)
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--http-port", type=int, default=None,
                        help="serve the web side (and the host's API) on this port too")
    parser.add_argument("--max-connections", type=int, default=None,
                        help="DAIDE connections held (default: the descriptor limit's worth)")
    parser.add_argument("--join-idle-timeout", type=float, default=120.0,
                        help="seconds a connection may wait before it settles in a game")
    parser.add_argument("--durability", choices=("os", "disk", "commit"), default="os",
                        help="the server's durability setting (ServerSettings.durability)")
    parser.add_argument("--time-store", action="store_true",
                        help="record the slowest call of each database write")
    parser.add_argument("--profile", type=Path, default=None,
                        help="write cProfile statistics of the whole run here")
    args = parser.parse_args(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    configure_logging(sys.stderr, json=True, level=getattr(logging, args.log_level))
    settings = ServerSettings(host="127.0.0.1", port=args.port, db_path=args.db,
                              game=GameSettings(max_year=args.max_year),
                              max_connections=args.max_connections or min(hard, 65536) - 64,
                              turn_stats=True,
                              durability=args.durability, http_port=args.http_port,
                              join_idle_timeout=args.join_idle_timeout)
    server = Server(settings)
    gc_pauses = GcPauses()
    lags: list[float] = []
    slowest_store: dict[str, float] = {}
    if args.time_store:
        time_store_writes(slowest_store)

    async def watch_loop() -> None:
        while True:
            before = trio.current_time()
            await trio.sleep(0.01)
            lags.append(trio.current_time() - before - 0.01)

    async def run() -> None:
        await serve_until_signal(server, watch_loop)

    if args.profile is not None:
        import cProfile

        cProfile.runctx("trio.run(run)", globals(), {"trio": trio, "run": run},
                        filename=str(args.profile))
    else:
        trio.run(run)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    assert server.lobby is not None and server.lobby.turn_stats is not None
    args.stats.write_text(json.dumps({
        "latencies": server.lobby.turn_stats.latencies,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "max_rss_bytes": usage.ru_maxrss * 1024,
        "fsyncs": server.lobby.durability.flushes,
        "slowest_fsync_ms": round(server.lobby.durability.slowest_sync * 1000, 1),
        "gc_pauses": gc_pauses.summary(),
        "loop_lag_ms": percentiles_ms(lags),
        "slowest_store_ms": {k: round(v * 1000, 2) for k, v in slowest_store.items()},
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
