"""`daide game ...`: host games on a running server (docs/hosting.md).

    daide game new [--variant NAME] [--level N] [--mtl S] [--name TEXT] [--port P]
                   [--access open|invitation] [--seat POWER=NAME] [--bot POWER=BOT]
                   [--invite 'NAME [FRA ENG=GER]']
                   [--fill BOT] [--fill-after S] [the rule flags of daide serve]
    daide game list | show N | log N | pause N | resume N | extend N SECONDS | end N
    daide game eject N POWER | fill N BOT [--power P] | variants | bots

Every action is a request to the server's admin API (`server.admin_api`)
at ``--server URL`` - the server's web address, ``daide serve --http-port``
(default ``http://127.0.0.1:8080``, the port of ``make serve`` and of the
docs' examples) - with the admin token read from ``--token-file PATH``
(default: ``daide-server.db.admin-token`` in the working directory, where
``daide serve`` run there keeps it).  The token is never taken on the command
line, where other users of the machine could read it in the process list.

The standard library's urllib is enough for a handful of JSON requests: no
dependency is added.  It is told to follow no redirect and to use no proxy
from the environment (``http_proxy``...): the token goes to ``--server`` and
nowhere else.  What the server refuses is printed as its one line
(exit 1), as is a server that cannot be reached or a token file that cannot
be read.
"""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from daide.errors import CommandError
from render.turns import turn_words as render_turn_words

NAME = "game"
HELP = "host games on a running server: create, list, show, pause, resume, extend, end, " \
       "eject, fill (docs/hosting.md)"

#: The server's web address when --server is not given (`make serve`'s HTTP port).
DEFAULT_SERVER = "http://127.0.0.1:8080"
#: The database `daide serve` uses by default; its token file is beside it.
DEFAULT_DB = Path("daide-server.db")
#: Seconds to wait for the server's answer (creating a game starts its bots).
TIMEOUT = 30.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default=DEFAULT_SERVER, metavar="URL",
                        help="the server's web address, as `daide serve --http-port P` serves it "
                             f"(default {DEFAULT_SERVER})")
    common.add_argument("--token-file", type=Path, default=None, metavar="PATH",
                        help="file holding the admin token (default: daide-server.db.admin-token "
                             "in this directory; the server logs where its token is)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, text: str) -> argparse.ArgumentParser:
        # No abbreviations: `--token X` must not pass for `--token-file X`.
        return actions.add_parser(name, help=text, description=text, parents=[common],
                                  allow_abbrev=False)

    new = action("new", "create a game with its own settings")
    _new_arguments(new)
    action("list", "every game of the server")
    for name, text in (("show", "one game: settings, status, seats, admin log"),
                       ("log", "the admin actions on a game"),
                       ("pause", "stop a game's clock; no phase is processed"),
                       ("resume", "start a paused game's clock again"),
                       ("end", "end a game now: a draw of the survivors")):
        action(name, text).add_argument("game", type=int, metavar="N", help="game number")
    extend = action("extend", "move a game's current deadline later")
    extend.add_argument("game", type=int, metavar="N", help="game number")
    extend.add_argument("seconds", type=int, metavar="SECONDS", help="seconds to add")
    eject = action("eject", "put a power into civil disorder and give it a new passcode, "
                            "for a replacement player")
    eject.add_argument("game", type=int, metavar="N", help="game number")
    eject.add_argument("power", metavar="POWER", help="e.g. FRA")
    fill = action("fill", "a bot started by the server takes a free seat or a power in "
                          "civil disorder")
    fill.add_argument("game", type=int, metavar="N", help="game number")
    fill.add_argument("bot", metavar="BOT", help="a bot of `daide game bots`")
    fill.add_argument("--power", metavar="P", help="the power it takes (default: any free one)")
    action("variants", "the variants the server can host")
    action("bots", "the bots the server can start")


def _new_arguments(new: argparse.ArgumentParser) -> None:
    new.add_argument("--variant", metavar="NAME", help="map to play (default standard)")
    new.add_argument("--name", metavar="TEXT", help="the game's name, as players see it")
    new.add_argument("--level", type=int, metavar="N", help="press level (default 0)")
    for flag, text in (("mtl", "movement phase time limit, seconds"),
                       ("rtl", "retreat phase time limit, seconds"),
                       ("btl", "build phase time limit, seconds"),
                       ("ptl", "press stops S seconds before a movement deadline")):
        new.add_argument(f"--{flag}", type=int, metavar="S", help=text)
    for flag, text in (("dsd", "deadline stops while a power owing orders is disconnected"),
                       ("aoa", "any orders accepted"),
                       ("pda", "partial draws allowed (level 10+)"),
                       ("npr", "no press during retreats"),
                       ("npb", "no press during builds"),
                       ("expedite", "the French adjudicator's expedited removal of players "
                                    "whose orders cannot matter")):
        new.add_argument(f"--{flag}", action="store_true", default=None, help=text)
    new.add_argument("--press-numbering", choices=("auto", "daide", "parlance", "mila"),
                     help="wire values of FCT/FOR/FWD/CCL/NAR (default auto; docs/press.md)")
    new.add_argument("--draw-after-idle", type=int, metavar="N", dest="idle_years_draw",
                     help="draw after N consecutive year-ends without a centre changing hands")
    new.add_argument("--max-year", type=int, metavar="YEAR", help="draw when this year has ended")
    new.add_argument("--stop-unchanged", action="store_true", default=None,
                     help="stop (a draw) when the centre table is unchanged for three years")
    new.add_argument("--port", type=int, metavar="P",
                     help="the game's own TCP port, for DAIDE programs pointed at this game "
                          "only (0: any free port; default: the server's shared port)")
    new.add_argument("--access", choices=("open", "invitation"),
                     help="who may take a seat: anyone (open, the default) or invited players")
    new.add_argument("--seat", action="append", default=[], metavar="POWER=NAME",
                     help="reserve a power for an invited player (repeatable); the invitation "
                          "code is printed once")
    new.add_argument("--invite", action="append", default=[], metavar="'NAME [LIST]'",
                     help="invite a player without a fixed power (repeatable): the power is "
                          "dealt at the start by the preference list the name may end with, "
                          "e.g. 'alice [FRA ENG=GER]' or 'bob [random]'; the invitation code "
                          "is printed once")
    new.add_argument("--bot", action="append", default=[], metavar="POWER=BOT",
                     help="a bot the server starts on this power (repeatable)")
    new.add_argument("--start-from", type=Path, metavar="FILE",
                     help="start from this position instead of the map's: NOW (...) and SCO "
                          "(...) in DAIDE text, as daide serve --start-from (docs/bots.md)")
    new.add_argument("--fill", metavar="BOT", help="a bot the server starts in every other seat")
    new.add_argument("--fill-after", type=float, metavar="S",
                     help="with --fill: seconds the game waits for players before filling "
                          "(default 0: at once)")


#: `GameSettings` fields `daide game new` sets (the flag's dest is the field's name).
SETTINGS = ("variant", "name", "level", "mtl", "rtl", "btl", "ptl", "dsd", "aoa", "pda", "npr",
            "npb", "expedite", "press_numbering", "idle_years_draw", "max_year",
            "stop_unchanged", "port", "access")


def run(args: argparse.Namespace) -> int:
    client = AdminClient(args.server, _read_token(args.token_file))
    action = args.action
    if action == "new":
        _print_new(client.post("/games", new_body(args)))
    elif action == "list":
        _print_list(client.get("/games")["games"])
    elif action == "show":
        _print_game(client.get(f"/games/{args.game}"))
    elif action == "log":
        _print_log(args.game, client.get(f"/games/{args.game}/log")["log"])
    elif action in ("pause", "resume", "end"):
        _print_done(action, args.game, client.post(f"/games/{args.game}/{action}", {}))
    elif action == "extend":
        answer = client.post(f"/games/{args.game}/extend", {"seconds": args.seconds})
        _print_done(action, args.game, answer, seconds=args.seconds)
    elif action == "eject":
        _print_eject(args.game, client.post(f"/games/{args.game}/eject", {"power": args.power}))
    elif action == "fill":
        body = {"bot": args.bot, **({"power": args.power} if args.power else {})}
        _print_fill(args.game, args.bot, client.post(f"/games/{args.game}/fill", body))
    elif action == "variants":
        for name in client.get("/variants")["variants"]:
            print(name)
    elif action == "bots":
        for name in client.get("/bots")["bots"]:
            print(name)
    return 0


def new_body(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON of ``POST /api/admin/games`` from ``daide game new``'s flags (what is not
    given is left out: the server's defaults)."""
    body: dict[str, Any] = {name: getattr(args, name) for name in SETTINGS
                            if getattr(args, name) is not None}
    seats = _pairs(args.seat, "--seat", "POWER=NAME")
    bots = _pairs(args.bot, "--bot", "POWER=BOT")
    if seats:
        body["seats"] = seats
    if bots:
        body["bots"] = bots
    if args.invite:
        body["invites"] = list(args.invite)
    if args.start_from is not None:
        try:
            body["start"] = args.start_from.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--start-from {args.start_from}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    if args.fill is not None:
        body["fill"] = args.fill
    if args.fill_after is not None:
        if args.fill is None:
            raise CommandError("--fill-after needs --fill BOT")
        body["fill_after"] = args.fill_after
    return body


def _pairs(items: Sequence[str], flag: str, form: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        power, sep, value = item.partition("=")
        if not sep or not power.strip() or not value.strip():
            raise CommandError(f"{flag} {item!r}: write {form}, e.g. {flag} FRA=alice")
        key = power.strip().upper()
        if key in pairs:
            raise CommandError(f"{flag}: {key} is given twice")
        pairs[key] = value.strip()
    return pairs


def _read_token(path: Path | None) -> str:
    from server.admin_token import token_path

    file = path if path is not None else token_path(DEFAULT_DB)
    try:
        text = file.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        hint = "" if path is not None else (
            " (the server creates it beside its database at its first start; run this where "
            "daide serve runs, or give --token-file PATH)")
        raise CommandError(f"no admin token file {file}{hint}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a token"
        raise CommandError(f"cannot read the admin token file {file}: {reason}") from None
    if not text or any(c.isspace() for c in text):
        raise CommandError(f"the admin token file {file} holds no token")
    return text


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is answered as the error it is here: following it would send the token on."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> None:
        return None


#: The opener of every request: no proxy from the environment, no redirect.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


class AdminClient:
    """JSON requests to ``URL/api/admin/...`` with the admin token."""

    def __init__(self, server: str, token: str) -> None:
        server = server.rstrip("/")
        if not server.startswith(("http://", "https://")) or len(server) < 10:
            raise CommandError(f"--server {server!r} is not a web address like {DEFAULT_SERVER}")
        self.base = server + "/api/admin"
        self.server = server
        self.token = token

    def get(self, path: str) -> Any:
        return self._request("GET", path, None)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        headers = {"authorization": f"Bearer {self.token}",
                   "user-agent": "daide-game/1"}     # `cli` in the admin log (server.admin_api)
        data = None
        if body is not None:
            # An API POST is JSON with the page's header (server.http): the one road.
            headers |= {"content-type": "application/json", "x-daide-client": "web"}
            data = json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        try:
            with _OPENER.open(request, timeout=TIMEOUT) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raise CommandError(_error_line(error)) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            reason = getattr(reason, "strerror", None) or reason
            raise CommandError(f"cannot reach the server at {self.server}: {reason} (is "
                               "daide serve running with --http-port? --server URL)") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise CommandError(f"{self.server} did not answer as a daide server does") from None


def _error_line(error: urllib.error.HTTPError) -> str:
    """The server's one line (``{"error": ...}``), or its status if it sent none."""
    try:
        message = json.loads(error.read()).get("error")
    except (ValueError, AttributeError, OSError):
        message = None
    if 300 <= error.code < 400:
        return (f"{error.url} answered {error.code} {error.reason}, a redirect, which would "
                "take the token elsewhere: give --server the server's own address")
    if not isinstance(message, str) or not message:
        return f"the server answered {error.code} {error.reason}"
    if error.code == 401:
        return f"{message} - is --token-file the token of this server?"
    return message


# --- what is printed ---------------------------------------------------------------------

def turn_words(turn: Any) -> str:
    """``FAL 1905`` -> ``Fall 1905`` (`render.turns`, as pictures and the web page say it);
    "-" for none."""
    if not isinstance(turn, str) or not turn:
        return "-"
    return render_turn_words(turn)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[str(c) for c in header], *[[("-" if c in (None, "") else str(c)) for c in row]
                                          for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in cells]


def _status(game: dict[str, Any]) -> str:
    status = str(game.get("status", "?"))
    if game.get("paused"):
        status += " (paused)"
    return status


def _seats_text(game: dict[str, Any]) -> str:
    """Who plays: each power and its player (``*``: a bot the server started), then the
    seats reserved and free."""
    bots = game.get("bots") or {}
    seats = [f"{s.get('power')} {s.get('name')}" + ("*" if s.get("power") in bots else "")
             for s in game.get("seats") or []]
    reserved = len(game.get("invited") or ())      # forming: seats held by invitations
    if reserved:
        seats.append(f"{reserved} reserved")
    free = game.get("free_seats")
    if free:
        seats.append(f"{free} free")
    return ", ".join(seats)


def _print_list(games: list[dict[str, Any]]) -> None:
    if not games:
        print("No games on this server yet: `daide game new` creates one.")
        return
    rows = [(g.get("id"), g.get("name"), g.get("variant"), (g.get("settings") or {}).get("level"),
             _status(g), turn_words(g.get("turn")), g.get("port"), _seats_text(g))
            for g in games]
    for line in _table(("game", "name", "variant", "press", "status", "turn", "port", "players"),
                       rows):
        print(line)
    if any(g.get("bots") for g in games):
        print("* a bot the server started")


#: Settings shown by `show`, in players' words.
SETTING_WORDS = (("level", "press level"),
                 ("mtl", "movement deadline (s)"), ("rtl", "retreat deadline (s)"),
                 ("btl", "build deadline (s)"), ("ptl", "press stops before deadline (s)"),
                 ("dsd", "deadline stops for disconnections"), ("aoa", "any orders accepted"),
                 ("pda", "partial draws allowed"), ("npr", "no press in retreats"),
                 ("npb", "no press in builds"), ("idle_years_draw", "draw after idle years"),
                 ("max_year", "draw after year"), ("stop_unchanged", "stop when unchanged"),
                 ("expedite", "expedited removal"))


def _print_game(game: dict[str, Any]) -> None:
    name = f" \"{game['name']}\"" if game.get("name") else ""
    where = (f"its own port {game.get('port')}" if game.get("own_port")
             else f"the shared port {game.get('port')}")
    turn = f", {turn_words(game['turn'])}" if game.get("turn") else ""
    print(f"Game {game.get('id')}{name}: {game.get('variant')}, {_status(game)}{turn}, "
          f"on {where}.")
    settings = game.get("settings") or {}
    shown = [f"{words} {'yes' if value is True else value}" for key, words in SETTING_WORDS
             if (value := settings.get(key)) not in (None, False, "")]
    shown.append("by invitation only" if settings.get("access") == "invitation"
                 else "open to anyone")
    if shown:
        print("Settings: " + "; ".join(shown) + ".")
    bots = game.get("bots") or {}
    seats = game.get("seats") or []
    if seats:
        print("Players:")
        rows = [(s.get("power"), s.get("name"),
                 f"{bots[s['power']]}, started by the server" if s.get("power") in bots else "")
                for s in seats]
        for line in _table(("power", "player", "bot"), rows):
            print("  " + line)
    invited = game.get("invited") or []
    if invited:
        print("Reserved seats:")
        rows = [(i.get("power") or "(dealt at the start)", i.get("name"),
                 "a bot started by the server" if i.get("bot") else "invited player")
                for i in invited]
        for line in _table(("power", "for", "who"), rows):
            print("  " + line)
    if game.get("free_seats"):
        print(f"Free seats: {game['free_seats']}.")
    free = game.get("free_powers") or []
    if free:
        what = "Powers still free" if game.get("status") == "forming" \
            else "Powers in civil disorder"
        print(f"{what}: {', '.join(f.get('name') or f.get('power') for f in free)}.")
    log = game.get("log") or []
    if log:
        print("Admin log:")
        for line in _log_lines(log):
            print("  " + line)


def _log_lines(log: list[dict[str, Any]]) -> list[str]:
    return _table(("time (UTC)", "by", "action", "outcome"),
                  [(_time(e.get("at")), e.get("origin"), e.get("action"), e.get("outcome"))
                   for e in log])


def _time(at: Any) -> str:
    """``2026-11-29T12:42:34.617+00:00`` -> ``2026-11-29 12:42:34`` (the log's times are UTC)."""
    return at.replace("T", " ")[:19] if isinstance(at, str) else "-"


def _print_log(game_id: int, log: list[dict[str, Any]]) -> None:
    if not log:
        print(f"No admin action on game {game_id} yet.")
        return
    for line in _log_lines(log):
        print(line)


def _print_new(game: dict[str, Any]) -> None:
    settings = game.get("settings") or {}
    name = f" \"{game['name']}\"" if game.get("name") else ""
    where = (f"its own port {game.get('port')}" if game.get("own_port")
             else f"the shared port {game.get('port')}")
    print(f"Game {game.get('id')}{name} created: {game.get('variant')}, press level "
          f"{settings.get('level')}, on {where}.")
    invitations = game.get("invitations") or {}
    if invitations:
        print("Invitations, shown this once - each player joins with the name "
              "'NAME [invite CODE]' (docs/hosting.md):")
        # Keyed by power (a seat) or by the invited name (dealt by their list).
        named = {i.get("power"): i.get("name") for i in game.get("invited") or ()}
        rows = [(key, named[key], code) if key in named
                else ("(dealt at the start)", key, code) for key, code in invitations.items()]
        for line in _table(("power", "for", "code"), rows):
            print("  " + line)


def _print_done(action: str, game_id: int, answer: dict[str, Any], *, seconds: int = 0) -> None:
    if action == "pause":
        print(f"Game {game_id} is paused: its clock stands and no phase is processed.")
    elif action == "resume":
        print(f"Game {game_id} runs again.")
    elif action == "extend":
        left = answer.get("seconds_left")
        print(f"Game {game_id}'s deadline is {seconds} seconds later"
              + (f": {left} seconds left." if left is not None else "."))
    elif action == "end":
        draw = answer.get("draw") or []
        print(f"Game {game_id} is ended: a draw between {', '.join(draw)}." if draw
              else f"Game {game_id} is ended.")


def _print_eject(game_id: int, answer: dict[str, Any]) -> None:
    power, passcode = answer.get("power"), answer.get("passcode")
    print(f"{power} is in civil disorder in game {game_id}. A replacement player takes it "
          f"over by rejoining as {power} with passcode {passcode}.")


def _print_fill(game_id: int, bot: str, answer: dict[str, Any]) -> None:
    power = answer.get("power")
    where = f"{power} in game {game_id}" if power else \
        f"a free seat of game {game_id} (its power is dealt at the start)"
    print(f"The server starts {bot} on {where}.")
