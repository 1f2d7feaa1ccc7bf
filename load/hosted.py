"""``python -m load.hosted`` / ``make load-hosted``: many hosted games of several kinds at once.

    python -m load.hosted [--games 1000] [--max-year 1902] [--bot-procs 4] [--bot-nice 10]
                          [--stagger 5] [--json OUT] [--keep DIR]

The mixed run of issue 27 ("Scale"), beside `load.__main__`'s games of the
server's template:

1. the server starts in its own process (`load.server_proc`, turn
   statistics on) with its web side (``--http-port``), a fresh database on
   disk, and its descriptor limit raised to the hard limit;
2. a host creates ``--games`` games through the HTTP API (``POST
   /api/admin/games`` with the admin token of ``<db>.admin-token``), one
   after the other, cycling through `MIX`: standard at press level 0,
   standard at level 8000 with deadlines and PDA, modern (ten powers) at
   level 8000 and chromatic (five powers) at level 30 - a game of another
   variant than the template has its own port, so half of them have one;
   every seat is reserved by invitation (``seats``), every game
   ends after ``--max-year``;
3. ``--bot-procs`` bot processes (`load.hosted_bots`, at ``--bot-nice``)
   share the games: a RandBot per seat joins with its invitation through its
   game's port; when every process has seated its bots, the games start,
   each at a random moment within ``--stagger`` seconds;
4. when every bot has finished, the server's peak memory is read
   (``VmHWM``) and it is stopped with SIGTERM.

Reported (`load.report`): the server's turn latency (last SUB read -> NOW
written to every player, `server.turnstats`) p50/p99/max, the bots' view of
it, phases per second, the most games live at once, CPU, memory - idle, with
the games created (forming, no connection), with every bot seated, and the
peak - and growth per game, and errors: games the API refused, bot problems
and failures, unfinished bots, server log lines at warning level or above.
Exit status 1 on any error.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from engine.variants import load_variant
from load.__main__ import (
    free_port,
    game_figures,
    kill_all,
    log_levels,
    play_seated,
    proc_status,
    wait_for_line,
)
from load.report import RunResult, format_runs

ROOT = Path(__file__).resolve().parent.parent

#: The kinds of game the host creates, in turn: settings of ``POST /api/admin/games``.
MIX: tuple[dict[str, Any], ...] = (
    {"variant": "standard", "level": 0},
    {"variant": "standard", "level": 8000, "mtl": 600, "rtl": 300, "btl": 300, "pda": True},
    {"variant": "modern", "level": 8000},
    {"variant": "chromatic", "level": 30},
)
#: DAIDE connections the server holds: every bot of a thousand games (7,500), while the
#: web door, the games' own ports and the reserve keep their descriptors.
MAX_CONNECTIONS = 12000
#: Seconds a seated bot may hold its YES (MAP) back: seating thousands of bots on a busy
#: machine takes minutes, past the server's two minutes for an idle connection.
JOIN_IDLE = 3600.0


class Admin:
    """The host's side: JSON requests to ``/api/admin`` with the admin token."""

    def __init__(self, url: str, token: str) -> None:
        self.base = url.rstrip("/") + "/api/admin"
        self.token = token

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), method="POST",
            headers={"authorization": f"Bearer {self.token}", "user-agent": "load-hosted/1",
                     "content-type": "application/json", "x-daide-client": "web"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())


def create_games(admin: Admin, games: int, max_year: int) -> tuple[list[dict[str, Any]],
                                                                   list[str], Counter[str]]:
    """``games`` games of `MIX` in turn; the plan of each (id, port, invitation codes),
    the refusals, and the count of each kind."""
    plan, refused = [], []
    kinds: Counter[str] = Counter()
    for k in range(games):
        kind = MIX[k % len(MIX)]
        powers = load_variant(kind["variant"]).powers
        body = {**kind, "max_year": max_year, "name": f"load {k}",
                "access": "invitation", "seats": {p: f"load-{k}-{p}" for p in powers}}
        try:
            made = admin.post("/games", body)
        except OSError as exc:           # urllib's HTTPError and URLError are OSErrors
            detail = exc.read().decode(errors="replace") if hasattr(exc, "read") else ""
            refused.append(f"game {k}: {exc} {detail}".strip())
            continue
        plan.append({"id": made["id"], "port": made["port"], "codes": made["invitations"]})
        kinds[f"{kind['variant']} level {kind['level']}"] += 1
    return plan, refused, kinds


def run(args: argparse.Namespace, work: Path) -> tuple[RunResult, dict[str, Any]]:
    port, http_port = free_port(), free_port()
    db = work / "hosted.db"
    stats, server_log = work / "server.json", work / "server.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with server_log.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "load.server_proc", "--port", str(port), "--db", str(db),
             "--max-year", str(args.max_year), "--stats", str(stats), "--time-store",
             "--http-port", str(http_port), "--max-connections", str(MAX_CONNECTIONS),
             "--join-idle-timeout", str(JOIN_IDLE),
             "--durability", args.durability],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    bots: list[tuple[subprocess.Popen[bytes], Path]] = []
    load_before = os.getloadavg()[0]
    extra: dict[str, Any] = {}
    try:
        wait_for_line(server_log, '"http_listening"', server)
        idle_rss = proc_status(server.pid, "VmRSS")
        token = Path(f"{db}.admin-token").read_text().strip()
        started = time.monotonic()
        plan, refused, kinds = create_games(Admin(f"http://127.0.0.1:{http_port}", token),
                                            args.games, args.max_year)
        extra["create_seconds"] = round(time.monotonic() - started, 1)
        extra["created_rss_mb"] = round(proc_status(server.pid, "VmRSS") / 2**20, 1)
        extra["kinds"] = dict(kinds)
        extra["own_ports"] = sum(1 for g in plan if g["port"] != port)
        extra["refused"] = refused
        started = time.monotonic()
        for i in range(args.bot_procs):
            share = plan[i * len(plan) // args.bot_procs:(i + 1) * len(plan) // args.bot_procs]
            if not share:
                continue
            plan_file = work / f"plan-{i}.json"
            plan_file.write_text(json.dumps(share))
            out = work / f"bots-{i}.json"
            with (work / f"bots-{i}.log").open("wb") as log, \
                    (work / f"bots-{i}.out").open("wb") as stdout:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "load.hosted_bots", "--plan", str(plan_file),
                     "--out", str(out), "--nice", str(args.bot_nice),
                     "--stagger", str(args.stagger)],
                    cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=log)
            bots.append((proc, out))
        for i, (proc, _) in enumerate(bots):
            wait_for_line(work / f"bots-{i}.out", "joined", proc, seconds=args.timeout)
        joined = time.monotonic() - started
        extra["seated_rss_mb"] = round(proc_status(server.pid, "VmRSS") / 2**20, 1)
        wall, peak_rss = play_seated(bots, server, args.timeout, stop_wait=120)
    finally:
        kill_all(bots, server)
    server_stats = json.loads(stats.read_text())
    bot_results = [json.loads(out.read_text()) for _, out in bots]
    _levels, warnings = log_levels(server_log)
    phases, rate, concurrent = game_figures(db)
    clients = sum(r["clients"] for r in bot_results)
    finished = sum(r["finished_clients"] for r in bot_results)
    result = RunResult(
        games=args.games, max_year=args.max_year, bot_procs=args.bot_procs,
        server_latencies=server_stats["latencies"],
        client_latencies=[x for r in bot_results for x in r["client_latencies"]],
        phases=phases, phases_per_second=rate, wall_seconds=wall, join_seconds=joined,
        think=0.0, stagger=args.stagger, load_before=load_before, peak_concurrent=concurrent,
        server_cpu_seconds=server_stats["cpu_seconds"], fsyncs=server_stats["fsyncs"],
        idle_rss=idle_rss, peak_rss=peak_rss, gc_pauses=server_stats["gc_pauses"],
        loop_lag_ms=server_stats["loop_lag_ms"], slowest_store_ms=server_stats["slowest_store_ms"],
        durability=args.durability, slowest_fsync_ms=server_stats.get("slowest_fsync_ms", 0.0),
        db_dir="(temporary, on disk)",
        problems=[p for r in bot_results for p in r["problems"]],
        bot_errors=[e for r in bot_results for e in r["errors"]] + refused,
        unfinished_clients=clients - finished, server_warnings=dict(warnings))
    extra["bots"] = clients
    return result, extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.hosted",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--max-year", type=int, default=1902)
    parser.add_argument("--bot-procs", type=int, default=4)
    parser.add_argument("--bot-nice", type=int, default=10)
    parser.add_argument("--stagger", type=float, default=5.0,
                        help="start each game at a random moment within this many seconds")
    parser.add_argument("--durability", choices=("os", "disk", "commit"), default="os")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the database and logs in this directory")
    args = parser.parse_args(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))   # inherited by the children
    with tempfile.TemporaryDirectory(prefix="daide-load-hosted-") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        work.mkdir(parents=True, exist_ok=True)
        print(f"creating {args.games} hosted games ({len(MIX)} kinds) to {args.max_year} ...",
              flush=True)
        result, extra = run(args, work)
    print(format_runs([result]))
    print(f"games by kind: {extra['kinds']}; {extra['own_ports']} on their own port; "
          f"{extra['bots']} bots; created in {extra['create_seconds']} s, seated in "
          f"{result.join_seconds:.1f} s; RSS idle {result.idle_rss / 2**20:.1f} MB, "
          f"games created {extra['created_rss_mb']} MB, bots seated {extra['seated_rss_mb']} MB, "
          f"peak {result.peak_rss / 2**20:.1f} MB")
    if args.json is not None:
        args.json.write_text(json.dumps({"run": result.summary(), **extra}, indent=2))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
