"""`daide export GAME`: write a stored game as a DAIDE text log and as JSON; with
``--bot-log POWER``, print one power's side of it with each fault explained
(`server.bot_log`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "export"
HELP = "write a finished or running game as a DAIDE text log and as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", type=int, metavar="GAME", help="game number (as `daide games` lists them)")
    parser.add_argument("--db", type=Path, default=Path("daide-server.db"),
                        help="SQLite database of the server (default ./daide-server.db)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="directory for game-GAME.daide and game-GAME.json (default .)")
    parser.add_argument("--stdout", choices=("text", "json"),
                        help="print one form to standard output instead of writing files")
    parser.add_argument("--html", action="store_true",
                        help="write DIR/game-GAME.html instead: a self-contained replay (every "
                             "phase drawn with its orders and results, a centre chart)")
    parser.add_argument("--bot-log", metavar="POWER", default=None,
                        help="print what one power was sent and sent, phase by phase, with "
                             "its results and each missing order explained (docs/bots.md)")


def run(args: argparse.Namespace) -> int:
    from daide.errors import CommandError
    from daide.outdir import writable_dir
    from server.export import export_game
    from server.store import Store, StoreError

    if not args.db.exists():
        raise CommandError(f"no database at {args.db}")
    if args.html and args.stdout:
        raise CommandError("--html writes a file: leave --stdout out")
    if args.bot_log is not None and (args.html or args.stdout):
        raise CommandError("--bot-log prints one power's log: leave --html and --stdout out")
    if not args.stdout:
        writable_dir(args.out)      # before the work, not after it
    try:
        store = Store.open_readonly(args.db)
    except Exception as exc:  # sqlite3.DatabaseError and friends: not a server database
        raise CommandError(f"cannot open {args.db}: {exc}") from exc
    if args.bot_log is not None:
        return _print_bot_log(store, args)
    if args.html:
        return _write_html(store, args)
    try:
        text, data = export_game(store, args.game)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    if args.stdout:
        sys.stdout.write(text if args.stdout == "text" else data)
        return 0
    text_path = args.out / f"game-{args.game}.daide"
    json_path = args.out / f"game-{args.game}.json"
    text_path.write_text(text, encoding="utf-8")
    json_path.write_text(data, encoding="utf-8")
    print(f"wrote {text_path} and {json_path}")
    return 0


def _print_bot_log(store: object, args: argparse.Namespace) -> int:
    from daide.errors import CommandError
    from server.bot_log import BotLogError, bot_log
    from server.store import Store, StoreError

    assert isinstance(store, Store)
    try:
        sys.stdout.write(bot_log(store, args.game, args.bot_log))
    except (StoreError, BotLogError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    return 0


def _write_html(store: object, args: argparse.Namespace) -> int:
    """The replay page (render.replay), written as DIR/game-GAME.html."""
    from daide.errors import CommandError
    from maps import MapError
    from render import RenderError
    from render.replay import game_replay
    from server.store import StoreError

    try:
        page = game_replay(store, args.game)
    except (StoreError, MapError, RenderError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()  # type: ignore[attr-defined]
    path = args.out / f"game-{args.game}.html"
    path.write_text(page, encoding="utf-8")
    print(f"wrote {path}")
    return 0
