"""``python -m load`` / ``make load``: N concurrent games of seven RandBots on one server.

    python -m load [--games 100] [--max-year 1910] [--stagger 5] [--bot-procs 2]
                   [--sweep 25,50,100] [--bot-nice 10] [--durability os] [--json OUT]

For each game count (``--sweep`` runs several, to see how memory grows):

1. the server starts in its own process (`load.server_proc`) on a free
   loopback port with a fresh database in a temporary directory on disk;
2. ``--bot-procs`` bot processes (`load.bot_proc`) share the games; they
   join one process after the other, so that every game fills with the
   seven bots of one process; they run at ``--bot-nice`` so that the load
   generator does not take the server's CPU on a small machine;
   the games start at random moments within ``--stagger`` seconds (5 by
   default, as on a real server where games do not all start in the same
   second; games to 1910 last long enough for all of them to run at once,
   and the report gives the peak number of live games); ``--stagger 0``
   starts them in the same instant, the worst case - every game's first
   phase arrives with a hundred others;
3. when every bot has finished, the server's peak memory is read
   (``VmHWM``), it is stopped with SIGTERM and writes its statistics.

Reported per run: turn latency p50/p99/max as the server sees it (last SUB
read -> NOW written to all seven players, `server.turnstats`) and as the
bots see it (last SUB sent -> NOW received by all seven), phases per second
(processed phases over the span from the first game's start to the last
phase, from the database), the server's CPU seconds and fsyncs, its peak
memory and the growth over its idle size per game, and errors: bot
problems (any THX other than MBV, REJ, HUH, PRN, missing orders), bot
failures, games that did not finish, server log lines at warning level or
above.  With a sweep, bytes per game is the least-squares slope of peak
memory over games.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import closing
from datetime import datetime
from pathlib import Path

from load.report import RunResult, format_runs, linear_fit

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_status(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` memory field in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def wait_for_line(path: Path, needle: str, process: subprocess.Popen[bytes],
                  seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while needle not in path.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{process.args!r} did not say {needle!r}: "
                               f"{path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.02)


def game_figures(db: Path) -> tuple[int, float, int]:
    """Processed phases, their rate (first start to last phase), and the most games
    running at one moment (from each game's start to its last phase)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT game_id, seq, processed_at FROM phases").fetchall()
    spans: dict[int, list[datetime]] = {}
    for game, _seq, stamp in rows:
        spans.setdefault(game, []).append(datetime.fromisoformat(stamp))
    stamps = [t for times in spans.values() for t in times]
    phases = sum(1 for _, seq, _ in rows if seq > 0)
    span = (max(stamps) - min(stamps)).total_seconds() if stamps else 0.0
    edges = sorted([(min(t), 1) for t in spans.values()] + [(max(t), -1) for t in spans.values()])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return phases, phases / span if span else 0.0, peak


def play_seated(bots: list[tuple[subprocess.Popen[bytes], Path]], server: subprocess.Popen[bytes],
                timeout: float, *, stop_wait: float) -> tuple[float, int]:
    """Every seat is taken: tell the bot processes to play, wait for them, stop the
    server; (seconds of play, the server's peak RSS in bytes)."""
    started = time.monotonic()
    for proc, _ in bots:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.close()
    for proc, _ in bots:
        proc.wait(timeout=timeout)
    wall = time.monotonic() - started
    peak_rss = proc_status(server.pid, "VmHWM")
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=stop_wait)
    return wall, peak_rss


def kill_all(bots: list[tuple[subprocess.Popen[bytes], Path]],
             server: subprocess.Popen[bytes]) -> None:
    """Whatever is still running after a run (a failed one, too)."""
    for proc, _ in bots:
        if proc.poll() is None:
            proc.kill()
    if server.poll() is None:
        server.kill()


def log_levels(server_log: Path) -> tuple[Counter[str], Counter[str]]:
    """The server's JSON log: lines per level, and the warning-or-worse events by name."""
    levels: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for line in server_log.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        levels[event.get("level", "?")] += 1
        if event.get("level") in ("warning", "error", "critical"):
            warnings[event.get("event", "?")] += 1
    return levels, warnings


def run_once(games: int, args: argparse.Namespace, work: Path) -> RunResult:
    port = free_port()
    db = (args.db_dir or work) / f"load-{games}.db"
    stats = work / f"server-{games}.json"
    for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        stale.unlink(missing_ok=True)
    server_log = work / f"server-{games}.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with server_log.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "load.server_proc", "--port", str(port), "--db", str(db),
             "--max-year", str(args.max_year), "--stats", str(stats), "--time-store",
             *(["--profile", str(args.profile)] if args.profile else []),
             "--durability", args.durability],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    bots: list[tuple[subprocess.Popen[bytes], Path]] = []
    load_before = os.getloadavg()[0]
    try:
        wait_for_line(server_log, '"listening"', server)
        idle_rss = proc_status(server.pid, "VmRSS")
        started = time.monotonic()
        share, extra = divmod(games, args.bot_procs)
        first = 0
        for i in range(args.bot_procs):
            count = share + (1 if i < extra else 0)
            if not count:
                continue
            out, log_path = work / f"bots-{games}-{i}.json", work / f"bots-{games}-{i}.log"
            with log_path.open("wb") as log, (work / f"bots-{games}-{i}.out").open("wb") as stdout:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "load.bot_proc", "--port", str(port),
                     "--first-game", str(first), "--games", str(count), "--out", str(out),
                     "--nice", str(args.bot_nice), "--think", str(args.think),
                     "--stagger", str(args.stagger)],
                    cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=log)
            bots.append((proc, out))
            wait_for_line(work / f"bots-{games}-{i}.out", "joined", proc, seconds=600)
            first += count
        joined = time.monotonic() - started
        wall, peak_rss = play_seated(bots, server, args.timeout, stop_wait=60)
    finally:
        kill_all(bots, server)
    server_stats = json.loads(stats.read_text())
    bot_results = [json.loads(out.read_text()) for _, out in bots]
    _levels, warnings = log_levels(server_log)
    phases, rate, concurrent = game_figures(db)
    finished = sum(r["finished_clients"] for r in bot_results)
    return RunResult(
        games=games, max_year=args.max_year, bot_procs=args.bot_procs,
        server_latencies=server_stats["latencies"],
        client_latencies=[x for r in bot_results for x in r["client_latencies"]],
        phases=phases, phases_per_second=rate, wall_seconds=wall, join_seconds=joined,
        think=args.think, stagger=args.stagger, load_before=load_before,
        peak_concurrent=concurrent,
        server_cpu_seconds=server_stats["cpu_seconds"], fsyncs=server_stats["fsyncs"],
        idle_rss=idle_rss, peak_rss=peak_rss, gc_pauses=server_stats["gc_pauses"],
        loop_lag_ms=server_stats["loop_lag_ms"], slowest_store_ms=server_stats["slowest_store_ms"],
        durability=args.durability, slowest_fsync_ms=server_stats.get("slowest_fsync_ms", 0.0),
        db_dir=str(args.db_dir or "(temporary, on disk)"),
        problems=[p for r in bot_results for p in r["problems"]],
        bot_errors=[e for r in bot_results for e in r["errors"]],
        unfinished_clients=games * 7 - finished, server_warnings=dict(warnings),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sweep", default=None,
                        help="comma-separated game counts, e.g. 25,50,100 (overrides --games)")
    parser.add_argument("--max-year", type=int, default=1910)
    parser.add_argument("--bot-procs", type=int, default=2)
    parser.add_argument("--bot-nice", type=int, default=10)
    parser.add_argument("--stagger", type=float, default=5.0,
                        help="start each game at a random moment within this many seconds "
                             "(default 5; 0: all at once, in lockstep - the worst case)")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean thinking time of a bot per phase, seconds (default 0: "
                             "as fast as they can)")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--profile", type=Path, default=None,
                        help="profile the server (cProfile) into this file")
    parser.add_argument("--durability", choices=("os", "disk", "commit"), default="os",
                        help="the server's --durability: announce once the OS has the commit "
                             "(os, the server's default), or once on disk with one fsync per "
                             "batch (disk) or per commit (commit)")
    parser.add_argument("--db-dir", type=Path, default=None,
                        help="put the server's database here (default: the temporary "
                             "directory, on disk; e.g. /dev/shm to take the disk out)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the databases and logs in this directory")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.sweep.split(",")] if args.sweep else [args.games]
    runs = []
    with tempfile.TemporaryDirectory(prefix="daide-load-") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        work.mkdir(parents=True, exist_ok=True)
        for games in counts:
            print(f"running {games} games to {args.max_year} ...", flush=True)
            runs.append(run_once(games, args, work))
            print(format_runs(runs[-1:]), flush=True)
    fit = linear_fit([(r.games, r.peak_rss) for r in runs]) if len(runs) > 1 else None
    print()
    print(format_runs(runs, fit))
    if args.json is not None:
        args.json.write_text(json.dumps(
            {"runs": [r.summary() for r in runs],
             "bytes_per_game_fit": None if fit is None else {"slope": fit[0], "intercept": fit[1],
                                                             "r2": fit[2]}}, indent=2))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
