"""The reader's step (`server.reading.Intake.take`) and the waits it leaves.

`Intake.take` is driven directly here, with the real protocol machine and
client, a real frame tracker and token bucket: every parsed message comes
back as an `Incoming` for the reader to hand to the lobby (after its
rate-limit wait), one at a time; the road through the real lobby to the game
is met over TCP at the end.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from engine.variants import load_variant
from protocol.connection import (
    NEED_DATA,
    Connection,
    InitialReceived,
    MessageReceived,
    ProtocolViolation,
)
from protocol.frames import (
    ErrorCode,
    ErrorMessage,
    InitialMessage,
    RepresentationMessage,
    build_frame,
    dm_frame,
)
from protocol.parse import Sender
from protocol.text import parse_text
from server.reading import Incoming, Intake
from server.session import Client
from server.settings import GameSettings, ServerSettings
from server.turnstats import TurnStats
from tests.server_helpers import jumping_clock, start_game, start_server

VARIANT = load_variant("standard")
IM = build_frame(InitialMessage())
NOW = dm_frame(parse_text("NOW"))
# press with FCT in both numberings' range: may settle the connection's numbering
PRESS = dm_frame(parse_text("SND ( FRA ) ( FCT ( PCE ( FRA GER ) ) )", VARIANT.rep))


def ready_intake(settings: ServerSettings, turn_stats: TurnStats | None = None) -> Intake:
    """An intake whose machine has had the IM and sent the RM."""
    machine = Connection(Sender.SERVER, VARIANT.rep, level=0)
    send, _receive = trio.open_memory_channel[object](10)
    client = Client("127.0.0.1:1", send)  # type: ignore[arg-type]
    intake = Intake(machine, client, settings, VARIANT.rep, turn_stats, trio.current_time())
    assert isinstance(intake.take(IM), InitialReceived)
    assert intake.take(None) is NEED_DATA
    machine.send(RepresentationMessage.for_representation(VARIANT.rep))
    return intake


def settings(**options: object) -> ServerSettings:
    return ServerSettings(game=GameSettings(press_numbering="daide"), **options)  # type: ignore[arg-type]


def incoming(intake: Intake, data: bytes | None) -> list[Incoming]:
    """Every message ``data`` holds, as the reader would take them (one per call)."""
    found = []
    event = intake.take(data)
    while isinstance(event, Incoming):
        found.append(event)
        event = intake.take(None)
    assert event is NEED_DATA
    return found


async def test_a_chunk_of_messages_comes_back_one_message_at_a_time() -> None:
    intake = ready_intake(settings(message_rate=1e9, message_burst=10**6))
    got = incoming(intake, NOW * 20)
    assert len(got) == 20
    assert all(m.tokens == parse_text("NOW") and m.wait == 0 for m in got)


async def test_over_the_message_rate_a_message_waits_for_its_token() -> None:
    intake = ready_intake(settings(message_rate=10.0, message_burst=2))
    got = incoming(intake, NOW * 4)
    assert [m.wait for m in got[:2]] == [0, 0]                 # the burst
    assert got[2].wait == pytest.approx(0.1, abs=1e-3)         # one token at 10 per second
    assert got[3].wait == pytest.approx(0.2, abs=1e-3)


async def test_the_frames_before_an_oversize_one_are_read_then_it_is_refused() -> None:
    intake = ready_intake(settings(max_frame_body=64, message_rate=1e9, message_burst=10**6))
    big_header = bytes([2, 0, 0, 66])
    assert len(incoming(intake, NOW + big_header)) == 1 and intake.oversize is not None
    # a chunk that starts with the big frame: nothing reaches the machine (no EOF either)
    other = ready_intake(settings(max_frame_body=64))
    assert other.take(big_header + bytes(66)) is NEED_DATA
    assert other.oversize is not None and not other.machine.state.name == "CLOSED"


async def test_a_press_message_that_may_settle_the_numbering_goes_to_the_reader() -> None:
    auto = ServerSettings(message_rate=1e9, message_burst=10**6)   # press_numbering auto
    intake = ready_intake(auto)
    intake.machine.level = 10
    intake.client.level = 10
    event = intake.take(PRESS + NOW)
    assert isinstance(event, MessageReceived)
    assert len(incoming(intake, None)) == 1                    # the NOW after it goes on
    # with the numbering fixed by the setting the press is an ordinary message
    other = ready_intake(settings(message_rate=1e9, message_burst=10**6))
    other.client.level = 10
    assert len(incoming(other, PRESS)) == 1


async def test_a_framing_fault_is_left_to_the_reader() -> None:
    intake = ready_intake(settings())
    event = intake.take(IM)                                   # a second IM
    assert isinstance(event, ProtocolViolation)
    assert event.data == build_frame(ErrorMessage(ErrorCode.IM_REPEATED))


async def test_turn_stats_see_a_players_sub_at_the_time_its_chunk_was_read(
        clock: trio.testing.MockClock) -> None:
    stats = TurnStats()
    intake = ready_intake(settings(message_rate=1e9, message_burst=10**6), stats)
    sub = dm_frame(parse_text("SUB ( ( ENG FLT LON ) HLD )", VARIANT.rep))
    assert len(incoming(intake, sub)) == 1                     # no game: nothing counted
    assert not stats._last_order
    intake.client.game_id = 5
    clock.jump(3.0)
    assert len(incoming(intake, NOW + sub)) == 2
    assert stats._last_order == {5: intake.read_at} and intake.read_at == trio.current_time()


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return jumping_clock()


async def test_a_players_flood_is_answered_in_order_at_the_message_rate(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    # messages of a player in a running game: handed to the game through the
    # lobby, after the rate limit's wait when over the burst
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       options={"message_rate": 10.0, "message_burst": 20})
    clients = await start_game(port)
    player = clients["ENG"]
    started = trio.current_time()
    await player.send_raw(NOW * 30)
    for _ in range(30):
        assert (await player.receive()).startswith("NOW ( SPR 1901 )")
    # 18 at once (the burst of 20 less the NME and YES (MAP) of joining), 12 at 10 per second
    assert trio.current_time() - started == pytest.approx(1.2, abs=0.05)
    for client in clients.values():
        await client.close()
