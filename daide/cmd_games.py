"""`daide games [--db PATH]`: the games of a server database, one line each.

    daide games [--db daide-server.db] [--json]

Each line: the game's number (what `daide export GAME` takes), its variant,
its status - ``forming`` (waiting for players), ``running`` (a server is
playing it), ``suspended`` (stored as running, but no server holds the
database now: the next `daide serve` on it resumes the game) or
``finished`` - the current or final turn, the result (``solo FRA``,
``draw AUS ENG ...``) and each power's player as its client named itself.
Reads the database read-only: safe while a server runs on it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from daide.errors import CommandError

NAME = "games"
HELP = "list the games of a server database (numbers for `daide export`)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=Path("daide-server.db"),
                        help="SQLite database of the server (default ./daide-server.db)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per game instead of the table")


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from server.catalog import HEADER, list_games
    from server.store import StoreError

    try:
        games = list_games(args.db)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    except sqlite3.Error as exc:
        raise CommandError(f"cannot read {args.db}: {exc}") from None
    if args.json:
        for game in games:
            print(json.dumps(game.to_dict()))
        return 0
    if not games:
        print(f"no games in {args.db}")
        return 0
    print(HEADER)
    for game in games:
        print(game.line())
    return 0
