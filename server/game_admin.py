"""A host's actions on one game, run inside its actor (`server.game.Game`).

`server.hosting.Host` sends each as a `server.events.Command` whose ``act``
is one of these functions with its arguments bound: they run between two
events of the game, like everything else that changes it, and either
change the game and store the change with the admin action in one
transaction (`server.store.Store.record_admin`), or raise `HostingError`
having changed nothing.  Every client of the game hears what the host did
(ADM from ``Server``, and TME with the time left when the clock changes:
docs/hosting.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from protocol.messages import Adm, Ccd, NotMessage, Tme
from server.deadline import whole_seconds
from server.forming import new_passcode
from server.hosted import AdminAction, HostedState, Invitation, new_code
from server.hosting_terms import CONFLICT, NOT_FOUND, HostingError
from server.schema import utc_now

if TYPE_CHECKING:
    from server.game import Game


def _action(origin: str, what: str, outcome: str = "done") -> AdminAction:
    return AdminAction(utc_now(), origin, what, outcome)


def _hosted(game: Game) -> HostedState:
    return game.hosted if game.hosted is not None else HostedState()


def _set_hosted(game: Game, state: HostedState) -> None:
    game.hosted = game.handle.hosted = state


def _running(game: Game, what: str) -> None:
    if game.handle.status == "finished":
        raise HostingError(f"game {game.handle.id} is over: it cannot {what}", CONFLICT)
    if game.handle.status != "running":
        raise HostingError(f"game {game.handle.id} has not started: it cannot {what}", CONFLICT)


def _tell(game: Game, text: str) -> None:
    game._broadcast(Adm("Server", text))


def _clock_news(game: Game) -> None:
    left = game.clock.remaining()
    if left is not None:
        tme = Tme(whole_seconds(left))
        game._broadcast(NotMessage(tme) if game.clock.paused else tme)


def _not_over(game: Game, what: str) -> None:
    if game.handle.status == "finished":
        raise HostingError(f"game {game.handle.id} is over: it cannot {what}", CONFLICT)


def pause(game: Game, origin: str) -> dict[str, Any]:
    """A forming game may be paused too: it starts with its clock standing."""
    _not_over(game, "be paused")
    if game.paused:
        raise HostingError(f"game {game.handle.id} is already paused", CONFLICT)
    state = replace(_hosted(game), paused=True)
    game.store.record_admin(game.handle.id, _action(origin, "pause"), hosted=state)
    _set_hosted(game, state)
    if game.running and game.clock.running:
        game.clock.pause()
    _tell(game, "The host has paused the game: the clock stands until it resumes.")
    _clock_news(game)
    game.log.info("game_paused", by=origin)
    return {"game": game.handle.id, "paused": True}


def resume(game: Game, origin: str) -> dict[str, Any]:
    _not_over(game, "be resumed")
    if not game.paused:
        raise HostingError(f"game {game.handle.id} is not paused", CONFLICT)
    state = replace(_hosted(game), paused=False)
    game.store.record_admin(game.handle.id, _action(origin, "resume"), hosted=state)
    _set_hosted(game, state)
    _tell(game, "The host has resumed the game.")
    if game.running:
        game._maybe_resume_clock()          # TME with the time left, if the clock runs again
    game.log.info("game_resumed_by_host", by=origin)
    return {"game": game.handle.id, "paused": False}


def extend(game: Game, seconds: int, origin: str) -> dict[str, Any]:
    _running(game, "have its deadline moved")
    if game.clock.remaining() is None:
        raise HostingError(f"game {game.handle.id} has no deadline in this phase", CONFLICT)
    game.store.record_admin(game.handle.id, _action(origin, f"extend {seconds}"))
    left = game.clock.extend(seconds)
    _tell(game, f"The host has given {seconds} more seconds to this phase.")
    _clock_news(game)
    game.log.info("deadline_extended", by=origin, seconds=seconds)
    return {"game": game.handle.id, "seconds_left": whole_seconds(left)}


def end(game: Game, origin: str) -> dict[str, Any]:
    _running(game, "be ended")
    survivors = game.engine.survivors()
    game.store.record_admin(game.handle.id, _action(origin, "end"))
    _tell(game, "The host has ended the game: a draw between the powers still in it.")
    game.declare_draw(frozenset(survivors))
    game.log.info("game_ended_by_host", by=origin)
    return {"game": game.handle.id, "draw": sorted(survivors)}


def eject(game: Game, power: str, origin: str) -> dict[str, Any]:
    power = _power(game, power)
    _running(game, "have a player ejected")
    seat = game.seats[power]
    code = new_passcode(power, game.passcode_taken)
    state = _hosted(game)
    if power in state.bots:
        state = replace(state, bots={p: b for p, b in state.bots.items() if p != power})
    game.store.record_admin(game.handle.id, _action(origin, f"eject {power}"), hosted=state,
                            seat=replace(seat, passcode=code))
    _set_hosted(game, state)
    game.seats[power] = replace(seat, passcode=code)
    game.handle.passcodes[power] = code
    client = game.players.get(power)
    if client is not None:
        game._retire(client, "ejected by the host")
        game.players[power] = None
        game.away_since[power] = game.clock.now()
        game._broadcast(Ccd(power))
        game._maybe_pause_clock()
    _tell(game, f"The host has removed the player of {power}; a replacement may take it over.")
    game.log.info("player_ejected", by=origin, power=power)
    return {"game": game.handle.id, "power": power, "passcode": code}


def seat_bot(game: Game, bot: str, power: str | None, origin: str) -> dict[str, Any]:
    """A server-started bot takes a seat: an invitation in a forming game, a power in
    civil disorder (its passcode, for the bot's IAM) in a running one."""
    if power is not None:
        power = _power(game, power)
    state = _hosted(game)
    if game.handle.status == "forming":
        taken = {i.power for i in state.invitations if i.power is not None}
        if power is not None and power in taken:
            raise HostingError(f"{power} is already reserved in game {game.handle.id}", CONFLICT)
        if len(game.variant.powers) - game.handle.claimed - len(state.invitations) <= 0:
            raise HostingError(f"game {game.handle.id} has no free seat", CONFLICT)
        invitation = Invitation(new_code(), bot, power, bot)
        state = state.with_invitations(invitation)
        game.store.record_admin(game.handle.id, _action(
            origin, f"fill {bot}" + (f" as {power}" if power else "")), hosted=state)
        _set_hosted(game, state)
        game.log.info("bot_invited", by=origin, bot=bot, power=power)
        return {"game": game.handle.id, "bot": bot, "power": power, "invitation": invitation.code}
    _running(game, "take a bot")
    candidates = [p for p in game.variant.powers if game.players.get(p) is None
                  and p in game.engine.survivors() and p not in state.bots]
    if power is None:
        if not candidates:
            raise HostingError(f"no power of game {game.handle.id} is in civil disorder",
                               CONFLICT)
        power = candidates[0]
    elif power not in candidates:
        raise HostingError(f"{power} is not in civil disorder in game {game.handle.id}",
                           CONFLICT)
    state = replace(state, bots={**state.bots, power: bot})
    game.store.record_admin(game.handle.id, _action(origin, f"fill {bot} as {power}"),
                            hosted=state)
    _set_hosted(game, state)
    game.log.info("bot_seated", by=origin, bot=bot, power=power)
    return {"game": game.handle.id, "bot": bot, "power": power,
            "passcode": game.seats[power].passcode}


def _power(game: Game, power: str) -> str:
    upper = power.upper()
    if upper not in game.variant.powers:
        raise HostingError(f"{power!r} is not a power of {game.variant.name.lower()} "
                           f"({', '.join(game.variant.powers)})", NOT_FOUND)
    return upper


def record(game: Game, origin: str, what: str, outcome: str = "done") -> None:
    """Store an action that changes nothing in the game itself (a refused one, too)."""
    game.store.record_admin(game.handle.id, _action(origin, what, outcome))

