"""Every limit of `server.limits`, configured small, met over real TCP.

Timeouts run on trio's MockClock (``jumping_clock``: time jumps only when
the whole run is idle), so a 120-second limit costs milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog.testing
import trio
import trio.testing

from protocol.frames import InitialMessage, build_frame
from tests.server_helpers import (
    POWERS,
    ScriptClient,
    holds,
    join_game,
    jumping_clock,
    start_game,
    start_server,
)

RM = bytes.fromhex("01000000")
IM = build_frame(InitialMessage())


def em(code: int) -> bytes:
    return bytes([4, 0, 0, 2, 0, code])


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return jumping_clock()


async def read_all(stream: trio.SocketStream, seconds: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    with trio.fail_after(seconds):
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                break
            if not chunk:
                break
            received += chunk
    await stream.aclose()
    return received


async def test_a_dm_over_the_size_limit_gets_em_09_before_its_body(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"max_frame_body": 256})
    # At the limit (256 bytes, 128 tokens): read and answered - an ADM is echoed.
    c = await ScriptClient.connect(port)
    text = "a" * 122
    await c.send(f"ADM ( 'x' ) ( '{text}' )")
    assert await c.receive() == f"ADM ( 'x' ) ( '{text}' )"
    await c.close()
    # Two bytes over: only the header is sent, and the EM comes at once.
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(IM + bytes.fromhex("02000102"))
    assert await read_all(stream) == RM + em(0x09)


async def test_a_flood_is_read_at_the_message_rate_and_nobody_else_waits(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"message_rate": 10.0, "message_burst": 5})
    flood = await ScriptClient.connect(port, "flood")
    started = trio.current_time()
    for _ in range(25):
        await flood.send("NOW")
    bystander = await ScriptClient.connect(port, "bystander")
    await bystander.send("MAP")
    await bystander.expect("MAP ( 'STANDARD' )")
    assert trio.current_time() - started < 0.2
    answered = 0
    while answered < 25:
        assert (await flood.receive()).startswith("NOW ( SPR 1901 )")
        answered += 1
        if answered == 5:
            assert trio.current_time() - started < 0.2    # the burst
    # 20 more at 10 per second.
    assert 1.9 <= trio.current_time() - started < 2.5
    await flood.close()
    await bystander.close()


async def test_connections_per_address_are_limited(nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"connections_per_address": 2, "limit_exempt": ()})
    first = await ScriptClient.connect(port, "first")
    second = await ScriptClient.connect(port, "second")
    for c in (first, second):
        await c.send("MAP")
        await c.expect("MAP ( 'STANDARD' )")
    third = await trio.open_tcp_stream("127.0.0.1", port)
    await third.send_all(IM)
    assert await read_all(third) == b""              # closed before a byte is read
    await first.close()
    with trio.fail_after(5):                          # the slot comes back once it is closed
        while True:
            again = await trio.open_tcp_stream("127.0.0.1", port)
            await again.send_all(IM)
            with trio.move_on_after(0.5):
                if await again.receive_some(4) == RM:
                    break
            await again.aclose()
    await again.aclose()
    await second.close()


async def test_total_connections_are_limited_loopback_included(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"max_connections": 2})
    held = [await ScriptClient.connect(port, f"c{i}") for i in range(2)]
    for c in held:
        await c.send("MAP")
        await c.expect("MAP ( 'STANDARD' )")
    with structlog.testing.capture_logs() as logs:
        extra = await trio.open_tcp_stream("127.0.0.1", port)
        await extra.send_all(IM)
        assert await read_all(extra) == b""
    refused = [e for e in logs if e["event"] == "connection_refused"]
    assert refused and refused[0]["reason"] == "server full (2 connections)"
    for c in held:
        await c.close()


async def test_the_im_must_come_within_the_configured_time(
        nursery: trio.Nursery, tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"im_timeout": 5.0})
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(IM[:3])                     # a partial IM does not stop the timer
    await trio.testing.wait_all_tasks_blocked()
    mock_clock.jump(4.9)
    await trio.testing.wait_all_tasks_blocked()
    mock_clock.jump(0.2)
    assert await read_all(stream) == em(0x01)


async def test_an_idle_anonymous_client_is_closed_an_active_one_is_not(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"join_idle_timeout": 10.0})
    idle = await ScriptClient.connect(port, "idle")
    active = await ScriptClient.connect(port, "active")
    started = trio.current_time()
    await trio.sleep(8)
    await active.send("MAP")
    await active.expect("MAP ( 'STANDARD' )")
    await idle.expect("OFF")
    assert await idle.expect_closed() == "FM"
    assert 10.0 <= trio.current_time() - started < 10.5
    for pause in (6, 8):                   # at 16 s and 24 s
        await trio.sleep(pause)
        await active.send("MAP")
        await active.expect("MAP ( 'STANDARD' )")
    # The active client is closed 10 s after its last message.
    last = trio.current_time()
    await active.expect("OFF")
    assert 10.0 <= trio.current_time() - last < 10.5
    await idle.stream.aclose()
    await active.stream.aclose()


async def test_a_joiner_that_never_accepts_the_map_loses_its_seat(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"join_idle_timeout": 10.0})
    stuck = await ScriptClient.connect(port, "stuck")
    await stuck.send("NME ( 'stuck' ) ( '1' )")
    await stuck.expect("YES ( NME ( 'stuck' ) ( '1' ) )", "MAP ( 'STANDARD' )")
    waiting = await ScriptClient.connect(port, "waiting")
    await waiting.join()                  # accepted the map: waits for the start, is not idle
    await stuck.expect("OFF")
    await trio.sleep(100)
    await waiting.send("MAP")
    await waiting.expect("MAP ( 'STANDARD' )")
    # Six more fill the game: the stuck client's seat was freed.
    clients = await join_game(port, POWERS[:6])
    await waiting.receive_until("HLO")
    for c in [*clients.values(), waiting]:
        await c.close()
    await stuck.stream.aclose()


async def test_a_frame_left_incomplete_gets_em_09(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", options={"frame_timeout": 5.0})
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(IM)
    assert await stream.receive_some(4) == RM
    started = trio.current_time()
    for byte in bytes.fromhex("0200000448"):          # one byte every 2 s: slow-loris
        await stream.send_all(bytes([byte]))
        with trio.move_on_after(2):
            got = await stream.receive_some(64)
            break
    assert got == em(0x09)
    assert 5.0 <= trio.current_time() - started < 5.5
    assert await read_all(stream) == b""


@pytest.mark.parametrize("options", [
    {"outbound_queue": 64, "send_timeout": 600.0},          # the queue fills first
    {"outbound_queue": 100_000, "send_timeout": 5.0},       # the socket stays blocked
], ids=["queue", "send-timeout"])
async def test_a_player_that_stops_reading_goes_into_civil_disorder(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock,
        options: dict[str, object]) -> None:
    _server, port = await start_server(
        nursery, tmp_path / "g.db",
        options={**options, "message_rate": 1e9, "message_burst": 10**6})
    clients = await start_game(port)
    now = clients["ENG"].log[-1]
    ita = clients.pop("ITA")
    with structlog.testing.capture_logs() as logs:
        try:
            for _ in range(3000):          # 7.5 MB of MDF, never read
                await ita.send("MDF")
        except trio.BrokenResourceError:
            pass
        for client in clients.values():
            await client.expect("CCD ( ITA )")
    [slow] = [e for e in logs if e["event"] == "client_too_slow"]
    assert slow["power"] == "ITA"
    # The game goes on without ITA's socket: its units hold after the grace.
    for power, client in clients.items():
        await client.send(holds(now, power))
    for client in clients.values():
        seen = await client.receive_until("NOW")
    assert "ORD ( SPR 1901 ) ( ( ITA AMY ROM ) HLD ) ( SUC )" in seen
    for client in clients.values():
        await client.close()
    await ita.stream.aclose()
