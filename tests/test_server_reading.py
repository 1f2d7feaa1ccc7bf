"""The reader's step per chunk (`server.reading.Intake.take`) and the waits it leaves.

`Intake.take` is driven directly here, with the real protocol machine and
client, a real frame tracker and token bucket, and a recording game in
place of `server.game.Game` (its ``deliver`` says whether the game took the
message, as the real one does when its actor is idle); the game path
through the real lobby is met over TCP at the end.
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
from protocol.messages import Message
from protocol.parse import Sender
from protocol.text import parse_text
from server.events import Event, GameHandle, Request
from server.reading import MESSAGES_PER_TURN, YIELD, Deferred, Intake
from server.session import Client
from server.settings import GameSettings, ServerSettings
from server.turnstats import TurnStats
from tests.server_helpers import jumping_clock, start_game, start_server

VARIANT = load_variant("standard")
IM = build_frame(InitialMessage())
NOW = dm_frame(parse_text("NOW"))
# press with FCT in both numberings' range: may settle the connection's numbering
PRESS = dm_frame(parse_text("SND ( FRA ) ( FCT ( PCE ( FRA GER ) ) )", VARIANT.rep))


class RecordingLobby:
    """What `Intake` uses of the lobby (settings, variant, turn_stats), and the
    ``deliver`` of the client's game: it records the requests it is given."""

    def __init__(self, settings: ServerSettings, *, takes: bool = True) -> None:
        self.settings = settings
        self.variant = VARIANT
        self.turn_stats: TurnStats | None = None
        self.takes = takes
        self.taken: list[tuple[Message, tuple[int, ...]]] = []

    def deliver(self, event: Event) -> bool:
        assert isinstance(event, Request)
        self.taken.append((event.message, event.tokens))
        return self.takes


def ready_intake(lobby: RecordingLobby, *, game: bool = True) -> Intake:
    """An intake whose machine has had the IM and sent the RM; its client is in
    a game (whose ``deliver`` is the lobby's) unless ``game`` is False."""
    machine = Connection(Sender.SERVER, VARIANT.rep, level=0)
    send, _receive = trio.open_memory_channel[object](10)
    client = Client("127.0.0.1:1", send)
    if game:
        inbox, _events = trio.open_memory_channel[Event](1)
        client.game = GameHandle(5, 7, inbox, deliver=lobby.deliver)
    intake = Intake(machine, client, lobby, trio.current_time())  # type: ignore[arg-type]
    assert isinstance(intake.take(IM), InitialReceived)
    assert intake.take(None) is NEED_DATA
    machine.send(RepresentationMessage.for_representation(VARIANT.rep))
    return intake


def settings(**options: object) -> ServerSettings:
    return ServerSettings(game=GameSettings(press_numbering="daide"), **options)  # type: ignore[arg-type]


async def test_a_chunk_of_messages_goes_to_the_lobby_in_turns() -> None:
    lobby = RecordingLobby(settings(message_rate=1e9, message_burst=10**6))
    intake = ready_intake(lobby)
    count = 2 * MESSAGES_PER_TURN + 5
    assert intake.take(NOW * count) is YIELD                 # the other tasks' turn
    assert len(lobby.taken) == MESSAGES_PER_TURN
    assert intake.take(None) is YIELD
    assert intake.take(None) is NEED_DATA
    assert len(lobby.taken) == count
    assert all(tokens == parse_text("NOW") for _message, tokens in lobby.taken)
    # the count goes on across chunks: 5 handed over, 11 more to the next turn
    assert intake.take(NOW * (MESSAGES_PER_TURN - 5)) is YIELD


async def test_a_message_the_game_did_not_take_is_left_to_the_lobbys_route() -> None:
    lobby = RecordingLobby(settings(message_rate=1e9, message_burst=10**6), takes=False)
    intake = ready_intake(lobby)
    first = intake.take(NOW * 2)
    assert isinstance(first, Deferred) and first.wait == 0.0
    assert first.tokens == parse_text("NOW") and first.message is lobby.taken[0][0]
    assert isinstance(intake.take(None), Deferred)           # the second, after the await
    assert intake.take(None) is NEED_DATA
    assert len(lobby.taken) == 2


async def test_over_the_message_rate_a_message_waits_for_its_token() -> None:
    lobby = RecordingLobby(settings(message_rate=10.0, message_burst=2))
    intake = ready_intake(lobby)
    deferred = intake.take(NOW * 4)
    assert len(lobby.taken) == 2                              # the burst
    assert isinstance(deferred, Deferred)
    assert deferred.wait == pytest.approx(0.1, abs=1e-3)              # one token at 10 per second
    # the lobby has not seen it: the reader waits, then hands it over itself
    assert len(lobby.taken) == 2
    nxt = intake.take(None)
    assert isinstance(nxt, Deferred) and nxt.wait == pytest.approx(0.2, abs=1e-3)


async def test_the_frames_before_an_oversize_one_are_read_then_it_is_refused() -> None:
    lobby = RecordingLobby(settings(max_frame_body=64, message_rate=1e9, message_burst=10**6))
    intake = ready_intake(lobby)
    big_header = bytes([2, 0, 0, 66])
    assert intake.take(NOW + big_header) is NEED_DATA
    assert len(lobby.taken) == 1 and intake.oversize is not None
    # a chunk that starts with the big frame: nothing reaches the machine (no EOF either)
    other = ready_intake(RecordingLobby(settings(max_frame_body=64)))
    assert other.take(big_header + bytes(66)) is NEED_DATA
    assert other.oversize is not None and not other.machine.state.name == "CLOSED"


async def test_a_press_message_that_may_settle_the_numbering_goes_to_the_reader() -> None:
    auto = ServerSettings(message_rate=1e9, message_burst=10**6)   # press_numbering auto
    lobby = RecordingLobby(auto)
    intake = ready_intake(lobby)
    intake.machine.level = 10
    intake.client.level = 10
    event = intake.take(PRESS + NOW)
    assert isinstance(event, MessageReceived) and not lobby.taken
    assert intake.take(None) is NEED_DATA                     # the NOW after it goes on
    assert len(lobby.taken) == 1
    # with the numbering fixed by the setting the press goes straight on
    fixed = RecordingLobby(settings(message_rate=1e9, message_burst=10**6))
    other = ready_intake(fixed)
    other.client.level = 10
    assert other.take(PRESS) is NEED_DATA and len(fixed.taken) == 1


async def test_a_framing_fault_is_left_to_the_reader() -> None:
    intake = ready_intake(RecordingLobby(settings()))
    event = intake.take(IM)                                   # a second IM
    assert isinstance(event, ProtocolViolation)
    assert event.data == build_frame(ErrorMessage(ErrorCode.IM_REPEATED))


async def test_turn_stats_see_a_players_sub_at_the_time_its_chunk_was_read(
        clock: trio.testing.MockClock) -> None:
    lobby = RecordingLobby(settings(message_rate=1e9, message_burst=10**6))
    stats = lobby.turn_stats = TurnStats()
    intake = ready_intake(lobby, game=False)
    sub = dm_frame(parse_text("SUB ( ( ENG FLT LON ) HLD )", VARIANT.rep))
    deferred = intake.take(sub)                               # no game: nothing counted
    assert isinstance(deferred, Deferred) and deferred.wait == 0 and not stats._last_order
    send, _receive = trio.open_memory_channel[Event](1)
    intake.client.game = GameHandle(5, 7, send, deliver=lobby.deliver)
    clock.jump(3.0)
    assert intake.take(NOW + sub) is NEED_DATA
    assert stats._last_order == {5: intake.read_at} and intake.read_at == trio.current_time()
    assert len(lobby.taken) == 2


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return jumping_clock()


async def test_a_players_flood_is_answered_in_order_at_the_message_rate(
        nursery: trio.Nursery, tmp_path: Path, clock: trio.testing.MockClock) -> None:
    # messages of a player in a running game: handed to the game by the reader
    # itself (Lobby.take), after the rate limit's wait when over the burst
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
