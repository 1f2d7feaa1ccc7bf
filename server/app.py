"""The server process: listen, accept, run the lobby, shut down cleanly.

`serve` is the entry point (``daide serve``, `bots.demo`, the tests).  It
reports readiness with ``task_status.started(listeners)`` - the port is in
``listeners[0].socket.getsockname()`` when 0 was asked for - and runs until
`Server.stop` is called or it is cancelled.

Shutdown (SIGINT/SIGTERM in ``daide serve``, or cancellation) goes in two
stages, as hypercorn does: stop accepting, then tell everyone - every game
actor sends OFF to its clients and ends (a phase is processed and stored in
one synchronous step, so there is never half a phase to roll back), clients
outside the games get OFF too - and give the writers a bounded grace period
to flush before the remaining connections are cut.  The database is closed
last.

The store commits without waiting for the disk (``durability="os"``, the
default: a commit reaches the OS, which survives any crash of the server)
unless ``durability="commit"`` (SQLite syncs each transaction).  With
``"disk"`` `server.durability.Durability` syncs the commits once per batch
before anything is announced; its flusher task runs beside the games until
the very end, so the last OFFs still wait for the disk.  Admission (connections in total and per address)
is the lobby's `server.limits.ConnectionGate`, checked before a byte is read.
"""

from __future__ import annotations

import gc
from functools import partial
from pathlib import Path

import structlog
import trio

from engine.variants import Variant, load_variant
from server.accept import accept_loop
from server.admin_token import AdminToken
from server.bot_seats import BotLauncher, BotSeats
from server.connection import handle_connection
from server.durability import GroupCommitStore
from server.game_doors import GameDoors
from server.hosting import Host
from server.lobby import Lobby
from server.lock import acquire as acquire_lock
from server.lock import needs_lock
from server.settings import ServerSettings
from server.store import Store

log = structlog.get_logger("server.app")


class Server:
    """One server: a listening socket, a lobby of games, a database."""

    def __init__(self, settings: ServerSettings, *, bots: BotLauncher | None = None) -> None:
        self.settings = settings
        self.bots = bots                      # the bots a host may start (server.bot_seats)
        self._stop = trio.Event()
        self.lobby: Lobby | None = None
        self.http_url: str | None = None     # the web side's address once it listens

    def stop(self) -> None:
        """Begin a graceful shutdown."""
        self._stop.set()

    async def run(self, *, task_status: trio.TaskStatus[list[trio.SocketListener]]
                  = trio.TASK_STATUS_IGNORED) -> None:
        settings = self.settings
        variant = load_variant(settings.game.variant)
        # One server per database file, for the server's whole life (server.lock).
        lock = await acquire_lock(settings.db_path) if needs_lock(settings.db_path) else None
        try:
            await self._run(settings, variant, task_status)
        finally:
            if lock is not None:
                lock.release()

    async def _run(self, settings: ServerSettings, variant: Variant,
                   task_status: trio.TaskStatus[list[trio.SocketListener]]) -> None:
        listeners = await trio.open_tcp_listeners(settings.port, host=settings.host)
        try:
            # "commit": SQLite syncs every transaction itself; otherwise the
            # store commits without syncing and `Durability` decides.
            opener = Store.open if settings.durability == "commit" else GroupCommitStore.open
            store = opener(settings.db_path)
        except BaseException:
            for listener in listeners:
                await listener.aclose()
            raise
        try:
            host, port = listeners[0].socket.getsockname()[:2]
            # The first log line names the address (with --port 0, the port chosen).
            log.info("listening", host=host, port=port, db=str(settings.db_path),
                     variant=variant.name.lower())
            lobby: Lobby | None = None
            try:
                async with trio.open_nursery() as flushing:
                    lobby = self.lobby = Lobby(settings, store, variant, flushing)
                    flushing.start_soon(lobby.durability.run)
                    try:
                        await self._serve(lobby, listeners, task_status)
                    finally:
                        flushing.cancel_scope.cancel()
            finally:
                if lobby is not None:       # the flusher has stopped: sync the rest here
                    lobby.durability.close()
        finally:
            store.close()
            log.info("stopped")

    async def _serve(self, lobby: Lobby, listeners: list[trio.SocketListener],
                     task_status: trio.TaskStatus[list[trio.SocketListener]]) -> None:
        """Games and connections, until `stop` (or cancellation)."""
        async with trio.open_nursery() as nursery:
            lobby.nursery = nursery
            lobby.tcp_port = int(listeners[0].socket.getsockname()[1])
            db = self.settings.db_path
            bot_logs = None if str(db) == ":memory:" else Path(f"{db}.bots")
            lobby.admin_token = AdminToken.for_server(self.settings)
            host = lobby.host = Host(lobby, GameDoors(lobby, self.settings.host),
                                     BotSeats(self.bots, nursery, self.settings.host, bot_logs))
            lobby.resume(lobby.store.load_unfinished())
            await host.reopen_doors()
            host.restore()
            freeze_startup_heap()
            accepting = trio.CancelScope()

            async def accept() -> None:
                async def handler(stream: trio.SocketStream, _host: str) -> None:
                    await handle_connection(stream, lobby)

                # Not trio.serve_listeners: out of descriptors it logs a traceback
                # every 0.1 s; accept_loop backs off with one line (docs/hardening.md).
                try:
                    with accepting:
                        async with trio.open_nursery() as acceptors:
                            for listener in listeners:
                                acceptors.start_soon(partial(accept_loop, listener, nursery,
                                                             handler, door="tcp"))
                finally:
                    for listener in listeners:
                        listener.socket.close()

            nursery.start_soon(accept)
            if self.settings.http_port is not None:
                # The web side (server.http): pages, API and DAIDE over WebSocket.
                from server.http import serve_http
                self.http_url = await nursery.start(serve_http, lobby, self._stop)
            task_status.started(listeners)
            try:
                await self._stop.wait()
            finally:
                with trio.CancelScope(shield=True):
                    accepting.cancel()
                    host.doors.close_all()
                    await self._drain(lobby)
                    host.bot_seats.stop_all()
                nursery.cancel_scope.cancel()

    async def _drain(self, lobby: Lobby) -> None:
        log.info("shutting_down", games=len(lobby.games), clients=len(lobby.clients))
        lobby.stop_games()
        lobby.say_goodbye()
        with trio.move_on_after(self.settings.shutdown_grace):
            await lobby.no_games.wait()
            lobby.say_goodbye()
            await lobby.idle.wait()


_frozen = False


def freeze_startup_heap() -> None:
    """Once per process: move everything alive at startup out of the collector's sight.

    The modules, the map and adjudicator tables and the resumed games live as
    long as the process; a full collection would walk them every time (the
    pauses `load/` measures).  `gc.freeze` takes them out of it; objects that
    die later are still freed by reference counting.
    """
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)


async def serve(settings: ServerSettings, *, bots: BotLauncher | None = None,
                task_status: trio.TaskStatus[list[trio.SocketListener]]
                = trio.TASK_STATUS_IGNORED) -> None:
    """Run a server until cancelled (see the module docstring)."""
    await Server(settings, bots=bots).run(task_status=task_status)
