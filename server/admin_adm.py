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

This module reads a command's words into a `Command` (the table `COMMANDS`:
its pattern, who may run it, its usage line) and checks the asker's
authority; `server.admin_commands` carries each command out,
`server.admin_veto` holds the players' changes waiting for a veto, and
`server.admin_words` reads the options of ``new ... game`` and writes the
answers.  Nothing here is trusted to the client's wording: numbers are at
most six digits, names and answers are bounded, and a refusal is one line
saying why.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog

from protocol.messages import Adm
from server import admin_commands as commands
from server.admin_commands import Ask, LobbyView
from server.admin_veto import SERVER, Change, Proposal
from server.admin_words import MAX_LINES, cut, printable, seconds_text, sentence, whole_number
from server.hosting_terms import HostingError
from server.session import Client, Role

log = structlog.get_logger("server.admin_adm")

#: What starts a server command: Parlance's ``Server:``, in any case - and with
#: blanks around it, so that ``Server : admin TOKEN`` is not relayed to everyone.
PREFIX = re.compile(r"\s*server\s*:", re.IGNORECASE)


# --- the hook ----------------------------------------------------------------------


async def handle_adm(lobby: LobbyView, client: Client, message: Adm) -> bool:
    """Answer ``message`` if it is a server command (True); False for an ADM to relay.

    Called by `server.lobby.Lobby.received` after the ADM rate limit, before
    the relay; the answers go to ``client`` only.
    """
    found = PREFIX.match(message.text)
    if found is None:
        return False
    ask = Ask(lobby, lobby.admin_desk, client, printable(message.name),
              message.text[found.end():])
    try:
        lines = await _run(ask)
    except HostingError as exc:
        lines = [sentence(exc.message)]
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


async def _run(ask: Ask) -> list[str]:
    """The asker's words read into a command (``game N`` first, if given), then run."""
    words = [w.lower() for w in ask.raw]
    if not words:
        return ['Say "Server: help" for the list of commands.']
    if words[0] == "game" and len(words) > 1:
        number = whole_number(words[1])
        if number is None:
            return ['"game" takes a game number first, e.g. "Server: game 3 status".']
        ask.game_id = number
        ask.raw, words = ask.raw[2:], words[2:]
        if not words:
            return [f'Say what to do with game {number}, e.g. "Server: game {number} status".']
    line = " ".join(words)
    for command in COMMANDS:
        found = command.pattern.fullmatch(line)
        if found:
            return await _dispatch(ask, command, found)
    return [f'Unknown command "{cut(" ".join(ask.raw), 60)}"; "Server: help" lists them.']


async def _dispatch(ask: Ask, command: Command, found: re.Match[str]) -> list[str]:
    if command.kind == OPEN:
        return list(await command.run(ask, found))
    if command.game and ask.game_id is None:
        return ['You are in no game: say "Server: game N <command>" '
                '("Server: list games" shows the numbers).']
    refusal = _refusal(ask, command)
    if refusal is not None:
        log.info("adm_refused", conn=ask.client.id, command=_verb(command),
                 game=ask.game_id)
        return [refusal]
    if command.kind != CHANGE:
        lines = list(await command.run(ask, found))
        if command.kind == AT_ONCE and not ask.admin and ask.game_id is not None:
            ask.announce(ask.game_id, f"{ask.who()}: {lines[0]}")
            return []
        return lines
    change: Change = await command.run(ask, found)
    if ask.admin:
        return [sentence(await change.act(ask.origin()))]
    assert ask.game_id is not None
    # The veto rule: announced now, carried out after the delay unless vetoed; the
    # asker hears the announcement with the others.
    lobby = ask.lobby
    ask.desk.propose(Proposal(ask.game_id, change, ask.who(), ask.origin()),
                     lobby.settings.veto_delay, lobby.clients, lobby.nursery)
    return []


def _refusal(ask: Ask, command: Command) -> str | None:
    """Why this asker may not run ``command`` (None: it may)."""
    if ask.admin:
        return None
    if command.kind == VETO:
        if ask.client.game_id == ask.game_id:
            return None
        return f"Only the admin or a client of game {ask.game_id} may veto its commands."
    token_first = 'say "Server: admin TOKEN" first'
    if command.kind == ADMIN or not ask.lobby.settings.player_admin:
        return f"Only a connection that has shown the admin token may do that ({token_first})."
    if ask.game_id is not None and _player_of(ask, ask.game_id):
        return None
    if ask.game_id is not None:
        return f"Only the admin or a player of game {ask.game_id} may do that."
    return "Only the admin or a player of a game may do that."


def _player_of(ask: Ask, game_id: int) -> bool:
    return ask.client.game_id == game_id and ask.client.role in (Role.PLAYER, Role.JOINING)


async def _help(ask: Ask, found: re.Match[str]) -> list[str]:
    lines = ['Server commands: an admin message "Server: <command>";'
             ' "game N <command>" acts on game N.']
    lines += [command.usage for command in COMMANDS if command.usage]
    if ask.lobby.settings.player_admin:
        lines.append(f"Players may run them on their own game; changes wait"
                     f" {seconds_text(ask.lobby.settings.veto_delay)} for a veto.")
    return lines


def _verb(command: Command) -> str:
    return command.usage.split(" ", 1)[0] if command.usage else command.pattern.pattern[:20]


def _command(pattern: str, kind: str, game: bool,
             run: Callable[[Ask, re.Match[str]], Awaitable[Any]], usage: str) -> Command:
    return Command(re.compile(pattern), kind, game, run, usage)


#: Every command, tried in this order against the lower-cased words.
COMMANDS: tuple[Command, ...] = (
    _command(r"admin( .*)?", OPEN, False, commands.admin_token,
             "admin TOKEN - become an admin on this connection"),
    _command(r"help|\?", OPEN, False, _help, "help - this list"),
    _command(r"new( .*)?", ADMIN, False, commands.new_game,
             "new [<variant>] game [level N] [mtl|rtl|btl|ptl N] [max year N]"
             " [dsd] [aoa] [pda] [npr] [npb] [fill BOT] [port N] [name TEXT] - open a game"),
    _command(r"status", READ, False, commands.status, "status - the game (outside a game: every game)"),
    _command(r"list games", READ, False, commands.list_games, "list games - every game"),
    _command(r"list variants", READ, False, commands.list_variants, "list variants - the maps"),
    _command(r"list bots", READ, False, commands.list_bots, "list bots - the bots the server starts"),
    _command(r"who|list players", READ, True, commands.who, "who - the players and observers"),
    _command(r"start (?:an? )?([a-z0-9_]{1,40})(?: as ([a-z]{3}))?", CHANGE, True, commands.start,
             "start <bot> [as <power>] - a server-started bot takes a seat"),
    _command(r"pause", AT_ONCE, True, commands.pause, "pause - stop the clock and the phases"),
    _command(r"resume|unpause", CHANGE, True, commands.resume, "resume - run them again"),
    _command(r"extend ([0-9]{1,6})(?: s| secs?| seconds?)?", CHANGE, True, commands.extend,
             "extend N - move the current deadline N seconds later"),
    _command(r"end(?: the)? game", CHANGE, True, commands.end,
             "end game - end it now, a draw of the survivors"),
    _command(r"eject ([a-z]{3})", CHANGE, True, commands.eject,
             "eject <power> - into civil disorder, with a new passcode for a replacement"),
    _command(r"log", ADMIN, True, commands.admin_log, "log - the game's admin actions"),
    _command(r"([a-z]+) time limit(?: ([0-9]{1,6}))?", READ, True, commands.time_limit,
             "<phase> time limit - the move, retreat, build or press time limit"),
    _command(r"(?:enable|disable) press(?: level .*)?", READ, True, commands.press, ""),
    _command(r"(veto|cancel|reject)(?: ([a-z]+))?", VETO, True, commands.veto,
             "veto [<word>] - stop the players' commands waiting for a veto"),
)
