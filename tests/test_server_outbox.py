"""The one road out to a client: `Client.send` only queues, the connection's
writer writes through trio's stream.

Over real TCP on 127.0.0.1: a client that sends many requests before
reading anything gets every answer, whole and in order (the writer waits for
room in the socket); `Client.send` never touches the socket; a full queue or
a writer that is gone drops the client; and no module of the server writes
to a socket's descriptor behind trio's back.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import trio

from protocol.messages import MapMessage
from server.session import Client, Outgoing
from tests.server_helpers import ScriptClient, start_server

SERVER = Path(__file__).resolve().parent.parent / "server"


async def test_a_client_that_reads_late_gets_every_answer_in_order(
        nursery: trio.Nursery, tmp_path: Path) -> None:
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
    await client.close()


async def test_send_only_queues_in_order() -> None:
    outbox, queue = trio.open_memory_channel[Outgoing](8)
    client = Client("127.0.0.1:1", outbox)
    first = MapMessage("STANDARD")
    assert client.send(first) and client.send(b"raw frame")
    assert queue.receive_nowait() is first
    assert queue.receive_nowait() == b"raw frame"
    assert not client.closed


async def test_a_full_queue_drops_the_client() -> None:
    outbox, _queue = trio.open_memory_channel[Outgoing](2)
    client = Client("127.0.0.1:1", outbox)
    scope = client.cancel_scope = trio.CancelScope()
    assert client.send(b"1") and client.send(b"2")
    assert not client.send(b"3")
    assert client.closed and client.close_reason == "outbound queue full" and scope.cancel_called
    assert not client.send(b"4")                 # a closed client sends nothing more


async def test_a_gone_writer_drops_the_client() -> None:
    outbox, queue = trio.open_memory_channel[Outgoing](2)
    await queue.aclose()
    client = Client("127.0.0.1:1", outbox)
    assert not client.send(b"frame")
    assert client.closed and client.close_reason == "writer gone"


def test_no_server_module_writes_to_a_descriptor_itself() -> None:
    """Sockets are written through trio only; ``os.write`` is for the files the
    server owns (the journal, the lock, the admin token's file)."""
    writers = sorted(path.name for path in SERVER.glob("*.py")
                     if re.search(r"\bos\.(write|read|send)\b", path.read_text(encoding="utf-8")))
    assert set(writers) <= {"journal.py", "lock.py", "admin_token.py"}, writers
