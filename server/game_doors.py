"""A game's own TCP port: its door for unmodified DAIDE clients.

The shared port's connections get the RM of the server's template variant
and join its games (`server.lobby`).  A game with a port of its own
(``daide game new --port P``; a game of another variant than the template
always gets one) sends its own variant's RM there, and every NME, OBS and
IAM arriving by it goes to that game only - so a C++ DumbBot, which knows
nothing of games, can be pointed at exactly one (docs/hosting.md).

The port is taken before the game is created, so a port in use is a
one-line error and nothing changed; it is closed when the game's actor
ends (game over, or server shutdown) and opened again when a restart
resumes the game.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import structlog
import trio

from server.accept import accept_loop
from server.connection import handle_connection

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.game_doors")


class PortInUse(Exception):
    """The port cannot be listened on; the message says why, in one line."""


class GameDoors:
    """The listeners of the games that have a port of their own."""

    def __init__(self, lobby: Lobby, host: str) -> None:
        self.lobby = lobby
        self.host = host
        self._scopes: dict[int, trio.CancelScope] = {}
        self.ports: dict[int, int] = {}

    async def listen(self, port: int) -> trio.SocketListener:
        """A listener on ``port`` (0: any free one); `PortInUse` if it cannot be had."""
        try:
            listeners = await trio.open_tcp_listeners(port, host=self.host)
        except OSError as exc:
            raise PortInUse(f"port {port} cannot be used: {exc.strerror or exc}") from None
        for extra in listeners[1:]:
            await extra.aclose()
        return listeners[0]

    def serve(self, game_id: int, listener: trio.SocketListener) -> int:
        """Accept on ``listener`` for game ``game_id``; returns its port."""
        port = int(listener.socket.getsockname()[1])
        scope = trio.CancelScope()
        self._scopes[game_id] = scope
        self.ports[game_id] = port
        self.lobby.nursery.start_soon(self._accept, game_id, listener, scope,
                                      name=f"door-{game_id}")
        log.info("game_door_open", game=game_id, port=port)
        return port

    async def _accept(self, game_id: int, listener: trio.SocketListener,
                      scope: trio.CancelScope) -> None:
        lobby = self.lobby

        async def handler(stream: trio.SocketStream, _host: str) -> None:
            await handle_connection(stream, lobby, door=game_id)

        try:
            with scope:
                await accept_loop(listener, lobby.nursery, partial(handler), door=f"game {game_id}")
        finally:
            listener.socket.close()

    def close(self, game_id: int) -> None:
        """Stop accepting for the game (its connections stay until the game dismisses them)."""
        scope = self._scopes.pop(game_id, None)
        if scope is not None:
            scope.cancel()
            log.info("game_door_closed", game=game_id, port=self.ports.pop(game_id, None))

    def close_all(self) -> None:
        for game_id in list(self._scopes):
            self.close(game_id)
