"""`daide demo`: play one complete game of bots on an embedded server."""

from __future__ import annotations

import argparse
import sys

NAME = "demo"
HELP = "play a complete game of bots on an embedded server"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=1, help="random seed (same seed, same game)")


def run(args: argparse.Namespace) -> int:
    # The server and bots (issues 4 and 5) do not exist yet: say so, never fake a game.
    print("daide demo: not available yet - the game server and bots are still being built",
          file=sys.stderr)
    return 2
