"""Tournaments on a Ray cluster: ``daide tournament ... --ray [ADDRESS]``.

The driver (the ``daide tournament`` process) keeps what it keeps in a local
run - the tournament's SQLite store, the seating plan, the report - and
hands each game of the plan to Ray as one task, `play_on_node`.  Ray does
the rest: placement on a node with a free CPU, the queue, the transport of
the arguments and the result, and the retry of a task whose worker process
or node died.  Nothing here schedules, places or retries by itself.

One task = one whole game on one worker: an embedded `server.app.Server` on
the worker's loopback (a throw-away database in memory) and
that game's seven players - the sample bots in process, ``--external``
programs as subprocesses (so those programs must be installed on every
worker, at the path the command names).  The task returns a `NodeResult`:
the `tournament.play.GameOutcome`, or why the game could not be played, the
node, the worker's log lines, the external programs' output and the
worker's server record of the game (`ServerGame`: the game and its phases,
taken before that server stops), from which the driver writes the game's
replay page (`render.replay`) as ``replays/tournament-game-N.html`` for the
report to link, as a local run's report links ``replays/game-S.html``.

Semantics are those of a local run (`tournament.runner`):

* the same plan, game seeds and scoring - a game played on a worker is the
  game the same seed plays locally;
* a game is marked ``running`` (attempt + 1) when it is handed to Ray and
  ``finished`` with its result in one transaction when the result comes
  back, as results stream in (`ray.wait`), so running the same command
  again after the driver died plays only the games not yet stored;
* a worker or node that dies mid-game makes Ray run the task again from its
  start (``max_retries``; the game is replayed with the same seed), and the
  driver stores the one result that comes back: counted once;
* a game that fails for its bots' reasons is recorded exactly as in a local
  run (bot failures in the outcome, `GameFailed` as a failed game); only
  when Ray gives up on a task (its workers died ``MAX_RETRIES + 1`` times)
  is the game stored as failed with Ray's reason, to be replayed next time.

Flow control: the driver keeps about 1.5 x the cluster's CPUs of games
handed to Ray, so every free CPU finds a queued task at once while the
rest of the plan stays ``pending`` in the store (and the attempt counts
say what was really tried).  Progress - games done / running / queued per
node - comes from a small actor, `ProgressBoard`, that each task tells
where it runs and what turn its game is in.

A Ray on this machine (the local Ray ``--ray`` starts without an address,
or one at a loopback address such as the tests' cluster) runs with
`LOOPBACK_ENV`: every Ray process listens on 127.0.0.1 and talks to
127.0.0.1 only (see `LOOPBACK_ENV` for why each setting is needed).
"""

from __future__ import annotations

import dataclasses
import io
import ipaddress
import json
import logging
import os
import pickle
import signal
import socket
import sys
import tempfile
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, TextIO

import structlog
import trio

from server.logconfig import configure_logging
from tournament.config import TournamentConfig
from tournament.design import GamePlan
from tournament.play import GameContext, GameFailed, GameOutcome, play_game
from tournament.report import worker_replay_name
from tournament.runner import (
    Progress,
    TournamentRun,
    open_store,
    plan_run,
    start_embedded_server,
)
from tournament.store import TournamentStore

log = structlog.get_logger("tournament.cluster")

#: The one line ``--ray`` prints when Ray is not installed.
INSTALL_HINT = "--ray needs Ray, which is not installed: pip install -e '.[cluster]'"
#: Times Ray runs a game's task again after its worker process or node died.
MAX_RETRIES = 3
#: The object store of a Ray started for one run: results are a few kB each.
OBJECT_STORE_BYTES = 128 * 1024 * 1024
#: Bytes of an external program's output shipped back to the driver per seat.
BOT_LOG_LIMIT = 1024 * 1024
#: Seconds the driver waits for a result before it looks at the progress again.
POLL_SECONDS = 0.25


#: Where HTTP from a Ray process on the loopback goes: a loopback port where
#: nothing listens, so such a request fails at once without leaving the machine.
DEAD_END = "http://127.0.0.1:1"
#: The environment of the Ray processes started on this machine's loopback (in
#: the process that starts them: they inherit it), so that every one listens on
#: 127.0.0.1 and talks to 127.0.0.1 only:
#:
#: * Ray takes a node's address from its route to the outside (this machine's
#:   network address), even when told 127.0.0.1, unless multi-node mode is
#:   off - read once, when ``ray`` is imported.  Off, the nodes, the driver
#:   and the workers all use 127.0.0.1, and Ray's servers bind it alone.
#:   (``ray start --address`` then refuses to add a node; the tests add their
#:   second node with `ray.cluster_utils.Cluster`, which does not ask.)
#: * No usage statistics, and the "statistics are off" note Ray sends anyway
#:   goes to `DEAD_END`.
#: * Ray's API server asks the cloud metadata services (169.254.169.254,
#:   metadata.google.internal) which cloud it runs on, statistics or not:
#:   HTTP to any host but the loopback goes to `DEAD_END` as a proxy.  The
#:   workers of the local Ray started for a run get the caller's own proxy
#:   settings back (`worker_env`), so the ``--external`` programs they start
#:   see the environment they would see in a local run.
LOOPBACK_ENV: dict[str, str] = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_USAGE_STATS_REPORT_URL": DEAD_END,
    **{name: DEAD_END for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")},
    **{name: "127.0.0.1,localhost,::1" for name in ("no_proxy", "NO_PROXY")},
}
#: The variables of `LOOPBACK_ENV` the workers get back as the caller had them.
PROXY_VARS = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY")


class ClusterError(Exception):
    """Ray missing or unreachable (a one-line message for the command line)."""


def on_loopback(address: str | None) -> bool:
    """Whether ``address`` (as ``--ray`` takes it) is a Ray on this machine's loopback.

    None - the local Ray started for the run - is; so are ``127.x.x.x``,
    ``localhost`` and ``::1`` (``HOST:PORT`` or ``ray://HOST:PORT``).  ``auto``
    is not: it names whatever cluster runs here, on whatever address.
    """
    if address is None:
        return True
    host = address.removeprefix("ray://").rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` for the block, the previous values after."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def worker_env() -> dict[str, str]:
    """The proxy settings of this process, for the workers of a local Ray ("" = unset)."""
    return {name: os.environ.get(name, "") for name in PROXY_VARS}


def require_ray(address: str | None = None) -> ModuleType:
    """The ``ray`` module, or `ClusterError` with `INSTALL_HINT`.

    For a Ray on the loopback (`on_loopback`) ``ray`` is imported with
    `LOOPBACK_ENV`, which switches multi-node mode off for this process.
    """
    loopback = on_loopback(address)
    imported = "ray" in sys.modules
    try:
        with environment(LOOPBACK_ENV if loopback and not imported else {}):
            import ray
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    if loopback and imported:
        # Imported before, maybe without LOOPBACK_ENV (a notebook, a test): the
        # same switch, where Ray reads it when it looks for this node's address.
        ray._private.ray_constants.ENABLE_RAY_CLUSTER = False
    return ray


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def node_label(ip: str, node_id: str) -> str:
    """How a node is named in the progress and the report: its address and id.

    The id (its first 8 hex digits) tells apart nodes that share an address,
    as the nodes of a test cluster on one machine do.
    """
    return f"{ip}#{node_id[:8]}"


# --- the worker's side ----------------------------------------------------------------


@dataclass(frozen=True)
class NodeResult:
    """What one game's task sends back to the driver."""

    number: int
    attempt: int
    node: str
    pid: int
    started_at: str
    """UTC time the task began the game (after its wait in Ray's queue)."""
    outcome: GameOutcome | None
    error: str | None
    """Why the game could not be played (`GameFailed`); None when it was."""
    task_seconds: float
    """The task's whole run: the game plus the embedded server's start and stop."""
    log_lines: tuple[str, ...]
    bot_logs: tuple[tuple[str, bytes], ...]
    """(file name, output) of every external program of the game."""
    server_game: bytes | None = None
    """The worker's `ServerGame`, pickled and zlib-compressed; None when not to be had."""


@dataclass(frozen=True)
class ServerGame:
    """A game's server record (`server.store`) as a worker's server stored it.

    A game's phases (position and orders, about 3 kB of DAIDE text each) are
    what Ray ships, compressed to ~5 kB for a four-year game: the replay page
    made from them is ~1 MB of SVG (~200 kB compressed), and the driver makes
    it in ~35 ms.  It has the two methods `render.replay.game_replay` reads.
    """

    record: Any
    """`server.store.GameRecord`."""
    phase_records: tuple[Any, ...]
    """`server.store.PhaseRecord` of every processed phase, the start first."""

    def game(self, game_id: int) -> Any:
        return self.record

    def phases(self, game_id: int) -> list[Any]:
        return list(self.phase_records)


class ProgressBoard:
    """Ray actor: the node, worker process and turn of every game a task began.

    A task says `started`, then `update` at every turn, never waiting for an
    answer (a task blocked in `ray.get` lends its CPU to the next task); the
    driver reads `snapshot` a few times a second and, per result, `finished`.
    Only the progress and the retry count depend on it: a lost board (its
    node died) leaves the results and the store untouched.
    """

    def __init__(self) -> None:
        self._games: dict[int, tuple[str, int, str]] = {}
        self._starts: dict[int, int] = {}

    def started(self, number: int, node: str, pid: int) -> None:
        self._starts[number] = self._starts.get(number, 0) + 1
        self._games[number] = (node, pid, "joining")

    def finished(self, number: int) -> int:
        """Forget game ``number`` (its result is in); how many times a task began it."""
        self._games.pop(number, None)
        return self._starts.pop(number, 0)

    def update(self, number: int, node: str, pid: int, turn: str) -> None:
        self._games[number] = (node, pid, turn)

    def snapshot(self) -> dict[int, tuple[str, int, str]]:
        """game -> (node, worker pid, turn)."""
        return dict(self._games)


def play_on_node(config: TournamentConfig, plan: GamePlan, attempt: int, tag: str,
                 board: Any) -> NodeResult:
    """The Ray task of one game (see the module docstring); runs on a worker."""
    import ray

    ip = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    node = node_label(ip, ray.get_runtime_context().get_node_id())
    pid = os.getpid()
    began = time.monotonic()
    started_at = _utc_now()

    def tell(turn: str | None) -> None:
        if board is not None:
            try:
                if turn is None:
                    board.started.remote(plan.number, node, pid)
                else:
                    board.update.remote(plan.number, node, pid, turn)
            except Exception:  # noqa: BLE001 - progress only; the game goes on
                pass

    tell(None)
    buffer = io.StringIO()
    configure_logging(buffer, json=True, level=logging.INFO)
    outcome: GameOutcome | None = None
    error: str | None = None
    stored: list[bytes] = []
    try:
        with tempfile.TemporaryDirectory(prefix=f"daide-game{plan.number}-") as tmp:
            work = Path(tmp)
            # The worker's own embedded server, on a database in memory: the
            # result travels back in the return value, and a file's schema and
            # syncs would cost 50 ms a game (the driver's directory is not here).
            here = dataclasses.replace(config, out=work, db=Path(":memory:"), server=None)
            try:
                outcome = trio.run(_play_here, here, plan, attempt, tag, tell, stored)
            except GameFailed as exc:
                error = str(exc)
            bot_logs = _read_logs(work / "logs")
    finally:
        structlog.reset_defaults()
    extra = {"node": node, "tournament_game": plan.number}
    lines = tuple(_tagged(line, extra) for line in buffer.getvalue().splitlines() if line)
    return NodeResult(plan.number, attempt, node, pid, started_at, outcome, error,
                      time.monotonic() - began, lines, bot_logs,
                      stored[0] if stored and outcome is not None else None)


async def _play_here(config: TournamentConfig, plan: GamePlan, attempt: int, tag: str,
                     on_turn: Callable[[str], None], stored: list[bytes]) -> GameOutcome:
    """Play the game; its compressed `ServerGame` is appended to ``stored``."""
    async with trio.open_nursery() as nursery:
        host, port, server = await start_embedded_server(nursery, config)
        ctx = GameContext(host=host, port=port, config=config, join_lock=trio.Lock(), tag=tag,
                          enforce_year_limit=False, log_dir=config.out / "logs")
        try:
            outcome = await play_game(plan, attempt, ctx, on_turn)
            # Now, while the server and its database in memory are still there.
            record = _server_game(server, plan.number)
            if record is not None:
                stored.append(record)
            return outcome
        finally:
            server.stop()


def _server_game(server: Any, number: int) -> bytes | None:
    """The `ServerGame` of the one game of this worker's server, pickled and compressed.

    A record that cannot be read costs the game its replay only (logged),
    never its result.
    """
    try:
        store = server.lobby.store
        games = store.games()  # this server was started for this one game
        if not games:
            return None
        game = ServerGame(games[-1], tuple(store.phases(games[-1].id)))
        return zlib.compress(pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL), 6)
    except Exception as exc:  # noqa: BLE001 - the result matters more than its replay
        log.warning("replay_failed", game=number, error=f"{type(exc).__name__}: {exc}")
        return None


def _read_logs(folder: Path) -> tuple[tuple[str, bytes], ...]:
    if not folder.is_dir():
        return ()
    out = []
    for path in sorted(folder.glob("*.log")):
        with path.open("rb") as f:
            data = f.read(BOT_LOG_LIMIT + 1)
        if len(data) > BOT_LOG_LIMIT:
            data = data[:BOT_LOG_LIMIT] + b"\n[output cut at 1 MiB on the worker]\n"
        out.append((path.name, data))
    return tuple(out)


def _tagged(line: str, extra: Mapping[str, Any]) -> str:
    """A worker's JSON log line with the node and the tournament's game number added."""
    try:
        event = json.loads(line)
    except ValueError:
        return json.dumps({**extra, "event": line})
    return json.dumps({**event, **extra}) if isinstance(event, dict) else line


# --- the driver's side ----------------------------------------------------------------


@contextmanager
def connected(ray: Any, address: str | None, cpus: int) -> Iterator[None]:
    """Connect to the cluster at ``address`` (None: start a local Ray of ``cpus`` CPUs).

    A Ray already connected in this process (a test, a notebook) is used as
    it is and left connected.
    """
    if ray.is_initialized():
        yield
        return
    options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address is not None:
        check_reachable(address)
    own_env = worker_env()
    try:
        with environment(LOOPBACK_ENV if on_loopback(address) else {}):
            if address is None:
                # "local": a new Ray of our own even when another runs on this machine.
                # Its processes inherit LOOPBACK_ENV; its workers get our proxies back.
                ray.init(address="local", num_cpus=cpus, include_dashboard=False,
                         object_store_memory=OBJECT_STORE_BYTES,
                         runtime_env={"env_vars": own_env}, **options)
            else:
                ray.init(address=address, **options)
    except (ConnectionError, ValueError, RuntimeError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterError(f"cannot start or reach {where}: {first}") from None
    try:
        yield
    finally:
        ray.shutdown()


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """`ClusterError` at once when nothing answers at ``HOST:PORT`` / ``ray://HOST:PORT``.

    `ray.init` would go on retrying an address where nothing listens for
    minutes, printing a warning every few seconds; ``auto`` is left to Ray
    (it fails at once when no cluster runs on this machine).
    """
    where = address.removeprefix("ray://")
    host, colon, port = where.rpartition(":")
    if not colon or not port.isdigit():
        if address != "auto":
            raise ClusterError(f"--ray {address!r}: expected auto, HOST:PORT or ray://HOST:PORT")
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ClusterError(f"no Ray cluster answers at {address}: {exc.strerror or exc}") from None


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT/SIGTERM set ``stop`` (the driver then cancels its games and returns)."""
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def run_tournament_ray(config: TournamentConfig, address: str | None, *,
                       on_progress: Callable[[Progress], None] | None = None,
                       worker_log: TextIO | None = None,
                       handle_signals: bool = False) -> TournamentRun | None:
    """Play (or continue) ``config``'s tournament on Ray; None when interrupted.

    ``address`` is what `ray.init` takes (``auto``, ``HOST:PORT``,
    ``ray://HOST:10001``); None starts a local Ray with ``config.parallel``
    CPUs for this run.  The workers' log lines go to ``worker_log``;
    ``handle_signals`` makes SIGINT/SIGTERM stop the run cleanly (the games
    in flight are cancelled and played again by the next run).
    """
    ray = require_ray(address)
    store = open_store(config)
    try:
        run = plan_run(config, store)
        tid = run.tid
        played = failed = 0
        if run.todo:
            stop = threading.Event()
            with connected(ray, address, config.parallel):
                driver = _Driver(ray, config, store, tid, run.todo, run.done_before, on_progress,
                                 worker_log, stop)
                if handle_signals:
                    with _stop_on_signals(stop):
                        driver.run()
                else:
                    driver.run()
            if stop.is_set():
                return None
            played, failed = driver.played, driver.failed
        complete = all(g.status == "finished" for g in store.games(tid))
        if complete:
            store.mark_complete(tid)
        return TournamentRun(tid, config.db_path, played, failed, complete, run.resumed,
                             run.extended_from)
    finally:
        store.close()


@dataclass
class _InFlight:
    plan: GamePlan
    attempt: int
    submitted: float


class _Driver:
    """The loop of one Ray run: hand games to Ray, store results as they come."""

    def __init__(self, ray: Any, config: TournamentConfig, store: TournamentStore, tid: int,
                 todo: list[GamePlan], done_before: int,
                 on_progress: Callable[[Progress], None] | None, worker_log: TextIO | None,
                 stop: threading.Event) -> None:
        self.ray = ray
        self.config = config
        self.store = store
        self.tid = tid
        self.pending = deque(todo)
        self.total = len(todo) + done_before
        self.done = done_before
        self.done_before = done_before
        self.on_progress = on_progress
        self.worker_log = worker_log
        self.stop = stop
        self.played = 0
        self.failed = 0
        self.bot_failures = 0
        self.in_flight: dict[Any, _InFlight] = {}
        self.board: Any = None
        self.done_on: dict[str, int] = {}
        self.board_view: dict[int, tuple[str, int, str]] = {}
        self.began = time.monotonic()

    # --- Ray ---------------------------------------------------------------------

    def _board(self) -> Any:
        """The progress actor, kept on the driver's node when Ray can say which it is."""
        ray = self.ray
        options: dict[str, Any] = {"num_cpus": 0, "max_restarts": -1}
        try:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(
                ray.get_runtime_context().get_node_id(), soft=True)
        except Exception:  # noqa: BLE001 - e.g. a Ray Client driver has no node
            pass
        return ray.remote(ProgressBoard).options(**options).remote()

    def _window(self) -> int:
        """Games handed to Ray at once: the cluster's CPUs and half as many again."""
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        return max(1, cpus) + max(1, cpus // 2)

    def run(self) -> None:
        ray = self.ray
        task = ray.remote(play_on_node).options(num_cpus=1, max_retries=MAX_RETRIES,
                                                retry_exceptions=False)
        self.board = board = self._board() if self.on_progress is not None else None
        tag = f"T{self.tid}"
        window = self._window()
        sized = looked = time.monotonic()
        self.began = time.monotonic()
        while self.pending or self.in_flight:
            if self.stop.is_set():
                for ref in self.in_flight:
                    ray.cancel(ref, force=True)
                log.info("interrupted", in_flight=len(self.in_flight), pending=len(self.pending))
                return
            now = time.monotonic()
            if now - sized > 5.0:  # nodes may join or leave while the run goes on
                window, sized = self._window(), now
            while self.pending and len(self.in_flight) < window:
                plan = self.pending.popleft()
                attempt = self.store.begin_game(self.tid, plan.number)
                ref = task.remote(self.config, plan, attempt, tag, board)
                self.in_flight[ref] = _InFlight(plan, attempt, time.monotonic())
            ready, _ = ray.wait(list(self.in_flight), num_returns=1, timeout=POLL_SECONDS)
            if ready:
                rest = [r for r in self.in_flight if r not in ready]
                more, _ = ray.wait(rest, num_returns=len(rest), timeout=0) if rest else ([], [])
                for ref in [*ready, *more]:
                    self._collect(ref)
            if board is not None and time.monotonic() - looked > 0.5:
                looked = time.monotonic()
                try:
                    self.board_view = ray.get(board.snapshot.remote(), timeout=2.0)
                except Exception:  # noqa: BLE001 - progress only
                    pass
            self._report()

    def _collect(self, ref: Any) -> None:
        """Store one game's result (or why Ray gave up on it)."""
        ray = self.ray
        flight = self.in_flight.pop(ref)
        number = flight.plan.number
        seconds = time.monotonic() - flight.submitted
        try:
            result: NodeResult = ray.get(ref)
        except ray.exceptions.TaskCancelledError:
            return
        except ray.exceptions.RayTaskError as exc:
            # A bug, not a bot: the game's task raised (Ray does not retry it).
            cause = exc.cause if exc.cause is not None else exc
            self._failed(number, f"the game's task raised {type(cause).__name__}: {cause}",
                         seconds, "?")
            return
        except ray.exceptions.RayError as exc:
            # The worker or node died MAX_RETRIES + 1 times: Ray gave up.
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            self._failed(number, f"Ray gave up: {type(exc).__name__}: {first}", seconds, "?")
            return
        self._write_logs(result)
        note = None
        tries = self._tries(number)
        if tries > 1:
            note = f"try {tries}: Ray ran the game again after its worker died"
            log.warning("game_retried", game=number, tries=tries, node=result.node)
        if result.outcome is None:
            self._failed(number, result.error or "no result", result.task_seconds, result.node)
            return
        outcome = result.outcome
        if result.server_game is not None:  # before the game is stored: a finished game has it
            self._write_replay(number, result.server_game)
        self.store.add_failures(self.tid, number, result.attempt, outcome.failures)
        self.store.finish_game(
            self.tid, number, ending=outcome.ending, end_turn=outcome.end_turn,
            winner=outcome.winner, seats=outcome.seat_results(flight.plan),
            history=outcome.history, server_game_id=None, seconds=outcome.seconds,
            note=note, node=result.node, started_at=result.started_at)
        self.done += 1
        self.played += 1
        self.bot_failures += len(outcome.failures)
        self.done_on[result.node] = self.done_on.get(result.node, 0) + 1
        log.info("game_done", game=number, node=result.node, tries=tries,
                 ending=outcome.ending,
                 seconds=round(outcome.seconds, 3), task_seconds=round(result.task_seconds, 3),
                 round_trip=round(seconds, 3),
                 record_bytes=len(result.server_game or b""))

    def _tries(self, number: int) -> int:
        """How many times a task began the game (1 when there is no board to ask)."""
        if self.board is None:
            return 1
        try:
            return max(1, int(self.ray.get(self.board.finished.remote(number), timeout=2.0)))
        except Exception:  # noqa: BLE001 - the count is for the log only
            return 1

    def _failed(self, number: int, why: str, seconds: float, node: str) -> None:
        log.error("game_failed", game=number, error=why, node=node)
        self.store.fail_game(self.tid, number, why, seconds, node=node)
        self.failed += 1

    def _write_replay(self, number: int, compressed: bytes) -> None:
        """``replays/tournament-game-N.html`` from a worker's `ServerGame`."""
        from maps import MapError
        from render import RenderError
        from render.replay import game_replay

        try:
            game = pickle.loads(zlib.decompress(compressed))
            page = game_replay(game, game.record.id, title=f"Tournament game {number}")
        except (zlib.error, pickle.UnpicklingError, MapError, RenderError) as exc:
            log.warning("replay_failed", game=number, error=f"{type(exc).__name__}: {exc}")
            return
        folder = self.config.out / "replays"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / worker_replay_name(number)).write_text(page, encoding="utf-8")

    def _write_logs(self, result: NodeResult) -> None:
        if self.worker_log is not None and result.log_lines:
            self.worker_log.write("\n".join(result.log_lines) + "\n")
            self.worker_log.flush()
        if result.bot_logs:
            folder = self.config.out / "logs"
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in result.bot_logs:
                with (folder / name).open("ab") as f:
                    f.write(data)

    def _report(self) -> None:
        if self.on_progress is None:
            return
        flying = {f.plan.number for f in self.in_flight.values()}
        running = {n: turn for n, (_node, _pid, turn) in self.board_view.items() if n in flying}
        nodes: dict[str, tuple[int, int]] = {k: (v, 0) for k, v in self.done_on.items()}
        for n, (node, _pid, _turn) in self.board_view.items():
            if n in flying:
                done, now = nodes.get(node, (0, 0))
                nodes[node] = (done, now + 1)
        queued = len(self.pending) + len(flying) - len(running)
        self.on_progress(Progress(
            self.total, self.done, self.failed, dict(sorted(running.items())),
            time.monotonic() - self.began, self.bot_failures, done_before=self.done_before,
            queued=queued, nodes=nodes))
