"""Connections end cleanly (issue 12 §3), over real TCP on 127.0.0.1.

* A client that resets its connection (SO_LINGER 0, closing with data unread:
  the kernel sends RST, the server's read fails with ECONNRESET) is an
  ordinary disconnect: an info line ``connection_closed reason="reset by
  peer"``, civil disorder as usual, no error-level line.
* When the server ends a connection it sends what it has, then FIN, reads and
  discards until the peer closes, then closes: a client that keeps writing
  and reading after the OFF sees OFF, FM and an orderly end of stream
  (``recv`` returns ``b""``), never a reset.
"""

from __future__ import annotations

import socket
import struct
from pathlib import Path

import pytest
import structlog.testing
import trio
import trio.testing

from protocol.frames import DiplomacyMessage, build_frame
from protocol.text import parse_text
from server.connection import CLOSE_DRAIN, RESET
from tests.server_helpers import POWERS, ScriptClient, jumping_clock, start_game, start_server


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return jumping_clock()


def reset(client: ScriptClient) -> None:
    """Close with SO_LINGER (1, 0): the kernel answers with RST, not FIN."""
    sock = client.stream.socket
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


async def logged(logs: list[dict[str, object]], event: str, power: str | None = None
                 ) -> dict[str, object]:
    """The first ``event`` line (about ``power``, if given), once it has been logged."""
    with trio.fail_after(5):
        while True:
            found = [e for e in logs if e["event"] == event
                     and (power is None or e.get("power") == power)]
            if found:
                return found[0]
            await trio.sleep(0.1)


async def arrived(client: ScriptClient) -> None:
    """Wait until the server's answer sits unread in the client's receive buffer."""
    with trio.fail_after(5):
        assert await client.stream.socket.recv(1, socket.MSG_PEEK)


async def test_a_reset_is_an_ordinary_disconnect(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    clients = await start_game(port)
    eng = clients["ENG"]
    with structlog.testing.capture_logs() as logs:
        await eng.send("SCO")
        await arrived(eng)                 # unread data: the close becomes a reset
        reset(eng)
        # Civil disorder as usual.
        await clients["FRA"].expect("CCD ( ENG )")
        await clients["AUS"].expect("CCD ( ENG )")
        closed = await logged(logs, "connection_closed", "ENG")
    assert closed["reason"] == RESET and closed["log_level"] == "info"
    assert [e for e in logs if e["log_level"] in ("error", "critical")] == []
    assert not any("exc_info" in e for e in logs)
    assert any(e["event"] == "civil_disorder" and e["power"] == "ENG" for e in logs)
    for power in POWERS:
        if power != "ENG":
            await clients[power].close()


async def test_a_reset_while_the_server_writes(nursery: trio.Nursery, tmp_path: Path) -> None:
    # The reset meets the writer: the server sends a broadcast to a dead socket.
    _server, port = await start_server(nursery, tmp_path / "g.db")
    clients = await start_game(port)
    ger = clients["GER"]
    with structlog.testing.capture_logs() as logs:
        await ger.send("MDF")
        await arrived(ger)
        reset(ger)
        for power in ("AUS", "FRA"):          # broadcasts go on while GER's reader notices
            await clients[power].send("ADM ( 'me' ) ( 'hello' )")
        await clients["ENG"].receive_until("CCD ( GER )")
        closed = await logged(logs, "connection_closed", "GER")
    assert [e for e in logs if e["log_level"] in ("error", "critical")] == []
    assert closed["reason"] == RESET and closed["log_level"] == "info"
    for power in POWERS:
        if power != "GER":
            await clients[power].close()


def frame(text: str) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(text)))


async def read_to_end(sock: trio.socket.SocketType) -> bytes:
    """Everything until ``recv`` returns b"" (a reset raises ConnectionResetError)."""
    data = b""
    with trio.fail_after(5):
        while chunk := await sock.recv(65536):
            data += chunk
    return data


async def test_after_off_the_stream_ends_in_order(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db")
    clients = await start_game(port)
    for power in POWERS:
        await clients[power].send("DRW")
        await clients[power].expect("YES ( DRW )")
    tur = clients["TUR"]
    await tur.expect("DRW")
    assert (await tur.receive()).startswith("SMR ( SPR 1901 )")
    # Like a bot saying goodbye after the SMR: it writes while the server closes.
    for text in ("ADM ( 'TurBot' ) ( 'good game' )", "NOW", "SCO", "HST ( SPR 1901 )"):
        await tur.send_raw(frame(text))
    rest = await read_to_end(tur.stream.socket)       # ConnectionResetError if reset
    tur.machine.receive_data(rest)
    tur.machine.receive_data(b"")
    assert await tur.receive() == "OFF"
    assert await tur.expect_closed() == "FM"
    await tur.stream.aclose()
    for power in POWERS:
        if power != "TUR":
            client = clients[power]
            await client.receive_until("OFF")
            assert await client.expect_closed() == "FM"
            await client.stream.aclose()


async def test_a_peer_that_never_closes_is_closed_after_the_drain(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    # An EM (here: a DM before the IM) is followed by FIN; a peer that keeps its
    # side open and never reads is still closed, CLOSE_DRAIN seconds later.
    _server, port = await start_server(nursery, tmp_path / "g.db")
    with structlog.testing.capture_logs() as logs:
        client = await ScriptClient.connect(port, im=False)
        await client.send("NME ( 'x' ) ( 'y' )")
        assert await client.expect_closed() == "EM 0x02"
        begun = trio.current_time()
        closed = await logged(logs, "connection_closed")
    assert trio.current_time() - begun >= CLOSE_DRAIN - 0.2     # mock clock: no timing
    assert closed["log_level"] == "info" and "protocol violation" in str(closed["reason"])
    await client.stream.aclose()
