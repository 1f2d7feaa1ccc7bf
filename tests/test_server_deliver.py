"""`Game.deliver`: a client's message handled in the reader's task, never out of order."""

from __future__ import annotations

from collections.abc import Callable

import pytest
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
            await _exercise(game, handle, handled)
    finally:
        store.close()


async def _exercise(game: Game, handle: GameHandle,
                    handled: Callable[[], list[str]]) -> None:
    assert game.deliver(announce("a"))             # parked, nothing queued: handled now
    assert handled() == ["a"]
    handle.send_nowait(announce("b"))              # handed to the parked actor...
    assert handle.in_flight == 1
    assert not game.deliver(announce("c"))         # ...so "c" must not overtake it
    await handle.send(announce("c"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled() == ["b", "c"] and handle.in_flight == 0
    # Queued but not yet taken: no overtaking either.
    assert game.deliver(announce("d"))
    handle.send_nowait(announce("e"))
    handle.send_nowait(announce("f"))
    assert not game.deliver(announce("g"))
    await trio.testing.wait_all_tasks_blocked()
    assert handled() == ["d", "e", "f"] and handle.in_flight == 0
    # A wait that ended (its deadline passed, or a cancel) lets the actor go first.
    waiting = game.waiting
    assert waiting is not None
    waiting.cancel()
    assert not game.deliver(announce("h"))
    await trio.testing.wait_all_tasks_blocked()
    assert game.deliver(announce("i"))             # parked again, in a new wait
    assert handled() == ["i"]
    handle.inbox.close()                           # the actor ends


async def test_an_event_the_inbox_refuses_is_not_counted_in_flight() -> None:
    send, receive = trio.open_memory_channel[Event](1)
    handle = GameHandle(1, 7, send)
    handle.send_nowait(announce("a"))
    with pytest.raises(trio.WouldBlock):             # full
        handle.send_nowait(announce("b"))
    assert handle.in_flight == 1
    with trio.move_on_after(0.01):                    # waits for room, then gives up
        await handle.send(announce("b"))
    assert handle.in_flight == 1
    receive.close()
    with pytest.raises(trio.BrokenResourceError):
        await handle.send(announce("c"))
    assert handle.in_flight == 1


def test_events_reach_a_game_only_through_its_handle() -> None:
    # Game.deliver handles an event at once only while nothing is in flight to the
    # actor; an event put on the inbox channel directly would not be counted, and
    # a later one delivered at once could overtake it.  So no module but
    # server/events.py sends on a game's inbox channel.
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    direct = re.compile(r"\binbox\.send(_nowait)?\(")
    offenders = [
        f"{path.relative_to(root)}:{number}"
        for package in ("server", "daide", "tournament", "load")
        for path in sorted((root / package).rglob("*.py"))
        if path.name != "events.py" or path.parent.name != "server"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if direct.search(line)
    ]
    assert offenders == []
