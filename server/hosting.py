"""Hosting: the operations a host runs on the games of a live server.

One set of operations behind three doors - the command line (``daide game
...``), the HTTP API (``/api/admin/...``, `server.admin_api`) and DAIDE
admin messages (``ADM ... 'Server: ...'``, `server.admin_adm`) - with the
same checks and the same one-line errors (`HostingError`).  The doors
check the admin token (`server.admin_token`) before they call anything
here; every call names its `Origin`, and every action that reaches a game
is stored with its time, origin and outcome (the game's admin log:
``daide game log N``, ``/api/admin/games/N``).

=======================  =========================================================
operation                what it does
=======================  =========================================================
``new_game(spec)``       a new forming game with its own settings (variant, level,
                         deadlines, rules, name, access, own port), seats reserved
                         by invitation, seats filled with server-started bots
``games()``              every game of the server, with its settings
``game(n)``              one game: settings, status, turn, seats (names, bots,
                         invitations pending), paused, port, admin log
``pause(n)``             the game's clock stops and no phase is processed
``resume(n)``            the clock runs again
``extend(n, seconds)``   the current deadline moves later
``end(n)``               a draw of the survivors, SMR, OFF
``eject(n, power)``      the power's client is dismissed, the power goes into civil
                         disorder and gets a new passcode (returned, for a
                         replacement player's IAM)
``fill(n, bot, power)``  a server-started bot takes a free seat (forming) or a
                         power in civil disorder (running)
``log(n)``               the game's admin actions
``variants()``           the variants the server can host
``bots()``               the bots it can start
=======================  =========================================================

All of them are answered with plain data (dicts of str/int/list) ready for
JSON; every failure is a `HostingError` whose message is one sentence and
whose ``status`` is the HTTP status the API answers with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: HTTP statuses of `HostingError` (the API answers with them; the CLI prints the message).
BAD_REQUEST, UNAUTHORIZED, NOT_FOUND, CONFLICT, UNAVAILABLE = 400, 401, 404, 409, 503


class HostingError(Exception):
    """An operation refused: one sentence saying why; nothing was changed."""

    def __init__(self, message: str, status: int = BAD_REQUEST) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Origin:
    """Who asked: the door (``cli``, ``http``, ``web``, ``daide``) and the peer's address,
    plus, for DAIDE, the name the client gave (stored in the admin log)."""

    door: str
    address: str
    who: str = ""

    def __str__(self) -> str:
        return f"{self.door} {self.address}" + (f" ({self.who})" if self.who else "")


@dataclass(frozen=True)
class GameSpec:
    """What ``daide game new`` asks for.

    ``settings`` are checked when built (`server.settings.GameSettings`);
    ``port`` there may be 0 (any free port, chosen at creation).  ``seats``
    reserves powers for invited players by name (``--seat FRA=alice``):
    each gets an invitation code, returned once by `Host.new_game`.
    ``fill`` is a bot kind (``dumbbot``...) started by the server into every
    seat that is neither reserved nor taken when ``fill_after`` seconds have
    passed (0: at once).  ``bots`` puts a given bot on a given power.
    """

    settings: Any                   # server.settings.GameSettings
    seats: dict[str, str] = field(default_factory=dict)
    fill: str | None = None
    fill_after: float = 0.0
    bots: dict[str, str] = field(default_factory=dict)


class Host:
    """The operations (see the module doc) on a running server's lobby.

    Built by the server (`server.app.Server`) once the lobby runs and
    reachable as ``lobby.host``; every door calls these methods.
    """

    async def new_game(self, spec: GameSpec, origin: Origin) -> dict[str, Any]:
        """Create a forming game; returns `game` of it plus ``invitations``
        (power -> code, shown this once)."""
        raise NotImplementedError

    def games(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def game(self, game_id: int) -> dict[str, Any]:
        raise NotImplementedError

    async def pause(self, game_id: int, origin: Origin) -> dict[str, Any]:
        raise NotImplementedError

    async def resume(self, game_id: int, origin: Origin) -> dict[str, Any]:
        raise NotImplementedError

    async def extend(self, game_id: int, seconds: int, origin: Origin) -> dict[str, Any]:
        raise NotImplementedError

    async def end(self, game_id: int, origin: Origin) -> dict[str, Any]:
        raise NotImplementedError

    async def eject(self, game_id: int, power: str, origin: Origin) -> dict[str, Any]:
        """Returns ``{"power": P, "passcode": N, ...}``: the new passcode, for the admin only."""
        raise NotImplementedError

    async def fill(self, game_id: int, bot: str, power: str | None,
                   origin: Origin) -> dict[str, Any]:
        raise NotImplementedError

    def log(self, game_id: int) -> list[dict[str, Any]]:
        """The admin actions on the game, oldest first: ``{"at", "origin", "action", "outcome"}``."""
        raise NotImplementedError

    def variants(self) -> list[str]:
        raise NotImplementedError

    def bots(self) -> list[str]:
        raise NotImplementedError
