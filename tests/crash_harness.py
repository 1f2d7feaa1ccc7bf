"""Crash safety: SIGKILL the server at random moments of many seeded games.

`crash_trial` plays the same seeded games twice:

1. the *reference*: an in-process server that is never interrupted;
2. the *crash run*: ``daide serve`` in a subprocess on a fixed port, killed
   with SIGKILL (no cleanup at all) at random moments while the games run
   and restarted at once on the same database; the bots (`bots.client`,
   RandBots seeded per game) notice the lost connection and come back with
   IAM, resubmitting the orders of the current turn.

Then, game by game (games are told apart by their players' names, which
carry the seed), the stored phases must be identical: the same turns in the
same order, each with the same adjudicated orders, announcements, SCO and
NOW, and the same ending.  So no accepted order and no processed phase was
lost, and no phase was processed twice.

Determinism rests on what `bots.demo` describes: each bot asks for its power
by name (``'AUS:...'``), its orders come from a generator seeded by the
game's seed, its power and the phase, and the server processes a phase only
when all orders are in (no deadlines).  The games are joined one after the
other, so that each fills with its own seven bots, and in the crash run
they all start together (`StartGate`), so that the kills fall all over the
games; the first kill waits until every game has started.

``tests/test_crash.py`` runs a short trial in ``make test``; ``make crash``
runs a long one (the Makefile's ``CRASH_ARGS``: ``--games 10 --kills 20
--max-year 1912 --hosted-rounds 21``): the seeded games, then the hosted games' trial (`tests.crash_hosted`:
games with their own settings and ports, kills in the middle of admin
actions) for ``--hosted-rounds`` rounds.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import trio

from bots.client import BotClient, ClientSettings
from bots.link import Received
from bots.randbot import RandBot
from bots.runner import run_clients
from bots.transport import TcpTransport
from protocol.messages import Mdf
from server.app import Server
from server.logconfig import configure_logging
from server.settings import GameSettings, ServerSettings
from server.store import Store

ROOT = Path(__file__).resolve().parent.parent
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
#: Phases a game still has to play, at least, when a kill point is reached: the
#: games go on for up to ~0.1 s (the poll, the random pause) before the kill
#: lands, three phases of fast bots or more.
KILL_MARGIN = 3

#: What must be equal between the two runs, phase by phase.
Phases = list[tuple[int, str, dict[str, tuple[str, ...]], tuple[str, ...], str, str]]


@dataclass(frozen=True)
class CrashPlan:
    """How many games, how long, how many kills, and the seed of everything."""

    games: int = 3
    max_year: int = 1903
    kills: int = 3
    seed: int = 1
    durability: str = "os"       # the killed server's --durability


@dataclass
class CrashResult:
    """The games of both runs and what happened to the server."""

    reference: dict[int, tuple[Phases, tuple[str, ...]]] = field(default_factory=dict)
    crashed: dict[int, tuple[Phases, tuple[str, ...]]] = field(default_factory=dict)
    kills: list[int] = field(default_factory=list)
    """Phases stored (all games together) at each kill."""
    rejoins: int = 0
    seconds: float = 0.0

    def differences(self) -> list[str]:
        """Human-readable differences between the runs (empty when they agree)."""
        out = []
        for seed in sorted(set(self.reference) | set(self.crashed)):
            ref, got = self.reference.get(seed), self.crashed.get(seed)
            if ref is None or got is None:
                out.append(f"game {seed}: missing in the {'reference' if ref is None else 'crash'} run")
                continue
            turns = [p[1] for p in got[0] if p[0] > 0]      # seq 0 is the start, not a phase
            if len(turns) != len(set(turns)):
                out.append(f"game {seed}: a phase was processed twice: {turns}")
            for mine, theirs in zip(got[0], ref[0], strict=False):
                if mine != theirs:
                    out.append(f"game {seed}: phase {theirs[0]} ({theirs[1]}) differs")
                    break
            if len(got[0]) != len(ref[0]):
                out.append(f"game {seed}: {len(got[0])} phases, reference {len(ref[0])}")
            if got[1] != ref[1]:
                out.append(f"game {seed}: ending {got[1]} != {ref[1]}")
        return out


def game_seed(k: int, plan: CrashPlan) -> int:
    return plan.seed * 1000 + k


class StartGate:
    """Holds every bot's YES (MAP) until all the games are seated, so that they start together.

    A bot is seated once its MDF arrives (the lobby has placed its NME); the
    next bot may then send its NME, so each game fills with its own seven.
    """

    def __init__(self) -> None:
        self.seated = trio.Event()
        self.go = trio.Event()

    def connector(self) -> Callable[[str, int], Awaitable[TcpTransport]]:
        gate = self

        class GatedTransport(TcpTransport):
            async def receive(self) -> Received | None:
                received = await super().receive()
                if received is not None and isinstance(received.message, Mdf) \
                        and not gate.go.is_set():
                    gate.seated.set()
                    await gate.go.wait()
                return received

        async def connect(host: str, port: int) -> TcpTransport:
            transport = GatedTransport(await trio.open_tcp_stream(host, port))
            await transport.start()
            return transport

        return connect


def bots_for(port: int, plan: CrashPlan, gate: StartGate | None = None) -> list[BotClient]:
    """Seven RandBots per game, game after game, named for their power and seed."""
    clients = []
    for k in range(plan.games):
        seed = game_seed(k, plan)
        for power in POWERS:
            settings = ClientSettings(port=port, name=f"{power}:RandBot-g{seed}", seed=seed,
                                      reconnect_attempts=60, reconnect_delay=0.05)
            clients.append(BotClient(RandBot(), settings,
                                     connect=gate.connector() if gate is not None else None))
    return clients


def read_games(db: Path) -> dict[int, tuple[Phases, tuple[str, ...]]]:
    """Finished games by seed: their phases and their ending."""
    store = Store.open(db)
    try:
        games = {}
        for record in store.games():
            names = {s.client_name for s in record.seats}
            seeds = {int(m.group(1)) for n in names if (m := re.search(r"-g(\d+)$", n))}
            if len(seeds) != 1 or record.status != "finished":
                continue
            phases = [(p.seq, p.turn, dict(p.orders), p.messages, p.sco, p.now)
                      for p in store.phases(record.id)]
            games[seeds.pop()] = (phases, record.ending)
        return games
    finally:
        store.close()


def status_counts(db: Path) -> tuple[dict[str, int], int]:
    """Games by status, and phases stored, read (read-only) beside the running server."""
    db_uri = f"file:{db}?mode=ro"
    with closing(sqlite3.connect(db_uri, uri=True, timeout=5)) as conn:
        counts = dict(conn.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
        phases = int(conn.execute("SELECT COUNT(*) FROM phases").fetchone()[0])
    return counts, phases


async def poll(done: Callable[[], bool], every: float) -> None:
    """Wait until ``done()`` - the database of another process cannot wake us up."""
    while True:
        if done():
            return
        await trio.sleep(every)


async def play_reference(db: Path, plan: CrashPlan) -> None:
    settings = ServerSettings(host="127.0.0.1", port=0, db_path=db,
                              game=GameSettings(max_year=plan.max_year))
    server = Server(settings)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.run)
        port = int(listeners[0].socket.getsockname()[1])
        outcomes = await run_clients(bots_for(port, plan))
        failed = [o.error for o in outcomes if o.error]
        assert not failed, f"reference bots failed: {failed[:3]}"
        server.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``daide serve`` on a fixed port; its log goes to a file."""

    def __init__(self, db: Path, port: int, plan: CrashPlan, log: Path) -> None:
        self.db, self.port, self.plan, self.log = db, port, plan, log
        self.process: trio.Process | None = None
        self.starts = 0
        self.earlier_phases = 0      # processed by the starts before the current one

    async def start(self) -> None:
        if self.starts:
            self.earlier_phases = self.phases_processed()    # that log is complete
        self.starts += 1
        log = self.log.with_suffix(f".{self.starts}.log")
        with log.open("wb") as out:
            self.process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "daide", "serve", "--port", str(self.port),
                 "--db", str(self.db), "--max-year", str(self.plan.max_year), "--log-json",
                 "--durability", self.plan.durability],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=out)
        with trio.fail_after(30):
            while b'"listening"' not in log.read_bytes():
                assert self.process.poll() is None, log.read_text()
                await trio.sleep(0.02)

    def phases_processed(self) -> int:
        """Phases processed by every start so far (their ``phase_processed`` log lines;
        a finished start's are counted once, when the next one begins).

        The database lags behind: the store folds the phases of its journal
        into SQLite in batches, so its count jumps a batch at a time.  A
        phase is logged right after it is journaled, and none is processed
        twice (which the trial checks), so the lines count the phases stored.
        """
        current = self.log.with_suffix(f".{self.starts}.log")
        return self.earlier_phases + current.read_bytes().count(b'"phase_processed"')

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()                  # SIGKILL: no shutdown code runs
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with trio.move_on_after(10):
                await self.process.wait()
            if self.process.poll() is None:
                await self.kill()


async def play_with_kills(db: Path, plan: CrashPlan, total_phases: int, result: CrashResult,
                          logs: Path) -> None:
    """The crash run: kills at random points, spread over the games' progress.

    Once every game has started, ``plan.kills`` phase counts are drawn at
    random between the count then and the reference's total; the server is
    killed when the stored phases reach each of them, after a random extra
    pause of up to 80 ms so that the kill lands anywhere in a phase (orders
    half in, a phase being written, messages half sent).  The points stop
    `KILL_MARGIN` phases a game before the reference's end.
    """
    rng = random.Random(f"kills/{plan.seed}")
    server = ServerProcess(db, free_port(), plan, logs / "server")
    await server.start()
    gate = StartGate()
    clients = bots_for(server.port, plan, gate)
    done = trio.Event()

    async def play() -> None:
        async with trio.open_nursery() as bots:
            for client in clients:          # seated one after the other...
                gate.seated = trio.Event()
                bots.start_soon(client.run)
                await gate.seated.wait()
            gate.go.set()                   # ...then every game starts at once
        done.set()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            with trio.fail_after(120):       # every game has started (none is forming)
                await poll(lambda: sum(n for s, n in status_counts(db)[0].items()
                                       if s != "forming") >= plan.games, 0.02)
            # The first point comes after as many phases as there are games, the
            # last leave every game a few phases to play: the games go on during
            # the poll and the pause, and a kill after the last phase would hit
            # no running game.
            first = max(server.phases_processed(), plan.games) + 1
            points = range(first, max(first, total_phases - 2 - KILL_MARGIN * plan.games))
            for point in sorted(rng.sample(points, min(plan.kills, len(points)))):
                with trio.fail_after(120):
                    await poll(lambda: server.phases_processed() >= point, 0.01)  # noqa: B023
                await trio.sleep(rng.uniform(0, 0.08))
                await server.kill()
                result.kills.append(server.phases_processed())
                await server.start()
            with trio.fail_after(600):
                await poll(lambda: status_counts(db)[0].get("finished", 0) >= plan.games, 0.1)
            # Bots whose game ended during the last kill cannot rejoin it: let them go.
            with trio.move_on_after(5):
                await done.wait()
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await server.stop()
    result.rejoins = sum(c.rejoins for c in clients)


async def crash_trial(workdir: Path, plan: CrashPlan) -> CrashResult:
    """Both runs of ``plan`` in ``workdir``; compare with `CrashResult.differences`."""
    result = CrashResult()
    started = time.monotonic()
    await play_reference(workdir / "reference.db", plan)
    result.reference = read_games(workdir / "reference.db")
    total = sum(len(phases) for phases, _ in result.reference.values())
    await play_with_kills(workdir / "crashed.db", plan, total, result, workdir)
    result.crashed = read_games(workdir / "crashed.db")
    result.seconds = time.monotonic() - started
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.crash_harness",
                                     description="SIGKILL the server at random points of "
                                                 "seeded games and check nothing is lost")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--max-year", type=int, default=1910)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--durability", choices=("os", "disk", "commit"), default="os",
                        help="the killed server's --durability (default os)")
    parser.add_argument("--hosted-rounds", type=int, default=21,
                        help="kill rounds of the hosted games' trial (tests.crash_hosted; "
                             "0: none)")
    args = parser.parse_args(argv)
    plan = CrashPlan(games=args.games, max_year=args.max_year, kills=args.kills, seed=args.seed,
                     durability=args.durability)
    configure_logging(sys.stderr, json=False, level=logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="daide-crash-") as tmp:
        result = trio.run(crash_trial, Path(tmp), plan)
    phases = sum(len(p) for p, _ in result.reference.values())
    print(json.dumps({"games": plan.games, "max_year": plan.max_year, "phases": phases,
                      "kills": len(result.kills), "phases_stored_at_each_kill": result.kills,
                      "rejoins": result.rejoins, "seconds": round(result.seconds, 1)}))
    problems = result.differences()
    for line in problems:
        print("DIFFERENCE", line)
    print("OK: every game ended exactly as without a crash" if not problems else
          f"FAILED: {len(problems)} difference(s)")
    if args.hosted_rounds:
        problems += run_hosted(args.hosted_rounds, args.seed)
    return 1 if problems else 0


def run_hosted(rounds: int, seed: int) -> list[str]:
    """The hosted games' trial (`tests.crash_hosted`), printed; its problems."""
    from tests.crash_hosted import HostedPlan, hosted_trial

    with tempfile.TemporaryDirectory(prefix="daide-crash-hosted-") as tmp:
        result = trio.run(hosted_trial, Path(tmp), HostedPlan(rounds=rounds, seed=seed))
    print(json.dumps({"hosted": result.summary()}))
    for line in result.problems:
        print("HOSTED PROBLEM", line)
    print("OK: every hosted game resumed with its settings, port, pause and passcodes; every "
          "admin action killed half-way is wholly there or wholly absent" if not result.problems
          else f"FAILED: {len(result.problems)} hosted problem(s)")
    return result.problems


if __name__ == "__main__":
    sys.exit(main())
