"""DAIDE admin messages over real TCP (`server.admin_adm`, docs/hosting.md).

A client sends ``ADM ('name') ('Server: <command>')``; the server answers
with ``ADM ('Server') ('...')`` lines to that client only.  Each test runs a
real server on port 0 with a real database; the clients are scripted DAIDE
clients.  Every connection may send only a few ADMs in a burst
(`server.session.ADM_BURST`), so the tests spread their commands over
several connections.

`ask` sends the command followed by a MAP request: the server answers the
command before it reads the MAP, so every line answering the command comes
before the MAP.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from bots.launcher import ProcessBots
from server.app import Server
from server.settings import GameSettings, ServerSettings
from tests.server_helpers import ScriptClient, join_game

ADM_LINE = re.compile(r"ADM \( 'Server' \) \( '(.*)' \)")


async def ask(client: ScriptClient, command: str) -> list[str]:
    """The server's ADM lines answering ``Server: command`` (see the module doc)."""
    text = f"Server: {command}".replace("'", "''")
    await client.send(f"ADM ( '{client.name}' ) ( '{text}' )")
    await client.send("MAP")
    return _server_lines(await client.receive_until("MAP ("))


def _server_lines(messages: list[str]) -> list[str]:
    lines = []
    for message in messages:
        found = ADM_LINE.fullmatch(message)
        if found:
            lines.append(found.group(1).replace("''", "'"))
    return lines


def _token(server: Server) -> str:
    assert server.settings.admin_token_file is not None
    return server.settings.admin_token_file.read_text().strip()


@pytest.fixture
async def opened() -> AsyncIterator[list[ScriptClient]]:
    """The clients a test opened, closed at its end."""
    clients: list[ScriptClient] = []
    yield clients
    for client in clients:
        await client.close()


async def _connect(opened: list[ScriptClient], port: int, name: str) -> ScriptClient:
    client = await ScriptClient.connect(port, name)
    opened.append(client)
    return client


async def _players(opened: list[ScriptClient], port: int) -> dict[str, ScriptClient]:
    """Seven players in game 1, started (`join_game`)."""
    clients = await join_game(port)
    opened.extend(clients.values())
    return clients


async def _admin(opened: list[ScriptClient], port: int, server: Server,
                 name: str = "director") -> ScriptClient:
    """A connection that has shown the admin token (it has four ADMs left in its burst)."""
    client = await _connect(opened, port, name)
    assert await ask(client, f"admin {_token(server)}") == ["You are an admin on this connection."]
    return client


async def _hears_next(listener: ScriptClient, speaker: ScriptClient, text: str) -> None:
    """``speaker`` chats; ``listener``'s next ADM is that chat - nothing the server
    answered ``speaker`` before reached it."""
    await speaker.send(f"ADM ( '{speaker.name}' ) ( '{text}' )")
    while True:
        message = await listener.receive()
        if message.startswith("ADM"):
            assert message == f"ADM ( '{speaker.name}' ) ( '{text}' )", message
            return


async def _serve(nursery: trio.Nursery, tmp_path: Path, **options: object) -> tuple[Server, int]:
    """A server on port 0 whose games have a 600 s move deadline; it starts the sample bots
    as processes, as `daide serve` does."""
    settings = ServerSettings(host="127.0.0.1", port=0, db_path=tmp_path / "g.db",
                              game=GameSettings(mtl=600),
                              admin_token_file=tmp_path / "admin-token",
                              **options)  # type: ignore[arg-type]
    server = Server(settings, bots=ProcessBots())
    listeners = await nursery.start(server.run)
    return server, int(listeners[0].socket.getsockname()[1])


def _has(lines: list[str], part: str) -> bool:
    return any(part in line for line in lines)


# --- authority ---------------------------------------------------------------------


async def test_help_is_open_and_every_other_command_needs_the_token(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    server, port = await _serve(nursery, tmp_path)
    clients = await _players(opened, port)
    eng, fra = clients["ENG"], clients["FRA"]

    lines = await ask(eng, "help")
    assert _has(lines, "admin TOKEN - become an admin")
    assert _has(lines, "end game - end it now")
    for command in ("pause", "status", "end game"):
        [refusal] = await ask(eng, command)
        assert refusal.startswith("Only a connection that has shown the admin token"), refusal
    # Refused or answered, a server command is never relayed to the other clients.
    await _hears_next(fra, eng, "hello")

    outsider = await _connect(opened, port, "outsider")
    assert await ask(outsider, "game 1 pause") == [
        'Only a connection that has shown the admin token may do that'
        ' (say "Server: admin TOKEN" first).']
    assert await ask(outsider, "list games") == [
        'Only a connection that has shown the admin token may do that'
        ' (say "Server: admin TOKEN" first).']
    [unknown] = await ask(outsider, "dance")
    assert unknown == 'Unknown command "dance"; "Server: help" lists them.'
    # The prefix in any case, with blanks: still a command, never relayed.
    await outsider.send("ADM ( 'outsider' ) ( '  SERVER : help' )")
    assert _has(_server_lines(await outsider.receive_until(lambda m: "this list" in m)),
                "help - this list")
    # An ADM that is not a server command is relayed as before.
    await _hears_next(fra, clients["GER"], "Servers are fine")


async def test_a_wrong_token_counts_towards_the_address_block(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    server, port = await _serve(nursery, tmp_path, iam_failures_per_address=2)
    first = await _connect(opened, port, "guess1")
    assert await ask(first, "admin 12345") == ["Wrong admin token."]
    second = await _connect(opened, port, "guess2")
    assert await ask(second, "admin letmein") == ["Wrong admin token."]
    # Two wrong: the address is blocked, the right token is refused unchecked ...
    third = await _connect(opened, port, "right")
    assert await ask(third, f"admin {_token(server)}") == [
        "Too many wrong passcodes or admin tokens from this address: wait."]
    assert await ask(third, "list games") == [
        'Only a connection that has shown the admin token may do that'
        ' (say "Server: admin TOKEN" first).']
    # ... and so are IAMs: the block is the one wrong passcodes build up.
    await third.send("IAM ( ENG ) ( 1234 )")
    assert await third.receive() == "REJ ( IAM ( ENG ) ( 1234 ) )"


async def test_wrong_tokens_close_the_connection_like_wrong_passcodes(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    _server, port = await _serve(nursery, tmp_path, iam_failures_per_connection=2)
    client = await _connect(opened, port, "guesser")
    assert await ask(client, "admin one") == ["Wrong admin token."]
    await client.send("ADM ( 'guesser' ) ( 'Server: admin two' )")
    assert await client.receive() == "ADM ( 'Server' ) ( 'Wrong admin token.' )"
    assert await client.expect_closed() == "FM"


# --- an admin's commands -----------------------------------------------------------


async def test_an_admin_runs_every_command(nursery: trio.Nursery, tmp_path: Path,
                                           opened: list[ScriptClient]) -> None:
    server, port = await _serve(nursery, tmp_path)
    clients = await _players(opened, port)
    eng, fra = clients["ENG"], clients["FRA"]

    first = await _admin(opened, port, server)
    assert _has(await ask(first, "list variants"), "modern")
    assert _has(await ask(first, "list bots"), "dumbbot, holdbot")
    assert await ask(first, "list games") == ["Game 1: standard, running, SPR 1901."]
    opened_game, door = await ask(first, "new modern game level 8000 mtl 300 name Friday")
    assert opened_game == ('Game 2 is open: modern, press level 8000, time limits move'
                           ' 300 seconds, named "Friday".')
    # The shared port speaks the server's variant: a modern game has a port of its own.
    assert re.fullmatch(r"Its players join on its own port, \d+\.", door), door

    second = await _admin(opened, port, server)
    lines = await ask(second, "game 2 status")
    assert lines[0] == 'Game 2 "Friday": modern, forming.'
    assert lines[1] == "Press level 8000, time limits move 300 seconds."
    assert lines[2] == "Seats: 10 free."      # the modern map has ten powers
    assert await ask(second, "game 1 pause") == [
        "Game 1 is paused: no deadline runs and no phase is processed."]
    assert _has(await ask(second, "game 1 status"), "paused")
    assert await ask(second, "game 1 resume") == ["Game 1 runs again."]

    third = await _admin(opened, port, server)
    assert await ask(third, "game 1 extend 60") == [
        "The deadline of game 1 is 60 seconds later."]
    who = await ask(third, "game 1 who")
    assert who[0].startswith("Players of game 1: AUS AUS:bot 1.0, ENG ENG:bot 1.0")
    assert who[1] == "Observers: 0."
    [ejected] = await ask(third, "game 1 eject fra")
    found = re.fullmatch(r"FRA is in civil disorder; its new passcode is (\d+)"
                         r" \(for a replacement player's IAM\)\.", ejected)
    assert found, ejected
    assert await fra.expect_closed() in ("FM", "EOF")
    log = await ask(third, "game 1 log")
    assert [line.split(": ", 1)[1] for line in log] == [
        "pause - done", "resume - done", "extend 60 - done", "eject FRA - done"]
    assert all("director" in line for line in log)

    fourth = await _admin(opened, port, server)
    assert await ask(fourth, "game 1 move time limit") == [
        "The move time limit of game 1 is 600 seconds."]
    [refused] = await ask(fourth, "game 1 build time limit 100")
    assert refused.startswith("Time limits of a game cannot be changed once it is created")
    [refused] = await ask(fourth, "game 1 enable press level 10")
    assert refused.startswith("The press level of a game cannot be changed")
    assert await ask(fourth, "game 1 veto") == [
        "No command of game 1 is waiting for a veto."]

    # A server-started bot takes the power in civil disorder: it comes back (IAM).
    fifth = await _admin(opened, port, server)
    assert await ask(fifth, "game 1 start a holdbot as FRA") == [
        "A holdbot takes FRA in game 1."]
    await eng.receive_until("NOT ( CCD ( FRA ) )")
    assert _has(await ask(fifth, "game 1 status"), "FRA holdbot (server-started)")

    # A player who has shown the token acts on its own game without "game N" (a player
    # also hears what the host's actions told the game, hence "_has").
    assert _has(await ask(eng, f"admin {_token(server)}"), "You are an admin on this connection.")
    assert _has(await ask(eng, "status"), "Game 1: standard, running, SPR 1901")
    # Ending it: the game tells everyone, then ends (DRW, SMR, OFF) before the asker's
    # own answer could follow.
    await eng.send("ADM ( 'ENG:bot' ) ( 'Server: end game' )")
    ended = await eng.receive_until("OFF")
    assert _server_lines(ended) == [
        "The host has ended the game: a draw between the powers still in it."]
    assert "DRW" in ended


async def test_an_admins_bad_commands_get_one_line_each(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    server, port = await _serve(nursery, tmp_path)
    await _players(opened, port)
    admin = await _admin(opened, port, server)
    [line] = await ask(admin, "new atlantis game")
    assert "atlantis" in line
    [line] = await ask(admin, "new game level 7 name X")
    assert line == "No game created: level 7 is not a DAIDE press level (0, 10 ... 130, 8000)."
    [line] = await ask(admin, "game 99 status")
    assert "99" in line
    [line] = await ask(admin, "game 1 eject XYZ")
    assert "XYZ" in line
    admin = await _admin(opened, port, server)
    [line] = await ask(admin, "new game colour blue")
    assert line.startswith('No game created: unknown option "colour"')
    [line] = await ask(admin, "pause")
    assert line.startswith("You are in no game")
    [line] = await ask(admin, "game x status")
    assert line == '"game" takes a game number first, e.g. "Server: game 3 status".'
    [line] = await ask(admin, "game 1 extend 99999999999")
    assert line.startswith("Unknown command")


# --- the players' commands and the veto rule ---------------------------------------


async def test_a_players_command_is_carried_out_after_the_veto_delay(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    _server, port = await _serve(nursery, tmp_path, player_admin=True, veto_delay=0.2)
    clients = await _players(opened, port)
    eng, fra = clients["ENG"], clients["FRA"]

    # Reading is answered at once, to the asker only.
    assert _has(await ask(eng, "status"), "Game 1: standard, running, SPR 1901")
    await _hears_next(fra, eng, "hi")
    [refused] = await ask(eng, "log")
    assert refused.startswith("Only a connection that has shown the admin token")
    [refused] = await ask(eng, "game 2 pause")
    assert refused == "Only the admin or a player of game 2 may do that."

    # A pause is done at once and announced to the game.
    await eng.send("ADM ( 'ENG:bot' ) ( 'Server: pause' )")
    heard = _server_lines(await fra.receive_until(
        lambda m: "ENG (ENG:bot): Game 1 is paused" in m))
    assert heard[-1] == ("ENG (ENG:bot): Game 1 is paused: no deadline runs and no phase"
                         " is processed.")

    # A change is announced, then carried out when nobody vetoes it.  (ENG has sent
    # the five ADMs of its burst: GER asks.)
    await clients["GER"].send("ADM ( 'GER:bot' ) ( 'Server: resume' )")
    heard = _server_lines(await fra.receive_until(lambda m: "Nobody vetoed" in m))
    assert ('GER (GER:bot) is resuming the game. Any player or observer may stop it within'
            ' 0.2 seconds by saying "Server: veto".') in heard
    assert heard[-1] == "Nobody vetoed resuming the game (GER (GER:bot)): game 1 runs again."


async def test_a_vetoed_command_is_not_carried_out(
        nursery: trio.Nursery, tmp_path: Path, opened: list[ScriptClient]) -> None:
    server, port = await _serve(nursery, tmp_path, player_admin=True, veto_delay=600)
    clients = await _players(opened, port)
    eng, fra, ger = clients["ENG"], clients["FRA"], clients["GER"]

    await eng.send("ADM ( 'ENG:bot' ) ( 'Server: end game' )")
    announced = ('ENG (ENG:bot) is ending the game. Any player or observer may stop it'
                 ' within 600 seconds by saying "Server: veto".')
    assert announced in _server_lines(await ger.receive_until(lambda m: "is ending" in m))
    assert _has(await ask(ger, "status"), "Waiting for a veto: ENG (ENG:bot) is ending the game.")

    # A client of another game (or of none) cannot veto it; a player of the game can.
    outsider = await _connect(opened, port, "outsider")
    assert await ask(outsider, "game 1 veto") == [
        "Only the admin or a client of game 1 may veto its commands."]
    await fra.send("ADM ( 'FRA:bot' ) ( 'Server: veto end' )")
    vetoed = "FRA (FRA:bot) vetoed ending the game (ENG (ENG:bot))."
    assert vetoed in _server_lines(await ger.receive_until(lambda m: "vetoed" in m))
    assert vetoed in _server_lines(await eng.receive_until(lambda m: "vetoed" in m))

    lines = await ask(ger, "status")
    assert lines[0] == "Game 1: standard, running, SPR 1901."
    assert not _has(lines, "Waiting for a veto")
    assert await ask(ger, "veto") == ["No command of game 1 is waiting for a veto."]
    # Nothing was done: the admin log holds no end.
    admin = await _admin(opened, port, server)
    assert not _has(await ask(admin, "game 1 log"), "end")
