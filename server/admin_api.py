"""The host's HTTP API: ``/api/admin/...``, the door of ``daide game`` and the admin page.

Each route calls one operation of `server.hosting.Host` (``lobby.host``);
docs/hosting.md has the user's view.

=====================================  ==================================================
``GET  /api/admin/games``              every game: ``{"games": [...]}``
``POST /api/admin/games``              a new game (`spec_from_json`): the game and its
                                       ``invitations`` (power or invited name -> code,
                                       shown this once)
``GET  /api/admin/games/N``            one game: settings, status, seats, admin log
``POST /api/admin/games/N/pause``      the clock stops
``POST /api/admin/games/N/resume``     the clock runs again
``POST /api/admin/games/N/extend``     ``{"seconds": S}``: the deadline moves S later
``POST /api/admin/games/N/end``        a draw of the survivors, SMR, OFF
``POST /api/admin/games/N/eject``      ``{"power": P}``: civil disorder, a new passcode
``POST /api/admin/games/N/fill``       ``{"bot": B, "power": P}`` (power optional)
``GET  /api/admin/games/N/log``        the game's admin actions: ``{"game", "log"}``
``GET  /api/admin/variants``           ``{"variants": [...]}``
``GET  /api/admin/bots``               ``{"bots": [...]}``
=====================================  ==================================================

Authority: every request carries ``Authorization: Bearer TOKEN`` (the admin
token, `server.admin_token`); without it or with a wrong one the answer is
401 and nothing is read or changed, and while the address is blocked for
wrong passcodes or tokens, 429.  The token is checked before the route, so
a request without it learns nothing, not even which routes exist.  POSTs
pass the same checks as every API POST first (`server.http`: the server's own
Host, ``application/json``, ``X-Daide-Client: web``).

Every refusal of the host (`HostingError`) is answered with its status and
its one-line message; the origin of each action (`Origin`) is this door
(``cli`` for ``daide game``, which names itself in its User-Agent, ``web``
for a browser's request, which carries an Origin header, ``http`` for any
other program) and the client's address.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import trio

from server.hosting_terms import BAD_REQUEST, GameSpec, HostingError, Origin
from server.settings import GameSettings, SettingsError
from server.web_api import ApiError, game_number

if TYPE_CHECKING:
    from server.hosting import Host
    from server.lobby import Lobby

#: The path every route of this API is under.
PREFIX = "/api/admin"
#: The User-Agent of ``daide game`` starts with this (its origin in the admin log).
CLI_AGENT = "daide-game/"

#: The settings a new game may be given in JSON: `GameSettings`' own names and types
#: (``start``, a position, is ``daide serve --start-from``'s only).
INT_SETTINGS = ("level", "mtl", "rtl", "btl", "ptl", "idle_years_draw", "max_year", "port")
BOOL_SETTINGS = ("dsd", "aoa", "pda", "npr", "npb", "stop_unchanged", "expedite")
TEXT_SETTINGS = ("variant", "name", "access", "press_numbering")
#: The rest of a new game's JSON: `GameSpec`'s seats, bots and filling.
SPEC_KEYS = ("seats", "bots", "fill", "fill_after", "invites")
#: Most invites one request may carry (more than any map has powers).
MAX_INVITES = 100
#: Longest wait before empty seats are filled (a week).
MAX_FILL_AFTER = 7 * 24 * 3600


class AdminApi:
    """Answers ``/api/admin/...`` (see the module doc) with ``lobby.host``."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def handle(self, scope: Mapping[str, Any], method: str, path: str,
                     body: Mapping[str, Any], address: str) -> Any:
        """The answer of one request, or `ApiError` with its status and one line."""
        try:
            self._authorize(scope, address)
            return await self._route(method, path, body, _origin(scope, address))
        except HostingError as exc:
            raise ApiError(exc.status, exc.message) from None

    def _authorize(self, scope: Mapping[str, Any], address: str) -> None:
        presented = _bearer(_header(scope, b"authorization"))
        try:
            self.lobby.admin_token.authorize(presented, self.lobby.iam_guard, address,
                                             trio.current_time())
        except HostingError as exc:
            if presented is None and exc.status == 401:
                raise HostingError("this needs the admin token: Authorization: Bearer TOKEN "
                                   "(the token is in the file the server logged at its start)",
                                   exc.status) from None
            raise

    async def _route(self, method: str, path: str, body: Mapping[str, Any],
                     origin: Origin) -> Any:
        host: Host = self.lobby.host
        parts = [p for p in path[len(PREFIX):].split("/") if p]
        match method, parts:
            case "GET", ["games"]:
                return {"games": host.games()}
            case "POST", ["games"]:
                return await host.new_game(spec_from_json(body), origin)
            case "GET", ["games", number]:
                return host.game(_game(number))
            case "GET", ["games", number, "log"]:
                game_id = _game(number)
                return {"game": game_id, "log": host.log(game_id)}
            case "POST", ["games", number, "pause"]:
                return await host.pause(_game(number), origin)
            case "POST", ["games", number, "resume"]:
                return await host.resume(_game(number), origin)
            case "POST", ["games", number, "extend"]:
                return await host.extend(_game(number), _seconds(body.get("seconds")), origin)
            case "POST", ["games", number, "end"]:
                return await host.end(_game(number), origin)
            case "POST", ["games", number, "eject"]:
                return await host.eject(_game(number), _power(body.get("power"), "eject"),
                                        origin)
            case "POST", ["games", number, "fill"]:
                power = body.get("power")
                return await host.fill(_game(number), _text(body.get("bot"), "bot"),
                                       None if power is None else _power(power, "fill"), origin)
            case "GET", ["variants"]:
                return {"variants": host.variants()}
            case "GET", ["bots"]:
                return {"bots": host.bots()}
        raise HostingError(f"no admin API {method} {path[:80]}", 404)


def spec_from_json(body: Mapping[str, Any]) -> GameSpec:
    """A new game's `GameSpec` from the JSON of ``POST /api/admin/games``.

    The settings are `GameSettings`' fields by name (``{"variant": "modern",
    "level": 8000, "mtl": 300, "name": "Friday", "access": "invitation",
    "port": 16720, ...}``); what is left out takes `GameSettings`' default,
    not the server's template (the game is what the host asked for).  Then
    ``seats`` (power -> invited player's name), ``bots`` (power -> bot),
    ``fill`` (a bot for the other seats), ``fill_after`` (seconds) and
    ``invites`` (invited players without a fixed power, each a name that may
    end with a preference list: ``["alice [FRA ENG=GER]", "bob"]``).
    Any other key, or a value of the wrong type, is a 400 naming it."""
    known = {f.name for f in fields(GameSettings)}
    settings: dict[str, Any] = {}
    for key, value in body.items():
        if key in SPEC_KEYS:
            continue
        if key not in known:
            raise HostingError(f"{_short(key)} is not a setting of a new game", BAD_REQUEST)
        if value is None:
            continue
        if key in INT_SETTINGS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise HostingError(f"{key} must be a whole number", BAD_REQUEST)
        elif key in BOOL_SETTINGS:
            if not isinstance(value, bool):
                raise HostingError(f"{key} must be true or false", BAD_REQUEST)
        elif not isinstance(value, str):
            raise HostingError(f"{key} must be text", BAD_REQUEST)
        settings[key] = value
    if isinstance(settings.get("variant"), str):
        settings["variant"] = settings["variant"].lower()   # as `daide serve --variant`
    try:
        game = GameSettings(**settings)
    except SettingsError as exc:
        raise HostingError(str(exc), BAD_REQUEST) from None
    fill = body.get("fill")
    if fill is not None:
        fill = _text(fill, "fill")
    fill_after = body.get("fill_after", 0)
    if isinstance(fill_after, bool) or not isinstance(fill_after, int | float) \
            or not 0 <= fill_after <= MAX_FILL_AFTER:
        raise HostingError(f"fill_after must be 0..{MAX_FILL_AFTER} seconds", BAD_REQUEST)
    return GameSpec(settings=game, seats=_by_power(body.get("seats"), "seats"), fill=fill,
                    fill_after=float(fill_after), bots=_by_power(body.get("bots"), "bots"),
                    invites=_invites(body.get("invites")))


def _invites(value: Any) -> tuple[str, ...]:
    """``invites``: a list of names, each perhaps ending with a list (the host checks those)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HostingError("invites must be a list of names, e.g. [\"alice [FRA ENG=GER]\", "
                           "\"bob\"]", BAD_REQUEST)
    if len(value) > MAX_INVITES:
        raise HostingError(f"at most {MAX_INVITES} invites", BAD_REQUEST)
    return tuple(_text(v, "an invite") for v in value)


def _by_power(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise HostingError(f"{what} must map powers to names, e.g. {{\"FRA\": \"alice\"}}",
                           BAD_REQUEST)
    return {_power(power, what): _text(name, what) for power, name in value.items()}


def _power(value: Any, what: str) -> str:
    """A power's name as the host takes it (upper case); whether the game's map has
    it is the host's question."""
    if not isinstance(value, str) or not value or len(value) > 20:
        raise HostingError(f"{what} needs a power, e.g. FRA", BAD_REQUEST)
    return value.upper()


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise HostingError(f"{what} needs a name", BAD_REQUEST)
    return value.strip()


def _seconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise HostingError("extend takes {\"seconds\": S}, a whole number", BAD_REQUEST)
    return value


def _game(text: str) -> int:
    try:
        return game_number(text)
    except ApiError as exc:
        raise HostingError(exc.message, exc.status) from None


def _short(text: str, size: int = 40) -> str:
    return repr(text if len(text) <= size else text[:size] + "...")


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return None


def _bearer(value: str | None) -> str | None:
    """The token of ``Authorization: Bearer TOKEN`` (the scheme is case-insensitive,
    RFC 6750); None without one."""
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def _origin(scope: Mapping[str, Any], address: str) -> Origin:
    """Which door asked (stored in the admin log; a label, not an authority)."""
    agent = _header(scope, b"user-agent") or ""
    if agent.startswith(CLI_AGENT):
        return Origin("cli", address)
    if _header(scope, b"origin") is not None:
        return Origin("web", address)
    return Origin("http", address)
