"""`daide demo`: play one complete game of bots on an embedded server.

    daide demo [--seed N] [--variant NAME] [--bots dumbbot,randbot,...]
               [--max-years N] [--out DIR]

Starts the server on a free loopback port playing the variant (default
``standard``; ``daide variants`` lists them), one bot per power of its map (a
mix, named on screen), shows the centre counts as the game goes, prints the
final table, and leaves the game record in ``demo-games/<id>.daide`` and
``.json``.  The output directory is checked before the game; Ctrl-C stops
the game, writes the record of what was played and exits with status 130.
The game can be watched in a browser at the URL it prints (``--http-port``,
docs/web.md); with ``--stay`` the page stays up after the game until Ctrl-C.
The same ``--seed`` (and variant) replays the same game exactly
(see `bots.demo`).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
from pathlib import Path

import trio

import adjudicator
from bots.demo import (
    DEFAULT_MAX_YEARS,
    DEFAULT_VARIANT,
    DemoError,
    DemoResult,
    demo_map,
    parse_lineup,
    play_demo,
)
from bots.record import GameWatcher
from daide.errors import CommandError
from daide.outdir import writable_dir

NAME = "demo"
HELP = "play a complete game of bots on an embedded server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (same seed, same game; default: a new one)")
    parser.add_argument("--variant", default=DEFAULT_VARIANT,
                        help="the map to play, as `daide variants` lists them "
                             f"(default {DEFAULT_VARIANT})")
    parser.add_argument("--bots", default=None,
                        help="comma-separated line-up, e.g. dumbbot,randbot,holdbot "
                             "(repeated to fill the map's powers)")
    parser.add_argument("--max-years", type=int, default=DEFAULT_MAX_YEARS,
                        help=f"years to play before the game is drawn (default {DEFAULT_MAX_YEARS})")
    parser.add_argument("--out", type=Path, default=Path("demo-games"),
                        help="where to leave the game record (default demo-games/)")
    parser.add_argument("--http-port", type=int, default=0, metavar="P",
                        help="port of the web page to watch the game in a browser (default 0: "
                             "a free port; its URL is printed; docs/web.md)")
    parser.add_argument("--pace", type=float, default=0.0, metavar="S",
                        help="seconds each bot waits before its orders, to watch the game "
                             "as it plays (default 0)")
    parser.add_argument("--stay", action="store_true",
                        help="after the game, print the final table and keep the web page up "
                             "until Ctrl-C")


async def start_embedded_server(nursery: trio.Nursery, max_year: int, db_path: Path, *,
                                variant: str = DEFAULT_VARIANT, http_port: int | None = None,
                                urls: list[str] | None = None) -> int:
    """Start the real server on 127.0.0.1, port 0, in `nursery`; return the port it got.

    The server plays `variant`; the game is drawn after `max_year` (the
    server's max-year house rule); there are no deadlines, so a phase is
    processed when all orders are in.  With ``http_port`` it also serves
    the web page (`server.http`); its address is appended to ``urls``.
    """
    from server.app import Server
    from server.settings import GameSettings, ServerSettings

    settings = ServerSettings(host="127.0.0.1", port=0, db_path=db_path, http_port=http_port,
                              game=GameSettings(variant=variant, max_year=max_year))
    server = Server(settings)
    listeners = await nursery.start(server.run)
    if server.http_url is not None and urls is not None:
        urls.append(server.http_url)
    return int(listeners[0].socket.getsockname()[1])


def implementation_line() -> str:
    """One line saying whether the game runs compiled or as pure Python.

    The compiled packages choose together, at their import, whether the mypyc
    build (``make install``) matches their sources (``native.activate``); the
    adjudicator's choice is theirs."""
    if adjudicator.COMPILED:
        return ("running compiled: the mypyc build of the adjudicator, protocol, engine "
                "and the server's game logic")
    return "running as pure Python, not compiled (`make install` adds the faster mypyc build)"


def run(args: argparse.Namespace) -> int:
    from server.logconfig import configure_logging
    from server.runner import stop_on_signal

    if not 1 <= args.max_years <= 100:
        raise CommandError("--max-years must be 1..100")
    if not 0 <= args.pace <= 60:
        raise CommandError("--pace must be 0..60 seconds")
    try:
        board = demo_map(args.variant)
        lineup = parse_lineup(args.bots, len(board.powers))
    except DemoError as exc:
        raise CommandError(str(exc)) from exc
    writable_dir(args.out)        # before the game, not after it
    # Only warnings and errors of the server and bots: the screen is for the game.
    configure_logging(sys.stderr, json=False, level=logging.WARNING)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10_000)

    def echo(line: str) -> None:
        print(line, flush=True)

    def show_final_table(watcher: GameWatcher) -> None:
        echo("")
        echo("final position:")
        for line in watcher.table_lines():
            echo(line)
        echo("")

    echo(f"daide demo: {len(lineup)} bots play one game of Diplomacy"
         + (f" on the {board.name} map" if board.name != DEFAULT_VARIANT else "")
         + f" (seed {seed})")
    echo(implementation_line())
    async def play() -> DemoResult:
        # SIGINT/SIGTERM are received by a task, not raised wherever the
        # program happens to be, so the game stops through ordinary
        # cancellation and the record of what was played is still written.
        interrupt = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_on_signal, interrupt.set)
            urls: list[str] = []

            async def start_server(nursery: trio.Nursery, max_year: int, db_path: Path, *,
                                   variant: str = DEFAULT_VARIANT) -> int:
                port = await start_embedded_server(nursery, max_year, db_path, variant=variant,
                                                   http_port=args.http_port, urls=urls)
                # The demo's database is new: its game is game 1.
                echo(f"watch it in a browser: {urls[0]}watch/1")
                return port

            async def after_game(watcher: GameWatcher) -> None:
                # --stay: the page stays up (every phase on its slider) until Ctrl-C;
                # the final table is shown first so the terminal is not left waiting blind.
                if args.stay and urls:
                    show_final_table(watcher)
                    echo(f"the game stays on view at {urls[0]}watch/1 - Ctrl-C to stop")
                    await interrupt.wait()

            result = await play_demo(seed=seed, lineup=lineup, max_years=args.max_years,
                                     out_dir=args.out, echo=echo, start_server=start_server,
                                     variant=board.name, interrupt=interrupt,
                                     after_game=after_game, pace=args.pace)
            nursery.cancel_scope.cancel()
        return result

    try:
        result = trio.run(play)
    except DemoError as exc:
        raise CommandError(str(exc)) from exc
    if result.interrupted:
        print(f"daide demo: interrupted; the game so far is in {result.record} "
              f"(summary: {result.summary})", file=sys.stderr)
        return 130
    if not args.stay:
        show_final_table(result.watcher)
    echo(f"game record: {result.record}  (summary: {result.summary})")
    echo(f"played in {result.seconds:.1f} s; bot problems logged: {result.problems}; "
         f"replay with: daide demo --seed {seed}"
         + (f" --variant {board.name}" if board.name != DEFAULT_VARIANT else "")
         + (f" --bots {args.bots}" if args.bots else "")
         + (f" --max-years {args.max_years}" if args.max_years != DEFAULT_MAX_YEARS else ""))
    return 0
