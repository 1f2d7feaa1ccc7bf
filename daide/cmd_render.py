"""`daide render`: draw a variant's map, or a phase of a stored game, as an SVG file.

Without ``--db``: the variant's starting position.  With ``--db`` and
``--game``: the game's position at the start of ``--turn`` with that turn's
orders and results drawn (the last position when ``--turn`` is left out).
The picture is the one the web page and the HTML replay show (docs/render.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "render"
HELP = "draw a variant's map or a phase of a stored game as SVG"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", metavar="NAME",
                        help="the map, as `daide variants` lists them (default standard, or "
                             "the game's own variant with --db)")
    parser.add_argument("--db", type=Path, metavar="PATH",
                        help="SQLite database of the server (draw a stored game)")
    parser.add_argument("--game", type=int, metavar="N", help="game number in --db")
    parser.add_argument("--turn", metavar="TURN",
                        help='phase to draw, e.g. "Spring 1901", "Fall retreats 1901" or "SPR 1901" '
                             "(default: the last position)")
    parser.add_argument("--no-orders", action="store_true", help="leave the order arrows out")
    parser.add_argument("--width", type=int, metavar="PX",
                        help="width of the picture in pixels (default: its natural size)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE.svg",
                        help="where to write the SVG ('-' for standard output)")


def _turn(text: str) -> str:
    from daide.errors import CommandError
    from render.turns import turn_from_text

    turn = turn_from_text(text)
    if turn is None:
        raise CommandError(f'--turn {text!r} is not a turn like "Spring 1901", '
                           f'"Fall retreats 1901" or "SPR 1901"')
    return turn


def run(args: argparse.Namespace) -> int:
    import sys

    from daide.errors import CommandError
    from engine.variants import variant_map
    from maps import MapError
    from render import RenderError, render_svg

    if (args.game is None) != (args.db is None):
        raise CommandError("--db and --game go together")
    if args.turn is not None and args.db is None:
        raise CommandError("--turn needs --db and --game (without them: the starting position)")
    if args.width is not None and not 50 <= args.width <= 20000:
        raise CommandError("--width must be 50..20000 pixels")
    turn = _turn(args.turn) if args.turn is not None else None
    if args.out != Path("-") and args.out.exists() and args.out.is_dir():
        raise CommandError(f"--out {args.out} is a directory; give a file name")
    if args.out != Path("-") and not args.out.parent.is_dir():
        raise CommandError(f"no directory {args.out.parent} for --out")
    try:
        if args.db is None:
            map_ = variant_map(args.variant or "standard")
            svg = render_svg(map_, None, orders=not args.no_orders, width=args.width)
        else:
            svg = _game_svg(args, turn)
    except (MapError, RenderError) as exc:
        raise CommandError(str(exc)) from exc
    if args.out == Path("-"):
        sys.stdout.write(svg + "\n")
        return 0
    try:
        args.out.write_text(svg + "\n", encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {args.out}: {exc.strerror or exc}") from exc
    print(f"wrote {args.out}")
    return 0


def _game_svg(args: argparse.Namespace, turn: str | None) -> str:
    from daide.errors import CommandError
    from engine.variants import variant_map
    from render import render_svg
    from render.replay import frames_of
    from render.turns import turn_words
    from server.store import Store, StoreError

    if not args.db.exists():
        raise CommandError(f"no database at {args.db}")
    try:
        store = Store.open_readonly(args.db)
    except Exception as exc:  # sqlite3.DatabaseError and friends: not a server database
        raise CommandError(f"cannot open {args.db}: {exc}") from exc
    try:
        record = store.game(args.game)
        phases = store.phases(args.game)
    except StoreError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        store.close()
    variant = record.settings.variant
    if args.variant and args.variant.lower() != variant.lower():
        raise CommandError(f"game {args.game} plays {variant}, not {args.variant}")
    map_ = variant_map(variant)
    frames = frames_of(map_, phases)
    if not frames:
        raise CommandError(f"game {args.game} has not started: nothing to draw")
    if turn is None:
        frame = frames[-1]
    else:
        matches = [f for f in frames if f.board.turn == turn]
        if not matches:
            raise CommandError(f"game {args.game} has no phase {turn_words(turn)} (it has "
                               f"{turn_words(frames[0].board.turn)} to "
                               f"{turn_words(frames[-1].board.turn)})")
        frame = matches[0]
    return render_svg(map_, frame.board, orders=not args.no_orders, width=args.width)
