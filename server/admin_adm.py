"""DAIDE admin messages: the host's operations for clients that speak only DAIDE.

A client runs the server's hosting operations (`server.hosting.Host`,
issue 27) in Parlance's words with an admin message whose text starts with
``Server:``::

    ADM ('alice') ('Server: new modern game level 8000 mtl 300 name Friday')

The rest of the text is the command: case-insensitive words separated by
blanks (the grammar is in docs/hosting.md, "DAIDE admin messages", and
``Server: help`` lists it).  Every answer is one or more
``ADM ('Server') ('...')`` lines in plain English to the asker only; a
server command is never relayed to other clients (docs/protocol.md §8.9
relays every other ADM).  A command acts on the asker's own game (the one
it joined, joins or watches) or, with ``game N`` in front, on game N.

Authority (issue 27, "Authority"):

* ``help`` and ``admin TOKEN`` are open to every connection.  ``admin
  TOKEN`` with the server's admin token makes the connection an admin for
  as long as it lasts.  The token is checked as every door checks it
  (`server.admin_token.AdminToken.authorize`): a wrong one counts towards
  the per-address block of wrong IAM passcodes (`server.limits.IamGuard`),
  and while the address is blocked every ``admin`` is refused unchecked;
  here it also counts towards the connection's own limit of wrong passcodes
  (the connection is closed at ``iam_failures_per_connection``, as for IAM).
* An admin may run every command, at once, on any game.
* With ``ServerSettings.player_admin`` (``daide serve --player-admin``) the
  players of a game (joined or waiting for the start) may also run the
  commands on their own game, under Parlance's veto rule: reading commands
  are answered at once; ``pause`` is done at once and announced to the game
  (stopping the clock is the safe direction); every other change is
  announced to every client of the game and carried out after
  ``ServerSettings.veto_delay`` seconds (20 by default, Parlance's veto
  time) unless a player or observer of the game says ``Server: veto``
  first.  Creating games and reading the admin log (it names who did what,
  from which address) stay with the admin; a player's eject is announced
  without the power's new passcode.

Nothing here is trusted to the client's wording: numbers are at most six
digits, names and answers are bounded, and a refusal is one line saying why.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog
import trio

from protocol.messages import Adm
from server.hosting_terms import UNAUTHORIZED, GameSpec, HostingError, Origin
from server.limits import IamGuard
from server.session import Client, Role
from server.settings import GameSettings, ServerSettings, SettingsError

log = structlog.get_logger("server.admin_adm")

#: The name the server's own ADMs carry (docs/protocol.md §8.9).
SERVER = "Server"
#: What starts a server command: Parlance's ``Server:``, in any case - and with
#: blanks around it, so that ``Server : admin TOKEN`` is not relayed to everyone.
PREFIX = re.compile(r"\s*server\s*:", re.IGNORECASE)
#: At most this many lines answer one command, so that a long list cannot fill
#: the asker's outbound queue (`server.session.Client.send` drops a client whose
#: queue is full).
MAX_LINES = 20
#: Names shown in answers (a client's ADM name, a game's name) are cut to this.
MAX_NAME = 40

#: ``<phase> time limit``: the phase words and the setting each names.
PHASES = {"move": "mtl", "movement": "mtl", "retreat": "rtl", "build": "btl",
          "adjustment": "btl", "press": "ptl"}
#: ``new ... game`` options taking a number, and the setting each sets.
NUMBER_OPTIONS = {"level": "level", "mtl": "mtl", "rtl": "rtl", "btl": "btl", "ptl": "ptl",
                  "port": "port"}
#: ``new ... game`` options that switch a rule on (the HLO variant options).
FLAG_OPTIONS = ("dsd", "aoa", "pda", "npr", "npb")


# The lobby calls `handle_adm`, and `server.hosting` and `server.admin_token` build on
# the lobby: what is used of them is named here, so this module imports neither.


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


# --- the state kept per lobby ------------------------------------------------------


@dataclass(eq=False)
class Proposal:
    """A player's change waiting out the veto delay."""

    game_id: int
    what: str                               # "ending the game", for the announcements
    words: frozenset[str]                   # what ``veto WORD`` may name
    by: str                                 # "ENG (alice)"
    act: Callable[[Origin], Awaitable[str]]  # carries it out; a sentence saying what was done
    origin: Origin
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


class Desk:
    """The players' proposals of one lobby waiting for a veto (``lobby.admin_desk``).

    Which connections are admins is theirs to carry (`server.session.Client.admin`)."""

    def __init__(self) -> None:
        self.proposals: list[Proposal] = []

    def pending(self, game_id: int) -> list[Proposal]:
        return [p for p in self.proposals if p.game_id == game_id]


# --- the hook ----------------------------------------------------------------------


async def handle_adm(lobby: LobbyView, client: Client, message: Adm) -> bool:
    """Answer ``message`` if it is a server command (True); False for an ADM to relay.

    Called by `server.lobby.Lobby.received` after the ADM rate limit, before
    the relay; the answers go to ``client`` only.
    """
    found = PREFIX.match(message.text)
    if found is None:
        return False
    ask = Ask(lobby, lobby.admin_desk, client, _printable(message.name),
              message.text[found.end():])
    try:
        lines = await ask.run()
    except HostingError as exc:
        lines = [_sentence(exc.message)]
    for line in lines[:MAX_LINES]:
        client.send(Adm(SERVER, line))
    if ask.close_reason:
        client.finish(ask.close_reason)        # after the answer saying why
    return True


# --- commands ----------------------------------------------------------------------

#: Who may run a command (see the module doc).
OPEN = "open"            # anybody
READ = "read"            # admin, or (player_admin) a player of the game: at once
AT_ONCE = "at once"      # admin, or a player: at once, announced to the game when a player
CHANGE = "change"        # admin at once, or a player after the veto delay
VETO = "veto"            # admin, or anybody in the game
ADMIN = "admin"          # admin only


@dataclass(frozen=True)
class Command:
    pattern: re.Pattern[str]
    kind: str
    game: bool                       # acts on a game (the asker's, or ``game N``)
    run: Callable[[Ask, re.Match[str]], Awaitable[Any]]
    usage: str


@dataclass(frozen=True)
class Change:
    """What a CHANGE command would do: done at once for an admin, proposed for a player."""

    what: str
    words: frozenset[str]
    act: Callable[[Origin], Awaitable[str]]


class Ask:
    """One server command from one client: parsed, checked, answered."""

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

    async def run(self) -> list[str]:
        words = [w.lower() for w in self.raw]
        if not words:
            return ['Say "Server: help" for the list of commands.']
        if words[0] == "game" and len(words) > 1:
            number = _number(words[1])
            if number is None:
                return ['"game" takes a game number first, e.g. "Server: game 3 status".']
            self.game_id = number
            self.raw, words = self.raw[2:], words[2:]
            if not words:
                return [f'Say what to do with game {number}, e.g. "Server: game {number} status".']
        line = " ".join(words)
        for command in COMMANDS:
            found = command.pattern.fullmatch(line)
            if found:
                return await self._dispatch(command, found)
        return [f'Unknown command "{_cut(" ".join(self.raw), 60)}"; "Server: help" lists them.']

    async def _dispatch(self, command: Command, found: re.Match[str]) -> list[str]:
        if command.kind == OPEN:
            return list(await command.run(self, found))
        if command.game and self.game_id is None:
            return ['You are in no game: say "Server: game N <command>" '
                    '("Server: list games" shows the numbers).']
        refusal = self._refusal(command)
        if refusal is not None:
            log.info("adm_refused", conn=self.client.id, command=_verb(command),
                     game=self.game_id)
            return [refusal]
        if command.kind != CHANGE:
            lines = list(await command.run(self, found))
            if command.kind == AT_ONCE and not self.admin and self.game_id is not None:
                self.announce(self.game_id, f"{self.who()}: {lines[0]}")
                return []
            return lines
        change: Change = await command.run(self, found)
        if self.admin:
            return [_sentence(await change.act(self.origin()))]
        assert self.game_id is not None
        return self.propose(self.game_id, change)

    def _refusal(self, command: Command) -> str | None:
        """Why this asker may not run ``command`` (None: it may)."""
        if self.admin:
            return None
        if command.kind == VETO:
            if self.client.game_id == self.game_id:
                return None
            return f"Only the admin or a client of game {self.game_id} may veto its commands."
        token_first = 'say "Server: admin TOKEN" first'
        if command.kind == ADMIN or not self.lobby.settings.player_admin:
            return f"Only a connection that has shown the admin token may do that ({token_first})."
        if self.game_id is not None and self._player_of(self.game_id):
            return None
        if self.game_id is not None:
            return f"Only the admin or a player of game {self.game_id} may do that."
        return "Only the admin or a player of a game may do that."

    def _player_of(self, game_id: int) -> bool:
        return self.client.game_id == game_id and self.client.role in (Role.PLAYER, Role.JOINING)

    # --- the veto rule -------------------------------------------------------------

    def propose(self, game_id: int, change: Change) -> list[str]:
        """A player's change: announced now, carried out after the delay unless vetoed."""
        delay = self.lobby.settings.veto_delay
        proposal = Proposal(game_id, change.what, change.words, self.who(), change.act,
                            self.origin())
        self.desk.proposals.append(proposal)
        self.announce(game_id, f"{proposal.by} is {change.what}. Any player or observer may "
                               f'stop it within {_seconds(delay)} by saying "Server: veto".')
        log.info("adm_proposed", game=game_id, what=change.what, by=proposal.by)
        self.lobby.nursery.start_soon(_carry_out, self.lobby, self.desk, proposal, delay,
                                      name=f"adm-proposal-{game_id}")
        return []               # the asker hears the announcement with the others

    def announce(self, game_id: int, text: str) -> None:
        _announce(self.lobby, game_id, text)


def _announce(lobby: LobbyView, game_id: int, text: str) -> None:
    """An ADM from the server to every client of the game, joined or not yet: players
    waiting for the start hear it too (a game's own broadcasts reach joined clients only)."""
    notice = Adm(SERVER, text)
    for member in list(lobby.clients):
        if member.game_id == game_id:
            member.send(notice)


async def _carry_out(lobby: LobbyView, desk: Desk, proposal: Proposal, delay: float) -> None:
    """Wait out the veto delay, then do what was proposed and say so to the game."""
    # Spawned from a connection task: not that connection's log context.
    structlog.contextvars.clear_contextvars()
    with proposal.scope:
        await trio.sleep(delay)
    if proposal.scope.cancelled_caught or proposal not in desk.proposals:
        return
    desk.proposals.remove(proposal)
    try:
        done = await proposal.act(proposal.origin)
        text, outcome = f"Nobody vetoed {proposal.what} ({proposal.by}): {done}", "done"
    except HostingError as exc:
        text = _sentence(f"{proposal.what} ({proposal.by}) failed: {exc.message}")
        outcome = exc.message
    except Exception:
        # Never reached by bad input (the Host answers every refusal with a
        # HostingError); this task runs in the server's nursery, so a bug here
        # must not stop the server: it is logged and the game told.
        log.exception("adm_proposal_failed", game=proposal.game_id, what=proposal.what)
        text = _sentence(f"{proposal.what} ({proposal.by}) failed: an internal error, logged")
        outcome = "internal error"
    log.info("adm_carried_out", game=proposal.game_id, what=proposal.what, by=proposal.by,
             outcome=outcome)
    _announce(lobby, proposal.game_id, text)


# --- the commands, one function each -----------------------------------------------


async def _admin(ask: Ask, found: re.Match[str]) -> list[str]:
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


async def _help(ask: Ask, found: re.Match[str]) -> list[str]:
    lines = ['Server commands: an admin message "Server: <command>";'
             ' "game N <command>" acts on game N.']
    lines += [command.usage for command in COMMANDS if command.usage]
    if ask.lobby.settings.player_admin:
        lines.append(f"Players may run them on their own game; changes wait"
                     f" {_seconds(ask.lobby.settings.veto_delay)} for a veto.")
    return lines


async def _new_game(ask: Ask, found: re.Match[str]) -> list[str]:
    words = [w.lower() for w in ask.raw]
    if len(words) >= 2 and words[1] == "game":
        variant, options = "standard", ask.raw[2:]
    elif len(words) >= 3 and words[2] == "game":
        variant, options = words[1], ask.raw[3:]
    else:
        return ['Say "new game" or "new <variant> game", then any options'
                ' ("Server: help" lists them).']
    try:
        changes, fill = _new_game_options(options)
        # As `daide game new`: what is not asked for is the default, not the
        # template of the server's own games (docs/hosting.md).
        settings = GameSettings(variant=variant, **changes)
    except SettingsError as exc:
        return [f"No game created: {exc}."]
    result = await ask.host.new_game(GameSpec(settings, fill=fill), ask.origin())
    number = result.get("id", "?")
    lines = [f"Game {number} is open: {_settings_text(settings)}."]
    if result.get("own_port"):
        lines.append(f"Its players join on its own port, {result.get('port')}.")
    if fill:
        lines.append(f"Server-started {fill} bots take the seats nobody has taken.")
    return lines


def _new_game_options(words: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """The settings ``new ... game`` options ask for, and the bot kind of ``fill``."""
    changes: dict[str, Any] = {}
    fill: str | None = None
    i = 0
    while i < len(words):
        word = words[i].lower()
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "name":
            name = " ".join(words[i + 1:])
            if not name:
                raise SettingsError("the name option needs a name after it")
            changes["name"] = name
            break
        if word in NUMBER_OPTIONS or (word == "max" and following.lower() == "year"):
            if word == "max":
                key, i = "max_year", i + 1
                following = words[i + 1] if i + 1 < len(words) else ""
                word = "max year"
            else:
                key = NUMBER_OPTIONS[word]
            value = _number(following)
            if value is None:
                raise SettingsError(f'"{word}" needs a number after it')
            changes[key] = value
            i += 2
        elif word in FLAG_OPTIONS:
            changes[word] = True
            i += 1
        elif word == "fill":
            if not re.fullmatch(r"[a-z0-9_]{1,40}", following.lower()):
                raise SettingsError('"fill" needs a bot name after it ("list bots" shows them)')
            fill = following.lower()
            i += 2
        else:
            raise SettingsError(f'unknown option "{_cut(word, 20)}"; the options are level N,'
                                f" mtl N, rtl N, btl N, ptl N, max year N, dsd, aoa, pda, npr,"
                                f" npb, fill BOT, port N and name TEXT (last)")
    return changes, fill


async def _status(ask: Ask, found: re.Match[str]) -> list[str]:
    if ask.game_id is None:
        return await _list_games(ask, found)
    game = ask.host.game(ask.game_id)
    lines = [_game_line(game)]
    settings = game.get("settings")
    if isinstance(settings, dict):
        lines.append(_sentence(f"press level {settings.get('level', '?')},"
                               f" {_limits_text(settings)}"))
    if ask.admin:
        seats = _seats_text(game)
        if seats:
            lines.append(f"Seats: {seats}.")
    for proposal in ask.desk.pending(ask.game_id):
        lines.append(f"Waiting for a veto: {proposal.by} is {proposal.what}.")
    return lines


async def _list_games(ask: Ask, found: re.Match[str]) -> list[str]:
    games = ask.host.games()
    if not games:
        return ["The server has no games."]
    shown = games[-(MAX_LINES - 1):]
    lines = [_game_line(game) for game in shown]
    if len(games) > len(shown):
        lines.insert(0, f"The last {len(shown)} of {len(games)} games:")
    return lines


async def _list_variants(ask: Ask, found: re.Match[str]) -> list[str]:
    return [_joined("Variants", ask.host.variants())]


async def _list_bots(ask: Ask, found: re.Match[str]) -> list[str]:
    return [_joined("Bots the server can start", ask.host.bots())]


async def _who(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    members = [c for c in ask.lobby.clients if c.game_id == ask.game_id]
    players = sorted((c for c in members if c.role in (Role.PLAYER, Role.JOINING)),
                     key=lambda c: (c.power or "", c.name))
    watchers = [c for c in members if c.role in (Role.OBSERVER, Role.WATCHING)]

    def player(c: Client) -> str:
        # Parlance does not tell players who plays which power; the admin sees it.
        name = f"{_printable(c.name) or 'unnamed'}" + (f" {c.version}" if c.version else "")
        return f"{c.power} {name}" if ask.admin and c.power else name

    lines = [_joined(f"Players of game {ask.game_id}", [player(c) for c in players])]
    lines.append(f"Observers: {len(watchers)}.")
    return lines


async def _pause(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    await ask.host.pause(ask.game_id, ask.origin())
    return [f"Game {ask.game_id} is paused: no deadline runs and no phase is processed."]


async def _resume(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)

    async def act(origin: Origin) -> str:
        await ask.host.resume(game_id, origin)
        return f"game {game_id} runs again."
    return Change("resuming the game", frozenset({"resume", "unpause"}), act)


async def _extend(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    seconds = _number(found.group(1))
    if seconds is None or seconds < 1:
        raise HostingError("Extend by a number of seconds, e.g. \"extend 300\".")

    async def act(origin: Origin) -> str:
        await ask.host.extend(game_id, seconds, origin)
        return f"the deadline of game {game_id} is {_seconds(seconds)} later."
    return Change(f"extending the deadline by {_seconds(seconds)}", frozenset({"extend"}), act)


async def _end(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)

    async def act(origin: Origin) -> str:
        await ask.host.end(game_id, origin)
        return f"game {game_id} is over, a draw of the survivors."
    return Change("ending the game", frozenset({"end", "ending"}), act)


async def _eject(ask: Ask, found: re.Match[str]) -> Change:
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


async def _start(ask: Ask, found: re.Match[str]) -> Change:
    game_id = _game(ask)
    bot = found.group(1)
    power = found.group(2).upper() if found.group(2) else None

    async def act(origin: Origin) -> str:
        await ask.host.fill(game_id, bot, power, origin)
        return f"a {bot} takes {power or 'a free seat'} in game {game_id}."
    what = f"starting a {bot}" + (f" as {power}" if power else "")
    return Change(what, frozenset({"start", "bot", bot}), act)


async def _log(ask: Ask, found: re.Match[str]) -> list[str]:
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


async def _time_limit(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    phase, seconds = found.group(1), found.group(2)
    key = PHASES.get(phase)
    if key is None:
        return [f'Unknown phase "{_cut(phase, 20)}": move, retreat, build or press.']
    settings = ask.host.game(ask.game_id).get("settings")
    value = settings.get(key) if isinstance(settings, dict) else None
    now = f"{_seconds(value)}" if value else "none"
    if seconds is None:
        return [f"The {phase} time limit of game {ask.game_id} is {now}."]
    return [f"Time limits of a game cannot be changed once it is created (the {phase}"
            f" time limit stays {now}); \"extend N\" moves the current deadline, and"
            f" \"new <variant> game {key} N\" makes a game with another limit."]


async def _press(ask: Ask, found: re.Match[str]) -> list[str]:
    return ["The press level of a game cannot be changed once it is created;"
            ' "new <variant> game level N" makes a game with another level.']


async def _veto(ask: Ask, found: re.Match[str]) -> list[str]:
    assert ask.game_id is not None
    word = found.group(2)
    vetoed = [p for p in ask.desk.pending(ask.game_id) if word is None or word in p.words]
    if not vetoed:
        what = f'"{word}" command' if word else "command"
        return [f"No {what} of game {ask.game_id} is waiting for a veto."]
    for proposal in vetoed:
        proposal.scope.cancel()
        ask.desk.proposals.remove(proposal)
        log.info("adm_vetoed", game=ask.game_id, what=proposal.what, by=proposal.by,
                 vetoed_by=ask.who())
        ask.announce(ask.game_id, f"{ask.who()} vetoed {proposal.what} ({proposal.by}).")
    return [] if ask.client.game_id == ask.game_id else \
        [f"Vetoed: {', '.join(p.what for p in vetoed)}."]


def _game(ask: Ask) -> int:
    assert ask.game_id is not None
    return ask.game_id


def _command(pattern: str, kind: str, game: bool,
             run: Callable[[Ask, re.Match[str]], Awaitable[Any]], usage: str) -> Command:
    return Command(re.compile(pattern), kind, game, run, usage)


#: Every command, tried in this order against the lower-cased words.
COMMANDS: tuple[Command, ...] = (
    _command(r"admin( .*)?", OPEN, False, _admin,
             "admin TOKEN - become an admin on this connection"),
    _command(r"help|\?", OPEN, False, _help, "help - this list"),
    _command(r"new( .*)?", ADMIN, False, _new_game,
             "new [<variant>] game [level N] [mtl|rtl|btl|ptl N] [max year N]"
             " [dsd] [aoa] [pda] [npr] [npb] [fill BOT] [port N] [name TEXT] - open a game"),
    _command(r"status", READ, False, _status, "status - the game (outside a game: every game)"),
    _command(r"list games", READ, False, _list_games, "list games - every game"),
    _command(r"list variants", READ, False, _list_variants, "list variants - the maps"),
    _command(r"list bots", READ, False, _list_bots, "list bots - the bots the server starts"),
    _command(r"who|list players", READ, True, _who, "who - the players and observers"),
    _command(r"start (?:an? )?([a-z0-9_]{1,40})(?: as ([a-z]{3}))?", CHANGE, True, _start,
             "start <bot> [as <power>] - a server-started bot takes a seat"),
    _command(r"pause", AT_ONCE, True, _pause, "pause - stop the clock and the phases"),
    _command(r"resume|unpause", CHANGE, True, _resume, "resume - run them again"),
    _command(r"extend ([0-9]{1,6})(?: s| secs?| seconds?)?", CHANGE, True, _extend,
             "extend N - move the current deadline N seconds later"),
    _command(r"end(?: the)? game", CHANGE, True, _end,
             "end game - end it now, a draw of the survivors"),
    _command(r"eject ([a-z]{3})", CHANGE, True, _eject,
             "eject <power> - into civil disorder, with a new passcode for a replacement"),
    _command(r"log", ADMIN, True, _log, "log - the game's admin actions"),
    _command(r"([a-z]+) time limit(?: ([0-9]{1,6}))?", READ, True, _time_limit,
             "<phase> time limit - the move, retreat, build or press time limit"),
    _command(r"(?:enable|disable) press(?: level .*)?", READ, True, _press, ""),
    _command(r"(veto|cancel|reject)(?: ([a-z]+))?", VETO, True, _veto,
             "veto [<word>] - stop the players' commands waiting for a veto"),
)


# --- words -------------------------------------------------------------------------


def _verb(command: Command) -> str:
    return command.usage.split(" ", 1)[0] if command.usage else command.pattern.pattern[:20]


def _sentence(text: str) -> str:
    """``text`` as a sentence: a capital first, a full stop last (`HostingError`s have neither)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _number(word: str) -> int | None:
    """A whole number of at most six digits, else None (no huge or non-ASCII numbers)."""
    return int(word) if re.fullmatch(r"[0-9]{1,6}", word) else None


def _printable(text: str) -> str:
    return "".join(c for c in text if c.isprintable())[:MAX_NAME]


def _cut(text: str, size: int) -> str:
    """At most ``size`` printable characters of a client's words, for an answer."""
    text = "".join(c for c in text[:size + 1] if c.isprintable())
    return text if len(text) <= size else text[:size - 3] + "..."


def _seconds(value: float | int) -> str:
    number = int(value) if float(value).is_integer() else value
    return f"{number} second" + ("" if number == 1 else "s")


def _joined(label: str, items: Sequence[str]) -> str:
    if not items:
        return f"{label}: none."
    shown = list(items[:30])
    more = f" and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return f"{label}: {', '.join(shown)}{more}."


def _settings_text(settings: GameSettings) -> str:
    parts = [settings.variant, f"press level {settings.level}"]
    limits = {"mtl": settings.mtl, "rtl": settings.rtl, "btl": settings.btl,
              "ptl": settings.ptl}
    parts.append(_limits_text(limits))
    flags = [f for f in FLAG_OPTIONS if getattr(settings, f)]
    if flags:
        parts.append(" ".join(f.upper() for f in flags))
    if settings.max_year is not None:
        parts.append(f"ends after {settings.max_year}")
    if settings.name:
        parts.append(f'named "{_cut(settings.name, MAX_NAME)}"')
    return ", ".join(parts)


def _limits_text(settings: dict[str, Any]) -> str:
    names = (("mtl", "move"), ("rtl", "retreat"), ("btl", "build"), ("ptl", "press"))
    limits = [f"{word} {_seconds(settings[key])}" for key, word in names if settings.get(key)]
    return "time limits " + ", ".join(limits) if limits else "no time limits"


def _game_line(game: dict[str, Any]) -> str:
    name = game.get("name") or ""
    head = f"Game {game.get('id', '?')}" + (f' "{_cut(str(name), MAX_NAME)}"' if name else "")
    parts = [str(game.get("variant", "?")), str(game.get("status", "?"))]
    if game.get("turn"):
        parts.append(str(game["turn"]))
    if game.get("paused"):
        parts.append("paused")
    return f"{head}: {', '.join(parts)}."


def _seats_text(game: dict[str, Any]) -> str:
    """Who holds which power (`server.hosting.Host.game`): for the admin's ``status``."""
    bots: dict[str, Any] = game["bots"] if isinstance(game.get("bots"), dict) else {}
    out = []
    for seat in game.get("seats") or []:
        power = str(seat.get("power", "?"))
        if power in bots:
            out.append(f"{power} {_cut(str(bots[power]), 30)} (server-started)")
        else:
            out.append(f"{power} {_cut(str(seat.get('name') or 'nobody'), 30)}")
    for invited in game.get("invited") or []:
        holder = invited.get("bot") or invited.get("name") or "?"
        out.append(f"{invited.get('power') or 'any power'} invited: {_cut(str(holder), 30)}")
    if game.get("free_seats"):
        out.append(f"{game['free_seats']} free")
    return ", ".join(out[:40])
