"""The web side over real sockets: DAIDE over WebSocket, pages, the JSON API.

A server runs on 127.0.0.1 port 0 with ``http_port=0``; the WebSocket client
is wsproto on a real TCP stream (`tests.web_helpers`), the HTTP client the
standard library's.  The WebSocket connection must behave exactly like a
TCP one (the same `server.connection` code path): the frames and answers
asserted here are the ones the TCP tests assert.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from protocol.frames import InitialMessage, build_frame, take_frames
from server.app import Server
from tests.server_helpers import POWERS, ScriptClient, holds, start_server
from tests.web_helpers import WebSocketClient, http

_opened: list[trio.abc.Stream] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    """Every client stream a test opened is closed when it ends."""
    yield
    while _opened:
        await _opened.pop().aclose()


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> Server:
    server, _port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0})
    assert server.http_url is not None
    return server


def http_port(server: Server) -> int:
    assert server.http_url is not None
    return int(re.search(r":(\d+)/$", server.http_url).group(1))  # type: ignore[union-attr]


async def ws_client(server: Server, name: str, path: str = "/daide") -> ScriptClient:
    stream = await WebSocketClient.connect(http_port(server), path)
    _opened.append(stream)
    client = ScriptClient(stream, name)  # type: ignore[arg-type]
    await client.send_raw(client.machine.send(InitialMessage()))
    return client


async def seven_players(server: Server, tcp_port: int, web_power: str = "FRA"
                        ) -> dict[str, ScriptClient]:
    """Six TCP clients and one WebSocket client (asking for ``web_power``) start a game."""
    clients = []
    for power in POWERS:
        if power == web_power:
            clients.append(await ws_client(server, f"{power}:web"))
        else:
            clients.append(await ScriptClient.connect(tcp_port, f"{power}:bot"))
            _opened.append(clients[-1].stream)
    for client in clients:
        await client.join()
    by_power = {}
    for client in clients:
        await client.receive_until("NOW")
        assert client.power is not None
        by_power[client.power] = client
    return by_power


Game = tuple[Server, int, dict[str, ScriptClient]]


@pytest.fixture
async def game(nursery: trio.Nursery, tmp_path: Path) -> Game:
    """A running game: six TCP players, France over WebSocket."""
    server, port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0})
    return server, port, await seven_players(server, port)


async def test_take_frames_cuts_at_frame_boundaries() -> None:
    buffer = bytearray(bytes.fromhex("01000000" "0200000248 0A".replace(" ", "") + "030000"))
    assert take_frames(buffer) == [bytes.fromhex("01000000"), bytes.fromhex("020000024" "80A")]
    assert buffer == bytearray(bytes.fromhex("030000"))     # the incomplete FM waits
    buffer += b"\x00"
    assert take_frames(buffer) == [bytes.fromhex("03000000")] and not buffer


async def test_websocket_im_gets_the_rm_and_each_message_is_one_frame(server: Server) -> None:
    # docs/protocol.md §19.3: the standard map's RM is empty: 01 00 00 00.
    stream = await WebSocketClient.connect(http_port(server))
    nme = bytes.fromhex("0200001648 0C40004B424B6F4B7440014000 4B314B2E4B304001".replace(" ", ""))
    await stream.send_all(build_frame(InitialMessage()))
    await stream.send_all(nme)
    with trio.fail_after(5):
        rm = await stream.receive_some()
        yes = await stream.receive_some()
        map_message = await stream.receive_some()
    assert rm == bytes.fromhex("01000000")
    assert yes[:8] == bytes.fromhex("0200001c481c4000") and yes[8:30] == nme[4:]
    assert map_message.startswith(bytes.fromhex("02")) and b"\x4bS" in map_message
    for message in stream.messages:          # each message exactly one frame
        assert len(message) == 4 + int.from_bytes(message[2:4], "big")
    await stream.aclose()


async def test_a_framing_fault_over_websocket_gets_the_same_em(server: Server) -> None:
    stream = await WebSocketClient.connect(http_port(server))
    await stream.send_all(bytes.fromhex("000000040001BEEF"))   # wrong magic: EM 0x04
    with trio.fail_after(5):
        got = await stream.receive_some()
        assert got == bytes([4, 0, 0, 2, 0, 0x04])
        assert await stream.receive_some() == b""             # then the server closes
    await stream.aclose()


async def test_a_text_message_is_refused_with_close_1003(server: Server) -> None:
    stream = await WebSocketClient.connect(http_port(server))
    await stream.send_text("NME ( 'x' ) ( '1' )")
    with trio.fail_after(5):
        assert await stream.receive_some() == b""
    assert stream.close_code == 1003
    await stream.aclose()


async def test_websocket_player_plays_beside_tcp_players(game: Game) -> None:
    server, port, clients = game
    web = clients["FRA"]
    assert isinstance(web.stream, WebSocketClient)
    now = next(t for t in reversed(web.log) if t.startswith("NOW"))
    await web.send("SUB ( ( FRA AMY PAR ) MTO BUR ) ( ( FRA AMY MAR ) MTO SPA )"
                   " ( ( FRA FLT BRE ) MTO LON )")
    assert await web.receive() == "THX ( ( FRA AMY PAR ) MTO BUR ) ( MBV )"
    assert await web.receive() == "THX ( ( FRA AMY MAR ) MTO SPA ) ( MBV )"
    assert await web.receive() == "THX ( ( FRA FLT BRE ) MTO LON ) ( FAR )"
    await web.send("MIS")
    assert await web.receive() == "MIS ( FRA FLT BRE )"
    # Summary: the orders the server holds, by passcode (and a wrong one refused).
    base = server.http_url
    status, held, _ = await http(base + "api/summary",
                                 {"game": 1, "power": "FRA", "passcode": web.passcode})
    assert status == 200 and held["orders"] == ["( ( FRA AMY PAR ) MTO BUR )",
                                               "( ( FRA AMY MAR ) MTO SPA )"]
    status, refused, _ = await http(base + "api/summary",
                                    {"game": 1, "power": "FRA", "passcode": (web.passcode + 1) % 8000})
    assert status == 403 and "wrong passcode" in refused["error"]
    for power, client in clients.items():
        if power != "FRA":
            await client.send(holds(now, power))
    await web.send("SUB ( ( FRA FLT BRE ) HLD )")
    results = await web.receive_until("NOW")
    assert "ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( SUC )" in results
    assert results[-1].startswith("NOW ( SUM 1901 )") or results[-1].startswith("NOW ( FAL 1901 )")
    assert "( FRA AMY BUR )" in results[-1]
    for message in web.stream.messages:
        assert len(message) == 4 + int.from_bytes(message[2:4], "big")


async def test_watch_n_observes_the_named_game(game: Game) -> None:
    server, port, clients = game
    # A second game forms: a plain OBS would watch it (the newest), watch=1 the first.
    newcomer = await ScriptClient.connect(port, "late")
    _opened.append(newcomer.stream)
    await newcomer.join()
    watcher = await ws_client(server, "watcher", "/daide?watch=1")
    await watcher.send("OBS")
    await watcher.expect("YES ( OBS )")
    assert (await watcher.receive()).startswith("MAP ( 'STANDARD' )")
    await watcher.send("YES ( MAP ( 'STANDARD' ) )")
    await watcher.send("NOW")
    now = (await watcher.receive_until("NOW"))[-1]
    assert now.startswith("NOW ( SPR 1901 )") and "( FRA FLT BRE )" in now
    for power, client in clients.items():       # game 1 moves on: its watcher hears of it
        await client.send(holds(now, power))
    seen = await watcher.receive_until("NOW ( FAL 1901 )")
    assert "ORD ( SPR 1901 ) ( ( FRA FLT BRE ) HLD ) ( SUC )" in seen
    assert seen[-1].startswith("NOW ( FAL 1901 )")
    status, listing, _ = await http(server.http_url + "api/games")
    assert status == 200
    assert [(g["id"], g["status"]) for g in listing["games"]] == [(2, "forming"), (1, "running")]
    assert listing["games"][1]["centres"]["FRA"] == 3


async def test_pages_and_static_files(server: Server) -> None:
    base = server.http_url
    assert base is not None
    for path, marker in (("", "daide-games"), ("watch/1", "daide-watch"), ("play", "daide-play")):
        status, text, kind = await http(base + path)
        assert status == 200 and kind.startswith("text/html") and marker in text, path
    status, text, kind = await http(base + "web/daide.js")
    assert status == 200 and kind.startswith("text/javascript") and "export" in text
    for bad in ("web/../server/app.py", "web/%2e%2e/server/app.py", "nothing", "watch/x"):
        status, body, _ = await http(base + bad)
        assert status == 404, bad


async def test_api_tokens_map_and_errors(server: Server) -> None:
    base = server.http_url
    status, tokens, _ = await http(base + "api/tokens")
    assert status == 200 and tokens["names"][str(0x4102)] == "FRA"
    assert tokens["names"][str(0x480E)] == "NOW"
    status, answer, _ = await http(base + "api/games/9")
    assert status == 404 and answer["error"] == "no game 9"
    status, answer, _ = await http(base + "api/games/x")
    assert status == 400
    status, answer, _ = await http(base + "api/notation", {"text": "A Par - Bur"})
    assert status == 400 and "power" in answer["error"]
    status, answer, _ = await http(base + "api/notation", {"text": "A Par - Bur", "power": "FRA"})
    assert status == 200 and answer["order"] == "( ( FRA AMY PAR ) MTO BUR )"
    status, answer, _ = await http(base + "api/notation", {"text": "A Par - Xyz", "power": "FRA"})
    assert status == 400 and "'xyz' is not a province" in answer["error"]
    status, answer, _ = await http(base + "api/preview", {"game": 1, "power": "FRA", "orders": []})
    assert status == 404


async def test_preview_adjudicates_a_copy_and_submits_nothing(game: Game) -> None:
    server, port, clients = game
    base = server.http_url
    orders = ["( ( FRA AMY PAR ) MTO BUR )", "( ( FRA AMY MAR ) MTO BUR )",
              "( ( FRA FLT BRE ) MTO LON )"]
    status, answer, _ = await http(base + "api/preview",
                                   {"game": 1, "power": "FRA", "orders": orders})
    assert status == 200, answer
    assert [n["note"] for n in answer["notes"]] == ["MBV", "MBV", "FAR"]
    assert "ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( BNC )" in answer["results"]
    assert "ORD ( SPR 1901 ) ( ( FRA AMY MAR ) MTO BUR ) ( BNC )" in answer["results"]
    assert 'data-unit="FRA AMY PAR"' in answer["svg"]
    # Nothing was submitted: the server still misses every French order.
    web = clients["FRA"]
    await web.send("MIS")
    missing = await web.receive()
    assert missing.startswith("MIS") and all(
        unit in missing for unit in ("( FRA AMY MAR )", "( FRA AMY PAR )", "( FRA FLT BRE )"))


async def test_a_variant_server_sends_its_representation_and_draws_its_map(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, _port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0},
                                       variant="hundred3")
    stream = await WebSocketClient.connect(http_port(server))
    _opened.append(stream)
    await stream.send_all(build_frame(InitialMessage()))
    with trio.fail_after(5):
        rm = await stream.receive_some()
    # docs/protocol.md §4.2: a variant's RM lists its powers and provinces, 6 bytes each.
    assert rm[0] == 1 and len(rm) > 4 and (len(rm) - 4) % 6 == 0
    status, tokens, _ = await http(server.http_url + "api/tokens")
    names = set(tokens["names"].values())
    for i in range(4, len(rm), 6):
        assert rm[i + 2:i + 5].decode().upper() in names
    status, info, _ = await http(server.http_url + "api/map")
    assert status == 200 and len(info["powers"]) == 3
    assert 'data-sc="' in info["svg"] and 'class="daide-map"' in info["svg"]
    status, answer, _ = await http(server.http_url + "api/render", {"now": None, "sco": None})
    assert status == 200 and answer["svg"].count("data-unit=") >= 3


async def test_bad_requests_get_a_one_line_error_never_a_crash(game: Game) -> None:
    server, port, clients = game
    base = server.http_url
    cases: list[tuple[str, object, int, str]] = [
        ("api/preview", {"game": 1, "power": "FRA", "orders": ["( ( FRA AMY PAR ) XYZ BUR )"]},
         400, "is not a DAIDE order"),
        ("api/preview", {"game": 1, "power": "XXX", "orders": []}, 400, "power 'XXX'"),
        ("api/preview", {"game": 1, "power": "FRA", "orders": [], "against": "all"}, 400,
         "against must be"),
        ("api/preview", {"game": "1", "power": "FRA", "orders": []}, 400, "preview takes"),
        ("api/render", {"now": "NOW ( SPR 1901 ) ( FRA AMY XYZ )"}, 400, ""),
        ("api/render", {"now": 5}, 400, "render takes"),
        ("api/notation", {"text": 5, "power": "FRA"}, 400, "notation takes"),
        ("api/summary", {"game": 1, "power": "FRA"}, 400, "summary takes"),
        ("api/summary", {"game": 7, "power": "FRA", "passcode": 1}, 404, "no game 7"),
        ("api/nothing", {}, 404, "no API POST /api/nothing"),
    ]
    for path, body, status, message in cases:
        got, answer, _ = await http(base + path, body)  # type: ignore[arg-type]
        assert got == status and message in answer["error"], (path, body, answer)
    # Not JSON, not an object: refused with what was wrong.
    request_status, answer, _ = await trio.to_thread.run_sync(_raw_post, base + "api/render",
                                                              b"{not json")
    assert request_status == 400 and answer["error"].startswith("bad JSON")
    request_status, answer, _ = await trio.to_thread.run_sync(_raw_post, base + "api/render",
                                                              b"[1, 2]")
    assert request_status == 400 and "JSON object" in answer["error"]
    # The game goes on: France still gets its answers.
    await clients["FRA"].send("MIS")
    assert (await clients["FRA"].receive()).startswith("MIS ( FRA")


def _raw_post(url: str, body: bytes) -> tuple[int, dict[str, str], str]:
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"content-type": "application/json",
                                              "x-daide-client": "web"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), ""
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), ""


async def test_a_dropped_websocket_is_civil_disorder_and_iam_over_websocket_resumes(
        game: Game) -> None:
    server, port, clients = game
    web = clients["FRA"]
    passcode = web.passcode
    await web.stream.aclose()                  # gone without a close frame or FM
    assert await clients["ENG"].receive_until("CCD") == ["CCD ( FRA )"]
    back = await ws_client(server, "back")
    await back.send(f"IAM ( FRA ) ( {passcode} )")
    assert await back.receive() == f"YES ( IAM ( FRA ) ( {passcode} ) )"
    assert await clients["ENG"].receive_until("NOT") == ["NOT ( CCD ( FRA ) )"]
    await back.send("MIS")
    assert (await back.receive_until("MIS"))[-1].startswith("MIS ( FRA")


async def test_preview_against_the_last_orders_keeps_those_that_still_fit(game: Game) -> None:
    server, port, clients = game
    now = next(t for t in reversed(clients["ENG"].log) if t.startswith("NOW"))
    # Spring: England bounces two units in Yorkshire and moves London's fleet.
    await clients["ENG"].send("SUB ( ( ENG AMY LVP ) MTO YOR ) ( ( ENG FLT EDI ) MTO YOR )"
                              " ( ( ENG FLT LON ) MTO NTH )")
    for power, client in clients.items():
        if power != "ENG":
            await client.send(holds(now, power))
    assert (await clients["FRA"].receive_until("NOW"))[-1].startswith("NOW ( FAL 1901 )")
    base = server.http_url
    body = {"game": 1, "power": "FRA", "orders": ["( ( FRA AMY PAR ) MTO BUR )"]}
    status, last, _ = await http(base + "api/preview", {**body, "against": "last"})
    assert status == 200, last
    results = last["results"]
    assert "ORD ( FAL 1901 ) ( ( ENG AMY LVP ) MTO YOR ) ( BNC )" in results
    assert "ORD ( FAL 1901 ) ( ( ENG FLT EDI ) MTO YOR ) ( BNC )" in results
    # LON - NTH no longer fits (the fleet is in the North Sea): it holds.
    assert "ORD ( FAL 1901 ) ( ( ENG FLT NTH ) HLD ) ( SUC )" in results
    assert "ORD ( FAL 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( SUC )" in results
    status, held, _ = await http(base + "api/preview", {**body, "against": "holds"})
    assert "ORD ( FAL 1901 ) ( ( ENG AMY LVP ) HLD ) ( SUC )" in held["results"]


async def test_press_history_is_the_powers_own_and_needs_its_passcode(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    """POST /api/press (issue 28, finding 12): every press message the power sent or
    received, as the FRM the server delivered; another power's talk is not in it."""
    server, port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0},
                                      level=8000, mtl=600)
    clients = await seven_players(server, port)
    await clients["FRA"].send("SND ( ENG ) ( 'Hello from Paris' )")
    assert (await clients["FRA"].receive_until("YES"))[-1].startswith("YES ( SND")
    await clients["ENG"].send("SND ( GER ) ( 'A secret' )")
    assert (await clients["ENG"].receive_until("YES"))[-1].startswith("YES ( SND")
    await clients["ENG"].send("SND ( FRA ) ( 'Hello from London' )")
    assert (await clients["ENG"].receive_until("YES"))[-1].startswith("YES ( SND")
    base = server.http_url
    status, answer, _ = await http(base + "api/press",
                                   {"game": 1, "power": "FRA", "passcode": clients["FRA"].passcode})
    assert status == 200, answer
    assert [m["frm"] for m in answer["messages"]] == [
        "FRM ( FRA ) ( ENG ) ( 'Hello from Paris' )",
        "FRM ( ENG ) ( FRA ) ( 'Hello from London' )"]
    assert answer["messages"][0]["turn"] == "SPR 1901"
    status, refused, _ = await http(
        base + "api/press", {"game": 1, "power": "FRA",
                             "passcode": (clients["FRA"].passcode + 1) % 8000})
    assert status == 403 and "wrong passcode" in refused["error"]
    status, refused, _ = await http(base + "api/press", {"game": 1, "power": "FRA"})
    assert status == 400 and refused["error"].startswith("press takes")
    # The games list: names as people read them, seats and deadlines.
    status, games, _ = await http(base + "api/games")
    game = games["games"][0]
    assert {p["name"] for p in game["players"]} == {"web", "bot"}
    assert game["seats"] == 7 and game["deadlines"]["mtl"] == 600 and game["level"] == 8000
