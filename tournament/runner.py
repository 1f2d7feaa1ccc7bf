"""Run a whole tournament: the plan, the server, K games at a time, resume.

`run_tournament` is the entry point (``daide tournament``, the tests):

1. the plan (`tournament.design.schedule`) is made from the config's seed;
2. the tournament is looked up in the database by its identity
   (`TournamentConfig.identity`) - found, it continues: only the games not
   yet finished are played (see `tournament.store` for why a game cut off
   half way is replayed from its start); not found, a tournament that differs
   only by having fewer games, whose plan is the start of this one, is
   extended (its games count, the new ones are added); one that differs only
   by having more games, whose plan begins with this one, means this one was
   extended before (`TournamentExtended`: it is asked for by its new count);
   else it is created with its whole plan;
3. without ``--server`` the real server (`server.app.Server`) is started on
   a free loopback port with the same database, the year limit as its
   ``max_year`` house rule and a short ``disorder_grace``, and stopped
   gracefully at the end; with ``--server HOST:PORT`` the games are played
   there and the tournament applies the year limit itself;
4. ``parallel`` workers take games from the plan; each game joins under
   one shared lock (`tournament.play`) and then plays alongside the others;
   each result is stored as soon as its game ends.

Progress is reported through ``on_progress`` with a `Progress` value after
every change (a game starting, a new turn, a game ending).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import structlog
import trio

from server.app import Server
from server.settings import GameSettings, ServerSettings
from tournament.config import TournamentConfig
from tournament.design import GamePlan, schedule
from tournament.play import GameContext, GameFailed, play_game
from tournament.store import TournamentStore, TournamentStoreError

log = structlog.get_logger("tournament")


class TournamentExtended(TournamentStoreError):
    """The tournament asked for was extended: the database holds it with more games.

    Playing the shorter one anew would replay games the database already has, and
    its report would leave out the ones added; so neither is done."""

    def __init__(self, config: TournamentConfig, games: int) -> None:
        super().__init__(f"this tournament was extended to {games} games in {config.db_path}: "
                         f"ask for --games {games} (its report covers every game)")


@dataclass(frozen=True)
class Progress:
    """A snapshot for the progress bar."""

    total: int
    done: int
    """Games finished (in this run or before it)."""
    failed: int
    """Games that could not be played in this run."""
    running: Mapping[int, str]
    """Game number -> its current turn (``"joining"`` before the start)."""
    elapsed: float
    bot_failures: int
    done_before: int = 0
    """Games finished before this run began (they do not count towards the ETA)."""
    queued: int = 0
    """Games waiting for a place to run (a Ray run: not yet started on a node)."""
    nodes: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """Ray run: node label -> (games done there in this run, games running there)."""

    @property
    def eta(self) -> float | None:
        """Seconds until every game is done at this run's pace so far (None before the first)."""
        finished = self.done + self.failed - self.done_before
        left = self.total - self.done - self.failed
        if finished <= 0 or self.elapsed <= 0:
            return None
        return left * self.elapsed / finished


@dataclass(frozen=True)
class TournamentRun:
    """What one call of `run_tournament` did."""

    tournament_id: int
    db_path: Path
    played: int
    """Games played to an end in this run."""
    failed: int
    complete: bool
    """Every game of the plan is finished."""
    resumed: bool
    """The tournament existed before this run."""
    extended_from: int = 0
    """The games the tournament had before this run extended it (0: not extended)."""


@dataclass(frozen=True)
class RunPlan:
    """The tournament a run plays (`plan_run`)."""

    tid: int
    resumed: bool
    """It existed before this run."""
    todo: list[GamePlan]
    """Its games still to play."""
    done_before: int
    """Its games finished before this run."""
    extended_from: int = 0
    """The games it had before this run extended it (0: not extended)."""


async def start_embedded_server(nursery: trio.Nursery, config: TournamentConfig
                                ) -> tuple[str, int, Server]:
    """Start `server.app.Server` on 127.0.0.1 with a free port; returns (host, port, server)."""
    settings = ServerSettings(host="127.0.0.1", port=0, db_path=config.db_path,
                              game=GameSettings(max_year=config.max_year),
                              disorder_grace=config.disorder_grace, shutdown_grace=2.0)
    server = Server(settings)
    listeners = await nursery.start(server.run)
    return "127.0.0.1", int(listeners[0].socket.getsockname()[1]), server


async def run_tournament(config: TournamentConfig, *,
                         on_progress: Callable[[Progress], None] | None = None
                         ) -> TournamentRun:
    """Play (or continue) the tournament ``config`` describes; see the module doc."""
    store = open_store(config)
    try:
        run = plan_run(config, store)
        played, failed = await _play_all(config, store, run.tid, run.todo, run.done_before,
                                         on_progress)
        complete = all(g.status == "finished" for g in store.games(run.tid))
        if complete:
            store.mark_complete(run.tid)
        return TournamentRun(run.tid, config.db_path, played, failed, complete, run.resumed,
                             run.extended_from)
    finally:
        store.close()


def open_store(config: TournamentConfig) -> TournamentStore:
    """The tournament database of ``config`` (its directories made first)."""
    config.out.mkdir(parents=True, exist_ok=True)
    config.db_path.parent.mkdir(parents=True, exist_ok=True)
    return TournamentStore.open(config.db_path)


def plan_run(config: TournamentConfig, store: TournamentStore) -> RunPlan:
    """Find, extend or create the tournament of ``config`` (the module doc, step 2)."""
    plans = schedule([b.name for b in config.bots], config.games, config.seed, config.powers)
    identity = config.identity()
    found = find_tournament(config, store)
    extended_from = 0
    if found is None:
        shorter = _same_but_games(config, store, plans, longer=False)
        if shorter is not None:
            found, extended_from = shorter
            store.extend(found, identity, plans)
    tid = found if found is not None else store.create(identity, plans)
    stored = store.games(tid)
    todo = [g.plan for g in stored if g.status != "finished"]
    done_before = len(stored) - len(todo)
    log.info("tournament", id=tid, games=len(stored), to_play=len(todo),
             resumed=found is not None, extended_from=extended_from or None)
    return RunPlan(tid, found is not None, todo, done_before, extended_from)


def find_tournament(config: TournamentConfig, store: TournamentStore) -> int | None:
    """The stored tournament of ``config``; None when there is none.

    Raises `TournamentExtended` when the database holds it extended to more games."""
    found = store.find(config.identity())
    if found is None:
        plans = schedule([b.name for b in config.bots], config.games, config.seed, config.powers)
        longer = _same_but_games(config, store, plans, longer=True)
        if longer is not None:
            raise TournamentExtended(config, longer[1])
    return found


def _same_but_games(config: TournamentConfig, store: TournamentStore,
                    plans: Sequence[GamePlan], *, longer: bool) -> tuple[int, int] | None:
    """(id, games) of the newest stored tournament with ``config``'s identity but
    more games (``longer``) or fewer, the shorter plan the start of the longer one.

    A seed's plan for more games begins with its plan for fewer when whole cycles of
    seats come first (`tournament.design`): so a shorter tournament can be extended
    to ``config``'s, and a longer one is ``config``'s, extended before."""
    wanted = json.loads(config.identity())
    for tid, identity in store.tournaments():
        other = json.loads(identity)
        games = other.get("games")
        if not isinstance(games, int) or games <= 0 or games == config.games:
            continue
        if (games > config.games) != longer or {**other, "games": config.games} != wanted:
            continue
        shared = min(games, config.games)
        if [g.plan for g in store.games(tid)][:shared] == list(plans[:shared]):
            return tid, games
    return None


async def _play_all(config: TournamentConfig, store: TournamentStore, tid: int,
                    todo: list[GamePlan], done_before: int,
                    on_progress: Callable[[Progress], None] | None) -> tuple[int, int]:
    if not todo:
        return 0, 0
    began = time.monotonic()
    running: dict[int, str] = {}
    counts = {"done": done_before, "failed": 0, "played": 0, "bot_failures": 0}

    def report() -> None:
        if on_progress is not None:
            on_progress(Progress(len(todo) + done_before, counts["done"], counts["failed"],
                                 dict(sorted(running.items())), time.monotonic() - began,
                                 counts["bot_failures"], done_before=done_before))

    async with trio.open_nursery() as nursery:
        server: Server | None = None
        if config.server is None:
            host, port, server = await start_embedded_server(nursery, config)
        else:
            host, port = config.server
        ctx = GameContext(host=host, port=port, config=config, join_lock=trio.Lock(),
                          tag=f"T{tid}", enforce_year_limit=config.server is not None,
                          log_dir=config.out / "logs", find_server_game=store.server_game)
        send, receive = trio.open_memory_channel[GamePlan](math.inf)
        for plan in todo:
            send.send_nowait(plan)
        send.close()

        async def worker(plans: trio.MemoryReceiveChannel[GamePlan]) -> None:
            async with plans:
                async for plan in plans:
                    await play_one(plan)

        async def play_one(plan: GamePlan) -> None:
            attempt = store.begin_game(tid, plan.number)
            running[plan.number] = "joining"
            report()

            def on_turn(turn: str) -> None:
                running[plan.number] = turn
                report()

            started = time.monotonic()
            try:
                outcome = await play_game(plan, attempt, ctx, on_turn)
            except GameFailed as exc:
                log.error("game_failed", game=plan.number, error=str(exc))
                store.fail_game(tid, plan.number, str(exc), time.monotonic() - started)
                counts["failed"] += 1
            else:
                store.add_failures(tid, plan.number, attempt, outcome.failures)
                store.finish_game(
                    tid, plan.number, ending=outcome.ending, end_turn=outcome.end_turn,
                    winner=outcome.winner, seats=outcome.seat_results(plan),
                    history=outcome.history, server_game_id=outcome.server_game_id,
                    seconds=outcome.seconds)
                counts["done"] += 1
                counts["played"] += 1
                counts["bot_failures"] += len(outcome.failures)
            finally:
                running.pop(plan.number, None)
            report()

        async with trio.open_nursery() as workers:
            for _ in range(min(config.parallel, len(todo))):
                workers.start_soon(worker, receive.clone())
        receive.close()
        if server is not None:
            server.stop()
    return counts["played"], counts["failed"]
