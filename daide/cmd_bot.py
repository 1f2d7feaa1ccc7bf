"""`daide bot`: connect sample no-press bots to a DAIDE server and play.

    daide bot {holdbot,randbot,dumbbot,lookahead,regret} [--host 127.0.0.1] [--port 16713]
              [--name NAME] [--seed N] [--count N] [--budget BUDGET]

``--count`` runs several bots in one process (joined one after the other);
bot *i* is named ``NAME-i`` and seeded ``N + i``.  Every problem a bot meets
(rejected orders, HUH, REJ) is logged with structlog.  Exit status 0 when
every bot played to the end, 1 when one could not join or lost the server,
130 when stopped with Ctrl-C (SIGINT) or SIGTERM.
"""

from __future__ import annotations

import argparse
import sys

import trio

from bots.budget import Budget
from bots.client import BotClient, ClientSettings
from bots.registry import STRATEGIES, make_strategy
from bots.runner import ClientOutcome, run_clients
from daide.errors import CommandError

NAME = "bot"
HELP = "play sample no-press bots (holdbot, randbot, dumbbot, lookahead) on a DAIDE server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=sorted(STRATEGIES), help="which bot to play")
    parser.add_argument("--host", default="127.0.0.1", help="server address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=16713, help="server port (default 16713)")
    parser.add_argument("--name", help="name given in NME (default: the bot's name)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--count", type=int, default=1, help="bots to run in this process")
    parser.add_argument("--draw-year", type=int, default=None,
                        help="vote for a draw in every phase from this year on")
    parser.add_argument("--budget", default=None, metavar="BUDGET",
                        help="search budget per phase of a searching bot (lookahead, regret): "
                             "CPU seconds (0.3 or 0.3s), adjudications (800it) or both "
                             "(800it,0.5s); default 2000it (lookahead) or 2600it (regret), "
                             "capped at 1 s")
    parser.add_argument("--rejoin", metavar="POWER:PASSCODE",
                        help="take over a power with IAM instead of joining with NME (a seat in "
                             "civil disorder, e.g. after `daide game eject`)")
    parser.add_argument("--press-numbering", choices=("daide", "parlance", "mila"),
                        default="daide",
                        help="press-token values the server uses (docs/protocol.md §6.7; default daide)")


def build_clients(args: argparse.Namespace) -> list[BotClient]:
    """One client per bot asked for, named and seeded as the module doc says."""
    if args.count < 1:
        raise CommandError("--count must be at least 1")
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port must be 0..65535, not {args.port}")
    budget = None
    if getattr(args, "budget", None) is not None:
        try:
            budget = Budget.parse(args.budget)
            make_strategy(args.kind, budget)
        except ValueError as exc:
            raise CommandError(f"--budget: {exc}") from None
    base = args.name or make_strategy(args.kind).name
    rejoin = _rejoin(getattr(args, "rejoin", None))
    if rejoin is not None and args.count != 1:
        raise CommandError("--rejoin takes one seat: --count must be 1")
    clients = []
    for i in range(args.count):
        name = base if args.count == 1 else f"{base}-{i + 1}"
        settings = ClientSettings(host=args.host, port=args.port, name=name,
                                  seed=args.seed + i, draw_from_year=args.draw_year,
                                  press_numbering=args.press_numbering, rejoin=rejoin)
        clients.append(BotClient(make_strategy(args.kind, budget), settings))
    return clients


def _rejoin(text: str | None) -> tuple[str, int] | None:
    """``FRA:1234`` -> ``("FRA", 1234)``; a one-line CommandError if malformed."""
    if text is None:
        return None
    power, _, code = text.partition(":")
    if not (len(power) == 3 and power.isalpha() and code.isdigit() and 1 <= int(code) <= 8191):
        raise CommandError(f"--rejoin is POWER:PASSCODE (e.g. FRA:1234), not {text!r}")
    return power.upper(), int(code)


async def _play_until_interrupted(clients: list[BotClient]) -> list[ClientOutcome] | None:
    """Play; SIGINT/SIGTERM stop every bot through cancellation (None is returned then).

    The signals are received by a task rather than raised as KeyboardInterrupt
    wherever the program happens to be, so each connection is closed in order.
    """
    from server.runner import stop_on_signal

    outcomes: list[ClientOutcome] | None = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stop_on_signal, nursery.cancel_scope.cancel)
        outcomes = await run_clients(clients)
        nursery.cancel_scope.cancel()
    return outcomes


def run(args: argparse.Namespace) -> int:
    from server.logconfig import configure_logging

    configure_logging(sys.stderr)
    clients = build_clients(args)
    outcomes = trio.run(_play_until_interrupted, clients)
    if outcomes is None:
        for client in clients:
            tracker = client.tracker
            print(f"{client.settings.name}: power {tracker.power or '-'}, interrupted")
        print("daide bot: interrupted", file=sys.stderr)
        return 130
    failed = [o for o in outcomes if o.error is not None]
    for outcome in outcomes:
        tracker = outcome.client.tracker
        end = tracker.end
        result = ("solo " + end.winner if end and end.winner else "draw" if end else "unfinished")
        print(f"{outcome.client.settings.name}: power {tracker.power or '-'}, {result}, "
              f"{len(outcome.client.problems)} problem(s)"
              + (f", error: {outcome.error}" if outcome.error else ""))
    if failed and all(not o.client.joined for o in outcomes) and \
            "all attempts to connect" in (failed[0].error or ""):
        raise CommandError(f"no server answers at {args.host}:{args.port} "
                           "(start one with `daide serve`, or give --host/--port)")
    if failed:
        raise CommandError(f"{len(failed)} of {len(outcomes)} bot(s) failed: {failed[0].error}")
    return 0
