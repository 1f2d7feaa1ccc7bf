"""`Game.deliver`: a client's message handled in the reader's task, never out of order."""

from __future__ import annotations

import trio
import trio.testing

from engine.variants import load_variant
from protocol.messages import Adm
from server.events import Announce, Event, GameHandle
from server.game import Game
from server.settings import GameSettings
from server.store import Store


def announce(text: str) -> Announce:
    return Announce(Adm("Server", text))


async def test_deliver_only_while_the_actor_is_parked_with_nothing_in_flight() -> None:
    send, receive = trio.open_memory_channel[Event](8)
    handle = GameHandle(1, 7, send)
    store = Store.open(":memory:")
    handled: list[str] = []
    try:
        game = Game(handle, receive, store, load_variant("standard"), GameSettings())
        original = game._handle

        def spy(event: Event) -> None:
            assert isinstance(event, Announce) and isinstance(event.message, Adm)
            handled.append(event.message.text)
            original(event)

        game._handle = spy  # type: ignore[method-assign]
        assert handle.deliver == game.deliver
        assert not game.deliver(announce("before the actor runs"))    # not parked yet
        async with trio.open_nursery() as nursery:
            nursery.start_soon(game.run)
            await trio.testing.wait_all_tasks_blocked()
            await _exercise(game, send, handled)
    finally:
        store.close()


async def _exercise(game: Game, send: trio.MemorySendChannel[Event], handled: list[str]) -> None:
    assert game.deliver(announce("a"))             # parked, nothing queued: handled now
    assert handled == ["a"]
    send.send_nowait(announce("b"))                # handed to the parked actor...
    assert not game.deliver(announce("c"))         # ...so "c" must not overtake it
    await send.send(announce("c"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled == ["a", "b", "c"]
    # Queued but not yet taken: no overtaking either.
    assert game.deliver(announce("d"))
    send.send_nowait(announce("e"))
    send.send_nowait(announce("f"))
    assert not game.deliver(announce("g"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled == ["a", "b", "c", "d", "e", "f"]
    send.close()                                   # the actor ends
