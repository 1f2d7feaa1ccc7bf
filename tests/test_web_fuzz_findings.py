"""What fuzzing the web door found (``make fuzz``, `fuzz.fuzz_web`), each over real sockets.

* Frames sent right behind the WebSocket handshake, before its answer:
  hypercorn answered 400 while the application's accept was on its way, h11
  raised on the second answer, and the exception took the whole server down
  (``daide serve`` exited).
* A frame the guard refuses (a reserved opcode, a message over the limit)
  right behind a DAIDE message: the answer to the message was sent after the
  WebSocket was closed, and hypercorn's UnexpectedMessageError was a
  ``connection_failed`` traceback in the log.
* hypercorn half-closes a connection (send_eof) while its reader may answer a
  malformed request the same bytes held: trio's BusyResourceError, which
  hypercorn does not catch, was an error with a traceback
  (`server.web_door.ClosingStream`).
* A cleartext HTTP/2 request whose ``:path`` is not ASCII: hypercorn decoded
  it as ASCII and the exception ended the connection.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest
import trio
from structlog.testing import capture_logs

from server.app import Server
from server.web_door import ClosingStream
from tests.server_helpers import ScriptClient, start_server

HANDSHAKE = (b"GET /daide HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
             b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             b"Sec-WebSocket-Version: 13\r\n\r\n")
#: The IM as a masked binary frame (a zero mask); a close frame (1000); a frame of a
#: reserved opcode (3), which the guard refuses.
IM_FRAME = b"\x82\x88" + bytes(4) + bytes.fromhex("000000040001DA10")
CLOSE_FRAME = b"\x88\x82" + bytes(4) + (1000).to_bytes(2, "big")
RESERVED_FRAME = b"\x83\x80" + bytes(4)


@pytest.fixture
async def server(nursery: trio.Nursery, tmp_path: Path) -> tuple[Server, int, int]:
    server, tcp_port = await start_server(nursery, tmp_path / "games.db", {"http_port": 0})
    assert server.http_url is not None
    http_port = int(re.search(r":(\d+)/$", server.http_url).group(1))  # type: ignore[union-attr]
    return server, tcp_port, http_port


async def send_and_read(port: int, data: bytes) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    got = bytearray()
    try:
        await stream.send_all(data)
        with trio.move_on_after(3):     # the server closes, or holds the WebSocket open
            while chunk := await stream.receive_some(65536):
                got += chunk
    except trio.BrokenResourceError:
        pass
    finally:
        await trio.aclose_forcefully(stream)
    return bytes(got)


async def still_serves(tcp_port: int) -> None:
    client = await ScriptClient.connect(tcp_port, "after")
    try:
        with trio.fail_after(20):
            await client.join()
    finally:
        await trio.aclose_forcefully(client.stream)


def errors(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [e for e in logs if e.get("log_level") in ("error", "critical") or e.get("exc_info")]


async def test_frames_before_the_handshakes_answer_are_refused_not_fatal(
        server: tuple[Server, int, int]) -> None:
    _server, tcp_port, http_port = server
    with capture_logs() as logs:
        for _ in range(5):
            answer = await send_and_read(http_port, HANDSHAKE + IM_FRAME)
            assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
        await still_serves(tcp_port)
    assert not errors(logs), errors(logs)
    refused = [e for e in logs if e["event"] == "websocket_refused"]
    assert len(refused) == 5
    assert refused[0]["reason"] == "data before the handshake was answered"


@pytest.mark.parametrize("behind", [RESERVED_FRAME, CLOSE_FRAME], ids=["refused", "close"])
async def test_a_close_or_refusal_right_behind_a_message_is_no_error(
        server: tuple[Server, int, int], behind: bytes) -> None:
    _server, tcp_port, http_port = server
    with capture_logs() as logs:
        for _ in range(5):
            stream = await trio.open_tcp_stream("127.0.0.1", http_port)
            try:
                await stream.send_all(HANDSHAKE)
                head = bytearray()
                with trio.fail_after(20):
                    while b"\r\n\r\n" not in head:
                        head += await stream.receive_some(65536)
                assert head.startswith(b"HTTP/1.1 101 ")
                await stream.send_all(IM_FRAME)
                await stream.send_all(behind)
                with trio.fail_after(20):
                    while await stream.receive_some(65536):
                        pass
            except trio.BrokenResourceError:
                pass
            finally:
                await trio.aclose_forcefully(stream)
        await still_serves(tcp_port)
    assert not errors(logs), errors(logs)


async def test_a_send_after_the_half_close_is_closed_not_busy() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream("127.0.0.1", port)
    with trio.fail_after(10):
        stream = ClosingStream(await listeners[0].accept())
    try:
        # An answer still being sent (the client reads nothing, the buffers fill): the
        # half-close is refused as hypercorn expects it to be (it then closes).
        async with trio.open_nursery() as sending:
            sending.start_soon(stream.send_all, bytes(32 << 20))
            with trio.fail_after(20):
                while not stream._sending:  # noqa: ASYNC110 - a flag of the class under test
                    await trio.sleep(0.01)
            with pytest.raises(trio.BusyResourceError):
                await stream.send_eof()
            sending.cancel_scope.cancel()
        # Half-closed: a further answer is ClosedResourceError, which hypercorn catches.
        await stream.send_eof()
        with pytest.raises(trio.ClosedResourceError):
            await stream.send_all(b"a second answer")
    finally:
        await stream.aclose()
        await client.aclose()
        for listener in listeners:
            await listener.aclose()


async def test_an_http2_request_whose_path_is_not_ascii_is_reset(
        server: tuple[Server, int, int]) -> None:
    """hypercorn decoded an HTTP/2 :path as ASCII: the exception ended the connection
    (and, before `server.web_door.serve_web` caught it, the server)."""
    import h2.config
    import h2.connection
    import h2.events

    _server, tcp_port, http_port = server
    client = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding=None, validate_outbound_headers=False))
    client.initiate_connection()
    request = [(b":method", b"GET"), (b":scheme", b"http"), (b":authority", b"127.0.0.1")]
    client.send_headers(1, [*request, (b":path", b"/\xd9x")], end_stream=True)
    client.send_headers(3, [*request, (b":path", b"/api/games")], end_stream=True)
    stream = await trio.open_tcp_stream("127.0.0.1", http_port)
    events: list[object] = []
    with capture_logs() as logs:
        try:
            await stream.send_all(client.data_to_send())
            with trio.fail_after(20):
                while not any(isinstance(e, h2.events.StreamEnded) and e.stream_id == 3
                              for e in events):
                    data = await stream.receive_some(65536)
                    assert data, events
                    events += client.receive_data(data)
                    await stream.send_all(client.data_to_send())
        finally:
            await trio.aclose_forcefully(stream)
        await still_serves(tcp_port)
    resets = [e for e in events if isinstance(e, h2.events.StreamReset)]
    assert [(e.stream_id, e.error_code) for e in resets] == [(1, 1)]   # PROTOCOL_ERROR
    answers = [e for e in events if isinstance(e, h2.events.ResponseReceived)]
    assert [(e.stream_id, dict(e.headers)[b":status"]) for e in answers] == [(3, b"200")]
    assert not errors(logs), errors(logs)
