"""``python -m load.web`` / ``make load-web``: DAIDE clients' turn latency with the web door
quiet and flooded, in one run on one server.

    python -m load.web [--games 10] [--max-year 1905] [--stalled 400] [--websockets 300]
                       [--fast 8] [--bot-nice 10] [--json OUT]

1. ``daide serve --http-port`` starts on free loopback ports with a fresh
   database and its web limits as shipped (``--http-max-connections`` 500,
   ``--http-request-timeout`` 10 s, ``--im-timeout`` 30 s);
2. three phases, each ``--games`` new games of seven RandBots
   (`load.bot_proc`, at ``--bot-nice``) playing to ``--max-year`` over the
   DAIDE TCP port:

   * **quiet** - nothing else;
   * **held** - the door held full (`load.web_flood`, its own process at the
     same niceness): ``--stalled`` request bodies that never finish and
     ``--websockets`` WebSockets that never send the IM, together more than
     the web's connection budget, each reopened as soon as the server
     closes or refuses it (0.1 s after a refusal);
   * **requests** - ``--fast`` clients sending requests (the games list,
     a page, a game, a board drawn) one after the other as fast as the
     server answers them;

   the games of a flooded phase start once every flood slot has opened its
   first connection, and the flood stops when they have finished;
3. the server stops.

Reported per phase: the bots' turn latency (last SUB sent -> NOW received
by all seven, `load.bot_proc`) p50/p99/max, turns, games finished, the
phase's length and the machine's load average as it began; per
flood, what its connections met (`load.web_flood.FloodCounts`: 408s,
refusals, WebSockets closed by the IM timer, fast requests' statuses); and
the server's log lines at warning level and above by event.  Exit status 1
if a game did not finish or the server logged an error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from load.report import percentile

ROOT = Path(__file__).resolve().parent.parent


def _wait_for(path: Path, pattern: str, process: subprocess.Popen[bytes],
              seconds: float = 120) -> re.Match[str]:
    deadline = time.monotonic() + seconds
    while True:
        found = re.search(pattern, path.read_text(errors="replace"))
        if found:
            return found
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{process.args!r} did not say {pattern!r}: "
                               f"{path.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)


def play_games(port: int, first: int, games: int, args: argparse.Namespace, work: Path,
               env: dict[str, str]) -> dict[str, Any]:
    """``games`` games of seven RandBots in one bot process; its result."""
    out, err, said = (work / f"bots-{first}.json", work / f"bots-{first}.log",
                      work / f"bots-{first}.out")
    with err.open("wb") as log, said.open("wb") as stdout:
        bots = subprocess.Popen(
            [sys.executable, "-m", "load.bot_proc", "--port", str(port), "--first-game",
             str(first), "--games", str(games), "--out", str(out), "--nice", str(args.bot_nice)],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=log)
    try:
        _wait_for(said, "joined", bots, seconds=600)
        assert bots.stdin is not None
        bots.stdin.write(b"go\n")
        bots.stdin.close()
        bots.wait(timeout=args.timeout)
    finally:
        if bots.poll() is None:
            bots.kill()
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def phase_figures(name: str, result: dict[str, Any], games: int) -> dict[str, Any]:
    latencies = result["client_latencies"]
    return {"phase": name, "games": games, "turns": len(latencies),
            "p50_ms": round(1000 * percentile(latencies, 50), 1),
            "p99_ms": round(1000 * percentile(latencies, 99), 1),
            "max_ms": round(1000 * max(latencies, default=0.0), 1),
            "finished_clients": result["finished_clients"], "clients": result["clients"],
            "bot_errors": len(result["errors"]), "bot_problems": len(result["problems"])}


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server_log = work / "server.log"
    with server_log.open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "daide", "serve", "--port", "0", "--http-port", "0",
             "--db", str(work / "games.db"), "--log-json", "--max-year", str(args.max_year)],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    flood: subprocess.Popen[bytes] | None = None
    out = work / "flood.json"
    try:
        tcp_port = int(_wait_for(server_log, r'"port": (\d+)[^\n]*"event": "listening"', server)
                       .group(1))
        http_port = int(_wait_for(server_log, r'"url": "http://127\.0\.0\.1:(\d+)/"', server)
                        .group(1))
        phases: list[dict[str, Any]] = []
        floods = {}
        for name, (stalled, websockets, fast) in (
                ("quiet", (0, 0, 0)), ("held", (args.stalled, args.websockets, 0)),
                ("requests", (0, 0, args.fast))):
            if name != "quiet":
                out, said = work / f"flood-{name}.json", work / f"flood-{name}.out"
                with said.open("wb") as stdout, (work / f"flood-{name}.log").open("wb") as err:
                    flood = subprocess.Popen(
                        [sys.executable, "-m", "load.web_flood", "--port", str(http_port),
                         "--stalled", str(stalled), "--websockets", str(websockets),
                         "--fast", str(fast), "--nice", str(args.bot_nice), "--out", str(out)],
                        cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=err)
                _wait_for(said, "flooding", flood, seconds=120)
            print(f"{name}: {args.games} games to {args.max_year} ...", flush=True)
            load_before = os.getloadavg()[0]
            started = time.monotonic()
            result = play_games(tcp_port, len(phases) * args.games, args.games, args, work, env)
            phases.append({**phase_figures(name, result, args.games),
                           "seconds": round(time.monotonic() - started, 1),
                           "load_before": round(load_before, 1)})
            print(f"  {phases[-1]}", flush=True)
            if name != "quiet":
                assert flood is not None and flood.stdin is not None
                flood.stdin.close()
                flood.wait(timeout=60)
                floods[name] = json.loads(out.read_text())
    finally:
        if flood is not None and flood.poll() is None:
            flood.kill()
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    warnings: Counter[str] = Counter()
    errors = 0
    for line in server_log.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            errors += 1
            continue
        if event.get("level") in ("warning", "error", "critical"):
            warnings[f"{event.get('level')}: {event.get('event')}"] += 1
            errors += event.get("level") != "warning"
    return {"phases": phases, "floods": floods,
            "flood_settings": {"stalled": args.stalled, "websockets": args.websockets,
                               "fast": args.fast},
            "server_warnings": dict(warnings), "server_errors": errors,
            "cpus": os.cpu_count(), "load_before": os.getloadavg()[0]}


def format_result(result: dict[str, Any]) -> str:
    lines = ["phase     games  turns   p50 ms   p99 ms   max ms  finished  seconds  load",
             *(f"{p['phase']:<9} {p['games']:>5}  {p['turns']:>5}  {p['p50_ms']:>7}  "
               f"{p['p99_ms']:>7}  {p['max_ms']:>7}  {p['finished_clients']:>4}/{p['clients']:<4}"
               f"{p['seconds']:>7}  {p['load_before']:>4}"
               for p in result["phases"])]
    settings = result["flood_settings"]
    for name, flood in result["floods"].items():
        held = name == "held"
        lines += [
            f"{name}: {settings['stalled'] if held else 0} stalled bodies, "
            f"{settings['websockets'] if held else 0} WebSockets without IM, "
            f"{0 if held else settings['fast']} fast requesters",
            f"  stalled bodies: {flood['stalled_opened']} opened, {flood['stalled_timed_out']} "
            f"answered 408 after the request timeout, {flood['stalled_refused']} refused at once",
            f"  WebSockets without IM: {flood['websockets_opened']} opened, "
            f"{flood['websockets_upgraded']} upgraded (closed by the IM timer: "
            f"{flood['websockets_closed_after_upgrade']}), {flood['websockets_refused']} refused",
            f"  fast requests: {flood['requests']} sent, statuses {flood['request_statuses']}, "
            f"{flood['requests_refused']} refused"]
    lines += [
        f"server log: {result['server_warnings']}; errors: {result['server_errors']}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.web",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--max-year", type=int, default=1905)
    parser.add_argument("--stalled", type=int, default=400)
    parser.add_argument("--websockets", type=int, default=300)
    parser.add_argument("--fast", type=int, default=8)
    parser.add_argument("--bot-nice", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="daide-load-web-") as tmp:
        result = run(args, Path(tmp))
    print()
    print(format_result(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))
    unfinished = sum(p["clients"] - p["finished_clients"] for p in result["phases"])
    return 1 if unfinished or result["server_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
