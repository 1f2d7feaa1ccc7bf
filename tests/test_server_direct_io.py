"""`server.direct_io.DirectSocket` over real TCP on 127.0.0.1: the bytes arrive
unchanged and in order whether the socket takes them at once or the writer
has to wait for a slow reader; the end of the stream, a reset, a closed
socket and a cancelled read behave as trio's own stream calls do; and a
socket that never runs dry still lets other tasks run."""

from __future__ import annotations

import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing

from server.direct_io import FAIR_TURNS, DirectSocket, StreamIO, direct_io
from tests.server_helpers import ScriptClient, start_server

Pair = tuple[trio.SocketStream, trio.SocketStream]


@pytest.fixture
async def pair() -> AsyncIterator[Pair]:
    """A connected pair of TCP streams (server side, client side), closed afterwards."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream("127.0.0.1", port)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    try:
        with trio.fail_after(20):
            yield server, client
    finally:
        server.socket.close()
        client.socket.close()


async def test_a_slow_reader_gets_every_byte_in_order(nursery: trio.Nursery, pair: Pair) -> None:
    server, client = pair
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
    client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    direct = DirectSocket(server)
    chunks = [struct.pack(">I", i) * 2000 for i in range(128)]    # 1 MB, far over the buffers
    expected = b"".join(chunks)
    partial = 0

    async def writer() -> None:
        # As `server.connection`'s writer: what the socket takes now, then wait for room.
        nonlocal partial
        for chunk in chunks:
            sent = direct.send_now(chunk)
            if sent < len(chunk):
                partial += 1
                await direct.send_all(memoryview(chunk)[sent:])
        await server.send_eof()

    nursery.start_soon(writer)
    await trio.sleep(0.1)                          # a slow reader: the writer fills the socket
    received = bytearray()
    while data := await client.receive_some(65536):
        received += data
    assert bytes(received) == expected
    assert partial > 0                             # the socket was full: the slow path ran


async def test_reads_return_what_was_written_then_the_end(pair: Pair) -> None:
    server, client = pair
    direct = DirectSocket(server)
    frames = [bytes([2, 0, 0, 2, 0x48, i]) for i in range(50)]
    for frame in frames:
        await client.send_all(frame)
    await client.send_eof()
    received = bytearray()
    while data := await direct.receive_some(7):
        received += data
    assert bytes(received) == b"".join(frames)
    assert await direct.receive_some(7) == b""


async def test_a_reset_is_a_broken_stream_and_a_closed_socket_is_closed(pair: Pair) -> None:
    server, client = pair
    direct = DirectSocket(server)
    client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    await client.send_all(b"unread")
    client.socket.close()                          # SO_LINGER 0: the kernel sends RST
    await trio.sleep(0.05)
    with pytest.raises(trio.BrokenResourceError):
        for _ in range(10):
            await direct.receive_some(100)
            direct.send_now(b"x" * 100)
            await trio.sleep(0.01)
    server.socket.close()
    with pytest.raises(trio.ClosedResourceError):
        await direct.receive_some(100)
    with pytest.raises(trio.ClosedResourceError):
        direct.send_now(b"x")


async def test_no_write_after_sending_eof(pair: Pair) -> None:
    server, _client = pair
    direct = DirectSocket(server)
    await server.send_eof()
    with pytest.raises(trio.ClosedResourceError):
        direct.send_now(b"x")


async def test_a_cancelled_read_ends_even_with_data_waiting(pair: Pair) -> None:
    server, client = pair
    direct = DirectSocket(server)
    await client.send_all(b"ready")
    await trio.sleep(0.05)
    with trio.CancelScope(deadline=-float("inf")) as scope:
        await direct.receive_some(100)
    assert scope.cancelled_caught
    assert await direct.receive_some(100) == b"ready"     # nothing was lost


async def test_a_socket_that_never_runs_dry_lets_other_tasks_run(nursery: trio.Nursery, pair: Pair) -> None:
    server, client = pair
    direct = DirectSocket(server)
    reads = FAIR_TURNS * 4
    await client.send_all(b"x" * reads)
    await trio.sleep(0.05)
    turns = 0

    async def other() -> None:
        nonlocal turns
        while True:
            turns += 1
            await trio.lowlevel.checkpoint()

    nursery.start_soon(other)
    await trio.lowlevel.checkpoint()
    before = turns
    for _ in range(reads):
        assert await direct.receive_some(1) == b"x"     # always ready: no wait
    assert turns - before >= reads // FAIR_TURNS - 1


async def test_other_streams_go_through_the_stream() -> None:
    send, receive = trio.testing.memory_stream_pair()
    assert isinstance(direct_io(send), StreamIO)
    io = direct_io(send)
    assert io.send_now(b"abc") == 0
    await io.send_all(b"abc")
    assert await direct_io(receive).receive_some(10) == b"abc"


async def test_a_client_that_reads_late_gets_every_answer_in_order(
        nursery: trio.Nursery, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server writes an answer at once while its writer is idle and queues
    what the socket does not take: a client that sends many requests before
    reading anything gets every answer, whole and in order."""
    writes: list[tuple[int, int]] = []            # (bytes offered, bytes the socket took)
    send_now = DirectSocket.send_now

    def counted(self: DirectSocket, data: bytes) -> int:
        sent = send_now(self, data)
        writes.append((len(data), sent))
        return sent

    monkeypatch.setattr(DirectSocket, "send_now", counted)
    _server, port = await start_server(nursery, tmp_path / "games.db")
    client = await ScriptClient.connect(port, "late reader")
    client.stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    pairs = 100                                   # 100 MDFs: more than the buffers hold
    for _ in range(pairs):
        await client.send("MDF")
        await client.send("MAP")
    await trio.sleep(0.2)
    answers = [await client.receive() for _ in range(2 * pairs)]
    assert [a.split()[0] for a in answers] == ["MDF", "MAP"] * pairs
    assert len(set(answers[0::2])) == 1 and answers[1] == "MAP ( 'STANDARD' )"
    assert any(sent < offered for offered, sent in writes)     # the socket was full
    await client.close()
