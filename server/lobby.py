"""The lobby: which game a client's message goes to, and the games themselves.

Many games run at once.  An NME joins the game that is filling (the oldest
forming game with a free seat); when that game has all its powers it starts
and the next NME opens a new game.  An OBS watches the newest game that has
not finished (a web page's connection may name the game: `server.http`).  An IAM goes to the game whose seat has that power and
passcode - the lobby keeps a ``(power, passcode)`` index, and passcodes are
chosen so that no two unfinished games share a pair.

Clients that have not joined a game (docs/protocol.md §5: "treated like an
observer but receives only replies") are answered here: the map, the
starting position, REJ for what needs a game.

Passcode guessing (docs/protocol.md §13.2, hardening): a connection gets at most
``iam_failures_per_connection`` wrong passcodes, then it is closed; an
address gets at most ``iam_failures_per_address`` within
``iam_failure_window`` seconds, after which all its IAMs are refused
unchecked for a block that doubles each time (`server.limits.IamGuard`).
With 8191 possible passcodes that makes guessing hopeless.

Storage failure (disk full, read-only database): the store latches the
failure and calls `Lobby.storage_failed`, which says so (an error log line
and an ADM to every client), refuses new games and freezes the others - a
frozen game is not "running", so it accepts no orders and processes no
phase; what the database holds is what a restart resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import structlog
import trio

from engine.variants import Variant, VariantError, load_variant
from protocol.codec import Codec
from protocol.messages import (
    Adm,
    HloRequest,
    Hst,
    Huh,
    Iam,
    MapMessage,
    MapRequest,
    MdfRequest,
    Message,
    Nme,
    NotMessage,
    NowRequest,
    Obs,
    Off,
    Prn,
    Rej,
    ScoRequest,
    SmrRequest,
    Tme,
    Yes,
)
from server.admin_adm import handle_adm
from server.admin_veto import Desk
from server.assignment import AssignmentError, Invited, Requested, parse_name
from server.durability import Durability
from server.events import (
    INBOX_SIZE,
    Announce,
    Event,
    GameHandle,
    HostAction,
    Join,
    Left,
    Observe,
    Rejoin,
    Request,
)
from server.game import Game
from server.game_actor import run_game
from server.hosted import AdminAction, HostedState, Invitation
from server.hosting_terms import CONFLICT, HostingError
from server.limits import ConnectionGate, IamGuard
from server.press import wire_representation
from server.session import Client, Role
from server.settings import GameSettings, ServerSettings
from server.store import GameRecord, StorageFailure, Store
from server.turnstats import TurnStats
from server.wire import encode

log = structlog.get_logger("server.lobby")

#: Status of a game whose database failed: not running, not finished (see the module doc).
FROZEN = "frozen"


class Lobby:
    """Routes clients to games and runs the game actors in ``nursery``."""

    def __init__(self, settings: ServerSettings, store: Store, variant: Variant,
                 nursery: trio.Nursery) -> None:
        self.settings = settings
        self.store = store
        self.variant = variant
        self.nursery = nursery
        self.start = variant.start()      # what clients outside any game are shown
        # The encoder of what the games send, its kept parts shared by them all.
        self._codecs: dict[tuple[str, str], Codec] = {}
        self.codec = self.codec_for(variant, settings.game.press_numbering)
        # Every bot asks for the MDF: encoded once, not once per client.
        self.mdf = encode(self.codec, variant.mdf).packet
        self.games: dict[int, GameHandle] = {}
        self.clients: set[Client] = set()
        self._finished: dict[tuple[str, int], int] = {}    # (power, passcode) -> ended game
        self.gate = ConnectionGate(settings.max_connections, settings.connections_per_address,
                                   settings.limit_exempt)
        self.iam_guard = IamGuard(settings.iam_failures_per_address, settings.iam_failure_window)
        self.durability = Durability(store, barrier=settings.durability == "disk")
        self.turn_stats = TurnStats() if settings.turn_stats else None
        self.storage_failure: str | None = store.failure
        store.on_failure = self.storage_failed
        self.idle = trio.Event()          # set while no client is connected
        self.idle.set()
        self.no_games = trio.Event()      # set while no game actor runs
        self.no_games.set()
        #: The shared DAIDE TCP port, once the server listens (for server-started bots).
        self.tcp_port = settings.port
        #: The host's operations (`server.hosting.Host`), once the server has built them.
        self.host: Any = None
        #: The one secret of the admin doors (`server.admin_token`), once the server has it.
        self.admin_token: Any = None
        #: Players' admin commands waiting out their veto delay (`server.admin_veto`).
        self.admin_desk = Desk()
        #: Called with a game's id when its actor has ended (its door and bots go).
        self.on_game_over: Callable[[int], None] | None = None

    # --- games ---------------------------------------------------------------------

    def _open_game(self, settings: GameSettings, record: GameRecord | None = None, *,
                   hosted: HostedState | None = None,
                   action: AdminAction | None = None) -> GameHandle:
        """Start the actor of a new game (stored first, with a host's state and action),
        or of a stored one (``record``: running, or a host's game still forming)."""
        variant = load_variant(settings.variant)
        if record is not None:
            game_id, hosted = record.id, record.hosted
        else:
            game_id = self.store.create_game(settings, hosted, action)
        send, receive = trio.open_memory_channel[Event](INBOX_SIZE)
        handle = GameHandle(game_id, len(variant.powers), send, variant, hosted=hosted,
                            open_access=settings.access == "open", port=settings.port)
        running = record if record is not None and record.status == "running" else None
        game = Game(handle, receive, self.store, variant, settings,
                    passcode_taken=self._passcode_taken,
                    disorder_grace=self.settings.disorder_grace, linger=self.settings.linger,
                    record=running, codec=self.codec_for(variant, settings.press_numbering))
        self.games[game_id] = handle
        self.no_games = trio.Event()
        self.nursery.start_soon(self._run_game, game, name=f"game-{game_id}")
        if record is None:
            log.info("game_opened", game=game_id, variant=variant.name.lower(),
                     **({"hosted": True} if hosted is not None else {}))
        return handle

    def codec_for(self, variant: Variant, numbering: str) -> Codec:
        """The encoder of the games of one variant and press numbering, shared by them all."""
        key = (variant.name, numbering)
        codec = self._codecs.get(key)
        if codec is None:
            codec = self._codecs[key] = Codec(wire_representation(variant.rep, numbering))
        return codec

    def door_variant(self, door: int | None) -> Variant:
        """The variant a connection speaks: its game door's, or the shared port's."""
        handle = self.games.get(door) if door is not None else None
        return handle.variant if handle is not None else self.variant

    async def _run_game(self, game: Game) -> None:
        # The task was spawned from a connection task: drop its conn/peer context.
        structlog.contextvars.clear_contextvars()
        with structlog.contextvars.bound_contextvars(game=game.handle.id):
            try:
                await run_game(game)
            except Exception:
                # Never reached by bad input (the actor guards every step); a
                # failure here ends this game only.
                log.exception("game_failed")
            finally:
                self.games.pop(game.handle.id, None)
                _refuse_commands(game)
                if self.on_game_over is not None:
                    self.on_game_over(game.handle.id)
                if game.handle.status == "finished":
                    self._remember_finished(game.handle.id, game.handle.passcodes)
                if not self.games:
                    self.no_games.set()

    def _remember_finished(self, game_id: int, passcodes: dict[str, int]) -> None:
        for power, code in passcodes.items():
            self._finished[(power, code)] = game_id

    def resume(self, records: list[GameRecord]) -> None:
        """Restart the actors of the games that were running when the server stopped.

        The seats of the finished games are remembered too: their players'
        IAMs carry a right passcode and must not count as guesses.
        """
        for finished in self.store.games():
            if finished.status == "finished":
                self._remember_finished(finished.id, {s.power: s.passcode for s in finished.seats})
        for record in records:
            try:
                self._open_game(record.settings, record)
            except VariantError as exc:
                log.warning("game_not_resumed", game=record.id, variant=record.settings.variant,
                            reason=str(exc))

    def storage_failed(self, reason: str) -> None:
        """The database cannot be written: say so, refuse new games, freeze the rest."""
        if self.storage_failure is not None:
            return
        self.storage_failure = reason
        log.error("storage_failed", reason=reason, db=self.store.path,
                  effect="new games refused; games frozen until the server restarts")
        for handle in self.games.values():
            if handle.status != "finished":
                handle.status = FROZEN
        notice = Adm("Server", f"The server cannot save games ({reason.split(' (')[0]}). "
                               "No new games; running games are paused until it restarts.")
        for client in list(self.clients):
            client.send(notice)

    def _passcode_taken(self, power: str, code: int) -> bool:
        return any(h.passcodes.get(power) == code for h in self.games.values())

    def stop_games(self) -> None:
        """Shutdown: every actor sends OFF to its clients and ends."""
        for handle in list(self.games.values()):
            handle.inbox.close()

    # --- clients -------------------------------------------------------------------

    def connected(self, client: Client) -> None:
        self.clients.add(client)
        self.idle = trio.Event()

    async def disconnected(self, client: Client) -> None:
        self.clients.discard(client)
        handle = self._game_of(client)
        if handle is not None:
            await self._to_game(handle, Left(client))
        if not self.clients:
            self.idle.set()

    def say_goodbye(self) -> None:
        """Shutdown: OFF to the clients that joined no game."""
        for client in list(self.clients):
            if client.game_id is None:
                client.send(Off())
                client.finish("server shutdown")

    def _game_of(self, client: Client) -> GameHandle | None:
        return self.games.get(client.game_id) if client.game_id is not None else None

    async def _to_game(self, handle: GameHandle, event: Event) -> bool:
        try:
            await handle.send(event)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    async def received(self, client: Client, message: Message, tokens: tuple[int, ...]) -> None:
        """A parsed message from a client - the one road in: to the client's game
        (through its inbox), or a join, watch or rejoin, or an answer here."""
        if isinstance(message, Adm):
            if not client.adm_allowed(trio.current_time()):
                # ADM is relayed to every client: a flood of it would reach them all.
                client.send(Rej(message))
                return
            if await handle_adm(self, client, message):
                return              # 'Server: ...' - a command for the host (docs/hosting.md)
        handle = self._game_of(client)
        if handle is not None:
            if client.role is Role.JOINING and isinstance(message, Yes) \
                    and isinstance(message.message, MapMessage):
                # Settled: no idle timeout while it waits for the game to start
                # (the game takes every YES (MAP) of a joining client).
                client.map_accepted = True
            if await self._to_game(handle, Request(client, message, tokens)):
                return
            client.game_id = None
        match message:
            case Nme():
                await self._join(client, message)
            case Obs():
                await self._observe(client, message)
            case Iam():
                await self._rejoin(client, message)
            case _:
                self._answer_anonymous(client, message, tokens)

    async def _join(self, client: Client, message: Nme) -> None:
        """An NME: to the game its invitation names, to its door's game, or to the
        forming game of the template (then the next one) - docs/hosting.md."""
        variant = self.door_variant(client.door)
        try:
            _name, wish = parse_name(message.name, variant.powers, variant.map.power_names)
        except AssignmentError as exc:
            log.info("join_refused", reason=str(exc))
            client.send(Rej(message))
            return
        invitation = None
        if isinstance(wish, Invited):
            found = self._invited_game(client, wish.code)
            if found is None:
                log.info("join_refused", reason="unknown invitation")
                client.send(Rej(message))
                return
            handle, invitation = found
        elif client.door is not None:
            door = self.games.get(client.door)
            if door is None or door.open_seats <= 0:
                client.send(Rej(message))
                return
            handle = door
        else:
            forming = [h for h in self.games.values() if h.open_seats > 0 and h.hosted is None]
            opened = min(forming, key=lambda h: h.id) if forming else self._open_or_refuse(
                client, message)
            if opened is None:
                return
            handle = opened
        if invitation is None:
            # Its seat, and the power it asked for by name (`GameHandle.claims`).
            handle.claims[client] = wish.power if isinstance(wish, Requested) else None
        client.game_id = handle.id
        if not await self._to_game(handle, Join(client, message, invitation)):
            handle.claims.pop(client, None)
            client.game_id = None
            client.send(Rej(message))

    def _invited_game(self, client: Client, code: str) -> tuple[GameHandle, Invitation] | None:
        """The forming game holding invitation ``code``, reachable from the client's door."""
        variant = self.door_variant(client.door)
        for handle in self.games.values():
            if handle.hosted is None or handle.status != "forming" or handle.variant.name != variant.name:
                continue
            if client.door is not None and handle.id != client.door:
                continue
            invitation = handle.hosted.invitation(code)
            if invitation is not None:
                return handle, invitation
        return None

    async def _observe(self, client: Client, message: Obs) -> None:
        variant = self.door_variant(client.door)
        live = [h for h in self.games.values() if h.status != "finished" and h.variant.name == variant.name
                and (client.door is None or h.id == client.door)]
        watch = client.door if client.door is not None else client.watch_game
        wanted = self.games.get(watch) if watch is not None else None
        if wanted is not None and wanted.status != "finished":
            handle = wanted                 # the web page's /watch/N
        elif live:
            handle = max(live, key=lambda h: h.id)
        elif client.door is not None:
            client.send(Rej(message))       # its door's game is over
            return
        else:
            opened = self._open_or_refuse(client, message)
            if opened is None:
                return
            handle = opened
        client.game_id = handle.id
        if not await self._to_game(handle, Observe(client, message)):
            client.game_id = None
            client.send(Rej(message))

    def _open_or_refuse(self, client: Client, message: Message) -> GameHandle | None:
        """A new forming game of the template, or None - and REJ - when the database
        cannot take one (storage_failed has said why)."""
        if self.storage_failure is None:
            try:
                return self._open_game(self.settings.game)
            except StorageFailure:
                pass
        client.send(Rej(message))
        return None

    async def _rejoin(self, client: Client, message: Iam) -> None:
        now = trio.current_time()
        if self.storage_failure is not None:
            client.send(Rej(message))       # no game runs: nothing to rejoin, nothing counted
            return
        if self.iam_guard.blocked(client.address, now):
            log.warning("iam_refused", power=message.power, reason="address blocked")
            client.send(Rej(message))
            return
        key = (message.power, message.passcode)
        # A game that is over may still linger (its actor runs): it counts as ended.
        ended = self._finished.get(key) or next(
            (h.id for h in self.games.values()
             if h.status == "finished" and h.passcodes.get(message.power) == message.passcode), None)
        if ended is not None and not any(h.passcodes.get(message.power) == message.passcode
                                         for h in self.games.values() if h.status != "finished"):
            # A player of a game that is over, coming back: a right passcode, no guess.
            log.info("iam_refused", power=message.power, reason=f"game {ended} is over")
            client.send(Rej(message))
            return
        variant = self.door_variant(client.door)
        handle = next((h for h in self.games.values()
                       if h.status == "running" and h.passcodes.get(message.power) == message.passcode
                       and h.variant.name == variant.name and client.door in (None, h.id)),
                      None)
        if handle is not None:
            client.game_id = handle.id
            if await self._to_game(handle, Rejoin(client, message, message.power)):
                return
            client.game_id = None
        else:
            client.iam_failures += 1
            blocked = self.iam_guard.failed(client.address, now)
            log.warning("iam_wrong_passcode", power=message.power, failures=client.iam_failures,
                        address_blocked=blocked)
        client.send(Rej(message))
        if client.iam_failures >= self.settings.iam_failures_per_connection:
            client.finish("too many wrong passcodes")

    def _answer_anonymous(self, client: Client, message: Message,
                          tokens: tuple[int, ...]) -> None:
        """A client outside any game: replies only (docs/protocol.md §5), about the
        variant of the door it came in by."""
        variant = self.door_variant(client.door)
        start = self.start if variant.name == self.variant.name else variant.start()
        match message:
            case MapRequest():
                client.send(MapMessage(variant.name))
            case MdfRequest():
                client.send(self.mdf if variant.name == self.variant.name
                            else encode(self.codec_for(variant, "daide"), variant.mdf).packet)
            case NowRequest():
                client.send(start.now_message())
            case ScoRequest():
                client.send(start.sco_message())
            case Hst(None):
                client.send(start.sco_message())
                client.send(start.now_message())
            case NotMessage(Tme(None)):
                client.send(Yes(message))
            case Hst() | HloRequest() | Tme() | NotMessage(Tme()) | SmrRequest():
                client.send(Rej(message))
            case Adm():
                client.send(message)
                for handle in list(self.games.values()):
                    self._relay(handle, message)
            case Yes() | Rej() | Huh() | Prn():
                pass
            case _:
                # Player commands from a client that plays nothing (7.2).
                client.send(Huh.at(tokens, 0))

    def _relay(self, handle: GameHandle, message: Message) -> None:
        """ADM from outside the games: every joined client hears it."""
        try:
            handle.inbox.send_nowait(Announce(message))
        except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
            log.info("adm_not_relayed", game=handle.id)


def _refuse_commands(game: Game) -> None:
    """A host's actions still waiting in an ended game's inbox: answered, not lost."""
    while True:
        try:
            event = game.inbox.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            return
        if isinstance(event, HostAction):
            event.reply.set(error=HostingError(f"game {game.handle.id} is over", CONFLICT))
