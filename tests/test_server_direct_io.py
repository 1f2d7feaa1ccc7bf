"""`server.direct_io.DirectSocket` over real TCP on 127.0.0.1: the bytes arrive
unchanged and in order whether the socket takes them at once or the writer
has to wait for a slow reader; the end of the stream, a reset, a closed
socket and a cancelled read behave as trio's own stream calls do; a
socket that never runs dry still lets other tasks run; and a client writes
the frames it has to its socket itself (`server.session.Client.send`)."""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
import trio.testing

from engine.variants import load_variant
from protocol.connection import Connection, InitialReceived
from protocol.frames import InitialMessage, RepresentationMessage, build_frame
from protocol.messages import MapMessage
from protocol.parse import Sender
from server import direct_io as direct_io_module
from server.direct_io import FAIR_TURNS, RETRY_READS, DirectSocket, StreamIO, direct_io
from server.session import RESET, Client, Outgoing
from server.wire import packet
from tests.server_helpers import ScriptClient, start_server

Pair = tuple[trio.SocketStream, trio.SocketStream]
VARIANT = load_variant("standard")


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


class _CountedOs:
    """``os`` as `server.direct_io` sees it, counting reads and reads that found nothing."""

    def __init__(self) -> None:
        self.reads = 0
        self.empty = 0

    def read(self, fd: int, size: int) -> bytes:
        self.reads += 1
        try:
            return os.read(fd, size)
        except BlockingIOError:
            self.empty += 1
            raise

    def write(self, fd: int, data: bytes) -> int:
        return os.write(fd, data)


async def test_after_a_read_that_emptied_the_socket_the_next_waits_before_reading(
        nursery: trio.Nursery, pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """A short read emptied the socket: the next read waits for data first and
    does not fail a read (EAGAIN) - yet gets what came meanwhile, and what
    comes later, whole and in order."""
    counted = _CountedOs()
    monkeypatch.setattr(direct_io_module, "os", counted)
    server_side, client = pair
    direct = DirectSocket(server_side)
    await client.send_all(b"first")
    await trio.sleep(0.05)
    assert await direct.receive_some(100) == b"first"         # short: the socket is empty
    await client.send_all(b"meanwhile")                       # arrives before the next read
    await trio.sleep(0.05)
    assert await direct.receive_some(100) == b"meanwhile"
    got: list[bytes] = []

    async def read() -> None:
        got.append(await direct.receive_some(100))

    nursery.start_soon(read)
    await trio.sleep(0.05)
    assert got == [] and counted.reads == 2                    # waiting, not reading
    await client.send_all(b"later")
    await trio.sleep(0.05)
    assert got == [b"later"]
    # a read that filled its size did not empty the socket: the next reads at once
    await client.send_all(b"abcdef")
    await trio.sleep(0.05)
    assert await direct.receive_some(3) == b"abc"
    assert await direct.receive_some(3) == b"def"
    assert counted.empty == 0 and counted.reads == 5
    await client.send_eof()
    assert await direct.receive_some(100) == b""


async def test_a_peer_that_answers_at_once_is_read_without_waiting(
        nursery: trio.Nursery, pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    """After emptying reads the reader waits first - until its every-`RETRY_READS`
    try finds the data there already: from then on it reads at once, and a
    peer that falls silent costs one failed try before it waits again."""
    waits = 0
    wait_readable = trio.lowlevel.wait_readable

    async def counted(fd: object) -> None:
        nonlocal waits
        waits += 1
        await wait_readable(fd)

    monkeypatch.setattr(trio.lowlevel, "wait_readable", counted)
    server_side, client = pair
    direct = DirectSocket(server_side)
    for i in range(3 * RETRY_READS):
        await client.send_all(bytes([i]))           # there before the read is asked for
        await trio.sleep(0.001)
        assert await direct.receive_some(100) == bytes([i])
    assert waits == RETRY_READS - 1                 # the first read, then the try, found data
    got: list[bytes] = []

    async def read() -> None:
        got.append(await direct.receive_some(100))

    nursery.start_soon(read)
    await trio.sleep(0.05)
    await client.send_all(b"late")
    await trio.sleep(0.05)
    assert got == [b"late"] and waits == RETRY_READS       # a failed try, then a wait
    await client.send_all(b"x")
    await trio.sleep(0.01)
    assert await direct.receive_some(100) == b"x" and waits == RETRY_READS + 1


async def test_a_wait_after_an_emptying_read_is_cancelled_closed_and_ends(pair: Pair) -> None:
    server_side, client = pair
    direct = DirectSocket(server_side)
    await client.send_all(b"x")
    assert await direct.receive_some(100) == b"x"
    with trio.move_on_after(0.05) as scope:                  # nothing comes: the deadline ends it
        await direct.receive_some(100)
    assert scope.cancelled_caught
    await client.send_all(b"ready")
    await trio.sleep(0.05)
    with trio.CancelScope(deadline=-float("inf")) as scope:   # cancelled with data waiting
        await direct.receive_some(100)
    assert scope.cancelled_caught
    assert await direct.receive_some(100) == b"ready"         # nothing was lost
    server_side.socket.close()
    with pytest.raises(trio.ClosedResourceError):
        await direct.receive_some(100)


async def test_a_reset_after_an_emptying_read_is_a_broken_stream(pair: Pair) -> None:
    server_side, client = pair
    direct = DirectSocket(server_side)
    await client.send_all(b"x")
    assert await direct.receive_some(100) == b"x"
    client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    await client.send_all(b"unread")
    await trio.sleep(0.05)
    client.socket.close()                                     # SO_LINGER 0: the kernel sends RST
    with pytest.raises(trio.BrokenResourceError):
        for _ in range(10):
            await direct.receive_some(1)
            await trio.sleep(0.01)


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
    waits: list[int] = []                         # bytes the writer waited to write
    send_all = DirectSocket.send_all

    async def counted(self: DirectSocket, data: bytes | memoryview) -> None:
        waits.append(len(data))
        await send_all(self, data)

    monkeypatch.setattr(DirectSocket, "send_all", counted)
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
    assert waits                                  # the socket was full: the writer waited
    await client.close()


def ready_client(server: trio.SocketStream) -> tuple[Client, trio.MemoryReceiveChannel[Outgoing]]:
    """A `Client` whose connection sent its RM and whose writer is idle, writing
    to ``server``'s socket itself (as `server.connection` sets it up)."""
    machine = Connection(Sender.SERVER, VARIANT.rep, level=0)
    machine.receive_data(build_frame(InitialMessage()))
    assert isinstance(machine.next_event(), InitialReceived)
    machine.send(RepresentationMessage.for_representation(VARIANT.rep))
    outbox, queue = trio.open_memory_channel[Outgoing](8)
    client = Client("127.0.0.1:1", outbox)
    client.machine, client.fd, client.writer_idle = machine, server.socket.fileno(), True
    return client, queue


async def test_a_client_writes_its_frames_itself_in_order_with_its_queue(pair: Pair) -> None:
    """`Client.send` writes an encoded packet or a raw frame to the socket at once
    while the writer is idle; what the socket does not take, and everything
    after it, is queued for the writer in order; a message still to encode
    goes through the connection's ``write_now``."""
    server, peer = pair
    client, queue = ready_client(server)
    encoded = packet(MapMessage("STANDARD"), VARIANT.rep)
    assert client.send(encoded) and client.send(b"raw frame")
    assert await peer.receive_some(100) == encoded.frames + b"raw frame"
    assert client.writer_idle and queue.statistics().current_buffer_used == 0
    handed: list[object] = []
    client.write_now = handed.append
    answer = MapMessage("STANDARD")
    assert client.send(answer) and handed == [answer]
    # a full socket: the part it does not take, then everything after, is queued
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = b"x" * 1_000_000
    assert client.send(big) and client.send(encoded)
    assert not client.writer_idle
    rest = queue.receive_nowait()
    assert isinstance(rest, bytes) and 0 < len(rest) < len(big) and big.endswith(rest)
    assert queue.receive_nowait() is encoded and not client.closed


async def test_a_client_whose_socket_broke_under_a_write_is_dropped(pair: Pair) -> None:
    server, peer = pair
    client, _queue = ready_client(server)
    peer.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    peer.socket.close()                                  # a reset
    await trio.sleep(0.05)
    scope = client.cancel_scope = trio.CancelScope()
    assert not client.send(b"frame") and client.closed and client.close_reason == RESET
    assert scope.cancel_called
