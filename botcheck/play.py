"""Playing the checker's scenarios: an embedded server, HoldBots, the bot behind a relay.

For each `botcheck.scenarios.Scenario`, `play_scenario` starts the real
server (`server.app.Server`, on a free loopback port, its database in a
temporary folder; deadlines of ``deadline`` seconds, so a bot that owes
orders and never sends them costs one deadline, not a hung check), seats
the other powers with the project's HoldBot in process, and starts the bot's
program behind a `botcheck.relay.Relay` - last, so the game begins as it
joins, or first, so it must wait for the others.  The other seats play in
process rather than as `daide bot` programs: they start in no time, cost
no second interpreter per seat on a small machine, and play the same code
(`bots.client.BotClient`).

It returns a `Played`: the transcript, the phases the server stored (what
was owed and what was accepted, `server.store.Store.phases`), how the
program ended and the CPU it used.  Judging is `botcheck.judge`'s.
"""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import trio

from botcheck.relay import Line, Relay
from botcheck.scenarios import INJECTIONS, Scenario
from bots.client import BotClient, ClientError, ClientSettings
from bots.holdbot import HoldBot
from bots.link import Received
from engine.variants import load_variant
from protocol.messages import Now
from server.app import Server
from server.settings import GameSettings, ServerSettings
from server.store import PhaseRecord, Store
from tournament.play import terminate_group

#: Seconds a program gets to exit after SIGTERM before SIGKILL.
#: Seconds between two injected messages (the bot's time to react to each).
INJECTION_GAP = 0.3
#: Lines of the program's output kept for the report.
OUTPUT_LINES = 12


@dataclass(frozen=True)
class CheckOptions:
    """How a check runs (the options of ``daide check-bot``)."""

    command: str
    variant: str = "modern"
    level: int = 0
    deadline: int = 5
    """Seconds of every phase's deadline (MTL, RTL, BTL)."""
    join_timeout: float = 10.0
    """Seconds the bot may take to join (to answer MAP)."""
    leave_grace: float = 3.0
    """Seconds the program may take to exit after OFF."""
    parallel: int = 1
    """Scenarios played at once."""

    def argv(self, port: int) -> list[str]:
        text = self.command.replace("{host}", "127.0.0.1").replace("{port}", str(port))
        return shlex.split(text)


@dataclass
class Injected:
    """One injected message (what followed it is in the transcript)."""

    key: str
    label: str
    index: int          # its line in the transcript


@dataclass
class Played:
    """What happened in one scenario."""

    scenario: Scenario
    power: str
    variant: str
    lines: list[Line] = field(default_factory=list)
    phases: list[PhaseRecord] = field(default_factory=list)
    joined: bool = False
    started: bool = False
    over: bool = False
    off_at: float | None = None
    exit_status: int | None = None
    exited_at: float | None = None
    """Seconds since the start when the program ended by itself (None: it was stopped)."""
    output: list[str] = field(default_factory=list)
    cpu_seconds: float | None = None
    """The program's CPU time (user + system) at the last NOW, SMR or OFF it was sent."""
    cpu_at_start: float | None = None
    """... and at the first NOW."""
    injected: list[Injected] = field(default_factory=list)
    reconnected: bool = False
    error: str | None = None


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a live process (Linux /proc), None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


async def play_scenario(scenario: Scenario, options: CheckOptions) -> Played:
    """Play one scenario to its end (or its time limit); see the module docstring."""
    variant = load_variant(options.variant if scenario.variant == "*" else "standard")
    powers = variant.powers
    power = scenario.power or powers[0]
    played = Played(scenario, power, variant.name)
    years = scenario.years
    first_year = variant.map.start_phase[1]
    if scenario.start is not None:
        first_year = int(scenario.start.split("NOW ( ")[1].split(" )")[0].split()[1])
    # A paced seat must order before the deadline, or the phase would end without it.
    deadline = max(options.deadline, math.ceil(scenario.pace) + 2)
    game = GameSettings(variant=variant.name.lower(), level=options.level,
                        mtl=deadline, rtl=deadline, btl=deadline,
                        max_year=first_year + years - 1, start=scenario.start)
    with tempfile.TemporaryDirectory(prefix="daide-check-bot-") as folder:
        db = Path(folder) / "games.db"
        log_path = Path(folder) / "bot.log"
        settings = ServerSettings(host="127.0.0.1", port=0, db_path=db, game=game,
                                  im_timeout=options.join_timeout,
                                  disorder_grace=float(options.deadline))
        begun = trio.current_time()

        def clock() -> float:
            return trio.current_time() - begun

        # The longest a scenario can take: joining, every phase to its deadline, leaving.
        limit = options.join_timeout * 2 + deadline * (6 * years + 2) + 10
        with trio.move_on_after(limit) as timer:
            try:
                await _play(scenario, options, played, settings, log_path, clock)
            except (OSError, ClientError) as exc:
                played.error = f"the scenario could not be played: {exc}"
        if timer.cancelled_caught and played.error is None:
            played.error = f"the scenario did not end within {limit:g} s"
        if db.exists():
            store = Store.open(db)
            try:
                played.phases = store.phases(1)
            finally:
                store.close()
        if log_path.exists():
            text = log_path.read_text(encoding="utf-8", errors="replace")
            played.output = text.splitlines()[-OUTPUT_LINES:]
    return played


async def _play(scenario: Scenario, options: CheckOptions, played: Played,
                settings: ServerSettings, log_path: Path, clock: Callable[[], float]) -> None:
    server = Server(settings)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(server.run)
        server_port = int(listeners[0].socket.getsockname()[1])
        relay = Relay(server_port, played.power, clock)
        played.lines = relay.lines          # the same list: kept even if the time limit cuts in
        relay_port = await nursery.start(relay.run)
        others = [p for p in load_variant(settings.game.variant).powers if p != played.power]
        seats = [BotClient(HoldBot(), ClientSettings(
            port=server_port, name=f"{p}:HoldBot", off_wait=0.5,
            pace=scenario.pace if p == scenario.pacer else 0.0)) for p in others]
        process_box: list[trio.Process] = []
        done = trio.Event()

        async def run_program() -> None:
            await _run_program(options.argv(relay_port), log_path, played, relay, clock,
                               process_box)
            done.set()

        if scenario.action is not None:
            relay.on_server = _actor(scenario, played, relay, nursery)
        pacer = next((seat for seat in seats if seat.settings.pace > 0), None)
        if pacer is not None:
            pacer.on_message = _pace_first_phase_only(pacer)
        relay.on_server = _sampler(relay.on_server, process_box, played)
        if scenario.bot_joins_first:
            nursery.start_soon(run_program)
            with trio.move_on_after(options.join_timeout):
                await relay.accepted.wait()
            await trio.sleep(0.5)           # the bot waits for the others a moment
        for seat in seats:
            await nursery.start(_run_seat, seat)
        if not scenario.bot_joins_first:
            nursery.start_soon(run_program)
        with trio.move_on_after(options.join_timeout):
            await relay.accepted.wait()
        played.joined = relay.accepted.is_set()
        if played.joined:
            with trio.move_on_after(options.join_timeout):
                await relay.started.wait()
            played.started = relay.started.is_set()
        if played.started:
            await _wait_for_end(relay, done)
        played.over = relay.over.is_set()
        if played.over and not done.is_set():
            with trio.move_on_after(options.leave_grace):
                await done.wait()
        played.off_at = relay.off_at
        played.reconnected = relay.connections > 1
        nursery.cancel_scope.cancel()


async def _wait_for_end(relay: Relay, done: trio.Event) -> None:
    """Until the game is over for the bot, or its program has ended and does not come back."""
    while not relay.over.is_set():
        async with trio.open_nursery() as race:
            async def wait_over() -> None:
                await relay.over.wait()
                race.cancel_scope.cancel()

            async def wait_done() -> None:
                await done.wait()
                race.cancel_scope.cancel()

            race.start_soon(wait_over)
            race.start_soon(wait_done)
        if done.is_set():
            return


async def _run_seat(client: BotClient, *, task_status: trio.TaskStatus[BotClient]
                    = trio.TASK_STATUS_IGNORED) -> None:
    try:
        await client.run(task_status=task_status)
    except (ClientError, OSError):
        if not client.joined:
            task_status.started(client)


async def _run_program(argv: list[str], log_path: Path, played: Played, relay: Relay,
                       clock: Callable[[], float], box: list[trio.Process]) -> None:
    """Run the bot's program until it ends (or the scenario is cancelled: then stop it)."""
    with log_path.open("ab") as out:
        out.write(f"$ {shlex.join(argv)}\n".encode())
        out.flush()
        try:
            process = await trio.lowlevel.open_process(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        except OSError as exc:
            played.error = f"cannot start {argv[0] if argv else 'the command'}: {exc}"
            return
        box.append(process)
        try:
            await process.wait()
            played.exit_status = process.returncode
            played.exited_at = clock()
            relay.note("event", f"the program ended (exit status {process.returncode})")
        finally:
            with trio.CancelScope(shield=True):
                await terminate_group(process)


def _pace_first_phase_only(pacer: BotClient) -> Callable[[Received], None]:
    """The pacer holds the first phase open (the checker's window), then plays at once:
    its pace is dropped when a second turn's NOW reaches it, before it orders for it."""
    turns: set[str] = set()

    def on_message(received: Received) -> None:
        if isinstance(received.message, Now):
            turns.add(str(received.message.turn))
            if len(turns) > 1:
                pacer.settings = replace(pacer.settings, pace=0.0)
    return on_message


def _sampler(inner: Callable[[Line], None] | None, box: list[trio.Process],
             played: Played) -> Callable[[Line], None]:
    """Sample the program's CPU time at every NOW and at the end."""
    def on_line(line: Line) -> None:
        if line.text.startswith(("NOW", "SMR", "OFF")) and box:
            cpu = _cpu_seconds(box[0].pid)
            if cpu is not None:
                if played.cpu_at_start is None:
                    played.cpu_at_start = cpu       # start-up and joining: not a phase's
                played.cpu_seconds = cpu
        if inner is not None:
            inner(line)
    return on_line


def _actor(scenario: Scenario, played: Played, relay: Relay,
           nursery: trio.Nursery) -> Callable[[Line], None]:
    """The scenario's action, cued by the server's messages."""
    state = {"acted": False}
    other = next(p for p in ("ENG", "FRA", "GER", "RUS", "AUS", "ITA", "TUR")
                 if p != played.power)

    def on_line(line: Line) -> None:
        if state["acted"]:
            return
        if scenario.action == "inject" and line.text.startswith("NOW"):
            state["acted"] = True
            nursery.start_soon(_inject_all, played, relay, other)
        elif scenario.action == "drop" and line.text.startswith("THX"):
            state["acted"] = True
            nursery.start_soon(_drop_later, relay)
    return on_line


async def _inject_all(played: Played, relay: Relay, other: str) -> None:
    await trio.sleep(INJECTION_GAP)
    for injection in INJECTIONS:
        text = injection.text.format(me=played.power, other=other)
        if injection.key == "press" and _played_level(relay) >= 10:
            text = f"FRM ( {other} ) ( {played.power} ) ( 'free text press, level 8000' )"
        index = len(relay.lines)
        sent = await relay.inject(text, injection.raw)
        if not sent:
            return
        # Recorded at once: a bot that dies of it may end the scenario within the gap.
        played.injected.append(Injected(injection.key, injection.label, index))
        await trio.sleep(INJECTION_GAP)
        if not relay.connected:
            return


def _played_level(relay: Relay) -> int:
    """The game's press level, from the HLO the bot received (0 when unseen)."""
    for line in relay.lines:
        if line.who == "server" and line.text.startswith("HLO"):
            words = line.text.split()
            if "LVL" in words:
                return int(words[words.index("LVL") + 1])
    return 0


async def _drop_later(relay: Relay) -> None:
    await trio.sleep(0.5)       # the rest of its THX in
    relay.drop()


async def play_all(scenarios: tuple[Scenario, ...], options: CheckOptions,
                   on_done: Callable[[Played], None] | None = None) -> list[Played]:
    """Every scenario, ``options.parallel`` at a time; in the scenarios' order.

    When the bot does not join the first scenario, the others are not played
    (each would only wait for it again)."""
    results: dict[int, Played] = {}
    limiter = trio.CapacityLimiter(max(1, options.parallel))
    if not scenarios:
        return []
    first = await play_scenario(scenarios[0], options)
    results[0] = first
    if on_done is not None:
        on_done(first)
    if not first.joined:
        return [first]

    async def one(index: int, scenario: Scenario) -> None:
        async with limiter:
            played = await play_scenario(scenario, options)
        results[index] = played
        if on_done is not None:
            on_done(played)

    async with trio.open_nursery() as nursery:
        for index, scenario in enumerate(scenarios[1:], 1):
            nursery.start_soon(one, index, scenario)
    return [results[i] for i in sorted(results)]


__all__ = ["CheckOptions", "Injected", "Played", "play_all", "play_scenario"]
