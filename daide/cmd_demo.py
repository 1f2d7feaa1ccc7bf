"""`daide demo`: play one complete game of bots on an embedded server.

    daide demo [--seed N] [--variant NAME] [--bots dumbbot,randbot,...]
               [--max-years N] [--out DIR]

Starts the server on a free loopback port playing the variant (default
``standard``; ``daide variants`` lists them), one bot per power of its map (a
mix, named on screen), shows the centre counts as the game goes, prints the
final table, and leaves the game record in ``demo-games/<id>.daide`` and
``.json``.  The output directory is checked before the game; Ctrl-C stops
the game, writes the record of what was played and exits with status 130.
The same ``--seed`` (and variant) replays the same game exactly
(see `bots.demo`).
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
from pathlib import Path

import trio

from bots.demo import (
    DEFAULT_MAX_YEARS,
    DEFAULT_VARIANT,
    DemoError,
    DemoResult,
    demo_map,
    parse_lineup,
    play_demo,
)
from daide.cli import CommandError
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


async def start_embedded_server(nursery: trio.Nursery, max_year: int, db_path: Path, *,
                                variant: str = DEFAULT_VARIANT) -> int:
    """Start the real server on 127.0.0.1, port 0, in `nursery`; return the port it got.

    The server plays `variant`; the game is drawn after `max_year` (the
    server's max-year house rule); there are no deadlines, so a phase is
    processed when all orders are in.
    """
    from server.app import serve
    from server.settings import GameSettings, ServerSettings

    settings = ServerSettings(host="127.0.0.1", port=0, db_path=db_path,
                              game=GameSettings(variant=variant, max_year=max_year))
    listeners = await nursery.start(serve, settings)
    return int(listeners[0].socket.getsockname()[1])


def run(args: argparse.Namespace) -> int:
    from server.logconfig import configure_logging

    if not 1 <= args.max_years <= 100:
        raise CommandError("--max-years must be 1..100")
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

    echo(f"daide demo: {len(lineup)} bots play one game of Diplomacy"
         + (f" on the {board.name} map" if board.name != DEFAULT_VARIANT else "")
         + f" (seed {seed})")
    async def play() -> DemoResult:
        # SIGINT/SIGTERM are received by a task, not raised wherever the
        # program happens to be, so the game stops through ordinary
        # cancellation and the record of what was played is still written.
        interrupt = trio.Event()
        async with trio.open_nursery() as nursery:
            async def on_signals() -> None:
                with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _signum in signals:
                        interrupt.set()
                        return

            nursery.start_soon(on_signals)
            result = await play_demo(seed=seed, lineup=lineup, max_years=args.max_years,
                                     out_dir=args.out, echo=echo,
                                     start_server=start_embedded_server,
                                     variant=board.name, interrupt=interrupt)
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
    echo("")
    echo("final position:")
    for line in result.watcher.table_lines():
        echo(line)
    echo("")
    echo(f"game record: {result.record}  (summary: {result.summary})")
    echo(f"played in {result.seconds:.1f} s; bot problems logged: {result.problems}; "
         f"replay with: daide demo --seed {seed}"
         + (f" --variant {board.name}" if board.name != DEFAULT_VARIANT else "")
         + (f" --bots {args.bots}" if args.bots else "")
         + (f" --max-years {args.max_years}" if args.max_years != DEFAULT_MAX_YEARS else ""))
    return 0
