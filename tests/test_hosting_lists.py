"""Invitations dealt by a host-given preference list (issue 27, "Power assignment").

``daide game new --invite 'alice [FRA GER]'`` and ``"invites"`` in ``POST
/api/admin/games`` invite a player with no fixed power; the list is dealt at
the start as the player's own (`server.assignment`).  A real server on
127.0.0.1 (port 0, SQLite in a temporary folder) and scripted DAIDE clients;
the HTTP door through a real ``daide serve`` subprocess and ``daide game``.

The deals are made certain by rule 1: another joiner asks for France by name
(``'FRA:x'``) and is served before any list, so a list ``[FRA GER]`` gets
Germany, whatever the random order of the lists.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import trio

from bots.launcher import ProcessBots
from daide.cli import build_parser
from daide.cmd_game import new_body
from server.admin_api import spec_from_json
from server.app import Server
from server.hosted import HostedState, Invitation
from server.hosting import BAD_REQUEST, GameSpec, HostingError, Origin
from server.settings import GameSettings, ServerSettings
from tests.browser_helpers import served
from tests.server_helpers import ScriptClient, seated

ADMIN = Origin("cli", "127.0.0.1")


async def _server(nursery: trio.Nursery, db: Path) -> Server:
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db), bots=ProcessBots())
    await nursery.start(server.run)
    return server


def _stored(db: Path, game: int) -> dict[str, Any]:
    """The hosted state as the database holds it."""
    with sqlite3.connect(db) as connection:
        row = connection.execute("SELECT state FROM hosted WHERE game_id = ?", (game,)).fetchone()
    return dict(json.loads(row[0]))


async def _fill_and_start(made: dict[str, Any], invited: dict[str, str],
                          others: list[str]) -> dict[str, ScriptClient]:
    """The invited players (name -> code) join with their codes, the others through the
    game's own door; everybody by power once the game has started."""
    clients = []
    for name, code in invited.items():
        client = await ScriptClient.connect(made["port"], name)
        await client.join(f"{name} [invite {code}]")
        clients.append(client)
    for name in others:
        client = await ScriptClient.connect(made["port"], name)
        await client.join()
        clients.append(client)
    return await seated(clients)


async def test_an_invitations_list_deals_its_power_and_survives_a_restart(
        tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with trio.open_nursery() as nursery:
        server = await _server(nursery, db)
        assert server.lobby is not None
        host = server.lobby.host
        made = await host.new_game(spec_from_json({
            "mtl": 600, "port": 0, "seats": {"TUR": "tess"},
            "invites": ["alice [FRA germany]", "bob [ITA=AUS]", "carl"]}), ADMIN)
        codes = made["invitations"]
        assert set(codes) == {"TUR", "alice", "bob", "carl"}
        view = host.game(made["id"])
        # The admin view: the invited by name, never their lists; the powers still free.
        assert sorted((i["name"], i["power"]) for i in view["invited"]) == [
            ("alice", None), ("bob", None), ("carl", None), ("tess", "TUR")]
        assert "FRA" not in json.dumps(view["invited"])
        assert [f["power"] for f in view["free_powers"]] == ["AUS", "ENG", "FRA", "GER", "ITA",
                                                             "RUS"]
        assert view["free_powers"][0] == {"power": "AUS", "name": "Austria"}
        # The admin log names who is invited, not their lists.
        assert host.log(made["id"])[0]["action"].endswith(
            "seats TUR=tess, invites alice, bob, carl")
        stored = {i["name"]: i["preferences"] for i in _stored(db, made["id"])["invitations"]}
        assert stored == {"tess": None, "alice": "FRA GER", "bob": "ITA=AUS", "carl": None}
        server.stop()
    # A restart while the game forms: the lists are read back and still deal.
    async with trio.open_nursery() as nursery:
        server = await _server(nursery, db)
        assert server.lobby is not None
        host = server.lobby.host
        assert host.game(made["id"])["status"] == "forming"
        # France asked for by name first (rule 1): alice's list gives her Germany;
        # bob's Italy or Austria, equally liked.
        clients = await _fill_and_start(made, {"alice": codes["alice"], "bob": codes["bob"],
                                               "carl": codes["carl"], "tess": codes["TUR"]},
                                        ["FRA:x", "y", "z"])
        names = {s["power"]: s["name"] for s in host.game(made["id"])["seats"]}
        assert names["FRA"] == "FRA:x" and names["GER"] == "alice" and names["TUR"] == "tess"
        assert names["ITA"] == "bob" or names["AUS"] == "bob", names
        assert set(names.values()) == {"FRA:x", "alice", "bob", "carl", "tess", "y", "z"}
        # Dealt: the stored state keeps the invitations, without a list.
        state = _stored(db, made["id"])
        assert [i["preferences"] for i in state["invitations"]] == [None] * 4
        assert "GER" not in json.dumps(state) and "ITA=AUS" not in json.dumps(state)
        running = host.game(made["id"])
        assert running["status"] == "running" and running["free_powers"] == []
        for client in clients.values():
            await client.close()
        server.stop()


async def test_a_random_request_and_no_list_are_dealt_like_anybodys(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server = await _server(nursery, tmp_path / "s.db")
        assert server.lobby is not None
        host = server.lobby.host
        made = await host.new_game(GameSpec(GameSettings(port=0), invites=(
            "ann [random]", "ben []", "cat [*]")), ADMIN)
        codes = made["invitations"]
        stored = {i["name"]: i["preferences"]
                  for i in _stored(tmp_path / "s.db", made["id"])["invitations"]}
        assert stored == {"ann": "random", "ben": None, "cat": "random"}
        clients = await _fill_and_start(made, {n: codes[n] for n in ("ann", "ben", "cat")},
                                        ["AUS:a", "ENG:e", "FRA:f", "GER:g"])
        names = {s["power"]: s["name"] for s in host.game(made["id"])["seats"]}
        assert {names[p] for p in ("ITA", "RUS", "TUR")} == {"ann", "ben", "cat"}
        for client in clients.values():
            await client.close()
        server.stop()


async def test_a_malformed_invite_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server = await _server(nursery, tmp_path / "s.db")
        assert server.lobby is not None
        host = server.lobby.host
        for body, words in [
                ({"invites": ["alice [FRA XYZ]"]},
                 "the invitation 'alice [FRA XYZ]': unknown power 'XYZ' in the preference list"),
                ({"invites": ["alice [FRA FRA]"]}, "FRA is listed twice"),
                ({"invites": ["alice [FRA =]"]}, "an empty group"),
                ({"invites": ["alice [random FRA]"]}, "'random' stands alone"),
                ({"invites": ["[FRA]"]}, "needs a name before the list"),
                ({"invites": ["FRA:alice"]}, "asks for FRA alone: reserve it with a seat "
                                             "(FRA=alice) instead"),
                ({"invites": ["alice [invite ABCD]"]}, "cannot name another invitation"),
                ({"invites": ["alice", "Alice [GER]"]}, "'Alice' is invited twice"),
                ({"invites": ["alice"], "seats": {"FRA": "alice"}}, "'alice' is invited twice"),
                ({"invites": [f"p{n}" for n in range(8)]},
                 "8 seats reserved or given to bots, but standard has 7 powers"),
                ({"invites": ["a", "b"], "bots": {p: "holdbot" for p in
                                                  ("AUS", "ENG", "FRA", "GER", "ITA", "RUS")}},
                 "8 seats reserved"),
                ({"invites": "alice [FRA]"}, "invites must be a list of names"),
                ({"invites": ["alice", 3]}, "invites must be a list of names"),
                ({"invites": ["  "]}, "an invite needs a name")]:
            before = (server.lobby.store.games(), dict(server.lobby.games))
            with pytest.raises(HostingError) as caught:
                await host.new_game(spec_from_json(body), ADMIN)
            message = caught.value.message
            assert words in message and "\n" not in message, message
            assert caught.value.status == BAD_REQUEST, message
            assert (server.lobby.store.games(), dict(server.lobby.games)) == before
        server.stop()


def test_daide_game_new_invites_over_http(tmp_path: Path) -> None:
    """The command line and the HTTP API against a real ``daide serve``."""
    with served(tmp_path, "--mtl", "600") as server:
        token = tmp_path / "web.db.admin-token"

        def game(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "daide", "game", *args, "--server",
                                   server.url.rstrip("/"), "--token-file", str(token)],
                                  capture_output=True, text=True, timeout=60, check=False)

        bad = game("new", "--invite", "alice [FRA ENG=XYZ]")
        assert bad.returncode == 1 and bad.stdout == ""
        assert bad.stderr.strip().splitlines() == [
            "daide game: error: the invitation 'alice [FRA ENG=XYZ]': unknown power 'XYZ' in the preference "
            "list (this game's powers: AUS ENG FRA GER ITA RUS TUR)"], bad.stderr
        listed = game("list")
        assert listed.returncode == 0 and "forming" not in listed.stdout, listed.stdout
        made = game("new", "--name", "club", "--seat", "TUR=tess", "--invite",
                    "alice [FRA ENG=GER]", "--invite", "bob")
        assert made.returncode == 0, made.stderr
        lines = made.stdout.splitlines()
        assert lines[1].startswith("Invitations, shown this once")
        rows = [line.split() for line in lines[3:]]
        assert [r[:2] for r in rows if r[0] == "TUR"] == [["TUR", "tess"]]
        assert [r[-2] for r in rows if r[0] == "(dealt"] == ["alice", "bob"]
        assert "FRA ENG=GER" not in made.stdout
        shown = game("show", "1")
        assert shown.returncode == 0, shown.stderr
        assert "Powers still free: Austria, England, France, Germany, Italy, Russia." \
            in shown.stdout, shown.stdout
        assert "ENG=GER" not in shown.stdout
        assert "(dealt at the start)  alice" in shown.stdout


def _post(url: str, token: str, body: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"{url}api/admin/games", method="POST", data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "X-Daide-Client": "web"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(json.loads(answer.read()))
    except urllib.error.HTTPError as error:
        return error.code, dict(json.loads(error.read()))


def test_the_http_api_takes_invites_and_answers_a_code_per_name(tmp_path: Path) -> None:
    with served(tmp_path, "--mtl", "600") as server:
        token = (tmp_path / "web.db.admin-token").read_text().strip()
        status, answer = _post(server.url, token, {"invites": ["ann [ENG=GER", "bob"]})
        # No closing bracket: the whole text is a name, as for an NME.
        assert status == 200 and set(answer["invitations"]) == {"ann [ENG=GER", "bob"}
        for body, words in [({"invites": ["ann [ENG=XYZ]"]}, "unknown power 'XYZ'"),
                            ({"invites": {"ann": "FRA"}}, "invites must be a list of names"),
                            ({"invites": ["ann [Fra]", "ann"]}, "'ann' is invited twice")]:
            status, answer = _post(server.url, token, body)
            assert status == 400 and words in answer["error"], answer
        status, answer = _post(server.url, token, {"invites": ["ann [France Russia=TUR]"],
                                                   "seats": {"ENG": "eve"}})
        assert status == 200 and set(answer["invitations"]) == {"ENG", "ann"}
        assert [f["power"] for f in answer["free_powers"]] == ["AUS", "FRA", "GER", "ITA",
                                                                "RUS", "TUR"]
        stored = _stored(tmp_path / "web.db", answer["id"])
        assert [i["preferences"] for i in stored["invitations"]] == [None, "FRA RUS=TUR"]
        # Two games were made; the refused requests made none.
        request = urllib.request.Request(f"{server.url}api/admin/games",
                                         headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as listed:
            assert [g["id"] for g in json.loads(listed.read())["games"]] == [1, 2]
    log = "".join(server.lines)
    assert "RUS=TUR" not in log and "France Russia" not in log


def test_a_hosted_state_keeps_a_list_until_it_is_dropped() -> None:
    state = HostedState((Invitation("AAAA-BBBB-CCCC", "alice", None, None, "FRA ENG=GER"),
                         Invitation("DDDD-EEEE-FFFF", "tess", "TUR")))
    again = HostedState.from_json(state.to_json())
    assert again == state and again.invitations[0].preferences == "FRA ENG=GER"
    dealt = state.without_lists()
    assert [i.preferences for i in dealt.invitations] == [None, None]
    assert "ENG=GER" not in dealt.to_json()
    assert dealt.invitations[1] == state.invitations[1]
    # A state stored before invitations had lists reads as having none.
    old = '{"bots": {}, "invitations": [{"bot": null, "code": "X", "name": "a", "power": null}]}'
    assert HostedState.from_json(old).invitations[0].preferences is None


def test_the_cli_sends_each_invite_as_given() -> None:
    parser = build_parser("game")
    args = parser.parse_args(["game", "new", "--invite", "alice [FRA ENG=GER]", "--invite",
                              "bob"])
    assert new_body(args)["invites"] == ["alice [FRA ENG=GER]", "bob"]
    assert "invites" not in new_body(parser.parse_args(["game", "new"]))
