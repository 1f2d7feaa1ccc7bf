"""The web door's limits over real sockets (issue 26; docs/hardening.md, "The web door").

A server runs in this process on 127.0.0.1, port 0, with ``http_port=0``;
memory is the process's resident set (/proc/self/statm), so a server that
buffered what a hostile WebSocket sends would show it.  Every wait is
bounded by a generous deadline, never a sleep that a loaded machine could
outrun.
"""

from __future__ import annotations

import errno
import os
import re
import resource
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest
import structlog
import trio
import trio.testing
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, RejectConnection, Request

from server.app import Server
from server.limits import ConnectionGate, WebSocketGuard, forwarded_client
from server.settings import ServerSettings, SettingsError
from server.web_door import DESCRIPTOR_RESERVE
from tests.server_helpers import ScriptClient, start_server

pytestmark = pytest.mark.skipif(not Path("/proc/self/statm").exists(),
                                reason="RSS is read from /proc")

_opened: list[trio.abc.AsyncResource] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while _opened:
        await trio.aclose_forcefully(_opened.pop())


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def http_port(server: Server) -> int:
    assert server.http_url is not None
    return int(re.search(r":(\d+)/$", server.http_url).group(1))  # type: ignore[union-attr]


async def web_server(nursery: trio.Nursery, tmp_path: Path, **options: object) -> tuple[Server, int]:
    server, tcp_port = await start_server(nursery, tmp_path / "games.db",
                                          {"http_port": 0, **options})
    return server, tcp_port


async def websocket(port: int, headers: list[tuple[bytes, bytes]] | None = None
                    ) -> tuple[trio.SocketStream, WSConnection, dict[bytes, bytes]]:
    """A client WebSocket to /daide: the stream, its wsproto machine, the 101's headers;
    ConnectionError if refused."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    _opened.append(stream)
    ws = WSConnection(ConnectionType.CLIENT)
    raw = bytearray()
    await stream.send_all(ws.send(Request(host=f"127.0.0.1:{port}", target="/daide",
                                          extra_headers=headers or [])))
    with trio.fail_after(30):
        while True:
            data = await stream.receive_some(65536)
            if not data:
                raise ConnectionError("closed during the handshake")
            raw += data
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    head = bytes(raw).split(b"\r\n\r\n")[0].lower().split(b"\r\n")[1:]
                    return stream, ws, dict(line.split(b": ", 1) for line in head)
                if isinstance(event, RejectConnection):
                    raise ConnectionError(f"refused: {event.status_code}")


def masked_header(opcode: int, length: int, *, fin: bool) -> bytes:
    """A client frame header (RFC 6455 §5.2) announcing ``length`` payload bytes."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        size = bytes([0x80 | length])
    elif length < 65536:
        size = bytes([0x80 | 126]) + length.to_bytes(2, "big")
    else:
        size = bytes([0x80 | 127]) + length.to_bytes(8, "big")
    return bytes([first]) + size + b"\0\0\0\0"


async def pour(stream: trio.SocketStream, first: bytes, chunk: bytes, limit: int) -> int:
    """Send ``first`` then ``chunk`` after ``chunk`` until the server stops taking them
    (or ``limit`` bytes went); the bytes sent."""
    sent = 0
    try:
        with trio.move_on_after(60):
            await stream.send_all(first)
            while sent < limit:
                await stream.send_all(chunk)
                sent += len(chunk)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    return sent


async def closed_with(stream: trio.SocketStream, ws: WSConnection) -> int | None:
    """Read until EOF; the close code the server sent, if any."""
    code = None
    with trio.fail_after(30):
        while True:
            try:
                data = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                return code
            if not data:
                return code
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, CloseConnection):
                    code = event.code


# --- the WebSocket message size, before buffering -------------------------------------

async def test_a_frame_declaring_2_62_bytes_is_refused_from_its_header(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path)
    stream, ws, _ = await websocket(http_port(server))
    before = rss()
    chunk = bytes(1 << 20)
    sent = await pour(stream, masked_header(2, 1 << 62, fin=True), chunk, 512 << 20)
    # The server closed at the header: the pour stopped once the kernel's buffers were full.
    assert sent < 64 << 20
    assert rss() - before < 48 << 20
    assert await closed_with(stream, ws) == 1009


async def test_endless_continuation_fragments_are_refused(nursery: trio.Nursery,
                                                          tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path)
    stream, ws, _ = await websocket(http_port(server))
    before = rss()
    size = 60000
    fragment = masked_header(0, size, fin=False) + bytes(size)
    sent = await pour(stream, masked_header(2, size, fin=False) + bytes(size),
                      fragment * 16, 512 << 20)
    assert sent < 64 << 20
    assert rss() - before < 48 << 20
    assert await closed_with(stream, ws) == 1009


async def test_empty_fragments_cannot_go_on_forever(nursery: trio.Nursery,
                                                    tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path)
    stream, ws, _ = await websocket(http_port(server))
    await pour(stream, masked_header(2, 0, fin=False), masked_header(0, 0, fin=False) * 100,
               1 << 20)
    assert await closed_with(stream, ws) == 1009


async def test_no_compression_is_negotiated(nursery: trio.Nursery, tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path)
    _, _, headers = await websocket(http_port(server), [
        (b"Sec-WebSocket-Extensions", b"permessage-deflate; client_max_window_bits")])
    assert b"sec-websocket-extensions" not in headers


async def test_the_guard_reads_headers_split_anywhere() -> None:
    data = (masked_header(2, 10, fin=True) + bytes(10)) * 3 + masked_header(9, 4, fin=True) \
        + bytes(4) + masked_header(2, 70000, fin=True)
    guard = WebSocketGuard(65536)
    results = [guard.feed(data[i:i + 1]) for i in range(len(data))]
    assert results[:-1] == [None] * (len(data) - 1)
    assert results[-1] == "message over 65536 bytes"
    assert WebSocketGuard(100).feed(masked_header(9, 126, fin=True)) is not None
    assert WebSocketGuard(100).feed(bytes([0xC2, 0x80]) + bytes(4)) is not None   # RSV1


async def test_forwarded_client_is_the_proxys_entry() -> None:
    assert forwarded_client([(b"X-Forwarded-For", b"1.2.3.4, 203.0.113.9")]) == "203.0.113.9"
    assert forwarded_client([(b"x-forwarded-for", b"junk")]) is None
    assert forwarded_client([]) is None
    with pytest.raises(SettingsError):
        ServerSettings(trusted_proxies=("proxy.example",))


# --- request timeouts and the web budget ----------------------------------------------

STALLED = (b"POST /api/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"X-Daide-Client: web\r\nContent-Length: 60000\r\n\r\n{")


async def until_eof(stream: trio.SocketStream) -> bytes:
    got = bytearray()
    with trio.fail_after(60):
        while True:
            try:
                data = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                return bytes(got)
            if not data:
                return bytes(got)
            got += data


async def tcp_client_served(tcp_port: int) -> None:
    client = await ScriptClient.connect(tcp_port, "bot")
    _opened.append(client.stream)
    with trio.fail_after(30):
        await client.join()


async def test_stalled_bodies_time_out_and_leave_tcp_clients_served(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, tcp_port = await web_server(nursery, tmp_path, http_max_connections=100,
                                        http_request_timeout=2.0)
    port = http_port(server)
    stalled = []
    for _ in range(300):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        _opened.append(stream)
        try:
            await stream.send_all(STALLED)
        except trio.BrokenResourceError:
            pass                        # refused at once: over the web's budget
        stalled.append(stream)
    await tcp_client_served(tcp_port)
    answers = [await until_eof(stream) for stream in stalled]
    timed_out = [a for a in answers if a.startswith(b"HTTP/1.1 408")]
    assert 0 < len(timed_out) <= 100
    assert all(a == b"" or a.startswith(b"HTTP/1.1 408") for a in answers)
    assert all(b"\r\nx-content-type-options: nosniff\r\n" in a for a in timed_out)


async def test_stalled_headers_time_out(nursery: trio.Nursery, tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path, http_request_timeout=2.0)
    stream = await trio.open_tcp_stream("127.0.0.1", http_port(server))
    _opened.append(stream)
    await stream.send_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
    start = trio.current_time()
    assert await until_eof(stream) == b""          # closed, no answer: not at once
    assert trio.current_time() - start >= 1.0


async def test_a_websocket_flood_leaves_tcp_clients_served(nursery: trio.Nursery,
                                                           tmp_path: Path) -> None:
    server, tcp_port = await web_server(nursery, tmp_path, max_connections=50,
                                        http_max_connections=100, im_timeout=600.0)
    port = http_port(server)
    held, refused = 0, 0
    for _ in range(150):                # none sends the IM
        try:
            await websocket(port)
            held += 1
        except (ConnectionError, trio.BrokenResourceError, OSError):
            refused += 1
    assert held == 100 and refused == 50
    await tcp_client_served(tcp_port)


async def test_a_trusted_proxy_forwards_the_address_the_limits_count(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path, trusted_proxies=("127.0.0.1",),
                                 http_connections_per_address=2)
    port = http_port(server)
    forwarded = [(b"X-Forwarded-For", b"198.51.100.1, 203.0.113.7")]
    await websocket(port, forwarded)
    await websocket(port, forwarded)
    with pytest.raises(ConnectionError):
        await websocket(port, forwarded)
    await websocket(port, [(b"X-Forwarded-For", b"203.0.113.8")])
    await websocket(port)               # the proxy itself: loopback, exempt


async def test_forwarded_for_is_ignored_from_an_untrusted_peer(nursery: trio.Nursery,
                                                               tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path, http_connections_per_address=2)
    port = http_port(server)
    for _ in range(3):
        await websocket(port, [(b"X-Forwarded-For", b"203.0.113.7")])


# --- out of descriptors -----------------------------------------------------------------

class _Socket:
    def getpeername(self) -> tuple[str, int]:
        raise OSError("gone")


class _Stream(trio.abc.Stream):
    socket = _Socket()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise NotImplementedError

    async def wait_send_all_might_not_block(self) -> None:
        raise NotImplementedError

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        raise NotImplementedError

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


class _ShortListener:
    """accept() fails with EMFILE ``failures`` times, then gives one stream, then waits."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.served = trio.Event()

    async def accept(self) -> _Stream:
        await trio.lowlevel.checkpoint()
        self.calls += 1
        if self.calls <= self.failures:
            raise OSError(errno.EMFILE, "Too many open files")
        if self.calls == self.failures + 1:
            return _Stream()
        self.served.set()
        await trio.sleep_forever()
        raise AssertionError


async def test_emfile_backs_off_with_one_log_line(autojump_clock: trio.testing.MockClock
                                                  ) -> None:
    from server.accept import ACCEPT_BACKOFF_MAX, accept_loop

    listener = _ShortListener(failures=40)
    gate = ConnectionGate(10, 10)
    with structlog.testing.capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(accept_loop, listener, nursery, None,  # type: ignore[arg-type]
                                           door="http", gate=gate))
            start = trio.current_time()
            await listener.served.wait()
            nursery.cancel_scope.cancel()
    events = [entry["event"] for entry in logs]
    assert events == ["accept_backing_off", "accept_resumed"]
    assert trio.current_time() - start <= 40 * ACCEPT_BACKOFF_MAX
    assert trio.current_time() - start >= 30 * ACCEPT_BACKOFF_MAX     # it did back off


async def test_descriptors_are_reserved_for_both_budgets(nursery: trio.Nursery,
                                                         tmp_path: Path) -> None:
    await web_server(nursery, tmp_path, max_connections=300, http_max_connections=200)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 300 + 200 + DESCRIPTOR_RESERVE
    assert soft == resource.RLIM_INFINITY or soft >= min(needed, hard)


async def test_connections_per_address_are_limited(nursery: trio.Nursery,
                                                   tmp_path: Path) -> None:
    server, _ = await web_server(nursery, tmp_path, limit_exempt=(),
                                 http_connections_per_address=3)
    port = http_port(server)
    for _ in range(3):
        await websocket(port)
    with pytest.raises((ConnectionError, trio.BrokenResourceError, OSError)):
        await websocket(port)


async def test_a_stalled_body_over_cleartext_http2_times_out(nursery: trio.Nursery,
                                                             tmp_path: Path) -> None:
    import h2.config
    import h2.connection
    import h2.events

    server, _ = await web_server(nursery, tmp_path, http_request_timeout=1.0)
    stream = await trio.open_tcp_stream("127.0.0.1", http_port(server))
    _opened.append(stream)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.send_headers(1, [(":method", "POST"), (":path", "/api/render"), (":scheme", "http"),
                          (":authority", "127.0.0.1"), ("content-type", "application/json"),
                          ("x-daide-client", "web"), ("content-length", "60000")])
    conn.send_data(1, b"{")
    await stream.send_all(conn.data_to_send())
    status = None
    with trio.fail_after(30):
        while status is None:
            data = await stream.receive_some(65536)
            assert data, "closed without an answer"
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == 1:
                    status = dict(event.headers)[b":status"]
            await stream.send_all(conn.data_to_send())
    assert status == b"408"


async def test_a_low_hard_limit_cuts_the_webs_budget_not_the_tcp_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from server import web_door

    def refuse(*_args: object) -> None:
        raise ValueError("over the hard limit")

    monkeypatch.setattr(web_door.resource, "getrlimit", lambda _which: (300, 300))
    monkeypatch.setattr(web_door.resource, "setrlimit", refuse)
    settings = ServerSettings(max_connections=50, http_max_connections=1000)
    with structlog.testing.capture_logs() as logs:
        assert web_door.reserve_descriptors(settings) == 300 - 50 - DESCRIPTOR_RESERVE
    assert [entry["event"] for entry in logs] == ["descriptor_limit_low"]
    assert web_door.reserve_descriptors(ServerSettings(http_max_connections=10)) >= 1
