"""`daide serve`: run the DAIDE game server until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

NAME = "serve"
HELP = "run the DAIDE game server (TCP, many games, SQLite persistence)"


# Hostile-input limits of `server.settings.ServerSettings` (docs/hardening.md),
# each a flag named after its field; unset flags keep the server's default.
LIMITS: tuple[tuple[str, type, str], ...] = (
    ("im_timeout", float, "seconds to wait for the IM (default 30)"),
    ("join_idle_timeout", float, "seconds a connection may stay without joining (default 120)"),
    ("frame_timeout", float, "seconds a partly received frame may take (default 30)"),
    ("send_timeout", float, "seconds a client may take no data before it is dropped (default 60)"),
    ("outbound_queue", int, "messages queued per client before it is dropped (default 256)"),
    ("max_frame_body", int, "largest DM body a client may send, bytes (default 16384)"),
    ("message_rate", float, "messages per second per connection (default 100)"),
    ("message_burst", int, "burst of messages per connection (default 200)"),
    ("max_connections", int, "connections in total (default 1000)"),
    ("connections_per_address", int, "connections per peer address (default 50)"),
    ("iam_failures_per_connection", int, "wrong passcodes per connection (default 3)"),
    ("iam_failures_per_address", int, "wrong passcodes per address and window (default 10)"),
    ("http_max_connections", int, "HTTP and WebSocket connections in total, apart from the "
                                  "DAIDE TCP ones (default 500)"),
    ("http_connections_per_address", int, "HTTP and WebSocket connections per address "
                                          "(default 50)"),
    ("http_request_timeout", float, "seconds a request's headers, then its body, may take "
                                    "(default 10)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=16713,
                        help="TCP port (default 16713; 0 picks a free port, named in the first log line)")
    parser.add_argument("--http-port", type=int, default=None, metavar="P",
                        help="also serve the web page, its API and DAIDE over WebSocket on this "
                             "HTTP port (default off; 0 picks a free port; docs/web.md)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        dest="allow_origins",
                        help="also upgrade WebSockets of pages from this origin, e.g. "
                             "https://play.example, and take its host as a name of this server "
                             "(repeatable; default: the page's own origin, under an address or "
                             "localhost only - docs/web.md)")
    parser.add_argument("--variant", default="standard", metavar="NAME",
                        help="map to play, case-insensitive (default standard; `daide variants` lists them)")
    parser.add_argument("--level", type=int, default=0, help="press level (LVL), default 0")
    parser.add_argument("--start-from", type=Path, default=None, metavar="FILE",
                        help="games start from this position instead of the map's: a NOW and an "
                             "SCO message in DAIDE text, one per line (docs/bots.md)")
    parser.add_argument("--mtl", type=int, metavar="S", help="movement phase time limit, seconds")
    parser.add_argument("--rtl", type=int, metavar="S", help="retreat phase time limit, seconds")
    parser.add_argument("--btl", type=int, metavar="S", help="build phase time limit, seconds")
    parser.add_argument("--ptl", type=int, metavar="S",
                        help="press stops S seconds before a movement deadline")
    for flag, text in (("dsd", "deadline stops while a power owing orders is disconnected"),
                       ("aoa", "any orders accepted"),
                       ("pda", "partial draws allowed (level 10+)"),
                       ("npr", "no press during retreats"),
                       ("npb", "no press during builds")):
        parser.add_argument(f"--{flag}", action="store_true", help=text)
    parser.add_argument("--press-numbering", choices=("auto", "daide", "parlance", "mila"),
                        default="auto",
                        help="wire values of FCT/FOR/FWD/CCL/NAR (docs/protocol.md §6.7): auto (the "
                             "default) tells each client's numbering from its press and translates "
                             "when relaying; the others fix one for every client (docs/press.md)")
    parser.add_argument("--linger", type=float, default=None, metavar="S",
                        help="seconds connections stay open after a game's SMR - requests still "
                             "answered, ADM still relayed - before OFF and close (default 30)")
    parser.add_argument("--db", type=Path, default=Path("daide-server.db"),
                        help="SQLite database (default ./daide-server.db)")
    parser.add_argument("--admin-token-file", type=Path, default=None, metavar="PATH",
                        help="the admin token of `daide game` and the admin page: read from "
                             "PATH, created there (mode 0600) if missing (default: DB.admin-token "
                             "beside the database; docs/hosting.md)")
    parser.add_argument("--durability", choices=("os", "disk", "commit"), default="os",
                        help="when clients hear of an order or phase (always stored first): once "
                             "the OS has it (os, the default: survives any server crash, not a "
                             "power cut; never waits for a slow disk), or once on disk with one "
                             "fsync per batch (disk) or per transaction (commit)")
    rules = parser.add_argument_group("house rules (off by default)")
    rules.add_argument("--draw-after-idle", type=int, metavar="N", dest="idle_years",
                       help="draw after N consecutive year-ends without a centre changing "
                            "hands (the Diplomacy Player's Technical Guide uses 7)")
    rules.add_argument("--max-year", type=int, metavar="YEAR",
                       help="draw when this year has ended (the Player's Technical Guide's 35 years: 1935)")
    rules.add_argument("--stop-unchanged", action="store_true",
                       help="stop (a draw) when the centre table is unchanged for three years")
    rules.add_argument("--expedite", action="store_true",
                       help="expedited removal of players: a power whose retreats or removals "
                            "cannot matter loses those units at once, so nobody waits for it "
                            "(docs/adjudication-conventions.md)")
    limits = parser.add_argument_group("limits")
    for name, kind, text in LIMITS:
        limits.add_argument("--" + name.replace("_", "-"), type=kind, default=None, help=text)
    limits.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                        dest="trusted_proxies",
                        help="a reverse proxy (IP address) whose X-Forwarded-For names the web "
                             "client: the web door's per-address limits and IAM blocks count "
                             "that address (repeatable; docs/hardening.md)")
    parser.add_argument("--player-admin", action="store_true",
                        help="the players of a game may run the DAIDE admin commands on it "
                             "(ADM 'Server: ...'); each change waits 20 s for a veto "
                             "(docs/hosting.md)")
    parser.add_argument("--bot", action="append", default=[], metavar="NAME=COMMAND",
                        dest="bot_commands",
                        help="an external DAIDE program hosts may start into seats besides the "
                             "sample bots; {host}, {port} and {name} in COMMAND (repeatable; "
                             "docs/hosting.md)")
    parser.add_argument("--log-json", action=argparse.BooleanOptionalAction, default=None,
                        help="JSON log lines (default: JSON unless stderr is a terminal)")


def run(args: argparse.Namespace) -> int:
    import trio

    from bots.launcher import ProcessBots, parse_bot_options
    from daide.errors import CommandError
    from engine.variants import VariantError, load_variant
    from server.admin_token import AdminTokenError
    from server.app import Server
    from server.http import HttpListenError
    from server.lock import DatabaseLockError
    from server.logconfig import configure_logging
    from server.runner import serve_until_signal
    from server.settings import DEFAULT_LINGER, GameSettings, ServerSettings, SettingsError
    from server.start_position import check_start
    from server.store import StoreError

    try:
        game = GameSettings(
            variant=args.variant, level=args.level, mtl=args.mtl, rtl=args.rtl, btl=args.btl,
            ptl=args.ptl, dsd=args.dsd, aoa=args.aoa, pda=args.pda, npr=args.npr,
            npb=args.npb, idle_years_draw=args.idle_years, max_year=args.max_year,
            stop_unchanged=args.stop_unchanged, expedite=args.expedite,
            press_numbering=args.press_numbering,
            start=_start_text(args.start_from))
        chosen = {name: getattr(args, name) for name, _, _ in LIMITS
                  if getattr(args, name) is not None}
        settings = ServerSettings(host=args.host, port=args.port, db_path=args.db, game=game,
                                  durability=args.durability, http_port=args.http_port,
                                  allow_origins=tuple(args.allow_origins),
                                  trusted_proxies=tuple(args.trusted_proxies),
                                  player_admin=args.player_admin,
                                  admin_token_file=args.admin_token_file,
                                  linger=DEFAULT_LINGER if args.linger is None else args.linger,
                                  **chosen)
        check_start(load_variant(game.variant), game)
    except (SettingsError, VariantError) as exc:
        raise CommandError(str(exc)) from exc
    try:
        bots = ProcessBots(parse_bot_options(args.bot_commands))
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    configure_logging(json=args.log_json)
    server = Server(settings, bots=bots)

    try:
        try:
            trio.run(serve_until_signal, server)
        except BaseExceptionGroup as group:
            raise _only(group) from None
    except HttpListenError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from exc
    except DatabaseLockError as exc:     # in use by another server, or cannot be created
        raise CommandError(str(exc)) from exc
    except AdminTokenError as exc:       # the token file cannot be created or read
        raise CommandError(str(exc)) from exc
    except (StoreError, sqlite3.DatabaseError) as exc:
        raise CommandError(f"database {args.db}: {exc}") from exc
    return 0


def _start_text(path: Path | None) -> str | None:
    """The text of ``--start-from FILE`` (None without it)."""
    from daide.errors import CommandError

    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise CommandError(f"--start-from {path}: {reason}") from None


def _only(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside nested single-exception groups (trio nurseries)."""
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
