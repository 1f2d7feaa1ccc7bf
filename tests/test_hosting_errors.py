"""Bad input through the host (issue 27, "Bad input and faults"): a one-line refusal, nothing changed.

A real server on 127.0.0.1 (port 0, SQLite in a temporary folder) holds a
forming game, a running one (seven scripted players, deadlines) and one the
host has ended.  Every refusal is a `HostingError` of one line; the store
(every game's record: status, turn, settings, seats and passcodes, hosted
state) and the live games (status, pause, invitations, passcodes, doors)
are the same after it as before, and each game's admin log has gained
nothing - or, for an action on an existing game, exactly one line saying
it was refused and why.  The doors translate JSON into a `GameSpec` with
`server.admin_api.spec_from_json`, so settings are refused there (as the
HTTP API and ``daide game new`` do) or by the host.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.launcher import ProcessBots
from server.admin_api import spec_from_json
from server.app import Server
from server.hosting import BAD_REQUEST, CONFLICT, NOT_FOUND, GameSpec, HostingError, Origin
from server.settings import GameSettings, ServerSettings
from tests.server_helpers import POWERS, ScriptClient

ADMIN = Origin("cli", "127.0.0.1")


@dataclass
class World:
    server: Server
    shared: int              # the shared DAIDE port
    forming: int             # a hosted game still forming (FRA reserved)
    door: int                # a forming modern game on its own port
    door_port: int
    running: int             # a hosted game in play, with deadlines
    finished: int            # a hosted game the host has ended
    clients: list[ScriptClient]

    @property
    def host(self) -> Any:
        assert self.server.lobby is not None
        return self.server.lobby.host


def state(world: World) -> tuple[Any, ...]:
    """Everything an operation could change: the stored games and logs, the live games."""
    lobby = world.server.lobby
    assert lobby is not None
    records = lobby.store.games()
    logs = {r.id: lobby.store.admin_log(r.id) for r in records}
    live = {n: (h.status, h.hosted, dict(h.passcodes), h.port, h.claimed)
            for n, h in lobby.games.items()}
    return records, logs, live, dict(world.host.doors.ports)


async def refused(world: World, act: Callable[[], Awaitable[Any]], match: str, status: int,
                  game: int | None = None) -> str:
    """``act`` is refused with one line matching ``match`` and ``status``, changing nothing;
    on an existing ``game`` its admin log gains exactly the refusal."""
    records, logs, live, doors = state(world)
    with pytest.raises(HostingError) as caught:
        await act()
    message = caught.value.message
    assert "\n" not in message and message == str(caught.value), message
    assert match in message, message
    assert caught.value.status == status, (message, caught.value.status)
    records_after, logs_after, live_after, doors_after = state(world)
    assert records_after == records and live_after == live and doors_after == doors
    for number, lines in logs_after.items():
        if number == game:
            assert lines[:-1] == logs[number], lines
            assert lines[-1].outcome == f"refused: {message}" and lines[-1].origin == str(ADMIN)
        else:
            assert lines == logs[number]
    return message


async def _world(nursery: trio.Nursery, db: Path) -> World:
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db), bots=ProcessBots())
    listeners = await nursery.start(server.run)
    shared = int(listeners[0].socket.getsockname()[1])
    assert server.lobby is not None
    host = server.lobby.host
    forming = await host.new_game(GameSpec(GameSettings(name="later"), seats={"FRA": "ann"}),
                                  ADMIN)
    door = await host.new_game(GameSpec(GameSettings(variant="modern", level=8000)), ADMIN)
    clients: list[ScriptClient] = []
    games = []
    for _ in range(2):
        made = await host.new_game(GameSpec(GameSettings(mtl=600),
                                            seats={p: p.lower() for p in POWERS}), ADMIN)
        codes = made["invitations"]
        players = [await ScriptClient.connect(shared, p) for p in POWERS]
        for power, client in zip(POWERS, players, strict=True):
            await client.join(f"{power.lower()} [invite {codes[power]}]")
        for client in players:
            await client.receive_until("NOW")
        clients += players
        games.append(made["id"])
    await host.end(games[1], ADMIN)
    for client in clients[7:]:
        await client.receive_until("SMR")
    with trio.fail_after(10):
        while games[1] in server.lobby.games:  # noqa: ASYNC110 - the lobby has no event for it
            await trio.sleep(0.01)
    return World(server, shared, forming["id"], door["id"], door["port"], games[0], games[1],
                 clients)


async def test_every_operation_refuses_bad_input_in_one_line_and_changes_nothing(
        tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        world = await _world(nursery, tmp_path / "s.db")
        host = world.host

        async def new(body: dict[str, Any]) -> Any:
            return await host.new_game(spec_from_json(body), ADMIN)

        # --- a new game: unknown variant, impossible settings, powers, bots ----------
        await refused(world, lambda: new({"variant": "atlantis"}), "atlantis", BAD_REQUEST)
        await refused(world, lambda: new({"variant": "no such/map"}), "variant name",
                      BAD_REQUEST)
        for body, words in [({"mtl": -5}, "mtl must be 1..8191"),
                            ({"rtl": 0}, "rtl must be 1..8191"),
                            ({"btl": 10000}, "btl must be 1..8191"),
                            ({"ptl": -1}, "ptl must be 1..8191"),
                            ({"level": 15}, "not a DAIDE press level"),
                            ({"level": -10}, "not a DAIDE press level"),
                            ({"max_year": -1901}, "max year"),
                            ({"idle_years_draw": 0}, "idle-years"),
                            ({"port": 70000}, "port must be"),
                            ({"port": -1}, "port must be"),
                            ({"access": "friends"}, "access"),
                            ({"mtl": "soon"}, "mtl must be a whole number"),
                            ({"pda": "yes"}, "pda must be true or false"),
                            ({"start": "NOW ( SPR 1901 ) ( FRA AMY NTH )"}, "start position"),
                            ({"deadline": 5}, "not a setting"),
                            ({"fill_after": -1, "fill": "holdbot"}, "fill_after"),
                            ({"seats": ["FRA"]}, "seats must map powers"),
                            ({"invites": ["ann [FRA XYZ]"]}, "unknown power 'XYZ'"),
                            ({"invites": ["ann [FRA", "bob [FRA=]"]}, "an empty group"),
                            ({"invites": "ann"}, "invites must be a list")]:
            await refused(world, lambda b=body: new(b), words, BAD_REQUEST)  # type: ignore[misc]
        # A port in use: another program's, the shared port, another game's door.
        with socket.socket() as other:
            other.bind(("127.0.0.1", 0))
            other.listen()
            taken = other.getsockname()[1]
            await refused(world, lambda: new({"port": taken}), f"port {taken}", CONFLICT)
        await refused(world, lambda: new({"port": world.shared}), f"port {world.shared}",
                      CONFLICT)
        await refused(world, lambda: new({"variant": "modern", "port": world.door_port}),
                      f"port {world.door_port}", CONFLICT)
        # Powers that do not exist, or given twice; bots that do not exist.
        await refused(world, lambda: new({"seats": {"XYZ": "ann"}}), "'XYZ' is not a power",
                      NOT_FOUND)
        await refused(world, lambda: new({"variant": "modern", "seats": {"AUS": "ann"}}),
                      "not a power of modern", NOT_FOUND)
        await refused(world, lambda: new({"seats": {"FRA": "ann"}, "bots": {"fra": "holdbot"}}),
                      "FRA is given two seats", BAD_REQUEST)
        await refused(world, lambda: new({"bots": {"FRA": "nobot"}}), "no bot called 'nobot'",
                      NOT_FOUND)
        await refused(world, lambda: new({"fill": "nobot"}), "no bot called 'nobot'", NOT_FOUND)
        await refused(world, lambda: host.new_game(GameSpec(GameSettings(), fill="holdbot",
                                                            fill_after=float("nan")), ADMIN),
                      "fill-after", BAD_REQUEST)

        # --- a game that does not exist --------------------------------------------
        for act in (lambda: host.pause(999, ADMIN), lambda: host.resume(999, ADMIN),
                    lambda: host.end(999, ADMIN), lambda: host.eject(999, "FRA", ADMIN),
                    lambda: host.fill(999, "holdbot", None, ADMIN)):
            await refused(world, act, "no game 999", NOT_FOUND)

        # --- a forming game: nothing to extend, end or eject yet (a pause waits) ---
        n = world.forming
        for act, words in [(lambda: host.resume(n, ADMIN), "is not paused"),
                           (lambda: host.extend(n, 60, ADMIN), "has not started"),
                           (lambda: host.end(n, ADMIN), "has not started"),
                           (lambda: host.eject(n, "ENG", ADMIN), "has not started"),
                           (lambda: host.eject(n, "XYZ", ADMIN), "'XYZ' is not a power"),
                           (lambda: host.fill(n, "holdbot", "FRA", ADMIN), "already reserved"),
                           (lambda: host.fill(n, "holdbot", "XYZ", ADMIN), "not a power"),
                           (lambda: host.fill(n, "nobot", None, ADMIN), "no bot called")]:
            await refused(world, act, words, _status(words), game=n)

        # --- a running game: bad powers, bad seconds, nothing to resume or fill -----
        n = world.running
        for act, words in [(lambda: host.resume(n, ADMIN), "is not paused"),
                           (lambda: host.extend(n, 0, ADMIN), "1..8191 seconds, not 0"),
                           (lambda: host.extend(n, -60, ADMIN), "1..8191 seconds, not -60"),
                           (lambda: host.extend(n, 9000, ADMIN), "1..8191 seconds, not 9000"),
                           (lambda: host.eject(n, "XYZ", ADMIN), "'XYZ' is not a power"),
                           (lambda: host.eject(n, "", ADMIN), "'' is not a power"),
                           (lambda: host.fill(n, "holdbot", None, ADMIN), "no power of game"),
                           (lambda: host.fill(n, "holdbot", "FRA", ADMIN),
                            "FRA is not in civil disorder"),
                           (lambda: host.fill(n, "holdbot", "BRT", ADMIN), "not a power"),
                           (lambda: host.fill(n, "nobot", "FRA", ADMIN), "no bot called")]:
            await refused(world, act, words, _status(words), game=n)

        # --- a finished game: every action is refused ------------------------------
        n = world.finished
        for act in (lambda: host.pause(n, ADMIN), lambda: host.resume(n, ADMIN),
                    lambda: host.extend(n, 60, ADMIN), lambda: host.end(n, ADMIN),
                    lambda: host.eject(n, "FRA", ADMIN),
                    lambda: host.fill(n, "holdbot", None, ADMIN)):
            await refused(world, act, f"game {n} is over", CONFLICT, game=n)

        # After all that the running game still answers its host as before.
        assert (await host.pause(world.running, ADMIN))["paused"] is True
        assert host.log(world.running)[-1]["outcome"] == "done"
        for client in world.clients:
            await client.close()
        world.server.stop()


def _status(words: str) -> int:
    if "not a power" in words or "no bot" in words:
        return NOT_FOUND
    if "seconds" in words:
        return BAD_REQUEST
    return CONFLICT


async def test_a_malformed_preference_list_is_answered_rej_and_takes_no_seat(
        tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        world = await _world(nursery, tmp_path / "s.db")
        host = world.host
        before = state(world)
        free = host.game(world.door)["free_seats"]
        # On the shared port (the template's standard map) and on the modern game's door.
        for port, names in [(world.shared, ["ann [FRA FRA]", "bob [XYZ]", "cat [FRA =]",
                                            "dan [= GER]", "eve [FRA == GER]", "fay [random FRA]",
                                            "gus [invite]", "hal [invite A B]", "FRA:ivy [GER]"]),
                            (world.door_port, ["jo [BRT BRT]", "kim [FRA]", "lee [random BRT]",
                                               "max [invite ???]"])]:
            for name in names:
                client = await ScriptClient.connect(port, "x")
                await client.send(f"NME ( '{name}' ) ( '1' )")
                assert await client.receive() == f"REJ ( NME ( '{name}' ) ( '1' ) )", name
                # The connection is still open and answers as a client outside any game.
                await client.send("NOW")
                assert (await client.receive()).startswith("NOW")
                await client.close()
        assert state(world) == before
        assert host.game(world.door)["free_seats"] == free
        # A right list on the same door takes a seat.
        client = await ScriptClient.connect(world.door_port, "x")
        assert await client.join("kim [FRN = GER]") == "MAP ( 'MODERN' )"
        with trio.fail_after(5):
            while host.game(world.door)["free_seats"] != free - 1:  # noqa: ASYNC110 - a view
                await trio.sleep(0.01)
        await client.close()
        for player in world.clients:
            await player.close()
        world.server.stop()
