"""The host's HTTP API (/api/admin/..., `server.admin_api`) and the admin token over real
sockets: a server on 127.0.0.1 port 0 with its web side, a real database, DAIDE
clients playing a game on TCP while the host acts on it (docs/hosting.md).

The token is read from the file the server created beside its database, as a host does.
"""

from __future__ import annotations

import io
import json
import re
import socket
import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio

from server.admin_token import AdminToken, token_path
from server.app import Server
from server.logconfig import configure_logging
from tests.server_helpers import POWERS, ScriptClient, start_game, start_server

Answer = tuple[int, Any]


def _call(url: str, body: dict[str, Any] | None, headers: dict[str, str]) -> Answer:
    data = None if body is None else json.dumps(body).encode()
    if body is not None:
        headers = {"content-type": "application/json", "x-daide-client": "web", **headers}
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            raw, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    return status, json.loads(raw)


class Admin:
    """The admin API of one server, with a token (or a wrong one, or none)."""

    def __init__(self, server: Server, token: str | None) -> None:
        assert server.http_url is not None
        self.base = server.http_url.rstrip("/") + "/api/admin"
        self.token = token

    async def get(self, path: str, **headers: str) -> Answer:
        return await self.request(path, None, **headers)

    async def post(self, path: str, body: dict[str, Any] | None = None, **headers: str) -> Answer:
        return await self.request(path, body or {}, **headers)

    async def request(self, path: str, body: dict[str, Any] | None, **headers: str) -> Answer:
        sent = {k.replace("_", "-"): v for k, v in headers.items()}
        if self.token is not None and "authorization" not in sent:
            sent["authorization"] = f"Bearer {self.token}"
        return await trio.to_thread.run_sync(_call, self.base + path, body, sent)


def refused(answer: Answer, status: int) -> str:
    """The one-line error of a refusal with this status."""
    code, body = answer
    assert code == status, answer
    assert list(body) == ["error"] and "\n" not in body["error"], body
    return str(body["error"])


def token_of(db: Path) -> str:
    return token_path(db).read_text().strip()


async def serve(nursery: trio.Nursery, db: Path, options: dict[str, object] | None = None,
                **game: object) -> tuple[Server, int, Admin]:
    server, port = await start_server(nursery, db, {"http_port": 0, **(options or {})}, **game)
    return server, port, Admin(server, token_of(db))


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The server's real log configuration (JSON lines) into a buffer."""
    out = io.StringIO()
    configure_logging(out, json=True)
    try:
        yield out
    finally:
        structlog.reset_defaults()


# --- the token ------------------------------------------------------------------------

async def test_the_token_file_is_made_at_first_start_0600_beside_the_database_and_kept(
        tmp_path: Path, json_log: io.StringIO) -> None:
    db = tmp_path / "club.db"
    async with trio.open_nursery() as nursery:
        server, _port, admin = await serve(nursery, db)
        assert (await admin.get("/games"))[0] == 200
        wrong = Admin(server, "x" * 43)
        refused(await wrong.get("/games"), 401)
        server.stop()
    path = tmp_path / "club.db.admin-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    token = path.read_text().strip()
    assert len(token) >= 43 and token.isascii()
    async with trio.open_nursery() as nursery:        # started again: the same token
        server, _port, admin = await serve(nursery, db)
        assert admin.token == token and (await admin.get("/games"))[0] == 200
        server.stop()
    events = [json.loads(line) for line in json_log.getvalue().splitlines()]
    said = [e for e in events if e["event"] == "admin_token"]
    assert [(e["path"], e["created"]) for e in said] == [(str(path), True), (str(path), False)]
    assert any(e["event"] == "admin_token_refused" for e in events)
    assert token not in json_log.getvalue()


async def test_admin_token_file_names_the_operators_own_token(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    own = tmp_path / "secrets" / "host-token"
    own.parent.mkdir()
    own.write_text("a-token-the-operator-chose-42\n")
    own.chmod(0o600)
    server, _port = await start_server(nursery, tmp_path / "g.db",
                                       {"http_port": 0, "admin_token_file": own})
    assert (await Admin(server, "a-token-the-operator-chose-42").get("/games"))[0] == 200
    refused(await Admin(server, "another-token-entirely").get("/games"), 401)
    assert not token_path(tmp_path / "g.db").exists()     # none beside the database


def test_a_token_file_without_a_usable_token_is_one_line(tmp_path: Path) -> None:
    from server.admin_token import AdminTokenError

    short = tmp_path / "short"
    short.write_text("abc\n")
    with pytest.raises(AdminTokenError, match=r"^admin token file .*short holds no token"):
        AdminToken.load_or_create(short)
    with pytest.raises(AdminTokenError, match=r"^admin token file .*: No such file"):
        AdminToken.load_or_create(tmp_path / "missing-dir" / "token")


def test_an_in_memory_database_keeps_its_token_in_memory(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from server.settings import ServerSettings

    monkeypatch.chdir(tmp_path)
    token = AdminToken.for_server(ServerSettings(db_path=Path(":memory:")))
    assert token.path is None and token.matches(token.secret)
    assert list(tmp_path.iterdir()) == []            # no file written anywhere
    assert token.secret not in repr(token)


# --- refusals --------------------------------------------------------------------------

#: Every route, with a body that would be accepted with the token.
ROUTES: list[tuple[str, dict[str, Any] | None]] = [
    ("/games", None), ("/games/1", None), ("/games/1/log", None), ("/variants", None),
    ("/bots", None), ("/games/1/pause", {}), ("/games/1/resume", {}),
    ("/games/1/extend", {"seconds": 60}), ("/games/1/end", {}),
    ("/games/1/eject", {"power": "FRA"}), ("/games/1/fill", {"bot": "holdbot"}),
    ("/games", {"name": "sneaky"}), ("/no-such-route", None),
]


async def test_every_route_refuses_without_the_token_and_changes_nothing(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port, admin = await serve(nursery, tmp_path / "g.db",
                                      {"iam_failures_per_address": 1000}, mtl=600)
    clients = await start_game(port)
    before = (await admin.get("/games/1"))[1]
    assert before["status"] == "running" and not before["paused"]
    wrong = Admin(server, admin.token[:-1] + ("A" if admin.token[-1] != "A" else "B"))
    nobody = Admin(server, None)
    for path, body in ROUTES:
        assert "admin token" in refused(await nobody.request(path, body), 401)
        assert refused(await wrong.request(path, body), 401) == "wrong admin token"
        refused(await nobody.request(path, body, authorization=f"Basic {admin.token}"), 401)
        refused(await nobody.request(path, body, authorization="Bearer "), 401)
    after = (await admin.get("/games/1"))[1]
    assert after == before and after["log"] == []
    assert [g["id"] for g in (await admin.get("/games"))[1]["games"]] == [1]
    assert clients["FRA"].closed_by_server is None
    for client in clients.values():
        await client.close()


async def test_wrong_tokens_count_towards_the_address_block_shared_with_iam(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port, admin = await serve(nursery, tmp_path / "g.db", {"iam_failures_per_address": 3})
    clients = await start_game(port)
    wrong = Admin(server, "n" * 43)
    nobody = Admin(server, None)
    for _ in range(5):                       # no token guesses nothing: not counted
        refused(await nobody.get("/games"), 401)
    refused(await wrong.get("/games"), 401)
    refused(await wrong.post("/games/1/pause"), 401)
    assert (await admin.get("/games"))[0] == 200        # two wrong: not yet blocked
    refused(await wrong.get("/variants"), 401)            # the third: blocked from now on
    assert "too many wrong" in refused(await admin.get("/games"), 429)
    assert "too many wrong" in refused(await admin.post("/games/1/pause"), 429)
    assert not (await _game_paused(server))
    # ... and the address's IAMs are refused unchecked, a right passcode too.
    fra = clients["FRA"]
    await fra.drop()
    back = await ScriptClient.connect(port, "back")
    await back.send(f"IAM ( FRA ) ( {fra.passcode} )")
    await back.expect(f"REJ ( IAM ( FRA ) ( {fra.passcode} ) )")
    for power in POWERS:
        if power != "FRA":
            await clients[power].close()
    await back.close()


async def test_wrong_iam_passcodes_block_the_admin_api_too(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port, admin = await serve(nursery, tmp_path / "g.db",
                                       {"iam_failures_per_address": 3})
    guesser = await ScriptClient.connect(port, "guesser")
    for code in (11, 12, 13):
        await guesser.send(f"IAM ( ENG ) ( {code} )")
        await guesser.expect(f"REJ ( IAM ( ENG ) ( {code} ) )")
    refused(await admin.get("/games"), 429)
    await guesser.close()


async def _game_paused(server: Server) -> bool:
    assert server.lobby is not None
    return bool(server.lobby.host.game(1)["paused"])


async def test_posts_pass_the_apis_own_checks_before_the_token(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port, admin = await serve(nursery, tmp_path / "g.db", mtl=600)
    clients = await start_game(port)
    # A form of another site cannot send the page's header: 403, even with the token.
    refused(await admin.request("/games/1/pause", {}, x_daide_client="form"), 403)
    assert not (await admin.get("/games/1"))[1]["paused"]
    for client in clients.values():
        await client.close()


# --- the operations ---------------------------------------------------------------------

async def test_create_list_show_and_log_a_game_with_its_own_settings(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port, admin = await serve(nursery, tmp_path / "g.db")
    status, game = await admin.post("/games", {
        "variant": "Standard", "name": "Friday", "level": 8000, "mtl": 300, "rtl": 60,
        "pda": True, "max_year": 1910, "access": "invitation", "seats": {"fra": "alice"}})
    assert status == 200, game
    assert game["name"] == "Friday" and game["status"] == "forming"
    assert game["settings"]["level"] == 8000 and game["settings"]["mtl"] == 300
    assert game["settings"]["pda"] is True and game["settings"]["max_year"] == 1910
    assert game["settings"]["access"] == "invitation" and game["variant"] == "standard"
    assert list(game["invitations"]) == ["FRA"]
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}", game["invitations"]["FRA"])
    number = game["id"]
    listed = (await admin.get("/games"))[1]["games"]
    assert [(g["id"], g["name"]) for g in listed] == [(number, "Friday")]
    shown = (await admin.get(f"/games/{number}"))[1]
    assert shown["settings"] == game["settings"] and "invitations" not in shown
    assert [(i["power"], i["name"]) for i in shown["invited"]] == [("FRA", "alice")]
    log = (await admin.get(f"/games/{number}/log"))[1]
    assert log["game"] == number
    [entry] = log["log"]
    assert entry["origin"] == "http 127.0.0.1" and entry["outcome"] == "done"
    assert entry["action"].startswith("new standard game")
    assert entry["at"]
    # Alice's invitation takes France.
    alice = await ScriptClient.connect(port, "alice")
    code = game["invitations"]["FRA"]
    await alice.send(f"NME ( 'alice [invite {code}]' ) ( '1.0' )")
    assert (await alice.receive()).startswith("YES ( NME")
    await alice.close()


async def test_variants_and_bots(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, admin = await serve(nursery, tmp_path / "g.db")
    status, answer = await admin.get("/variants")
    assert status == 200 and "standard" in answer["variants"] and "modern" in answer["variants"]
    status, answer = await admin.get("/bots")
    assert status == 200 and isinstance(answer["bots"], list)


async def test_pause_resume_extend_eject_and_end_a_running_game(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port, admin = await serve(nursery, tmp_path / "g.db", mtl=600)
    clients = await start_game(port)
    others = [c for p, c in clients.items() if p != "FRA"]
    # pause: every client hears it, the clock stands
    status, answer = await admin.post("/games/1/pause")
    assert (status, answer["paused"]) == (200, True)
    for client in clients.values():
        await client.receive_until(lambda t: t.startswith("ADM ( 'Server' )") and "paused" in t)
    assert (await admin.get("/games/1"))[1]["paused"] is True
    assert "already paused" in refused(await admin.post("/games/1/pause"), 409)
    status, answer = await admin.post("/games/1/resume")
    assert (status, answer["paused"]) == (200, False)
    assert "not paused" in refused(await admin.post("/games/1/resume"), 409)
    # extend: the deadline moves later
    status, answer = await admin.post("/games/1/extend", {"seconds": 120})
    assert status == 200 and 600 < answer["seconds_left"] <= 720
    refused(await admin.post("/games/1/extend", {"seconds": 0}), 400)
    refused(await admin.post("/games/1/extend", {"seconds": "soon"}), 400)
    # eject: France's client is dismissed, a new passcode takes France over
    status, answer = await admin.post("/games/1/eject", {"power": "fra"})
    assert status == 200 and answer["power"] == "FRA"
    passcode = answer["passcode"]
    assert isinstance(passcode, int) and passcode != clients["FRA"].passcode
    await clients["FRA"].expect_closed()
    for client in others:
        await client.receive_until("CCD ( FRA )")
    old = await ScriptClient.connect(port, "old")
    await old.send(f"IAM ( FRA ) ( {clients['FRA'].passcode} )")
    await old.expect(f"REJ ( IAM ( FRA ) ( {clients['FRA'].passcode} ) )")
    new = await ScriptClient.connect(port, "replacement")
    await new.send(f"IAM ( FRA ) ( {passcode} )")
    assert (await new.receive()) == f"YES ( IAM ( FRA ) ( {passcode} ) )"
    assert "not a power" in refused(await admin.post("/games/1/eject", {"power": "XYZ"}), 404)
    # end: a draw of the survivors
    status, answer = await admin.post("/games/1/end")
    assert status == 200 and answer["draw"] == sorted(POWERS)
    for client in [*others, new]:
        await client.receive_until("SMR")
    assert "is over" in refused(await admin.post("/games/1/pause"), 409)
    assert "is over" in refused(await admin.post("/games/1/end"), 409)
    actions = [(e["action"], e["outcome"]) for e in (await admin.get("/games/1/log"))[1]["log"]]
    assert actions[:2] == [("pause", "done"), ("pause", actions[1][1])]
    assert actions[1][1].startswith("refused")
    assert ("eject FRA", "done") in actions and ("end", "done") in actions
    for client in [*others, new, old, clients["FRA"]]:
        await client.close()


async def test_fill_needs_a_bot_the_server_starts(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, admin = await serve(nursery, tmp_path / "g.db")
    game = (await admin.post("/games", {"name": "empty"}))[1]
    bots = (await admin.get("/bots"))[1]["bots"]
    message = refused(await admin.post(f"/games/{game['id']}/fill", {"bot": "no-such-bot"}), 404)
    assert "no bot called 'no-such-bot'" in message
    assert all(b in message for b in bots)
    refused(await admin.post(f"/games/{game['id']}/fill", {}), 400)


async def test_the_hosts_refusals_keep_their_status_and_one_line(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, admin = await serve(nursery, tmp_path / "g.db")
    assert "no game 999" in refused(await admin.get("/games/999"), 404)
    refused(await admin.get("/games/999/log"), 404)
    refused(await admin.post("/games/999/pause"), 404)
    refused(await admin.get("/games/abc"), 400)
    refused(await admin.get("/nothing/here"), 404)
    assert "press level" in refused(await admin.post("/games", {"level": 7}), 400)
    refused(await admin.post("/games", {"variant": "atlantis"}), 400)
    assert "'colour' is not a setting" in refused(await admin.post("/games", {"colour": 1}), 400)
    assert "mtl must be a whole number" in refused(await admin.post("/games", {"mtl": "5"}), 400)
    refused(await admin.post("/games", {"pda": 1}), 400)
    assert "start position" in refused(await admin.post(
        "/games", {"start": "NOW ( SPR 1901 ) ( FRA AMY NTH )"}), 400)
    refused(await admin.post("/games", {"seats": ["FRA"]}), 400)
    assert "not a power" in refused(await admin.post("/games", {"seats": {"XYZ": "bob"}}), 404)
    refused(await admin.post("/games", {"fill_after": -1}), 400)
    game = (await admin.post("/games", {"name": "forming"}))[1]
    assert "has not started" in refused(await admin.post(f"/games/{game['id']}/extend",
                                                         {"seconds": 60}), 409)
    # A port in use: 409, and no game was created.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        refused(await admin.post("/games", {"port": busy}), 409)
    assert [g["id"] for g in (await admin.get("/games"))[1]["games"]] == [game["id"]]


async def test_fill_puts_a_server_started_bot_in_a_seat(nursery: trio.Nursery,
                                                        tmp_path: Path) -> None:
    from bots.launcher import ProcessBots
    from server.settings import ServerSettings

    db = tmp_path / "g.db"
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db, http_port=0),
                    bots=ProcessBots())
    await nursery.start(server.run)
    admin = Admin(server, token_of(db))
    bots = (await admin.get("/bots"))[1]["bots"]
    assert "holdbot" in bots and "dumbbot" in bots
    game = (await admin.post("/games", {"name": "one bot"}))[1]
    status, answer = await admin.post(f"/games/{game['id']}/fill",
                                      {"bot": "holdbot", "power": "ger"})
    assert status == 200 and (answer["bot"], answer["power"]) == ("holdbot", "GER")
    shown = (await admin.get(f"/games/{game['id']}"))[1]
    assert {"power": "GER", "name": "holdbot", "bot": "holdbot"} in shown["invited"]
    assert "already reserved" in refused(
        await admin.post(f"/games/{game['id']}/fill", {"bot": "randbot", "power": "GER"}), 409)
    for _ in range(6):
        status, answer = await admin.post(f"/games/{game['id']}/fill", {"bot": "holdbot"})
        assert status == 200 and answer["power"] is None
    assert "no free seat" in refused(
        await admin.post(f"/games/{game['id']}/fill", {"bot": "holdbot"}), 409)
    # The bots are the server's children: they start, join with their invitations, and
    # the game starts with Germany's.
    with trio.fail_after(120):         # each bot is a Python process starting up
        for _poll in range(100_000):     # the API is the host's only view: polled
            if (await admin.get(f"/games/{game['id']}"))[1]["status"] == "running":
                break
            await trio.sleep(0.2)
    shown = (await admin.get(f"/games/{game['id']}"))[1]
    assert len(shown["seats"]) == 7 and shown["bots"]["GER"] == "holdbot"
    assert {s["power"]: s["name"] for s in shown["seats"]}["GER"] == "holdbot"
    assert (await admin.post(f"/games/{game['id']}/end"))[0] == 200
    server.stop()
