"""The server process of the load harness: `server.app.Server` with turn statistics.

    python -m load.server_proc --port P --db PATH --max-year YEAR --stats OUT.json

It is the real server (``daide serve`` builds the same `Server`); the only
differences are the settings a load test needs - room for every bot of a
hundred games (``max_connections``; loopback is exempt from the per-address
limit anyway), turn statistics on (`server.turnstats`) - and the statistics
file it writes when SIGTERM stops it: every turn latency, its CPU time and
its peak memory (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import signal
import sys
from pathlib import Path

import trio

from server.app import Server
from server.logconfig import configure_logging
from server.settings import GameSettings, ServerSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.server_proc")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--max-year", type=int, required=True)
    parser.add_argument("--stats", type=Path, required=True)
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--profile", type=Path, default=None,
                        help="write cProfile statistics of the whole run here")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    configure_logging(sys.stderr, json=True, level=getattr(logging, args.log_level))
    settings = ServerSettings(host="127.0.0.1", port=args.port, db_path=args.db,
                              game=GameSettings(max_year=args.max_year),
                              max_connections=min(hard, 65536) - 64, turn_stats=True)
    server = Server(settings)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            async def on_signal() -> None:
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        server.stop()
                        return

            nursery.start_soon(on_signal)
            await server.run()
            nursery.cancel_scope.cancel()

    if args.profile is not None:
        import cProfile

        cProfile.runctx("trio.run(run)", globals(), {"trio": trio, "run": run},
                        filename=str(args.profile))
    else:
        trio.run(run)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    assert server.lobby is not None
    stats = server.lobby.turn_stats
    assert stats is not None
    args.stats.write_text(json.dumps({
        "latencies": stats.latencies,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "max_rss_bytes": usage.ru_maxrss * 1024,
        "fsyncs": server.lobby.durability.flushes,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
