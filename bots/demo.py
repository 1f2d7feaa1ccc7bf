"""One complete game of bots on an embedded server: what `daide demo` runs.

The demo starts a server (the real one, `server/`, handed in by
`daide.cmd_demo`) on a free loopback port, playing the standard map or any
variant of `engine.variants`, joins an observer (which prints the progress and
keeps the record) and then one bot per power of the map, one after the
other.  Determinism over TCP (same ``--seed``, same game) rests on three
things:

* the line-up is dealt to the powers by a generator seeded with the seed,
  and each bot asks the server for its power with the ``'FRA:DumbBot'`` name
  convention (docs/protocol.md §8.1), so who plays what does not depend on timing;
* each bot's orders come from a generator seeded with the seed, its power and
  the phase (`bots.strategy.phase_rng`), never from message timing;
* the server processes a phase only when every power's orders are in, and
  there are no deadlines, so arrival order cannot change a result.

The record is the observer's view: every message as DAIDE text in
``<dir>/<id>.daide`` and a JSON summary in ``<dir>/<id>.json``.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from bots.client import BotClient, ClientSettings
from bots.record import GameWatcher
from bots.registry import STRATEGIES, make_strategy
from bots.runner import ClientOutcome, run_clients
from engine.variants import canonical_name, variant_map
from maps import MapError

DEFAULT_LINEUP = ("dumbbot", "dumbbot", "dumbbot", "randbot", "dumbbot", "randbot", "holdbot")
"""The standard map's seven players; other maps repeat or cut it to their size."""
DEFAULT_MAX_YEARS = 10
DEFAULT_VARIANT = "standard"
STANDARD_POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


class ServerStarter(Protocol):
    """Starts a server in `nursery` and returns its port.

    The server plays `variant` (an `engine.variants` name) and draws the game
    after `max_year`; its database is `db_path`.
    """

    def __call__(self, nursery: trio.Nursery, max_year: int, db_path: Path, *,
                 variant: str = DEFAULT_VARIANT) -> Awaitable[int]: ...


class DemoError(Exception):
    """The demo cannot be played as asked (bad line-up or variant, server failure)."""


@dataclass(frozen=True)
class DemoMap:
    """What the demo needs to know of the variant it plays."""

    name: str
    """The registry's name (lower case), as the server is given it."""
    powers: tuple[str, ...]
    first_year: int


def demo_map(variant: str = DEFAULT_VARIANT) -> DemoMap:
    """The variant's powers and first year; DemoError for an unknown or faulty one."""
    try:
        the_map = variant_map(variant)
    except MapError as exc:
        raise DemoError(str(exc)) from None
    return DemoMap(canonical_name(variant), tuple(the_map.powers), the_map.start_phase[1])


@dataclass(frozen=True)
class DemoResult:
    """What the demo played and where it left the record."""

    game_id: str
    seed: int
    assignment: dict[str, str]
    """power -> bot kind."""
    watcher: GameWatcher
    record: Path
    summary: Path
    seconds: float
    problems: int
    interrupted: bool = False
    """Stopped by `play_demo`'s ``interrupt``: the record holds what was played."""


def parse_lineup(text: str | None, count: int = len(STANDARD_POWERS)) -> tuple[str, ...]:
    """``"dumbbot,randbot,..."`` (`count` names, or fewer to repeat) -> `count` bot kinds.

    `count` is the map's number of powers; without `text` the default line-up
    is repeated (or cut) to that size.
    """
    names: tuple[str, ...]
    if not text:
        names = DEFAULT_LINEUP
    else:
        names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
        unknown = [n for n in names if n not in STRATEGIES]
        if unknown or not names:
            raise DemoError(f"unknown bot {unknown[0] if unknown else text!r}; "
                            f"choose from {', '.join(sorted(STRATEGIES))}")
        if len(names) > count:
            raise DemoError(f"at most {count} bots, one per power")
    return tuple(names[i % len(names)] for i in range(count))


def deal(lineup: Sequence[str], seed: int, powers: Sequence[str] = STANDARD_POWERS
         ) -> dict[str, str]:
    """Give each bot of the line-up a power, shuffled by the seed."""
    order = list(powers)
    random.Random(f"deal/{seed}").shuffle(order)
    return dict(sorted(zip(order, lineup, strict=True)))


def game_id(seed: int, lineup: Sequence[str], max_years: int,
            variant: str = DEFAULT_VARIANT) -> str:
    """A name for the record: the seed, plus a digest of the other options.

    A variant other than the standard map is named in front (and the
    standard map's ids stay what they were before variants could be played).
    """
    digest = hashlib.sha1(f"{','.join(lineup)}/{max_years}".encode()).hexdigest()[:6]
    prefix = "" if variant == DEFAULT_VARIANT else f"{variant}-"
    return f"{prefix}seed{seed}-{digest}"


async def play_demo(
    *,
    seed: int,
    lineup: Sequence[str] = DEFAULT_LINEUP,
    max_years: int = DEFAULT_MAX_YEARS,
    out_dir: Path = Path("demo-games"),
    echo: Callable[[str], None] | None = None,
    start_server: ServerStarter,
    variant: str = DEFAULT_VARIANT,
    interrupt: trio.Event | None = None,
    after_game: Callable[[GameWatcher], Awaitable[None]] | None = None,
    pace: float = 0.0,
) -> DemoResult:
    """Play the demo game and write its record; see the module docstring.

    `start_server(nursery, max_year, db_path, variant=...)` starts a server
    playing `variant` on a free loopback port in `nursery` and returns the
    port (`daide.cmd_demo` passes the real server's; bots never import the
    server themselves).  `lineup` has one bot kind per power of the variant
    (`parse_lineup` sizes it); the game lasts `max_years` from the map's
    first year.  Setting `interrupt` (Ctrl-C in `daide demo`) stops the game
    where it is: the record of what was played is written all the same and
    the result says ``interrupted``.  ``after_game(watcher)`` is awaited once
    the game is over, while the server still runs (`daide demo --stay` keeps
    the web page up until Ctrl-C); an interrupt then only ends that wait.  ``pace`` seconds
    pass before each bot's orders (a game slow enough to watch).
    """
    say = echo or (lambda _line: None)
    started = time.monotonic()
    board = demo_map(variant)
    if len(lineup) != len(board.powers):
        raise DemoError(f"{board.name} has {len(board.powers)} powers, "
                        f"the line-up {len(lineup)} bots")
    assignment = deal(lineup, seed, board.powers)
    names = {power: make_strategy(kind).name for power, kind in assignment.items()}
    watcher = GameWatcher(powers=tuple(sorted(assignment)), players=names, echo=echo)
    outcomes: list[ClientOutcome] = []
    interrupted = False
    played = False
    with tempfile.TemporaryDirectory(prefix="daide-demo-") as tmp:
        async with trio.open_nursery() as nursery:
            if interrupt is not None:
                async def stop_when_interrupted() -> None:
                    nonlocal interrupted
                    await interrupt.wait()
                    interrupted = not played
                    nursery.cancel_scope.cancel()

                nursery.start_soon(stop_when_interrupted)
            port = await start_server(nursery, board.first_year + max_years - 1,
                                      Path(tmp) / "demo.db", variant=board.name)
            say(f"server listening on 127.0.0.1:{port}; {board.name} map; seed {seed}")
            say("players: " + ", ".join(f"{p} {names[p]}" for p in sorted(names)))
            observer = BotClient(None, ClientSettings(port=port, name="demo-observer",
                                                      observer=True),
                                 on_message=watcher.on_message)
            observer_done = trio.Event()

            async def watch(task_status: trio.TaskStatus[BotClient] = trio.TASK_STATUS_IGNORED
                            ) -> None:
                try:
                    await observer.run(task_status=task_status)
                finally:
                    observer_done.set()

            await nursery.start(watch)
            clients = [
                BotClient(make_strategy(kind),
                          ClientSettings(port=port, name=f"{power}:{names[power]}", seed=seed,
                                         pace=pace))
                for power, kind in assignment.items()
            ]
            say("")
            say(f"  year  phase  {'  '.join(f'{p:>6}' for p in watcher.powers)}")
            outcomes = await run_clients(clients)
            with trio.move_on_after(10):
                await observer_done.wait()
            played = True
            if after_game is not None:
                await after_game(watcher)
            nursery.cancel_scope.cancel()
    if not interrupted:
        failures = [o.error for o in outcomes if o.error]
        if failures:
            raise DemoError(f"a bot failed: {failures[0]}")
        if not watcher.finished:
            raise DemoError("the game did not finish")
    gid = game_id(seed, lineup, max_years, board.name)
    record, summary = watcher.write(
        out_dir, gid, seed=seed, variant=board.name, lineup=list(lineup),
        max_years=max_years, assignment=assignment,
        **({"interrupted": True} if interrupted else {}))
    problems = sum(len(o.client.problems) for o in outcomes)
    return DemoResult(gid, seed, assignment, watcher, record, summary,
                      time.monotonic() - started, problems, interrupted)

