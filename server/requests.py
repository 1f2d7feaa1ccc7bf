"""Answers to the messages a client of a game sends (docs/protocol.md §7-16).

`answer` is called by the game actor (`server.game.Game`) for every parsed
message of a client that joined its game; grammar errors were already
answered (PRN/HUH) by the connection.  It sees the game only through
`GameDesk`, the part of the game a request may read or act on, and leaves
joining (`map_answer`), press (`relay_press`) and draws (`declare_draw`) to
the game itself.  Here the *role* decides (docs/protocol.md
§7.2): a message the sender's role may not send is answered with HUH and ERR
before its first token - the reference server's ``HUH ( ERR DRW )`` to an
observer.  The rest is the catalogue of YES/REJ forms of section 8.13;
press (SND) goes to the game's relay, `server.press`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import structlog

from adjudicator.validate import MBV
from engine.position import Engine
from orders import Order
from protocol.codec import Codec
from protocol.messages import (
    Adm,
    Drw,
    Gof,
    Hlo,
    HloRequest,
    Hst,
    Huh,
    Iam,
    MapMessage,
    MapRequest,
    MdfRequest,
    Message,
    Mis,
    MisRequest,
    Nme,
    NotMessage,
    NowRequest,
    Obs,
    OrdRequest,
    Prn,
    Rej,
    ScoRequest,
    SmrRequest,
    Snd,
    Sub,
    Thx,
    Tme,
    Yes,
)
from protocol.tokens import Representation
from server.deadline import PhaseClock, TimeRequests, whole_seconds
from server.history import History
from server.session import Client, Role
from server.settings import GameSettings
from server.turn import TurnState
from server.wire import Packet

log = structlog.get_logger("server.requests")

#: What only a player may send (docs/protocol.md §7.2, "player, level 0+" and "10+").
#: SND is not here: 16.1 and 16.6 answer an observer's SND with REJ (`server.press`).
PLAYER_ONLY = (Sub, MisRequest, Gof, OrdRequest, Drw)


class GameDesk(Protocol):
    """What answering a request needs of a game (`server.game.Game` is one)."""

    @property
    def variant_name(self) -> str: ...

    mdf: Packet
    """The MDF, encoded once."""
    rep: Representation
    """What the game's connections speak."""
    codec: Codec
    """The server's encoder for ``rep`` (THX, MIS)."""
    settings: GameSettings
    engine: Engine
    turn: TurnState
    """Orders, GOF and draw votes of the current phase."""
    history: History
    clock: PhaseClock
    time_requests: TimeRequests
    end_messages: tuple[Message, ...]

    @property
    def running(self) -> bool: ...

    @property
    def finished(self) -> bool: ...

    def hlo(self, power: str | None) -> Hlo: ...

    def audience(self, include: Client | None = None) -> list[Client]: ...

    def missing(self, power: str) -> Mis | None: ...

    def save_orders(self, power: str) -> None: ...

    def note_refused(self, power: str, refused: Sequence[tuple[Order, str]]) -> None: ...

    def map_answer(self, client: Client, accepted: bool) -> None: ...

    def relay_press(self, client: Client, message: Snd, tokens: tuple[int, ...]) -> None: ...

    def declare_draw(self, powers: frozenset[str]) -> None: ...


def answer(game: GameDesk, client: Client, message: Message, tokens: tuple[int, ...]) -> None:
    """Answer one message from ``client`` (a member of ``game``)."""
    player = client.role in (Role.PLAYER, Role.JOINING)
    if isinstance(message, Sub):        # the message a game gets most: no tour of the cases
        if player:
            _sub(game, client, message)
        else:
            client.send(Huh.at(tokens, 0))
        return
    if isinstance(message, (Huh, Prn)):
        log.info("client_complained", conn=client.id, kind=message.COMMAND)
        return
    if isinstance(message, PLAYER_ONLY) or _player_not(message):
        if not player:
            client.send(Huh.at(tokens, 0))
            return
    match message:
        case Yes(MapMessage()) | Rej(MapMessage()):
            if client.role in (Role.JOINING, Role.WATCHING):
                game.map_answer(client, isinstance(message, Yes))
        case Yes() | Rej():
            pass        # YES/REJ (SVE ...), (LOD ...): the server saves nothing (8.5)
        case Nme() | Obs() | Iam():
            # A client that already joined may not take another seat (13.2).
            client.send(Rej(message))
        case MapRequest():
            client.send(MapMessage(game.variant_name))
        case MdfRequest():
            client.send(game.mdf)
        case HloRequest():
            _hlo(game, client, message)
        case ScoRequest():
            client.send(game.engine.sco_message())
        case NowRequest():
            client.send(game.engine.now_message())
        case Hst():
            _hst(game, client, message)
        case NotMessage(Sub() as inner):
            _not_sub(game, client, message, inner)
        case MisRequest():
            _mis(game, client, message)
        case Gof():
            _gof(game, client, message)
        case NotMessage(Gof()):
            _not_gof(game, client, message)
        case OrdRequest():
            # Also after the end, while the game lingers (`server.game_actor`).
            results = game.history.last_results() if game.running or game.finished else []
            if not results:
                client.send(Rej(message))
            for result in results:
                client.send(result)
        case Tme() | NotMessage(Tme()):
            _tme(game, client, message)
        case Drw():
            _drw(game, client, message)
        case NotMessage(Drw() as inner):
            _not_drw(game, client, message, inner)
        case Adm():
            for member in game.audience(include=client):
                member.send(message)
        case SmrRequest():
            if game.end_messages:
                for end in game.end_messages:
                    client.send(end)
            else:
                client.send(Rej(message))
        case Snd():
            game.relay_press(client, message, tokens)
        case _:
            client.send(Huh.at(tokens, 0))


def _player_not(message: Message) -> bool:
    return isinstance(message, NotMessage) and isinstance(message.message, (Sub, Gof, Drw))


def _playing(game: GameDesk, client: Client) -> str | None:
    """The power of a player of a running game, else None."""
    if game.running and client.role is Role.PLAYER and client.power is not None:
        return client.power
    return None


def _hlo(game: GameDesk, client: Client, message: Message) -> None:
    if not game.running and not game.finished:
        client.send(Rej(message))
    elif client.role is Role.PLAYER:
        client.send(game.hlo(client.power))
    else:
        # Observers get their HLO (UNO) again (Parlance; docs/protocol.md §8.1 [U]).
        client.send(game.hlo(None))


def _hst(game: GameDesk, client: Client, message: Hst) -> None:
    if message.turn is None:
        # Bare HST: semantics undocumented; Parlance sends the starting SCO and NOW.
        if game.history:
            client.send(game.history[0].sco)
            client.send(game.history[0].now)
        else:
            client.send(game.engine.sco_message())
            client.send(game.engine.now_message())
        return
    found = game.history.of_turn(str(message.turn))
    if found is None:
        client.send(Rej(message))
        return
    for item in found:
        client.send(item)


def _sub(game: GameDesk, client: Client, message: Sub) -> None:
    power = _playing(game, client)
    asked, phase = message.turn, game.engine.state.phase
    if power is None or (asked is not None
                         and (asked.year != phase.year or asked.season != phase.season)):
        # Not started (or over), or a turn other than the current one: the
        # whole message is rejected (docs/protocol.md §8.3).
        client.send(Rej(message))
        return
    turn, engine, aoa, codec = game.turn, game.engine, game.settings.aoa, game.codec
    # The THXs and the MIS go out as one packet: one queue item, one write.
    frames: list[bytes] = []
    refused: list[tuple[Order, str]] = []
    for order in message.orders:
        # AOA (docs/protocol.md §9.2): every grammatical order is accepted; the
        # adjudicator shows the note it would have had as its ORD result.
        note = MBV if aoa else engine.check(power, order, turn.held(power))
        if note == MBV:
            turn.accept(power, order)
        else:
            refused.append((order, note))
        frames.append(codec.encode(Thx(order, note)).frame)
    game.save_orders(power)          # stored before any THX is sent
    if refused:
        game.note_refused(power, refused)
    missing = game.missing(power)
    if missing is not None:
        frames.append(codec.encode(missing).frame)
    if frames:
        client.send(Packet("THX", b"".join(frames), game.rep))


def _send_missing(game: GameDesk, client: Client, power: str, *, bare: bool) -> None:
    """MIS after a SUB or GOF only when orders are missing; bare MIS only on request."""
    missing = game.engine.missing(power, game.turn.of(power))
    if missing is not None:
        client.send(missing)
    elif bare:
        client.send(Mis())


def _not_sub(game: GameDesk, client: Client, message: NotMessage, inner: Sub) -> None:
    power = _playing(game, client)
    if power is None:
        client.send(Rej(message))
        return
    if not inner.orders:
        game.turn.clear(power)
    elif not game.turn.cancel(power, inner.orders[0]):
        client.send(Rej(message))
        return
    game.save_orders(power)
    client.send(Yes(message))


def _mis(game: GameDesk, client: Client, message: MisRequest) -> None:
    power = _playing(game, client)
    if power is None:
        client.send(Rej(message))
        return
    _send_missing(game, client, power, bare=True)


def _gof(game: GameDesk, client: Client, message: Gof) -> None:
    power = _playing(game, client)
    if power is None:
        client.send(Rej(message))
        return
    game.turn.waiting.discard(power)
    client.send(Yes(message))
    _send_missing(game, client, power, bare=False)


def _not_gof(game: GameDesk, client: Client, message: NotMessage) -> None:
    power = _playing(game, client)
    if power is None or power not in game.engine.survivors():
        client.send(Rej(message))
        return
    game.turn.waiting.add(power)
    client.send(Yes(message))


def _tme(game: GameDesk, client: Client, message: Tme | NotMessage) -> None:
    """TME requests and queries (docs/protocol.md §15)."""
    if isinstance(message, NotMessage):
        inner = message.message
        assert isinstance(inner, Tme)
        if inner.seconds is None:
            game.time_requests.cancel_all(client)
            client.send(Yes(message))
        elif game.time_requests.cancel(client, inner.seconds):
            client.send(Yes(message))
        else:
            client.send(Rej(message))
        return
    if message.seconds is None:
        left = game.clock.remaining() if game.running else None
        if left is None:
            client.send(Rej(message))
        else:
            client.send(Tme(whole_seconds(left)))
        return
    if message.seconds < 0 or not game.settings.has_deadlines \
            or message.seconds > game.settings.longest_limit:
        client.send(Rej(message))
        return
    game.time_requests.add(client, message.seconds)
    client.send(Yes(message))


def _drw(game: GameDesk, client: Client, message: Drw) -> None:
    power = _playing(game, client)
    survivors = game.engine.survivors()
    powers = frozenset(message.powers) if message.powers else None
    if power is None or power not in survivors:
        client.send(Rej(message))
        return
    if powers is not None and (not game.settings.pda or not powers <= survivors or len(powers) < 2):
        # Partial draws need PDA; eliminated powers may not be named (16.2).
        client.send(Rej(message))
        return
    game.turn.vote_draw(power, powers)
    client.send(Yes(message))
    agreed = game.turn.agreed_draw(survivors)
    if agreed is not None:
        game.declare_draw(agreed)


def _not_drw(game: GameDesk, client: Client, message: NotMessage, inner: Drw) -> None:
    power = _playing(game, client)
    if power is None or power not in game.engine.survivors():
        client.send(Rej(message))
        return
    game.turn.withdraw_draw(power, frozenset(inner.powers) if inner.powers else None)
    client.send(Yes(message))


__all__ = ["GameDesk", "answer"]
