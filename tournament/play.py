"""One game of the tournament, played over TCP on a DAIDE server.

`play_game` seats the plan's bots, watches the game with an observer and
returns a `GameOutcome`.  The steps:

1. **Join, in order, under the join lock.**  The server puts an ``NME`` in
   the oldest game that is still forming (`server.lobby`), so games that
   form at the same time would mix their players.  The tournament's games
   therefore join one at a time (``GameContext.join_lock``): each seat, in
   power order, waits until the server has given it the map; the observer
   joins after the first seat (an ``OBS`` watches the newest unfinished
   game, which is this one); the lock is released once the game has started
   (``HLO``).  Every seat asks for its power by name (``'FRA:DumbBot#tag'``,
   docs/protocol.md §8.1), so the plan - not timing - decides who plays what.
2. **Play.**  Sample bots run in process (`bots.client.BotClient`, one
   socket each); external programs run as subprocesses behind a
   `tournament.proxy.SeatProxy`.  The observer's messages go to a
   `bots.record.GameWatcher`, which keeps the centre counts after every phase.
3. **End.**  The server ends the game (solo, or its ``max_year`` draw);
   on a server that does not apply the year limit the tournament ends it
   itself once the last autumn of the limit year is behind ("year-limit");
   when the wall-clock ``time_limit`` passes the game is scored as it
   stands ("time-limit").  Both are draws among the survivors.

Failures never stop a game.  An external bot that does not join in time is
replaced by a stand-in that takes the seat and leaves at once (so the power
is in civil disorder from the start); a bot whose program ends early, or
that the proxy finds hung, leaves its power in civil disorder (``CCD``) and
the server plays on without it.  Each failure is returned in
`GameOutcome.failures`.  Only a game that cannot be played at all (the
server unreachable, the game never starting, the observer lost) raises
`GameFailed`.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import structlog
import trio

from bots.client import BotClient, ClientError, ClientSettings
from bots.holdbot import HoldBot
from bots.link import Received
from bots.record import GameWatcher
from bots.registry import make_strategy
from bots.strategy import Searching
from protocol.messages import Hlo, Now, Off, Smr
from tournament.config import BotEntry, TournamentConfig
from tournament.design import GamePlan
from tournament.proxy import SeatProxy
from tournament.scoring import GameResult
from tournament.stats import result_of
from tournament.store import Failure, SeatResult

log = structlog.get_logger("tournament.play")

#: Seconds an external program gets to exit after SIGTERM before SIGKILL.
KILL_GRACE = 2.0
#: Seconds the players get to leave by themselves after the server's SMR/OFF.
END_GRACE = 2.0


class GameFailed(Exception):
    """The game could not be played to an end (it is not scored)."""


@dataclass(frozen=True)
class GameContext:
    """What every game of one run shares."""

    host: str
    port: int
    config: TournamentConfig
    join_lock: trio.Lock
    tag: str
    """Prefix of the seat names, e.g. ``T3`` (tournament 3)."""
    enforce_year_limit: bool
    """True when the server does not apply the year limit itself."""
    log_dir: Path
    find_server_game: Callable[[str, int, str], int | None] = lambda p, c, n: None


@dataclass(frozen=True)
class GameOutcome:
    """How one game ended."""

    number: int
    attempt: int
    ending: str
    """``solo``, ``draw`` (the server's), ``year-limit`` or ``time-limit``."""
    end_turn: str | None
    winner: str | None
    centres: Mapping[str, int]
    units: Mapping[str, int]
    history: tuple[tuple[str, Mapping[str, int]], ...]
    """(turn, centres per power) after every phase, the start first."""
    failures: tuple[Failure, ...]
    problems: Mapping[str, int]
    """power -> orders refused, HUH, REJ... met by an in-process bot."""
    cut: Mapping[str, int]
    """power -> phases an in-process bot's search was cut short by its CPU limit
    (`bots.strategy.Searching`)."""
    server_game_id: int | None
    seconds: float

    @property
    def result(self) -> GameResult:
        return result_of(self.centres, self.units, self.winner)

    def seat_results(self, plan: GamePlan) -> list[SeatResult]:
        survivors = self.result.survivors
        return [SeatResult(power, bot, self.centres.get(power, 0), self.units.get(power, 0),
                           power in survivors, self.problems.get(power, 0),
                           self.cut.get(power))
                for power, bot in plan.seats]


@dataclass(eq=False)
class _Seat:
    """One power's player during the game (mutable bookkeeping)."""

    power: str
    bot: str
    name: str = ""
    client: BotClient | None = None
    proxy: SeatProxy | None = None
    failure: Failure | None = None
    exited: trio.Event = field(default_factory=trio.Event)

    def fail(self, kind: str, detail: str) -> None:
        if self.failure is None:
            self.failure = Failure(self.power, self.bot, kind, detail)
            log.warning("bot_failed", power=self.power, bot=self.bot, kind=kind, detail=detail)

    @property
    def joined(self) -> bool:
        if self.client is not None:
            return self.client.joined
        return self.proxy is not None and self.proxy.accepted.is_set()

    @property
    def passcode(self) -> int | None:
        if self.client is not None:
            return self.client.tracker.passcode
        return self.proxy.passcode if self.proxy is not None else None


def _past_limit(turn: Any, max_year: int) -> bool:
    """The last autumn of ``max_year`` is behind (the server's max-year rule)."""
    return int(turn.year) > max_year or (int(turn.year) == max_year and turn.season == "WIN")


class _Game:
    """The tasks and the record of one game (see the module docstring)."""

    def __init__(self, plan: GamePlan, attempt: int, ctx: GameContext,
                 on_turn: Callable[[str], None]) -> None:
        self.plan = plan
        self.attempt = attempt
        self.ctx = ctx
        self.on_turn = on_turn
        self.tag = f"{ctx.tag}.G{plan.number}.{attempt}"
        self.watcher = GameWatcher(powers=ctx.config.powers, players=plan.lineup)
        self.started = trio.Event()
        self.ended = trio.Event()
        self.declared: str | None = None
        self.seats = [_Seat(power, bot) for power, bot in plan.seats]

    # --- the observer ----------------------------------------------------------------

    def on_observed(self, received: Received) -> None:
        match self.watcher.on_message(received):
            case Hlo():
                self.started.set()
            case Now() if self.watcher.position is not None:
                turn = self.watcher.position.turn
                self.on_turn(str(turn))
                if (self.ctx.enforce_year_limit and not self.watcher.finished
                        and _past_limit(turn, self.ctx.config.max_year)):
                    self.declared = "year-limit"
                    self.ended.set()
            case Smr() | Off():
                self.ended.set()

    async def run_observer(self, *, task_status: trio.TaskStatus[Any]
                           = trio.TASK_STATUS_IGNORED) -> None:
        c = self.ctx
        observer = BotClient(None, ClientSettings(host=c.host, port=c.port,
                                                  name=f"observer#{self.tag}", observer=True),
                             on_message=self.on_observed)
        try:
            await observer.run(task_status=task_status)
        except (ClientError, OSError) as exc:
            log.error("observer_failed", game=self.plan.number, error=str(exc))
            if not observer.joined:
                task_status.started(None)
        finally:
            self.ended.set()

    # --- seats -------------------------------------------------------------------------

    async def join(self, nursery: trio.Nursery) -> None:
        """Seat every power (the caller holds the join lock), then wait for HLO."""
        for index, seat in enumerate(self.seats):
            entry = self.ctx.config.entry(seat.bot)
            if entry.external:
                await self.join_external(nursery, seat, entry)
            else:
                await self.join_in_process(nursery, seat, entry)
            if not seat.joined:
                await self.join_stand_in(nursery, seat)
            if index == 0:
                await nursery.start(self.run_observer)
        with trio.move_on_after(self.ctx.config.join_timeout):
            await self.started.wait()
        if not self.started.is_set():
            raise GameFailed(f"the game did not start within {self.ctx.config.join_timeout:g} s")

    async def join_in_process(self, nursery: trio.Nursery, seat: _Seat, entry: BotEntry) -> None:
        assert entry.strategy is not None
        strategy = make_strategy(entry.strategy)
        seat.name = f"{seat.power}:{strategy.name}#{self.tag}"
        seat.client = BotClient(strategy, ClientSettings(
            host=self.ctx.host, port=self.ctx.port, name=seat.name, seed=self.plan.seed))
        await nursery.start(self.run_client, seat, seat.client)

    async def run_client(self, seat: _Seat, client: BotClient, *,
                         task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await client.run(task_status=task_status)
        except (ClientError, OSError) as exc:
            seat.fail("disconnect", str(exc))
            if not client.joined:
                task_status.started(None)

    async def join_stand_in(self, nursery: trio.Nursery, seat: _Seat) -> None:
        """Take a failed bot's seat and leave at HLO: the power is in civil disorder."""
        seat.name = f"{seat.power}:civil-disorder#{self.tag}"
        client = BotClient(HoldBot(), ClientSettings(host=self.ctx.host, port=self.ctx.port,
                                                     name=seat.name))
        seat.client = client
        await nursery.start(self.run_stand_in, seat, client)
        if not client.joined:
            why = seat.failure.detail if seat.failure is not None else "the stand-in could not join"
            raise GameFailed(f"no seat for {seat.power}: {why}")

    async def run_stand_in(self, seat: _Seat, client: BotClient, *,
                           task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        with trio.CancelScope() as scope:
            def leave_at_start(received: Received) -> None:
                if isinstance(received.message, Hlo):
                    scope.cancel()

            client.on_message = leave_at_start
            try:
                await client.run(task_status=task_status)
            except (ClientError, OSError) as exc:
                log.error("stand_in_failed", power=seat.power, error=str(exc))
                if not client.joined:
                    task_status.started(None)

    async def join_external(self, nursery: trio.Nursery, seat: _Seat, entry: BotEntry) -> None:
        c = self.ctx
        proxy = SeatProxy(c.host, c.port, power=seat.power, tag=self.tag,
                          move_timeout=c.config.move_timeout)
        seat.proxy = proxy
        port = await nursery.start(proxy.run)
        argv = entry.argv("127.0.0.1", port, self.plan.seed)
        log_path = c.log_dir / f"game{self.plan.number}-{seat.power}-{seat.bot}.log"
        nursery.start_soon(self.run_process, seat, proxy, argv, log_path)
        with trio.move_on_after(c.config.join_timeout):
            async with trio.open_nursery() as race:
                for event in (proxy.accepted, seat.exited):
                    race.start_soon(_set_then_cancel, event, race.cancel_scope)
        if not proxy.accepted.is_set():
            why = seat.failure.detail if seat.failure is not None else (
                f"did not join within {c.config.join_timeout:g} s")
            seat.failure = None
            seat.fail("join", why)
            proxy.shut()
        seat.name = proxy.name or ""

    async def run_process(self, seat: _Seat, proxy: SeatProxy, argv: list[str],
                          log_path: Path) -> None:
        """Run an external bot until it ends or its relay is shut; kill it then."""
        out = _open_log(log_path, argv)
        try:
            try:
                process = await trio.lowlevel.open_process(
                    argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True)
            except OSError as exc:
                seat.fail("crash", f"cannot start {argv[0]}: {exc}")
                proxy.shut()
                return
            try:
                async with trio.open_nursery() as race:
                    race.start_soon(_wait_then_cancel, process.wait, race.cancel_scope)
                    race.start_soon(_wait_then_cancel, proxy.stopped.wait, race.cancel_scope)
                if process.returncode is not None and not proxy.over:
                    seat.fail("crash", f"the program ended (exit status {process.returncode})"
                                       " before the game did")
                    proxy.shut()
            finally:
                with trio.CancelScope(shield=True):
                    await terminate_group(process)
        finally:
            out.close()
            seat.exited.set()

    # --- the whole game -----------------------------------------------------------------

    async def play(self) -> GameOutcome:
        begun = trio.current_time()
        timed_out = False
        async with trio.open_nursery() as nursery:
            async with self.ctx.join_lock:
                await self.join(nursery)
            with trio.move_on_after(self.ctx.config.time_limit) as timer:
                await self.ended.wait()
            if timer.cancelled_caught:
                timed_out = True
            if timed_out or self.declared:
                nursery.cancel_scope.cancel()
            else:
                # The server ended the game: the players leave after SMR and OFF
                # (docs/protocol.md §8.10, 19.8); only stragglers are cut off.
                nursery.cancel_scope.deadline = trio.current_time() + END_GRACE
        seconds = trio.current_time() - begun
        return self.outcome(timed_out, seconds)

    def outcome(self, timed_out: bool, seconds: float) -> GameOutcome:
        w = self.watcher
        if w.winner:
            ending = "solo"
        elif w.draw:
            ending = "draw"
        elif timed_out:
            ending = "time-limit"
        elif self.declared:
            ending = self.declared
        else:
            raise GameFailed("the game ended without a result (observer lost or server stopped)")
        units: dict[str, int] = {p: 0 for p in self.ctx.config.powers}
        if w.position is not None:
            for unit in w.position.units:
                units[unit.power] = units.get(unit.power, 0) + 1
        centres = {p: w.counts.get(p, 0) for p in self.ctx.config.powers}
        history = tuple((str(h["turn"]), dict(h["centres"])) for h in w.history)
        failures = []
        problems: dict[str, int] = {}
        cut: dict[str, int] = {}
        server_game_id = None
        for seat in self.seats:
            if seat.proxy is not None and seat.proxy.failure is not None:
                seat.fail(*seat.proxy.failure)
            if seat.failure is not None:
                failures.append(seat.failure)
            if seat.client is not None and seat.proxy is None:
                problems[seat.power] = len(seat.client.problems)
                if isinstance(seat.client.strategy, Searching):
                    cut[seat.power] = seat.client.strategy.phases_cut
            passcode = seat.passcode
            if server_game_id is None and passcode is not None and seat.name:
                server_game_id = self.ctx.find_server_game(seat.power, passcode, seat.name)
        turn = w.last_turn
        return GameOutcome(
            number=self.plan.number, attempt=self.attempt, ending=ending,
            end_turn=str(turn) if turn else None, winner=w.winner, centres=centres,
            units=units, history=history, failures=tuple(failures), problems=problems, cut=cut,
            server_game_id=server_game_id, seconds=seconds)


async def play_game(plan: GamePlan, attempt: int, ctx: GameContext,
                    on_turn: Callable[[str], None] = lambda turn: None) -> GameOutcome:
    """Play one game of the plan (see the module docstring)."""
    return await _Game(plan, attempt, ctx, on_turn).play()


# --- helpers -----------------------------------------------------------------------


async def _set_then_cancel(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _wait_then_cancel(wait: Callable[[], Any], scope: trio.CancelScope) -> None:
    await wait()
    scope.cancel()


def _open_log(path: Path, argv: list[str]) -> IO[bytes]:
    """The external program's output file (its stdout and stderr)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = path.open("ab")
    out.write(f"$ {' '.join(argv)}\n".encode())
    out.flush()
    return out


async def terminate_group(process: trio.Process) -> None:
    """SIGTERM an external program's process group, SIGKILL after `KILL_GRACE` seconds
    (the tournament's external bots, and the bot checker's bot under test)."""
    if process.returncode is not None:
        return
    _signal_group(process, signal.SIGTERM)
    with trio.move_on_after(KILL_GRACE):
        await process.wait()
    if process.returncode is None:
        _signal_group(process, signal.SIGKILL)
        await process.wait()


def _signal_group(process: trio.Process, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
