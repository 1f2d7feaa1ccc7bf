"""`daide check-bot`: run a bot's program against short scripted games and report its faults.

    daide check-bot [--variant V] [--level N] [--json FILE] [--deadline S]
                    [--only SCENARIOS] [--parallel N] [--verbose] -- COMMAND

COMMAND is the bot's command line with ``{host}`` and ``{port}`` where the
address goes (as the tournament's ``--external``), e.g.
``daide check-bot -- .venv/bin/daide bot dumbbot --host {host} --port {port}``.
The checks and the scenarios are `botcheck`'s (docs/bots.md).  Exit status 0
when no check failed, 1 when one did (or the command cannot be run).
"""

from __future__ import annotations

import argparse
import logging
import re
import shlex
import sys
from pathlib import Path

NAME = "check-bot"
HELP = "check a bot's program against the protocol in short scripted games (pass / warn / fail)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot_command", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                        help="the bot's command line, with {host} and {port} placeholders")
    parser.add_argument("--variant", default="modern", metavar="V",
                        help="the second variant the bot plays two years of (default modern)")
    parser.add_argument("--level", type=int, default=0, metavar="N",
                        help="the games' press level (default 0)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the report as JSON")
    parser.add_argument("--deadline", type=int, default=5, metavar="S",
                        help="seconds of every phase's deadline (default 5)")
    parser.add_argument("--join-timeout", type=float, default=10.0, metavar="S",
                        help="seconds the bot may take to join (default 10)")
    parser.add_argument("--only", default=None, metavar="SCENARIOS",
                        help="comma-separated scenarios to play (default all: "
                             "join-at-once, join-waits, retreat-nowhere, builds, builds-no-home, "
                             "removals, no-units, solo, robustness, reconnect, variant)")
    parser.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="scenarios played at once (default 1; timings are then shared)")
    parser.add_argument("--verbose", action="store_true",
                        help="show the messages behind the passes too")


def run(args: argparse.Namespace) -> int:
    import trio

    from botcheck.play import CheckOptions, Played
    from botcheck.report import run_check
    from botcheck.scenarios import select
    from daide.errors import CommandError
    from engine.variants import VariantError, load_variant
    from server.logconfig import configure_logging
    from server.settings import VALID_LEVELS

    given = list(args.bot_command)
    words = given[1:] if given[:1] == ["--"] else given
    if not words:
        raise CommandError("no bot command: give it after --, with {host} and {port}")
    command = " ".join(w if re.fullmatch(r"[\w@%+=:,./{}-]+", w) else shlex.quote(w)
                       for w in words)
    if "{port}" not in command:
        raise CommandError("the bot command must contain {port} (and usually {host}): "
                           "that is where the checker's address goes")
    try:
        load_variant(args.variant)
        scenarios = select(args.only)
    except (VariantError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    if args.level not in VALID_LEVELS:
        raise CommandError(f"level {args.level} is not a DAIDE press level (0, 10 ... 130, 8000)")
    if not 1 <= args.deadline <= 600:
        raise CommandError("--deadline must be 1..600 seconds")
    if args.parallel < 1:
        raise CommandError("--parallel must be at least 1")
    if args.json is not None and not args.json.parent.is_dir():
        raise CommandError(f"--json {args.json}: no such folder {args.json.parent}")
    options = CheckOptions(command=command, variant=args.variant.lower(), level=args.level,
                           deadline=args.deadline, join_timeout=args.join_timeout,
                           parallel=args.parallel)
    # The embedded server's and the HoldBots' log lines are not the report: errors only.
    configure_logging(sys.stderr, json=False, level=logging.ERROR)

    def progress(played: Played) -> None:
        took = f" ({played.lines[-1].at:.1f} s)" if played.lines else ""
        print(f"  played {played.scenario.key}{took}", file=sys.stderr, flush=True)

    print(f"checking {command}", file=sys.stderr, flush=True)
    report = trio.run(run_check, options, scenarios, progress)
    sys.stdout.write(report.text(verbose=args.verbose))
    if args.json is not None:
        try:
            report.write_json(args.json)
        except OSError as exc:
            raise CommandError(f"--json {args.json}: {exc.strerror or exc}") from None
    return 1 if report.failed else 0
