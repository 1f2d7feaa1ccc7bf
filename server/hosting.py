"""Hosting: the operations a host runs on the games of a live server.

One set of operations behind three doors - the command line (``daide game
...``), the HTTP API (``/api/admin/...``, `server.admin_api`) and DAIDE
admin messages (``ADM ... 'Server: ...'``, `server.admin_adm`) - with the
same checks and the same one-line errors (`HostingError`).  The doors
check the admin token (`server.admin_token`) before they call anything
here; every call names its `Origin`, and every action that reaches a game
is stored with its time, origin and outcome (the game's admin log:
``daide game log N``, ``/api/admin/games/N``).

=======================  =========================================================
operation                what it does
=======================  =========================================================
``new_game(spec)``       a new forming game with its own settings (variant, level,
                         deadlines, rules, name, access, own port), seats reserved
                         by invitation (a power, or one dealt by the invited
                         player's preference list), seats filled with
                         server-started bots
``games()``              every game of the server, with its settings
``game(n)``              one game: settings, status, turn, seats (names, bots,
                         invitations pending), paused, port, admin log
``pause(n)``             the game's clock stops and no phase is processed
``resume(n)``            the clock runs again
``extend(n, seconds)``   the current deadline moves later
``end(n)``               a draw of the survivors, SMR, OFF
``eject(n, power)``      the power's client is dismissed, the power goes into civil
                         disorder and gets a new passcode (returned, for a
                         replacement player's IAM)
``fill(n, bot, power)``  a server-started bot takes a free seat (forming) or a
                         power in civil disorder (running)
``log(n)``               the game's admin actions
``variants()``           the variants the server can host
``bots()``               the bots it can start
=======================  =========================================================

All of them are answered with plain data (dicts of str/int/list) ready for
JSON; every failure is a `HostingError` whose message is one sentence and
whose ``status`` is the HTTP status the API answers with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import structlog
import trio

from engine.variants import Variant, VariantError, load_variant, variant_names
from server import game_admin
from server.assignment import (
    AssignmentError,
    NoPreference,
    Preferences,
    RandomPower,
    Requested,
    parse_name,
)
from server.bot_seats import BotSeat, BotSeats
from server.events import ActionReply, HostAction
from server.game_doors import GameDoors, PortInUse
from server.hosted import AdminAction, HostedState, Invitation, new_code
from server.hosting_terms import (
    BAD_REQUEST,
    CONFLICT,
    NOT_FOUND,
    UNAUTHORIZED,
    UNAVAILABLE,
    GameSpec,
    HostingError,
    Origin,
)
from server.schema import utc_now
from server.settings import GameSettings, SettingsError
from server.start_position import check_start
from server.storage_errors import StorageFailure
from server.store import GameRecord, StoreError

if TYPE_CHECKING:
    from server.game import Game
    from server.lobby import Lobby

__all__ = ["BAD_REQUEST", "CONFLICT", "NOT_FOUND", "UNAUTHORIZED", "UNAVAILABLE", "GameSpec",
           "Host", "HostingError", "Origin"]

log = structlog.get_logger("server.hosting")

#: Longest wait for a game's actor to carry out an action (it is normally at once).
ACT_TIMEOUT = 10.0
#: Longest extension at once: a TME value (docs/protocol.md §6.3).
MAX_EXTEND = 8191

class Host:
    """The operations (see the module doc) on a running server's lobby.

    Built by the server (`server.app.Server`) once the lobby runs, reachable
    as ``lobby.host``; every door calls these methods.
    """

    def __init__(self, lobby: Lobby, doors: GameDoors, bots: BotSeats) -> None:
        self.lobby = lobby
        self.doors = doors
        self.bot_seats = bots
        lobby.on_game_over = self._game_over

    # --- creating -------------------------------------------------------------

    async def new_game(self, spec: GameSpec, origin: Origin) -> dict[str, Any]:
        """Create a forming game; returns `game` of it plus ``invitations``
        (power or ``any`` -> code, for the invited players, shown this once)."""
        lobby = self.lobby
        settings: GameSettings = spec.settings
        if lobby.storage_failure is not None:
            raise HostingError("the server cannot save games now; no new game", UNAVAILABLE)
        try:
            variant = load_variant(settings.variant)
            check_start(variant, settings)
        except (VariantError, SettingsError) as exc:
            raise HostingError(str(exc)) from None
        powers = variant.powers
        wanted: dict[str, str] = {}
        for power, who in [*spec.seats.items(), *spec.bots.items()]:
            upper = power.upper()
            if upper not in powers:
                raise HostingError(f"{power!r} is not a power of {variant.name.lower()} "
                                   f"({', '.join(powers)})", NOT_FOUND)
            if upper in wanted:
                raise HostingError(f"{upper} is given two seats")
            if not who.strip():
                raise HostingError(f"the seat of {upper} needs a name")
            wanted[upper] = who
        kinds = self.bots()
        for kind in [*spec.bots.values(), *([spec.fill] if spec.fill else [])]:
            if kind not in kinds:
                raise HostingError(f"no bot called {kind!r} (this server starts: "
                                   f"{', '.join(kinds) or 'none'})", NOT_FOUND)
        if not 0 <= spec.fill_after <= 86400 or math.isnan(spec.fill_after):
            raise HostingError("fill-after must be 0..86400 seconds")
        invitations = [Invitation(new_code(), name, power.upper())
                       for power, name in spec.seats.items()]
        invitations += _invites(spec.invites, variant, [*wanted, *spec.seats.values()])
        if len(invitations) + len(spec.bots) > len(powers):
            raise HostingError(f"{len(invitations) + len(spec.bots)} seats reserved or given "
                               f"to bots, but {variant.name.lower()} has {len(powers)} powers")
        invitations += [Invitation(new_code(), kind, power.upper(), kind)
                        for power, kind in spec.bots.items()]
        fill_later = None
        if spec.fill is not None:
            if spec.fill_after == 0:
                invitations += [Invitation(new_code(), spec.fill, None, spec.fill)
                                for _ in range(len(powers) - len(invitations))]
            else:
                fill_later = spec.fill
        port = settings.port
        if port is None and variant.name != lobby.variant.name:
            port = 0            # the shared port speaks the template's variant
        try:
            listener = await self.doors.listen(port) if port is not None else None
        except PortInUse as exc:
            raise HostingError(str(exc), CONFLICT) from None
        try:
            if listener is not None:
                settings = replace(settings, port=int(listener.socket.getsockname()[1]))
            hosted = HostedState(tuple(invitations), fill=fill_later, fill_after=spec.fill_after)
            action = AdminAction(utc_now(), str(origin), _describe_new(settings, spec, invitations), "done")
            handle = lobby._open_game(settings, hosted=hosted, action=action)
        except StorageFailure:
            if listener is not None:
                await listener.aclose()
            raise HostingError("the server cannot save games now; no new game",
                               UNAVAILABLE) from None
        except BaseException:
            if listener is not None:
                await listener.aclose()
            raise
        if listener is not None:
            self.doors.serve(handle.id, listener)
        self._start_bots(handle.id, hosted)
        if fill_later is not None:
            lobby.nursery.start_soon(self._fill_later, handle.id, fill_later, spec.fill_after)
        log.info("game_created", game=handle.id, by=str(origin), variant=variant.name.lower(),
                 port=settings.port)
        answer = self.game(handle.id)
        answer["invitations"] = {i.power or i.name: i.code for i in invitations if i.bot is None}
        return answer

    def _start_bots(self, game_id: int, hosted: HostedState) -> None:
        """Start the bots of a forming game's bot invitations."""
        for invitation in hosted.invitations:
            if invitation.bot is not None:
                self.bot_seats.start(BotSeat(game_id, invitation.bot,
                                             f"{invitation.bot} [invite {invitation.code}]",
                                             self._port_of(game_id)))

    async def _fill_later(self, game_id: int, kind: str, after: float) -> None:
        """A forming game that waited ``after`` seconds: bots into its free seats."""
        await trio.sleep(after)
        handle = self.lobby.games.get(game_id)
        if handle is None or handle.status != "forming":
            return
        origin = Origin("server", "-", "fill after waiting")
        while True:
            try:
                await self.fill(game_id, kind, None, origin)
            except HostingError:
                return

    def _port_of(self, game_id: int) -> int:
        handle = self.lobby.games.get(game_id)
        port = handle.port if handle is not None else None
        return port if port is not None else self.lobby.tcp_port

    def restore(self) -> None:
        """After a restart: doors opened again are the caller's (`reopen_doors`); bots
        start into their seats - IAM in a running game, their invitation in a forming one."""
        for handle in list(self.lobby.games.values()):
            hosted = handle.hosted
            if hosted is None:
                continue
            if handle.status == "forming":
                self._start_bots(handle.id, hosted)
            else:
                for power, kind in hosted.bots.items():
                    code = handle.passcodes.get(power)
                    if code is not None:
                        self.bot_seats.start(BotSeat(handle.id, kind, kind,
                                                     self._port_of(handle.id), (power, code)))

    async def reopen_doors(self) -> None:
        """After a restart: every resumed game with a port of its own listens again."""
        for handle in list(self.lobby.games.values()):
            if handle.port is None:
                continue
            try:
                listener = await self.doors.listen(handle.port)
            except PortInUse as exc:
                log.error("game_door_not_reopened", game=handle.id, reason=str(exc))
                continue
            self.doors.serve(handle.id, listener)

    def _game_over(self, game_id: int) -> None:
        self.doors.close(game_id)
        self.bot_seats.stop_game(game_id)

    # --- reading ---------------------------------------------------------------

    def games(self) -> list[dict[str, Any]]:
        """Every game of the server, oldest first."""
        try:
            return [self._view(record) for record in self.lobby.store.games()]
        except StoreError as exc:
            raise HostingError(str(exc), UNAVAILABLE) from None

    def game(self, game_id: int) -> dict[str, Any]:
        """One game, with its admin log."""
        record = self._record(game_id)
        view = self._view(record)
        view["log"] = self.log(game_id)
        return view

    def log(self, game_id: int) -> list[dict[str, Any]]:
        """The admin actions on the game, oldest first: ``{"at", "origin", "action", "outcome"}``."""
        self._record(game_id)
        return [vars(a).copy() for a in self.lobby.store.admin_log(game_id)]

    def variants(self) -> list[str]:
        return list(variant_names())

    def bots(self) -> list[str]:
        return self.bot_seats.kinds()

    def _record(self, game_id: int) -> GameRecord:
        try:
            return self.lobby.store.game(game_id)
        except StoreError:
            raise HostingError(f"there is no game {game_id}", NOT_FOUND) from None

    def _view(self, record: GameRecord) -> dict[str, Any]:
        handle = self.lobby.games.get(record.id)
        settings = record.settings
        hosted = handle.hosted if handle is not None else record.hosted
        status = handle.status if handle is not None else record.status
        seats = [{"power": s.power, "name": s.client_name, "version": s.client_version}
                 for s in record.seats]
        view: dict[str, Any] = {
            "id": record.id, "name": settings.name, "variant": settings.variant.lower(),
            "status": status, "turn": record.turn, "settings": _public_settings(settings),
            "port": settings.port if settings.port is not None else self.lobby.tcp_port,
            "own_port": settings.port is not None,
            "hosted": hosted is not None,
            "paused": bool(hosted and hosted.paused), "seats": seats,
            "bots": dict(hosted.bots) if hosted else {},
            "created_at": record.created_at, "started_at": record.started_at,
            "finished_at": record.finished_at,
        }
        if handle is not None and status != "finished":
            # As /api/games (`server.web_api`): forming, the powers nobody asked for by
            # name and no invitation reserves; running, those in civil disorder.
            names = handle.variant.map.power_names
            view["free_powers"] = [{"power": p, "name": names.get(p) or p}
                                   for p in handle.free_powers]
        if status == "forming" and handle is not None:
            view["free_seats"] = handle.open_seats
            view["invited"] = [{"power": i.power, "name": i.name, "bot": i.bot}
                               for i in (hosted.invitations if hosted else ())]
        return view

    # --- acting on a game (in its actor: server.game_admin) ---------------------

    async def _act(self, game_id: int, what: str, origin: Origin,
                   act: Callable[[Game], dict[str, Any]]) -> dict[str, Any]:
        handle = self.lobby.games.get(game_id)
        if handle is None or handle.status == "finished":
            self._record(game_id)       # 404 if there is no such game at all
            self._refused(game_id, origin, what, f"game {game_id} is over")
            raise HostingError(f"game {game_id} is over", CONFLICT)
        reply = ActionReply()
        try:
            await handle.send(HostAction(act, reply))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise HostingError(f"game {game_id} is over", CONFLICT) from None
        with trio.move_on_after(ACT_TIMEOUT):
            await reply.done.wait()
        if not reply.done.is_set():
            raise HostingError(f"game {game_id} did not answer; nothing may have changed",
                               UNAVAILABLE)
        if reply.error is not None:
            if isinstance(reply.error, HostingError):
                self._refused(game_id, origin, what, reply.error.message)
                raise reply.error
            if isinstance(reply.error, StorageFailure):
                raise HostingError("the server cannot save games now", UNAVAILABLE)
            raise HostingError(f"game {game_id} could not do it (an internal error, logged)",
                               UNAVAILABLE)
        assert reply.value is not None
        return reply.value

    def _refuse(self, game_id: int, origin: Origin, what: str,
                error: HostingError) -> HostingError:
        """A refusal found before the game is asked: logged on the game like every other
        (`HostingError` 404 instead if there is no such game)."""
        self._record(game_id)
        self._refused(game_id, origin, what, error.message)
        return error

    def _refused(self, game_id: int, origin: Origin, what: str, why: str) -> None:
        try:
            self.lobby.store.record_admin(game_id, AdminAction(utc_now(), str(origin), what,
                                                               f"refused: {why}"))
        except (StorageFailure, StoreError):
            pass

    async def pause(self, game_id: int, origin: Origin) -> dict[str, Any]:
        return await self._act(game_id, "pause", origin,
                               lambda game: game_admin.pause(game, str(origin)))

    async def resume(self, game_id: int, origin: Origin) -> dict[str, Any]:
        return await self._act(game_id, "resume", origin,
                               lambda game: game_admin.resume(game, str(origin)))

    async def extend(self, game_id: int, seconds: int, origin: Origin) -> dict[str, Any]:
        if not 1 <= seconds <= MAX_EXTEND:
            raise self._refuse(game_id, origin, f"extend {seconds}", HostingError(
                f"an extension is 1..{MAX_EXTEND} seconds, not {seconds}"))
        return await self._act(game_id, f"extend {seconds}", origin,
                               lambda game: game_admin.extend(game, seconds, str(origin)))

    async def end(self, game_id: int, origin: Origin) -> dict[str, Any]:
        return await self._act(game_id, "end", origin,
                               lambda game: game_admin.end(game, str(origin)))

    async def eject(self, game_id: int, power: str, origin: Origin) -> dict[str, Any]:
        """Returns ``{"power": P, "passcode": N, ...}``: the new passcode, for the admin only."""
        return await self._act(game_id, f"eject {power}", origin,
                               lambda game: game_admin.eject(game, power, str(origin)))

    async def fill(self, game_id: int, bot: str, power: str | None,
                   origin: Origin) -> dict[str, Any]:
        """A server-started bot into a free seat (forming) or a power in civil disorder."""
        if bot not in self.bots():
            raise self._refuse(game_id, origin, f"fill {bot}", HostingError(
                f"no bot called {bot!r} (this server starts: "
                f"{', '.join(self.bots()) or 'none'})", NOT_FOUND))
        answer = await self._act(game_id, f"fill {bot}", origin,
                                 lambda game: game_admin.seat_bot(game, bot, power, str(origin)))
        port = self._port_of(game_id)
        if "invitation" in answer:
            code = answer.pop("invitation")
            self.bot_seats.start(BotSeat(game_id, bot, f"{bot} [invite {code}]", port))
        else:
            rejoin = (answer["power"], answer.pop("passcode"))
            self.bot_seats.start(BotSeat(game_id, bot, bot, port, rejoin))
        return answer


def _public_settings(settings: GameSettings) -> dict[str, Any]:
    """The settings a host and players may see (all of them: no secret is a setting)."""
    data = vars(settings).copy()
    data.pop("start", None)
    return data


def _invites(invites: tuple[str, ...], variant: Variant,
             taken: list[str]) -> list[Invitation]:
    """The invitations of ``GameSpec.invites``: a seat without a power for each name,
    with the preference list its name ends with (`server.assignment`, the convention of
    DAIDE names), kept as the list's text until the deal.  ``taken`` are the seats' and
    powers' keys of the answer: a name among them would hide a code."""
    made: list[Invitation] = []
    keys = {k.casefold() for k in taken}
    for text in invites:
        try:
            name, wish = parse_name(text, variant.powers, variant.map.power_names)
        except AssignmentError as exc:
            raise HostingError(f"the invitation {_quoted(text)}: {exc}") from None
        name = " ".join(name.split())
        if not name:
            raise HostingError(f"the invitation {_quoted(text)} needs a name before the list")
        match wish:
            case Preferences(groups):
                listed: str | None = " ".join("=".join(group) for group in groups)
            case RandomPower():
                listed = "random"
            case NoPreference():
                listed = None
            case Requested(power):
                raise HostingError(f"the invitation {_quoted(text)} asks for {power} alone: "
                                   f"reserve it with a seat ({power}="
                                   f"{name.partition(':')[2].strip() or 'NAME'}) instead")
            case _:
                raise HostingError(f"the invitation {_quoted(text)} cannot name another "
                                   "invitation")
        if name.casefold() in keys:
            raise HostingError(f"{_quoted(name)} is invited twice (or is a power's name)")
        keys.add(name.casefold())
        made.append(Invitation(new_code(), name, None, None, listed))
    return made


def _quoted(text: str, size: int = 40) -> str:
    """A host's text in a one-line message: its repr, at most ``size`` characters."""
    return repr(text if len(text) <= size else text[:size] + "...")


def _describe_new(settings: GameSettings, spec: GameSpec,
                  invitations: list[Invitation]) -> str:
    words = [f"new {settings.variant.lower()} game", f"level {settings.level}"]
    words += [f"{k} {getattr(settings, k)}" for k in ("mtl", "rtl", "btl", "ptl")
              if getattr(settings, k) is not None]
    if settings.port is not None:
        words.append(f"port {settings.port}")
    if spec.seats:
        words.append("seats " + ", ".join(f"{p}={n}" for p, n in spec.seats.items()))
    if spec.invites:
        # Names only: a preference list is never logged (docs/hosting.md).
        words.append("invites " + ", ".join(i.name for i in invitations
                                            if i.power is None and i.bot is None))
    if spec.bots:
        words.append("bots " + ", ".join(f"{p}={b}" for p, b in spec.bots.items()))
    if spec.fill:
        words.append(f"fill {spec.fill}" + (f" after {spec.fill_after:g} s"
                                            if spec.fill_after else ""))
    return ", ".join(words)
