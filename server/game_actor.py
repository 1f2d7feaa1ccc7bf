"""The game actor: the one trio task per game that reads its inbox.

`server.game.Game` holds the game's state and rules and is synchronous:
every step of it runs between two awaits, so it can be tested without an
event loop.  The actor's two waits - the game itself, then its linger after
the end - are here, and drive the game through `Game.begin`, `Game.step`,
`Game.tick`, `Game.wakeup` and `Game.close`.
"""

from __future__ import annotations

import trio

from server.game import Game


async def run_game(game: Game) -> None:
    """Serve events until the game is finished or the actor is cancelled."""
    game.begin()
    reason = "game over"
    try:
        while not game.finished:
            with trio.move_on_at(game.wakeup()):
                event = await game.inbox.receive()
                game.step(event)
            game.tick()
        await _linger(game)
    except trio.EndOfChannel:
        reason = "server shutdown"
    finally:
        game.close(reason)


async def _linger(game: Game) -> None:
    """After the SMR: the clients may still talk for ``game.linger`` seconds.

    Requests are answered (HST, ORD, SCO, NOW, SMR...) and ADM relayed - a
    bot saying goodbye, or one fetching the last results, must not meet a
    closed socket.  The wait ends early when every client has left.
    """
    if game.linger <= 0:
        return
    until = game.linger_until = trio.current_time() + game.linger
    while game.all_clients():
        with trio.move_on_at(game.wakeup()) as waiting:
            event = await game.inbox.receive()
            game.step(event)
        if waiting.cancelled_caught and trio.current_time() >= until:
            return
