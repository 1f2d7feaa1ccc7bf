"""What each DAIDE admin command does (`server.admin_adm` reads and checks it).

Every command is one function of the `Ask` - who asks, on which game - and
the match of its words; the lobby's parts it uses are named by the views
below (`LobbyView`, `HostView`, `TokenView`), so that this module imports
neither the lobby nor `server.hosting`.  A command that only reads, or
pauses, answers with its lines; one that changes a game answers with a
`server.admin_veto.Change`, which `server.admin_adm` carries out at once
for an admin, or proposes under the veto rule for a player.  A refusal is a
`HostingError` whose one line is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import structlog
import trio

from server.admin_veto import Change, Desk, announce
from server.admin_words import (
    MAX_LINES,
    MAX_NAME,
    PHASES,
    cut,
    game_line,
    joined,
    limits_text,
    new_game_options,
    printable,
    seats_text,
    seconds_text,
    sentence,
    settings_text,
    whole_number,
)
from server.hosting_terms import UNAUTHORIZED, GameSpec, HostingError, Origin
from server.limits import IamGuard
from server.session import Client, Role
from server.settings import GameSettings, ServerSettings, SettingsError

log = structlog.get_logger("server.admin_commands")

# The lobby calls `server.admin_adm.handle_adm`, and `server.hosting` and
# `server.admin_token` build on the lobby: what is used of them is named here, so
# neither this module nor `server.admin_adm` imports them.


class HostView(Protocol):
    """The operations of `server.hosting.Host` these commands call."""

    async def new_game(self, spec: GameSpec, origin: Origin) -> dict[str, Any]: ...
    def games(self) -> list[dict[str, Any]]: ...
    def game(self, game_id: int) -> dict[str, Any]: ...
    async def pause(self, game_id: int, origin: Origin) -> dict[str, Any]: ...
    async def resume(self, game_id: int, origin: Origin) -> dict[str, Any]: ...
    async def extend(self, game_id: int, seconds: int, origin: Origin) -> dict[str, Any]: ...
    async def end(self, game_id: int, origin: Origin) -> dict[str, Any]: ...
    async def eject(self, game_id: int, power: str, origin: Origin) -> dict[str, Any]: ...
    async def fill(self, game_id: int, bot: str, power: str | None,
                   origin: Origin) -> dict[str, Any]: ...
    def log(self, game_id: int) -> list[dict[str, Any]]: ...
    def variants(self) -> list[str]: ...
    def bots(self) -> list[str]: ...


class TokenView(Protocol):
    """`server.admin_token.AdminToken`: the one check of every admin door."""

    def authorize(self, presented: str | None, guard: IamGuard, address: str,
                  now: float) -> None: ...


class LobbyView(Protocol):
    """What the admin messages use of the lobby (`server.lobby.Lobby`)."""

    @property
    def settings(self) -> ServerSettings: ...

    @property
    def host(self) -> HostView: ...

    @property
    def admin_token(self) -> TokenView: ...

    @property
    def iam_guard(self) -> IamGuard: ...

    @property
    def clients(self) -> set[Client]: ...

    @property
    def nursery(self) -> trio.Nursery: ...

    @property
    def admin_desk(self) -> Desk: ...


class Ask:
    """One server command from one client: who asks, on which game, in which words."""

    def __init__(self, lobby: LobbyView, desk: Desk, client: Client, name: str,
                 text: str) -> None:
        self.lobby = lobby
        self.desk = desk
        self.client = client
        self.name = name or client.name[:MAX_NAME] or "a client"
        self.raw = text.split()
        self.game_id: int | None = client.game_id     # or N of ``game N ...``
        self.close_reason = ""        # close the connection once answered

    @property
    def host(self) -> HostView:
        return self.lobby.host

    @property
    def admin(self) -> bool:
        return self.client.admin

    def origin(self) -> Origin:
        return Origin("daide", self.client.address, self.who())

    def who(self) -> str:
        """How announcements and the admin log name the asker."""
        if self.client.power and self.client.role in (Role.PLAYER, Role.JOINING):
            return f"{self.client.power} ({self.name})"
        return self.name

    def announce(self, game_id: int, text: str) -> None:
        announce(self.lobby.clients, game_id, text)


# --- the commands, one function each -----------------------------------------------


async def admin_token(ask: Ask, found: re.Match[str]) -> list[str]:
    lobby, client = ask.lobby, ask.client
    try:
        # The one check of every admin door: refused unchecked while the address is
        # blocked, and a wrong token counted towards the block (`server.admin_token`).
        lobby.admin_token.authorize(" ".join(ask.raw[1:]) or None, lobby.iam_guard,
                                    client.address, trio.current_time())
    except HostingError as exc:
        if exc.status == UNAUTHORIZED and len(ask.raw) > 1:
            # Like a wrong IAM passcode, a wrong token counts on the connection too.
            client.iam_failures += 1
            if client.iam_failures >= lobby.settings.iam_failures_per_connection:
                ask.close_reason = "too many wrong passcodes"
        raise
    client.admin = True
    log.info("admin_token_accepted", conn=client.id)
    return ["You are an admin on this connection."]


async def new_game(ask: Ask, found: re.Match[str]) -> list[str]:
    words = [w.lower() for w in ask.raw]
    if len(words) >= 2 and words[1] == "game":
        variant, options = "standard", ask.raw[2:]
    elif len(words) >= 3 and words[2] == "game":
        variant, options = words[1], ask.raw[3:]
    else:
        return ['Say "new game" or "new <variant> game", then any options'
                ' ("Server: help" lists them).']
    try:
        changes, fill = new_game_options(options)
        # As `daide game new`: what is not asked for is the default, not the
        # template of the server's own games (docs/hosting.md).
        settings = GameSettings(variant=variant, **changes)
    except SettingsError as exc:
        return [f"No game created: {exc}."]
    result = await ask.host.new_game(GameSpec(settings, fill=fill), ask.origin())
    number = result.get("id", "?")
    lines = [f"Game {number} is open: {settings_text(settings)}."]
    if result.get("own_port"):
        lines.append(f"Its players join on its own port, {result.get('port')}.")
    if fill:
        lines.append(f"Server-started {fill} bots take the seats nobody has taken.")
    return lines


async def status(ask: Ask, found: re.Match[str]) -> list[str]:
    if ask.game_id is None:
        return await list_games(ask, found)
    game = ask.host.game(ask.game_id)
    lines = [game_line(game)]
    settings = game.get("settings")
    if isinstance(settings, dict):
        lines.append(sentence(f"press level {settings.get('level', '?')},"
                              f" {limits_text(settings)}"))
    if ask.admin:
        seats = seats_text(game)
        if seats:
            lines.append(f"Seats: {seats}.")
    for proposal in ask.desk.pending(ask.game_id):
        lines.append(f"Waiting for a veto: {proposal.by} is {proposal.what}.")
    return lines


async def list_games(ask: Ask, found: re.Match[str]) -> list[str]:
    games = ask.host.games()
    if not games:
        return ["The server has no games."]
    shown = games[-(MAX_LINES - 1):]
    lines = [game_line(game) for game in shown]
    if len(games) > len(shown):
        lines.insert(0, f"The last {len(shown)} of {len(games)} games:")
    return lines


async def list_variants(ask: Ask, found: re.Match[str]) -> list[str]:
    return [joined("Variants", ask.host.variants())]


async def list_bots(ask: Ask, found: re.Match[str]) -> list[str]:
    return [joined("Bots the server can start", ask.host.bots())]


async def who(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    members = [c for c in ask.lobby.clients if c.game_id == ask.game_id]
    players = sorted((c for c in members if c.role in (Role.PLAYER, Role.JOINING)),
                     key=lambda c: (c.power or "", c.name))
    watchers = [c for c in members if c.role in (Role.OBSERVER, Role.WATCHING)]

    def player(c: Client) -> str:
        # Parlance does not tell players who plays which power; the admin sees it.
        name = f"{printable(c.name) or 'unnamed'}" + (f" {c.version}" if c.version else "")
        return f"{c.power} {name}" if ask.admin and c.power else name

    lines = [joined(f"Players of game {ask.game_id}", [player(c) for c in players])]
    lines.append(f"Observers: {len(watchers)}.")
    return lines


async def pause(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    await ask.host.pause(ask.game_id, ask.origin())
    return [f"Game {ask.game_id} is paused: no deadline runs and no phase is processed."]


async def resume(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    return _host_change("resuming the game", {"resume", "unpause"},
                        lambda origin: ask.host.resume(game_id, origin),
                        f"game {game_id} runs again.")


async def extend(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    seconds = whole_number(found.group(1))
    if seconds is None or seconds < 1:
        raise HostingError("Extend by a number of seconds, e.g. \"extend 300\".")
    return _host_change(f"extending the deadline by {seconds_text(seconds)}", {"extend"},
                        lambda origin: ask.host.extend(game_id, seconds, origin),
                        f"the deadline of game {game_id} is {seconds_text(seconds)} later.")


async def end(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    return _host_change("ending the game", {"end", "ending"},
                        lambda origin: ask.host.end(game_id, origin),
                        f"game {game_id} is over, a draw of the survivors.")


async def eject(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    power = found.group(1).upper()
    admin = ask.admin

    async def act(origin: Origin) -> str:
        result = await ask.host.eject(game_id, power, origin)
        done = f"{power} is in civil disorder"
        passcode = result.get("passcode")
        if admin and passcode is not None:
            # Only an admin's own answer carries it: a player's eject is announced to all.
            return f"{done}; its new passcode is {passcode} (for a replacement player's IAM)."
        # The new passcode is not announced: an admin's "eject" gives a fresh one.
        return (f'{done}: "start <bot> as {power}" puts a server-started bot on it, or an'
                f" admin's eject gives a passcode for a replacement player.")
    return Change(f"ejecting {power}", frozenset({"eject", power.lower()}), act)


async def start(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    bot = found.group(1)
    power = found.group(2).upper() if found.group(2) else None
    what = f"starting a {bot}" + (f" as {power}" if power else "")
    return _host_change(what, {"start", "bot", bot},
                        lambda origin: ask.host.fill(game_id, bot, power, origin),
                        f"a {bot} takes {power or 'a free seat'} in game {game_id}.")


async def admin_log(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    entries = ask.host.log(ask.game_id)
    if not entries:
        return [f"Game {ask.game_id} has no admin actions."]
    shown = entries[-(MAX_LINES - 1):]
    lines = [f"{e.get('at', '?')} {e.get('origin', '?')}: {e.get('action', '?')}"
             f" - {e.get('outcome', '?')}" for e in shown]
    if len(entries) > len(shown):
        lines.insert(0, f"The last {len(shown)} of {len(entries)} admin actions:")
    return lines


async def time_limit(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    phase, seconds = found.group(1), found.group(2)
    key = PHASES.get(phase)
    if key is None:
        return [f'Unknown phase "{cut(phase, 20)}": move, retreat, build or press.']
    settings = ask.host.game(ask.game_id).get("settings")
    value = settings.get(key) if isinstance(settings, dict) else None
    now = f"{seconds_text(value)}" if value else "none"
    if seconds is None:
        return [f"The {phase} time limit of game {ask.game_id} is {now}."]
    return [f"Time limits of a game cannot be changed once it is created (the {phase}"
            f" time limit stays {now}); \"extend N\" moves the current deadline, and"
            f" \"new <variant> game {key} N\" makes a game with another limit."]


async def press(ask: Ask, found: re.Match[str]) -> list[str]:
    return ["The press level of a game cannot be changed once it is created;"
            ' "new <variant> game level N" makes a game with another level.']


async def veto(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    word = found.group(2)
    vetoed = ask.desk.veto(ask.game_id, word, ask.who(), ask.lobby.clients)
    if not vetoed:
        what = f'"{word}" command' if word else "command"
        return [f"No {what} of game {ask.game_id} is waiting for a veto."]
    return [] if ask.client.game_id == ask.game_id else \
        [f"Vetoed: {', '.join(p.what for p in vetoed)}."]


def _game(ask: Ask) -> int:
    assert ask.game_id is not None
    return ask.game_id


def _host_change(what: str, words: set[str], call: Callable[[Origin], Awaitable[object]],
                 done: str) -> Change:
    """A change that is one operation of the host's (``call``), and ``done``, the
    sentence saying it was done."""
    async def act(origin: Origin) -> str:
        await call(origin)
        return done
    return Change(what, frozenset(words), act)
