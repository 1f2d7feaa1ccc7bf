"""The web door as hard as the TCP door (issue 26): origins, cross-site requests,
bad input, security headers - over real sockets.

Requests are written byte for byte on a trio TCP stream (`request`), so that
paths like ``/web/%00`` and bodies that are not UTF-8 reach the server as
sent.  The server runs as in tests/test_web_server.py (127.0.0.1, port 0,
``http_port=0``).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio
from structlog.testing import capture_logs

from daide import cmd_serve
from daide.cli import main
from server.app import Server
from server.settings import ServerSettings, SettingsError
from tests.server_helpers import ScriptClient, join_game, start_server

WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> Server:
    server, _port = await start_server(
        nursery, tmp_path / "games.db",
        {"http_port": 0, "allow_origins": ("https://play.example",)}, level=8000)
    return server


def port_of(server: Server) -> int:
    assert server.http_url is not None
    return int(re.search(r":(\d+)/$", server.http_url).group(1))  # type: ignore[union-attr]


async def request(port: int, method: str, target: str, body: bytes = b"", *,
                  headers: dict[str, str] | None = None, host: str | None = None
                  ) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request as these bytes: status, headers (lower-case names), body."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}",
             "Connection: close"]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        await stream.send_all(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        data = bytearray()
        with trio.fail_after(20):
            while b"\r\n\r\n" not in data:
                chunk = await stream.receive_some(65536)
                assert chunk, f"closed without an answer: {bytes(data)!r}"
                data += chunk
            head, _, rest = bytes(data).partition(b"\r\n\r\n")
            head_lines = head.decode("latin-1").split("\r\n")
            status = int(head_lines[0].split()[1])
            got = {}
            for line in head_lines[1:]:
                name, _, value = line.partition(":")
                got[name.strip().lower()] = value.strip()
            length = 0 if status == 101 or method == "HEAD" else int(got.get("content-length", "0"))
            answer = bytearray(rest)
            while len(answer) < length:
                chunk = await stream.receive_some(65536)
                assert chunk
                answer += chunk
    finally:
        await stream.aclose()
    return status, got, bytes(answer)


def api_headers(**extra: str) -> dict[str, str]:
    return {"Content-Type": "application/json", "X-Daide-Client": "web", **extra}


async def upgrade(port: int, origin: str | None, target: str = "/daide",
                  host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    headers = {"Upgrade": "websocket", "Connection": "Upgrade",
               "Sec-WebSocket-Key": WS_KEY, "Sec-WebSocket-Version": "13"}
    if origin is not None:
        headers["Origin"] = origin
    lines = [f"GET {target} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        await stream.send_all(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = bytearray()
        with trio.fail_after(20):
            while b"\r\n\r\n" not in data:
                chunk = await stream.receive_some(65536)
                assert chunk
                data += chunk
            head, _, rest = bytes(data).partition(b"\r\n\r\n")
            head_lines = head.decode("latin-1").split("\r\n")
            status = int(head_lines[0].split()[1])
            got = {k.strip().lower(): v.strip()
                   for k, _, v in (line.partition(":") for line in head_lines[1:])}
            body = bytearray(rest)
            if status == 101:
                # The RM is the first message after the IM: send an IM, read one message.
                # A masked client frame (a zero mask) of the 8 bytes of the IM.
                await stream.send_all(b"\x82\x88" + bytes(4) + bytes.fromhex("000000040001DA10"))
                while len(body) < 2:
                    body += await stream.receive_some(65536)
            else:
                while len(body) < int(got.get("content-length", "0")):
                    body += await stream.receive_some(65536)
    finally:
        await stream.aclose()
    return status, got, bytes(body)


# --- origins --------------------------------------------------------------------------


async def test_the_websocket_takes_only_the_pages_own_origin_and_allowed_ones(
        server: Server) -> None:
    port = port_of(server)
    with capture_logs() as logs:
        for origin in ("http://evil.example", "null", f"http://localhost:{port}",
                       f"http://127.0.0.1:{port + 1}", "https://play.example.evil"):
            status, headers, body = await upgrade(port, origin)
            assert status == 403, origin
            assert "not allowed" in json.loads(body)["error"]
            assert headers["x-content-type-options"] == "nosniff"
        refused = [e for e in logs if e["event"] == "websocket_refused"]
        assert len(refused) == 5 and all(e["status"] == 403 for e in refused)
        # The page's own origin (the Host asked), an --allow-origin one, and none at all
        # (a non-browser client) are upgraded and get the RM.
        for taken in (f"http://127.0.0.1:{port}", f"HTTP://127.0.0.1:{port}",
                      "https://play.example", "https://play.example/", None):
            status, _headers, body = await upgrade(port, taken)
            assert status == 101, taken
            assert body[:2] == b"\x82\x04", taken        # one binary message: the RM frame
        # The Host the request came to, when it is one of the server's own: an address,
        # a localhost name, an --allow-origin host.
        for host in (f"localhost:{port}", f"[::1]:{port}", f"game.localhost:{port}",
                     f"192.0.2.7:{port}", "play.example:8080", "PLAY.example."):
            status, _h, _b = await upgrade(port, f"http://{host}", host=host)
            assert status == 101, host
    assert not [e for e in logs if e.get("exc_info") or e["log_level"] == "error"]


# --- DNS rebinding: the Host must be one of the server's own ------------------------------


async def test_a_rebound_name_cannot_open_the_websocket_or_post(
        players: tuple[Server, dict[str, ScriptClient]]) -> None:
    """A page of evil.example whose name now resolves to this server: its Origin and
    Host agree, but the Host is not one of the server's names - 421, and no passcode
    of the summary is checked or counted."""
    server, clients = players
    port = port_of(server)
    assert server.lobby is not None
    guard = server.lobby.iam_guard
    evil = f"evil.example:{port}"
    wrong = json.dumps({"game": 1, "power": "FRA", "passcode": 0}).encode()
    with capture_logs() as logs:
        for host in (evil, "evil.example", "localhost.evil.example", "127.0.0.1.nip.io",
                     "evil.example:" + "9" * 5, "a" * 200):
            status, headers, body = await upgrade(port, f"http://{host}", host=host)
            assert status == 421, host
            error = json.loads(body)["error"]
            assert "is not a name of this server" in error and "\n" not in error
            assert headers["x-content-type-options"] == "nosniff"
        for _ in range(guard.limit + 2):
            got, _h, body = await request(port, "POST", "/api/summary", wrong, host=evil,
                                          headers=api_headers(Origin=f"http://{evil}"))
            assert got == 421
            assert json.loads(body)["error"] == (
                f"'{evil}' is not a name of this server: if it is this server's name, "
                "start it with --allow-origin https://evil.example")
        for path in ("/api/render", "/api/notation", "/api/preview"):
            got, _h, _b = await request(port, "POST", path, b"{}", host=evil,
                                        headers=api_headers())
            assert got == 421, path
    assert not guard.blocked("127.0.0.1", trio.current_time())
    assert [e["status"] for e in logs if e["event"] == "websocket_refused"] == [421] * 6
    assert len([e for e in logs if e["event"] == "http_refused"]) == guard.limit + 5
    assert not [e for e in logs if e.get("exc_info") or e["log_level"] == "error"]
    # What another site may read anyway is answered under any name.
    got, _h, body = await request(port, "GET", "/api/games", host=evil)
    assert got == 200 and json.loads(body)["games"]
    got, _h, _b = await request(port, "GET", "/", host=evil)
    assert got == 200
    # A program's WebSocket (no Origin) is not a page's, whatever name it used.
    status, _h, _b = await upgrade(port, None, host=evil)
    assert status == 101
    # Under one of the server's names the same requests are answered.
    passcode = clients["FRA"].passcode
    right = json.dumps({"game": 1, "power": "FRA", "passcode": passcode}).encode()
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        got, _h, body = await request(port, "POST", "/api/summary", right, host=host,
                                      headers=api_headers())
        assert got == 200 and json.loads(body)["power"] == "FRA", host


async def test_allow_origin_makes_a_public_name_the_servers(nursery: trio.Nursery,
                                                           tmp_path: Path) -> None:
    """Behind a proxy that passes the Host on, or served directly under a public name:
    --allow-origin names it, and its page's WebSocket and POSTs are taken."""
    server, _port = await start_server(
        nursery, tmp_path / "games.db",
        {"http_port": 0, "allow_origins": ("https://diplomacy.example",)})
    port = port_of(server)
    status, _h, body = await upgrade(port, "https://diplomacy.example",
                                     host="diplomacy.example")
    assert status == 101 and body[:2] == b"\x82\x04"
    # The page's own origin under that name, on another port (the proxy's) too.
    status, _h, _b = await upgrade(port, "http://diplomacy.example:8443",
                                   host="diplomacy.example:8443")
    assert status == 101
    got, _h, body = await request(port, "POST", "/api/notation",
                                  json.dumps({"text": "A Par - Bur", "power": "FRA"}).encode(),
                                  host="diplomacy.example", headers=api_headers())
    assert got == 200 and json.loads(body)["order"] == "( ( FRA AMY PAR ) MTO BUR )"
    got, _h, _b = await request(port, "POST", "/api/notation", b"{}",
                                host="other.example", headers=api_headers())
    assert got == 421


async def test_a_bad_websocket_path_or_watch_is_refused_with_one_line(server: Server) -> None:
    port = port_of(server)
    for target, status in (("/other", 404), ("/daide?watch=%C2%B2", 400),
                           ("/daide?watch=99999999999999999999", 400),
                           ("/daide?watch=9223372036854775808", 400),
                           ("/daide?watch=-1", 400), ("/daide?watch=1x", 400),
                           ("/daide?watch=" + "9" * 5000, 400)):
        got, _headers, body = await upgrade(port, None, target)
        assert got == status, target
        assert set(json.loads(body)) == {"error"}


def test_allow_origin_takes_origins_only(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert ServerSettings(allow_origins=("http://a.example:8080",)).allow_origins
    for bad in ("evil.example", "null", "http://a.example/path", "*"):
        with pytest.raises(SettingsError):
            ServerSettings(allow_origins=(bad,))
    parser = argparse.ArgumentParser()
    cmd_serve.add_arguments(parser)
    args = parser.parse_args(["--allow-origin", "https://a.example", "--allow-origin",
                              "http://b.example:8080"])
    assert args.allow_origins == ["https://a.example", "http://b.example:8080"]
    assert parser.parse_args([]).allow_origins == []
    try:
        assert main(["serve", "--db", str(tmp_path / "x.db"), "--allow-origin", "null"]) == 1
    finally:
        structlog.reset_defaults()
    err = capsys.readouterr().err
    assert err == ("daide serve: error: an allowed origin is scheme://host[:port],"
                   " not 'null'\n")


# --- cross-site requests --------------------------------------------------------------


@pytest.fixture
async def players(nursery: trio.Nursery, tmp_path: Path
                  ) -> AsyncIterator[tuple[Server, dict[str, ScriptClient]]]:
    server, port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0})
    clients = await join_game(port)
    yield server, clients
    for client in clients.values():
        await client.stream.aclose()


async def test_a_cross_site_summary_is_refused_before_any_passcode_is_counted(
        players: tuple[Server, dict[str, ScriptClient]]) -> None:
    server, clients = players
    port = port_of(server)
    assert server.lobby is not None
    guard = server.lobby.iam_guard
    wrong = json.dumps({"game": 1, "power": "FRA", "passcode": 0}).encode()
    with capture_logs() as logs:
        for _ in range(guard.limit + 2):
            # What a form or a simple fetch of another site can send.
            for headers, status in (({"Content-Type": "text/plain"}, 415),
                                    ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
                                    ({}, 415),
                                    ({"Content-Type": "application/json"}, 403),
                                    ({"Content-Type": "text/plain", "X-Daide-Client": "web"},
                                     415),
                                    ({"Content-Type": "application/json",
                                      "X-Daide-Client": "other"}, 403)):
                got, answer_headers, body = await request(port, "POST", "/api/summary", wrong,
                                                          headers=headers)
                assert got == status, headers
                assert set(json.loads(body)) == {"error"}
                assert answer_headers["content-type"].startswith("application/json")
    assert not guard.blocked("127.0.0.1", trio.current_time())
    refused = [e for e in logs if e["event"] == "http_refused"]
    assert len(refused) == 6 * (guard.limit + 2)
    # The page's own request is answered (and a wrong passcode counted, as for IAM).
    passcode = clients["FRA"].passcode
    right = json.dumps({"game": 1, "power": "FRA", "passcode": passcode}).encode()
    got, _h, body = await request(port, "POST", "/api/summary", right, headers=api_headers())
    assert got == 200 and json.loads(body)["power"] == "FRA"
    got, _h, body = await request(port, "POST", "/api/summary", wrong, headers=api_headers())
    assert got == 403 and "wrong passcode" in json.loads(body)["error"]
    # Every API POST takes the page's requests only; OPTIONS (a preflight) is not granted.
    for path in ("/api/render", "/api/notation", "/api/preview"):
        got, _h, _b = await request(port, "POST", path, b"{}", headers={"Content-Type":
                                                                        "text/plain"})
        assert got == 415, path
    got, headers, _b = await request(port, "OPTIONS", "/api/summary",
                                     headers={"Origin": "http://evil.example",
                                              "Access-Control-Request-Method": "POST"})
    assert got == 405 and not any(h.startswith("access-control-") for h in headers)


# --- bad input: a 4xx with one line, never a 500 ----------------------------------------


async def test_every_bad_input_is_a_4xx_with_one_line_and_no_traceback(
        players: tuple[Server, dict[str, ScriptClient]]) -> None:
    server, _clients = players
    port = port_of(server)
    deep = "[" * 30000 + "]" * 30000
    cases: list[tuple[str, str, bytes]] = [
        ("GET", "/web/%00", b""),
        ("GET", "/web/a%00b.js", b""),
        ("GET", "/web/%2e%2e/server/http.py", b""),
        ("GET", "/watch/%C2%B2", b""),
        ("GET", "/api/games/9223372036854775808", b""),
        ("GET", "/api/games/99999999999999999999999", b""),
        ("GET", "/api/games/" + "9" * 5000, b""),
        ("GET", "/api/games/%C2%B2", b""),
        ("GET", "/api/games/%C2%B2/history", b""),
        ("GET", "/api/games/-1", b""),
        ("POST", "/api/render", deep.encode()),
        ("POST", "/api/render", b'{"now": ' + deep.encode() + b"}"),
        ("POST", "/api/render", b"\xff\xfe{}"),
        ("POST", "/api/render", b'{"now": "\xc3\x28"}'),
        ("POST", "/api/render", json.dumps({"now": "(" * 20000 + ")" * 20000}).encode()),
        ("POST", "/api/render", json.dumps({"now": "NOW " + "(" * 5000}).encode()),
        ("POST", "/api/render", json.dumps({"sco": "SCO" + " (" * 5000}).encode()),
        ("POST", "/api/render", json.dumps({"orders": ["(" * 10000 + ")" * 10000]}).encode()),
        ("POST", "/api/render", json.dumps({"orders": ["\x00\ud800"]}).encode()),
        # Found by make fuzz: an order or unit of no power of the map (no colour to draw).
        ("POST", "/api/render", json.dumps({"orders": ["( ( UNO AMY MAR ) RTO BLA )"]}).encode()),
        ("POST", "/api/render", json.dumps({"now": "NOW ( SPR 1901 ) ( UNO AMY PAR )"}).encode()),
        ("POST", "/api/render", json.dumps({"orders": ["( ( FRA AMY PAR ) SUP ( XYZ AMY MAR ) )"]}
                                           ).encode()),
        ("POST", "/api/render", b'{"now": ' + b"9" * 5000 + b"}"),
        ("POST", "/api/preview", json.dumps({"game": 10**30, "power": "FRA",
                                             "orders": []}).encode()),
        ("POST", "/api/preview", b'{"game": ' + b"1" * 5000 + b', "power": "FRA", '
                                 b'"orders": []}'),
        ("POST", "/api/preview", json.dumps({"game": 2**63, "power": "FRA",
                                             "orders": []}).encode()),
        ("POST", "/api/preview", json.dumps({"game": -1, "power": "FRA",
                                             "orders": []}).encode()),
        ("POST", "/api/preview", json.dumps({"game": True, "power": "FRA",
                                             "orders": []}).encode()),
        ("POST", "/api/preview", json.dumps({"game": 1, "power": "FRA",
                                             "orders": ["(" * 20000]}).encode()),
        ("POST", "/api/preview", json.dumps({"game": 1, "power": "FRA",
                                             "orders": ["( " * 3000 + ")" * 3000]}).encode()),
        ("POST", "/api/preview", json.dumps({"game": 1, "power": ["x"] * 5000,
                                             "orders": []}).encode()),
        ("POST", "/api/preview", b'{"game": 1e999, "power": "FRA", "orders": []}'),
        ("POST", "/api/notation", json.dumps({"text": "A Par - Bur", "power": "FRA",
                                              "game": 10**30}).encode()),
        ("POST", "/api/notation", json.dumps({"text": "(" * 200, "power": "FRA",
                                              "game": 1}).encode()),
        ("POST", "/api/notation", json.dumps({"text": "\x00" * 200, "power": "FRA"}).encode()),
        ("POST", "/api/summary", json.dumps({"game": 10**30, "power": "FRA",
                                             "passcode": 1}).encode()),
        ("POST", "/api/summary", json.dumps({"game": 1, "power": "FRA",
                                             "passcode": 10**4000}).encode()),
        ("POST", "/api/summary", json.dumps({"game": 1, "power": "FRA",
                                             "passcode": True}).encode()),
        ("POST", "/api/summary", b'{"game": 1, "power": "FRA", "passcode": '
                                 + b"7" * 5000 + b"}"),
        ("POST", "/api/render", b"x" * 70000),
        ("POST", "/api/render", b'{"now": NaN}'),
        ("PUT", "/api/games", b""),
        ("DELETE", "/", b""),
    ]
    with capture_logs() as logs:
        for method, target, body in cases:
            got, headers, answer = await request(port, method, target, body,
                                                 headers=api_headers())
            assert 400 <= got < 500, (target, body[:80], got, answer[:300])
            error = json.loads(answer)
            assert set(error) == {"error"} and "\n" not in error["error"], (target, error)
            assert len(error["error"]) < 500, (target, error)
            assert headers["content-type"].startswith("application/json")
        # A query the API does not read is no error, but no 500 either.
        for target in ("/api/games?x=%ff%fe&y=\xff", "/api/games/1?watch=%C2%B2", "/?%00=%00"):
            got, _h, _a = await request(port, "GET", target)
            assert got in (200, 400), target         # 400: h11 refuses a raw 0xff
    failures = [e for e in logs if e.get("exc_info") or e["log_level"] in ("error", "critical")]
    assert not failures, failures
    # The server is fine afterwards.
    got, _h, answer = await request(port, "GET", "/api/games/1")
    assert got == 200 and json.loads(answer)["id"] == 1


async def test_the_expected_statuses_of_the_issues_inputs(server: Server) -> None:
    port = port_of(server)
    expected = [("GET", "/web/%00", b"", 404),
                ("POST", "/api/render", b"[" * 30000, 400),
                ("POST", "/api/render", b"\xff\xfe\x00", 400),
                ("POST", "/api/preview", b'{"game": ' + str(10**30).encode() + b"}", 400),
                ("POST", "/api/render", b'{"now": ' + b"1" * 5000 + b"}", 400),
                ("GET", "/api/games/9223372036854775808", b"", 400),
                ("GET", "/api/games/%C2%B2", b"", 400),
                ("POST", "/api/render", json.dumps({"now": "NOW " + "( " * 30000}).encode(),
                 400)]
    for method, target, body, status in expected:
        got, _h, answer = await request(port, method, target, body, headers=api_headers())
        assert got == status, (target, body[:40], answer[:200])


# --- security headers, and markup staying text -------------------------------------------


async def test_every_page_and_answer_carries_the_security_headers(server: Server) -> None:
    port = port_of(server)
    for method, target, body in (("GET", "/", b""), ("GET", "/play", b""),
                                 ("GET", "/watch/1", b""), ("GET", "/web/play.js", b""),
                                 ("GET", "/web/style.css", b""), ("GET", "/api/games", b""),
                                 ("GET", "/api/games/7", b""), ("GET", "/nothing", b""),
                                 ("HEAD", "/", b""), ("POST", "/api/render", b"{}"),
                                 ("POST", "/api/render", b"{bad")):
        _status, headers, _body = await request(port, method, target, body,
                                                headers=api_headers())
        policy = headers["content-security-policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'none'"
        assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["connect-src"].split() == [
            "'self'", f"ws://127.0.0.1:{port}", f"wss://127.0.0.1:{port}"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
    # A Host that could smuggle a directive in is left out of the policy.
    _s, headers, _b = await request(port, "GET", "/", host="a; script-src *")
    assert "script-src *" not in headers["content-security-policy"]


async def raw_answer(port: int, data: bytes) -> tuple[int, dict[str, str]]:
    """Send ``data`` as it is; the status and headers (lower-case names) of the answer."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    got = bytearray()
    try:
        await stream.send_all(data)
        with trio.fail_after(20):
            while b"\r\n\r\n" not in got:
                chunk = await stream.receive_some(65536)
                assert chunk, f"closed without an answer: {bytes(got)!r}"
                got += chunk
    finally:
        await stream.aclose()
    head = bytes(got).split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    return int(head[0].split()[1]), {k.strip().lower(): v.strip() for k, _, v in
                                     (line.partition(":") for line in head[1:])}


async def test_hypercorns_own_error_answers_carry_the_security_headers(server: Server) -> None:
    """Answers hypercorn writes itself, before the application is called: they get the
    strictest policy (their bodies are empty)."""
    port = port_of(server)
    for data, status in ((b"GARBAGE\r\n\r\n", 400),
                         (b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 70000 + b"\r\n\r\n", 431),
                         (b"GET /daide HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                          b"Connection: Upgrade\r\n\r\n", 400),      # no Sec-WebSocket-Key
                         (b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400)):
        got, headers = await raw_answer(port, data)
        assert got == status, data[:40]
        assert headers["content-length"] == "0"
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
    # The application's answers keep their one policy (no second one added).
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    try:
        await stream.send_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = await until_closed(stream)
    finally:
        await stream.aclose()
    assert answer.lower().count(b"content-security-policy:") == 1


async def until_closed(stream: trio.SocketStream) -> bytes:
    got = bytearray()
    with trio.fail_after(20):
        while data := await stream.receive_some(65536):
            got += data
    return bytes(got)


WEB = Path(__file__).resolve().parent.parent / "web"


def test_the_pages_have_no_inline_scripts_styles_or_handlers() -> None:
    """The CSP allows only the pages' own files: nothing inline may be needed."""
    for page in WEB.glob("*.html"):
        text = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), page.name
        assert "<style" not in text and " style=" not in text, page.name
        assert not re.search(r"\son[a-z]+\s*=", text), page.name


def test_markup_reaches_the_dom_only_from_the_servers_renderer() -> None:
    """Names, press and orders are put in the page as text (``el`` appends strings as
    text nodes, ``textContent``); HTML is parsed only from the server's SVG and the
    chart built of numbers, power names and turn labels."""
    allowed = {("board.js", "this.container.innerHTML = answer.svg;"),
               ("board.js", 'container.innerHTML = `<svg class="chart" viewBox="0 0 ${width} '
                            '${height}" width="100%">')}
    found = set()
    for script in WEB.glob("*.js"):
        for line in script.read_text().splitlines():
            if re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|"
                         r"new Function|srcdoc|createContextualFragment", line):
                found.add((script.name, line.strip()))
    assert found == allowed
    daide = (WEB / "daide.js").read_text()
    assert "for (const c of children) node.append(c);" in daide


async def test_names_and_press_with_html_stay_text(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0},
                                      level=8000)
    name = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    clients = await join_game(port, [f"{p}:{name}" for p in
                                     ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")])
    try:
        http = port_of(server)
        got, headers, body = await request(http, "GET", "/api/games")
        assert got == 200 and headers["content-type"].startswith("application/json")
        assert headers["x-content-type-options"] == "nosniff"
        games: Any = json.loads(body)
        # Kept as it was given, as data (JSON, never sniffed as HTML).
        assert all(name in p["name"] for p in games["games"][0]["players"])
        got, headers, body = await request(http, "GET", "/api/games/1")
        assert headers["x-content-type-options"] == "nosniff"
        # The board the server draws carries no name; its texts are escaped.
        got, _h, body = await request(
            http, "POST", "/api/render",
            json.dumps({"orders": ["<script>alert(1)</script>"]}).encode(),
            headers=api_headers())
        assert got == 400 and _h["content-type"].startswith("application/json")
    finally:
        for client in clients.values():
            await client.stream.aclose()
