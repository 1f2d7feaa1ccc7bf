"""Which powers a newcomer may still have: the lobby's bookkeeping, read by the web API.

Real servers on 127.0.0.1 (port 0, ``http_port=0``), real DAIDE clients over
TCP, the real ``/api/games`` over HTTP.  In a forming game a power is free
unless a joiner asked for it by name (``'FRA:alice'``) or an invitation
reserves it; a preference list claims a seat but no power (it is secret).
In a running game the free powers are those in civil disorder, which a
replacement takes over with the passcode (IAM).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from server.app import Server
from tests.server_helpers import POWERS, ScriptClient, join_game, start_server
from tests.test_admin_http import Admin, token_of
from tests.web_helpers import http


async def served(nursery: trio.Nursery, db: Path, **game: object) -> tuple[Server, int]:
    return await start_server(nursery, db, {"http_port": 0}, **game)


async def listed(server: Server, game_id: int) -> dict[str, Any]:
    """Game ``game_id`` as ``/api/games`` lists it, checked against ``/api/games/N``."""
    assert server.http_url is not None
    status, body, _ = await http(server.http_url + "api/games")
    assert status == 200, body
    found = [g for g in body["games"] if g["id"] == game_id]
    assert len(found) == 1, body
    status, one, _ = await http(server.http_url + f"api/games/{game_id}")
    assert status == 200, one
    assert (one["free_powers"], one["open_seats"]) == (found[0]["free_powers"],
                                                       found[0]["open_seats"])
    return found[0]


def free(game: dict[str, Any]) -> list[str]:
    return [f["power"] for f in game["free_powers"]]


async def until_free(server: Server, game_id: int, wanted: list[str]) -> dict[str, Any]:
    """The game once its free powers are ``wanted`` (a leaving client's event is
    handled by the game after the connection closes: waited for, not timed)."""
    with trio.fail_after(10):
        while True:
            game = await listed(server, game_id)
            if free(game) == wanted:
                return game
            await trio.sleep(0.02)


async def test_a_power_asked_for_by_name_is_not_free_and_is_again_when_its_asker_leaves(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port = await served(nursery, tmp_path / "g.db")
    alice = await ScriptClient.connect(port, "FRA:alice")
    await alice.join()
    bob = await ScriptClient.connect(port, "bob")
    await bob.join()
    game = await listed(server, 1)
    assert game["status"] == "forming" and game["open_seats"] == 5 and game["seats"] == 7
    assert game["free_powers"] == [
        {"power": "AUS", "name": "Austria"}, {"power": "ENG", "name": "England"},
        {"power": "GER", "name": "Germany"}, {"power": "ITA", "name": "Italy"},
        {"power": "RUS", "name": "Russia"}, {"power": "TUR", "name": "Turkey"}]
    # A second asker of France waits behind Alice: France stays taken when she leaves...
    carol = await ScriptClient.connect(port, "fra:carol")
    await carol.join()
    await alice.close()
    game = await until_free(server, 1, [p for p in POWERS if p != "FRA"])
    assert game["open_seats"] == 5
    # ...and is free once nobody asks for it any more.
    await carol.close()
    game = await until_free(server, 1, list(POWERS))
    assert game["open_seats"] == 6
    await bob.close()


async def test_a_preference_list_claims_a_seat_but_no_power_and_a_bad_one_claims_nothing(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port = await served(nursery, tmp_path / "g.db")
    dora = await ScriptClient.connect(port, "dora")
    await dora.join("dora [FRA ENG=GER]")
    game = await listed(server, 1)
    assert free(game) == list(POWERS) and game["open_seats"] == 6
    wrong = await ScriptClient.connect(port, "eve")
    await wrong.send("NME ( 'eve [FRA FRA]' ) ( '1.0' )")
    assert await wrong.receive() == "REJ ( NME ( 'eve [FRA FRA]' ) ( '1.0' ) )"
    game = await listed(server, 1)
    assert free(game) == list(POWERS) and game["open_seats"] == 6
    await dora.close()
    await wrong.close()


async def test_an_invitation_reserves_its_power_and_a_full_game_frees_none(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    server, _shared = await served(nursery, db)
    admin = Admin(server, token_of(db))
    status, made = await admin.post("/games", {"seats": {"ENG": "alice"}, "port": 0})
    assert status == 200, made
    number, door = made["id"], made["port"]
    game = await listed(server, number)
    assert free(game) == [p for p in POWERS if p != "ENG"] and game["open_seats"] == 6
    # Six joiners through the game's door, one of them asking for Italy.
    joiners = []
    for name in ("ITA:fred", "gus", "hal", "ivy", "jon", "kim"):
        joiner = await ScriptClient.connect(door, name)
        await joiner.join()
        joiners.append(joiner)
        if name == "ITA:fred":
            game = await listed(server, number)
            assert free(game) == ["AUS", "FRA", "GER", "RUS", "TUR"] and game["open_seats"] == 5
    game = await listed(server, number)
    assert game["open_seats"] == 0 and game["free_powers"] == []
    # Nothing is free for a seventh NME, which the full game refuses.
    late = await ScriptClient.connect(door, "lea")
    await late.send("NME ( 'lea' ) ( '1.0' )")
    assert await late.receive() == "REJ ( NME ( 'lea' ) ( '1.0' ) )"
    # Alice comes with her invitation: the game starts, and nothing is free.
    alice = await ScriptClient.connect(door, "alice")
    await alice.join(f"alice [invite {made['invitations']['ENG']}]")
    await alice.receive_until("HLO")
    assert alice.power == "ENG"
    game = await listed(server, number)
    assert game["status"] == "running" and game["free_powers"] == []
    for client in [*joiners, late, alice]:
        await client.close()


async def test_a_running_game_frees_the_powers_in_civil_disorder_until_taken_over(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    server, _shared = await served(nursery, db)
    admin = Admin(server, token_of(db))
    status, made = await admin.post("/games", {"port": 0})
    assert status == 200, made
    number = made["id"]
    players = await join_game(made["port"])
    for client in players.values():
        await client.receive_until("NOW")
    game = await listed(server, number)
    assert game["status"] == "running" and game["free_powers"] == [] \
        and game["open_seats"] == 0
    # Germany's connection is lost: civil disorder, free for its passcode's holder.
    await players["GER"].drop()
    await players["AUS"].receive_until("CCD")
    game = await until_free(server, number, ["GER"])
    assert game["free_powers"] == [{"power": "GER", "name": "Germany"}]
    # The host ejects England: free too; its replacement takes it over with the new passcode.
    status, ejected = await admin.post(f"/games/{number}/eject", {"power": "ENG"})
    assert status == 200, ejected
    await until_free(server, number, ["ENG", "GER"])
    replacement = await ScriptClient.connect(made["port"], "sub")
    await replacement.send(f"IAM ( ENG ) ( {ejected['passcode']} )")
    assert await replacement.receive() == f"YES ( IAM ( ENG ) ( {ejected['passcode']} ) )"
    await until_free(server, number, ["GER"])
    for client in [*players.values(), replacement]:
        await client.close()
