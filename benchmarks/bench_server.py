"""Server CPU per phase: real games over TCP against a ``daide serve`` process.

1. ``daide serve`` starts as a subprocess on a free loopback port with a
   fresh database (``--max-year``, ``--linger 0``).
2. One bot process of the load harness (`load.bot_proc`: the `bots` client
   library playing RandBots, seven per game, as fast as they can, at nice
   10) seats every game, then all games start at once.
3. The server's CPU time (user + system, ``/proc/<pid>/stat``) is read when
   every bot is seated and again when every game is over; the difference
   divided by the phases processed (from the database) is the figure: all
   the server does for a phase - reading seven SUBs, THX, adjudication, ORD,
   SCO, NOW to seven players, the database, the logs.  Joining is left out.
4. Printed with two yardsticks measured in the same run: the CPU per
   phase of the same kind of work done in process by ``daide adjudicate``
   (`benchmarks.bench_adjudicate_cli`: the machine's speed at the game
   logic), and the I/O floor (`benchmarks.io_floor`: a trio server that
   only reads seven SUB-sized frames and writes their THX and seven
   announcements - the least a phase's messages cost on this event loop
   and kernel); the server's figure is printed as a multiple of the floor.
5. Steps 1-3 and the floor run three times (``--runs``); the median of the
   runs is the figure, the range is printed beside it.

``python -m benchmarks server [--games N] [--max-year YEAR] [--runs N] [--profile OUT.prof]
[--instructions] [--compare REV]``
(``--runs``: the games and the floor are measured this many times, 3 by default, and the
median is the figure - one run on a shared two-core machine can be 30 % off.)
(``--profile``: the server runs under cProfile, which slows it).
(``--compare REV``: the same games against the server of another commit, measured in
the same run, alternating (this tree, REV; then REV, this tree; ...): that commit's
sources are unpacked into build/compare-SHA/ and installed there with its own
``make install`` - its own virtual environment and compiled build, made once and
kept - and its server is run from there; the bots are this tree's.  Prints each
side's median server CPU per phase and phases per second, and their ratios.)
(``--instructions``: instead of CPU time, the instructions the server and the floor
execute per phase, counted by valgrind's callgrind (`benchmarks.meters`) - steady from
run to run, so two builds compare on a busy machine; one run, no target.)
"""

from __future__ import annotations

import io
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import adjudicator
from benchmarks import io_floor
from benchmarks.meters import CpuMeter, InstructionMeter
from load.__main__ import free_port, game_figures, wait_for_line
from load.report import machine

ROOT = Path(__file__).resolve().parent.parent
GAMES = 10
MAX_YEAR = 1910
#: Runs of the whole measurement (games and floor): the median is the figure, since
#: the machine's two cores are shared and one run can be 30 % off.
RUNS = 3
#: At most this much slower than the commit compared with (``--compare``): issue 25's bound.
COMPARE_LIMIT = 1.15


@dataclass(frozen=True)
class SourceTree:
    """A source tree and the interpreter its server runs under."""

    name: str
    root: Path
    python: str


HERE = SourceTree("this tree", ROOT, sys.executable)


def compare_build(rev: str) -> SourceTree:
    """The commit ``rev`` unpacked and installed (its own ``make install``) under
    build/compare-SHA/, made once and kept."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    home = ROOT / "build" / f"compare-{sha[:12]}"
    python = home / ".venv" / "bin" / "python"
    ready = home / ".compare-ready"
    if not ready.exists():
        print(f"  installing {rev} ({sha[:12]}) into {home.relative_to(ROOT)} "
              "(make install: once, a few minutes)", flush=True)
        home.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(home)], input=archive, check=True)
        with (home / "install.log").open("wb") as log:
            subprocess.run(["make", "-C", str(home), "install"], stdout=log,
                           stderr=subprocess.STDOUT, check=True)
        ready.touch()
    return SourceTree(f"{rev} ({sha[:12]})", home, str(python))


def run_games(games: int, max_year: int, work: Path, profile: Path | None = None, *,
              meter: CpuMeter | InstructionMeter | None = None, build: SourceTree = HERE,
              ) -> tuple[tuple[float, float], int, int, float]:
    """Play the games against ``build``'s server; the server's user and system CPU
    seconds while they ran (or what ``meter`` reads), the phases, the bots'
    problem count, and the phases processed per second."""
    meter = meter or CpuMeter()
    port = free_port()
    db = work / "server.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server_env = {**os.environ, "PYTHONPATH": str(build.root)}
    server_log = work / "server.log"
    with server_log.open("wb") as log:
        server = subprocess.Popen(meter.command(
            [build.python, *(["-m", "cProfile", "-o", str(profile)] if profile else []),
             "-m", "daide", "serve", "--port", str(port), "--db", str(db),
             "--max-year", str(max_year), "--linger", "0", "--log-json",
             "--max-connections", str(7 * games + 64)]),
            cwd=build.root, env=server_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=log)
    bots = None
    try:
        wait_for_line(server_log, "listening", server,
                      seconds=600 if isinstance(meter, InstructionMeter) else 60)
        out, bot_out = work / "bots.json", work / "bots.out"
        with (work / "bots.log").open("wb") as log, bot_out.open("wb") as stdout:
            bots = subprocess.Popen(
                [sys.executable, "-m", "load.bot_proc", "--port", str(port), "--first-game", "0",
                 "--games", str(games), "--out", str(out), "--nice", "10"],
                cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=stdout, stderr=log)
        wait_for_line(bot_out, "joined", bots, seconds=600)
        meter.start(server.pid)
        assert bots.stdin is not None
        bots.stdin.write(b"go\n")
        bots.stdin.close()
        bots.wait(timeout=1800)
        work_done = meter.stop(server.pid)
        result = json.loads(out.read_text())
    finally:
        if bots is not None and bots.poll() is None:
            bots.kill()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
    phases, rate, _live = game_figures(db)
    problems = len(result["problems"]) + len(result["errors"]) + (
        7 * games - result["finished_clients"])
    return work_done, phases, problems, rate


def yardstick_ms() -> float:
    """CPU ms per movement phase of ``daide adjudicate`` in process (the same
    kind of work, measured in this run, to judge the machine's speed)."""
    from benchmarks.bench_adjudicate_cli import block_text
    from benchmarks.bench_adjudicator import SEED, YEARS, generate_positions
    from daide.cmd_adjudicate import adjudicate_stream
    from engine.phase_text import rulebook, setting
    from engine.variants import standard_map

    game = setting("standard", rulebook("datc-2.4"))
    positions = generate_positions(standard_map(), 3, YEARS, SEED)
    lines = "".join(block_text(game, p) for p in positions).splitlines(keepends=True)
    adjudicate_stream(game, lines[:100], io.StringIO())
    start = time.process_time()
    adjudicate_stream(game, lines, io.StringIO())
    return (time.process_time() - start) * 1000 / len(positions)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    games = int(args[args.index("--games") + 1]) if "--games" in args else GAMES
    max_year = int(args[args.index("--max-year") + 1]) if "--max-year" in args else MAX_YEAR
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else RUNS
    profile = Path(args[args.index("--profile") + 1]) if "--profile" in args else None
    if "--instructions" in args:
        return count_instructions(games, max_year)
    if "--compare" in args:
        return compare(compare_build(args[args.index("--compare") + 1]), games, max_year, runs)
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print("  the adjudicator: " + ("compiled with mypyc" if adjudicator.COMPILED else
                                   "pure Python (no compiled build matches the sources)"))
    figures, floors, problems = [], [], 0
    for run in range(1, runs + 1):
        with tempfile.TemporaryDirectory(prefix="daide-bench-server-") as tmp:
            (user, system), phases, run_problems, _rate = run_games(games, max_year, Path(tmp),
                                                                    profile)
        problems += run_problems
        cpu = user + system
        figures.append(cpu * 1000 / max(phases, 1))
        floor_user, floor_system = io_floor.measure()
        floors.append(floor_user + floor_system)
        print(f"server, run {run}/{runs}: {games} games of seven RandBots to {max_year} over TCP "
              f"against `daide serve`: {phases} phases, {cpu:.2f} s server CPU while they ran "
              f"({user:.2f} s user, {system:.2f} s system) = {figures[-1]:.3f} ms per phase, "
              f"bot problems {run_problems}; I/O floor {floors[-1]:.3f} ms ({floor_user:.3f} "
              f"user, {floor_system:.3f} system) = {figures[-1] / floors[-1]:.1f}x the floor")
    print(f"  yardstick: daide adjudicate in process, {yardstick_ms():.3f} ms CPU per "
          "movement phase in this run")
    per_phase, floor = statistics.median(figures), statistics.median(floors)
    print(f"  median of {runs} runs: {per_phase:.3f} ms per phase (runs "
          f"{min(figures):.3f}-{max(figures):.3f}), I/O floor {floor:.3f} ms (a trio server that "
          f"only reads the SUBs and writes THX and announcements): the server is "
          f"{per_phase / floor:.1f}x the floor")
    print("  (the figure to keep is relative: `--compare REV` measures it beside another commit)")
    return 0 if problems == 0 else 1


def compare(other: SourceTree, games: int, max_year: int, runs: int) -> int:
    """This tree's server against ``other``'s, alternating, the same games each run."""
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print("  this tree's adjudicator: " + ("compiled with mypyc" if adjudicator.COMPILED else
                                           "pure Python (no compiled build matches the sources)"))
    cpu: dict[str, list[float]] = {HERE.name: [], other.name: []}
    rates: dict[str, list[float]] = {HERE.name: [], other.name: []}
    problems = 0
    for run in range(1, runs + 1):
        order = (HERE, other) if run % 2 else (other, HERE)
        for build in order:
            with tempfile.TemporaryDirectory(prefix="daide-bench-server-") as tmp:
                (user, system), phases, run_problems, rate = run_games(
                    games, max_year, Path(tmp), build=build)
            problems += run_problems
            cpu[build.name].append((user + system) * 1000 / max(phases, 1))
            rates[build.name].append(rate)
            print(f"run {run}/{runs}, {build.name}: {phases} phases, "
                  f"{cpu[build.name][-1]:.3f} ms server CPU per phase, {rate:.0f} phases/s, "
                  f"bot problems {run_problems}", flush=True)
    ours, theirs = statistics.median(cpu[HERE.name]), statistics.median(cpu[other.name])
    our_rate, their_rate = statistics.median(rates[HERE.name]), statistics.median(rates[other.name])
    print(f"  median of {runs} runs each ({games} games of seven RandBots to {max_year}):")
    for build, ms, rate in ((HERE, ours, our_rate), (other, theirs, their_rate)):
        print(f"    {build.name}: {ms:.3f} ms server CPU per phase "
              f"(runs {min(cpu[build.name]):.3f}-{max(cpu[build.name]):.3f}), "
              f"{rate:.0f} phases/s")
    cpu_ratio, rate_ratio = ours / theirs, our_rate / their_rate
    met = cpu_ratio <= COMPARE_LIMIT and rate_ratio >= 1 / COMPARE_LIMIT
    print(f"targets: CPU per phase {cpu_ratio:.2f}x {other.name}'s, phases per second "
          f"{rate_ratio:.2f}x theirs - at most {int(round((COMPARE_LIMIT - 1) * 100))} % "
          f"slower {'met' if met else 'NOT met'}")
    return 0 if problems == 0 else 1


def count_instructions(games: int, max_year: int) -> int:
    """The instructions per phase of the server and of the I/O floor (one run each)."""
    try:
        with tempfile.TemporaryDirectory(prefix="daide-bench-server-") as tmp:
            (count, _), phases, problems, _rate = run_games(
                games, max_year, Path(tmp), meter=InstructionMeter(Path(tmp)))
        floor, _ = io_floor.measure(instructions=True)
    except RuntimeError as exc:
        print(f"server instructions: {exc}")
        return 1
    per_phase = count / max(phases, 1)
    print(f"server instructions: {games} games of seven RandBots to {max_year} over TCP "
          f"against `daide serve` under callgrind: {phases} phases, {count / 1e6:.1f} M "
          f"instructions while they ran = {per_phase / 1e6:.3f} M per phase (user space), "
          f"bot problems {problems}; I/O floor {floor / 1e3:.1f} K per phase = "
          f"{per_phase / floor:.1f}x the floor")
    return 0 if problems == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
