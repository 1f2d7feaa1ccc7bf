"""`Game.deliver`: a client's message handled in the reader's task, never out of order."""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing

from engine.variants import load_variant
from protocol.frames import DiplomacyMessage, parse_frames
from protocol.messages import Adm
from protocol.text import render_text
from server.events import Announce, Event, GameHandle
from server.game import Game
from server.game_actor import run_game
from server.session import Client, Outgoing, Role
from server.settings import GameSettings
from server.store import Store
from server.wire import Packet


def announce(text: str) -> Announce:
    return Announce(Adm("Server", text))


async def test_deliver_only_while_the_actor_is_parked_with_nothing_in_flight() -> None:
    send, receive = trio.open_memory_channel[Event](8)
    handle = GameHandle(1, 7, send)
    store = Store.open(":memory:")
    # An observer's outbound queue shows what the game handled, in order: each
    # Announce is broadcast to it as an ADM.
    out, heard = trio.open_memory_channel[Outgoing](64)
    observer = Client("127.0.0.1:1", out, role=Role.OBSERVER)

    def handled() -> list[str]:
        texts = []
        while True:
            try:
                item = heard.receive_nowait()
            except trio.WouldBlock:
                return texts
            assert isinstance(item, Packet)
            frames, _ = parse_frames(item.frames)
            for frame in frames:
                assert isinstance(frame, DiplomacyMessage)
                texts.append(render_text(frame.tokens).split("'")[3])

    try:
        game = Game(handle, receive, store, load_variant("standard"), GameSettings())
        game.observers.append(observer)
        assert handle.deliver == game.deliver
        assert not game.deliver(announce("before the actor runs"))    # not parked yet
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_game, game)
            await trio.testing.wait_all_tasks_blocked()
            await _exercise(game, send, handled)
    finally:
        store.close()


async def _exercise(game: Game, send: trio.MemorySendChannel[Event],
                    handled: Callable[[], list[str]]) -> None:
    assert game.deliver(announce("a"))             # parked, nothing queued: handled now
    assert handled() == ["a"]
    send.send_nowait(announce("b"))                # handed to the parked actor...
    assert not game.deliver(announce("c"))         # ...so "c" must not overtake it
    await send.send(announce("c"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled() == ["b", "c"]
    # Queued but not yet taken: no overtaking either.
    assert game.deliver(announce("d"))
    send.send_nowait(announce("e"))
    send.send_nowait(announce("f"))
    assert not game.deliver(announce("g"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled() == ["d", "e", "f"]
    send.close()                                   # the actor ends
