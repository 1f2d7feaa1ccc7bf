"""The game actor: one trio task per game, the only writer of its state.

Theory of operation
-------------------
Clients never touch a game directly.  Their connection tasks put events
(`Join`, `Observe`, `Rejoin`, `Request`, `Left`) on the game's inbox, a
bounded memory channel; the actor (`server.game_actor.run_game`) takes them
one at a time and `Game` handles each synchronously, so the rules need no
locks.  Replies go out through `Client.send`, which never blocks.

A game is *forming* until every power has a client that accepted the map,
then *running*, then *finished*.  What concerns the clients of a forming
game - their NMEs, invitations and claims, and the deal of the powers that
starts it - is `server.forming.Forming`'s, which the game owns and hands
those events; the game does the start itself (stored, then HLO, SCO, NOW)
and everything after it.  While running, the actor waits for the
next event inside ``trio.move_on_at(wakeup)``: the wakeup is the phase
deadline (a cancel scope - a DSD pause or resume just changes the value
used for the next wait) or an earlier TME request.  A phase is processed
when every power that is waited for is ready (`Game._ready`) or at the
deadline; `Game._process` stores the phase in one transaction *before*
announcing it (ORD..., SCO, SLO, NOW, TME - docs/protocol.md §8.4).

Civil disorder (docs/protocol.md §13): a player's lost connection broadcasts
``CCD (power)``; its missing orders get the adjudicator's defaults (hold,
disband, waive, removals by the rulebook) when the phase is processed.
Who is waited for:

* a power that owes orders, until its set is complete and it has no NOT
  (GOF) outstanding (GOF is never required: docs/protocol.md §19.4) - complete
  orders count even if the power's client has gone since;
* a disconnected power without complete orders only through the deadline: in a phase *with* a
  deadline the game waits for it (with DSD the clock even stops while it is
  away); in a phase *without* a deadline it is waited for at most
  ``disorder_grace`` seconds from the moment it went away (time to come
  back with IAM), then no more, so a game without deadlines cannot hang on
  a vanished player;
* when no power still in the game has its client connected, the game is
  suspended - clock stopped, nothing processed, a ``game_suspended`` log
  line - until a player comes back with IAM.  Every game resumed after a
  restart starts like this.

Phases are processed one per pass of the loop, with a checkpoint between
them, so a run of phases nobody waits for never starves other tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import structlog
import trio

from engine.convert import now_message, ord_messages, order_from_node
from engine.position import Engine, Outcome
from engine.variants import Variant
from orders import Order
from protocol.codec import Codec
from protocol.messages import (
    Ccd,
    Hlo,
    Huh,
    MapMessage,
    Message,
    Mis,
    NotMessage,
    Now,
    Off,
    Ord,
    Out,
    Rej,
    Sco,
    Slo,
    Smr,
    SmrEntry,
    Snd,
    Tme,
    Yes,
)
from protocol.parse import Sender, parse_message
from protocol.press import ReceivedPress
from protocol.text import parse_text, render_text, tree_from_text
from server import refusals
from server.deadline import PhaseClock, TimeRequests, whole_seconds
from server.endings import Ending, HouseRules, YearTable, elimination_years
from server.events import (
    ActionReply,
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
from server.forming import Forming
from server.history import History, PlayedPhase
from server.hosted import HostedState
from server.press import (
    Deliver,
    Eliminated,
    InDisorder,
    PressRelay,
    RateLimited,
    Refused,
    Situation,
    Unreadable,
    delivered_frm,
    recipients_once,
    wire_representation,
)
from server.requests import answer
from server.session import Client, Role
from server.settings import GameSettings
from server.start_position import starting_engine
from server.store import GameRecord, Seat, Store
from server.turn import TurnState
from server.wire import Encoded, Packet, encode, join

log = structlog.get_logger("server.game")

class Game:
    """One game's state and rules of play; see the module docstring."""

    def __init__(self, handle: GameHandle, inbox: trio.MemoryReceiveChannel[Event],
                 store: Store, variant: Variant, settings: GameSettings, *,
                 passcode_taken: Callable[[str, int], bool] = lambda p, c: False,
                 disorder_grace: float = 60.0, linger: float = 0.0,
                 record: GameRecord | None = None, codec: Codec | None = None) -> None:
        self.handle = handle
        self.inbox = inbox
        self.store = store
        self.variant = variant
        self.settings = settings
        self.rules = HouseRules.from_settings(settings)
        self.passcode_taken = passcode_taken
        self.disorder_grace = disorder_grace
        self.linger = linger
        self.linger_until: float | None = None            # set once the game is over
        self.away_since: dict[str, float] = {}           # power in civil disorder -> since
        self.log = log.bind(game=handle.id)
        self.engine = starting_engine(variant, settings)
        self.clock = PhaseClock(trio.current_time)
        self.time_requests = TimeRequests()
        self.press = PressRelay(trio.current_time)        # SND answers, rate limit (16.1)
        # What the game's connections speak: broadcasts are encoded once under it.
        self.rep = wire_representation(variant.rep, settings.press_numbering)
        # The server's codec for that representation (its kept parts serve every game).
        self.codec = codec if codec is not None and codec.rep == self.rep else Codec(self.rep)
        self.mdf = self.encode(variant.mdf).packet        # every client asks for it once
        self._missing_memo: dict[str, tuple[TurnState, int, Mis | None]] = {}
        self._last_sco: tuple[Mapping[str, str], Sco, Encoded] | None = None  # `_sco_of`
        self.turn = TurnState(self.engine.season)
        self.players: dict[str, Client | None] = {}      # power -> client (None = CD)
        # Its clients until the start: joining, accepted, invited (server.forming).
        self.forming = Forming(handle, variant, settings.level, passcode_taken, self.log)
        self.observers: list[Client] = []                 # OBS'd (joined or not yet)
        self.seats: dict[str, Seat] = {}
        self.history = History()
        self.year_tables: list[YearTable] = []            # ownership after each year-end
        self.end_messages: tuple[Message, ...] = ()
        self.suspended = False
        self.hosted: HostedState | None = handle.hosted     # a host's game (server.hosted)
        handle.in_disorder = self.powers_in_disorder      # the lobby's view of free powers
        if record is not None:
            self._restore(record)

    # --- life cycle --------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.handle.status == "running"

    @property
    def finished(self) -> bool:
        return self.handle.status == "finished"

    @property
    def variant_name(self) -> str:
        """The MAP name (`engine.variants.Variant.name`)."""
        return self.variant.name

    # The actor's loop is `server.game_actor.run_game`; it drives the game
    # through these five steps.

    def begin(self) -> None:
        """Before the first event: a running game (resumed after a restart) starts its clock."""
        if self.running:
            self._start_phase(announce=False)

    def step(self, event: Event) -> None:
        """Handle one event from the inbox (a failure is logged, never raised)."""
        self._guarded(self._handle, event)

    def tick(self) -> None:
        """After every event or wakeup (`_tick`; a failure is logged, never raised)."""
        self._guarded(self._tick)

    def wakeup(self) -> float:
        """When the actor's wait for its next event ends (`trio.move_on_at`)."""
        return self._wakeup()

    def close(self, reason: str) -> None:
        """The actor ends: OFF and close for every client (the state is already stored)."""
        if self.handle.status != "finished":
            self._shutdown()
        else:
            self._dismiss(reason)

    def all_clients(self) -> list[Client]:
        """Players, joining clients and observers (the linger lasts while there are any)."""
        return self._all_clients()

    def _dismiss(self, reason: str) -> None:
        """The end of a finished game: OFF, then an orderly close (FM), for every
        client still here (docs/protocol.md §4.4, §19.8: bots wait for the OFF)."""
        for client in self._all_clients():
            client.send(Off())
            client.finish(reason)

    def _guarded(self, step: Callable[..., object], *args: object) -> object:
        """Run one step and return its result (None if it failed); a bug costs
        the event that triggered it, never the server."""
        try:
            return step(*args)
        except Exception:
            self.log.exception("game_step_failed", step=step.__name__,
                               trigger=type(args[0]).__name__ if args else None)
            return None

    def _wakeup(self) -> float:
        if self.linger_until is not None:
            # Lingering after the end: until its time is up, or now if nobody is left.
            return self.linger_until if self._all_clients() else -math.inf
        if not self.running:
            return math.inf
        if self._due():
            return -math.inf    # another phase to process: do it after a checkpoint
        wakeup = min(self.clock.deadline, self.time_requests.next_time(self.clock))
        if self.away_since and not self.clock.has_deadline:
            # No deadline: the grace of powers in civil disorder (`away_since`) ends
            # at some point.
            for power in self.engine.owing():
                if self.players.get(power) is None and self._in_grace(power):
                    wakeup = min(wakeup, self.away_since[power] + self.disorder_grace)
        return wakeup

    def _tick(self) -> bool | None:
        """After every event or wakeup: TME requests due, then maybe process.

        True when a phase was processed, False when none was due (None: the
        game is not running).
        """
        if not self.running:
            return None
        for client, seconds in self.time_requests.due(self.clock):
            assert isinstance(client, Client)
            client.send(Tme(seconds))
        if self._due():
            self._process()     # one phase per tick: other tasks run in between
            return True
        return False

    def _due(self) -> bool:
        return self.running and not self.paused and \
            (self._ready() or (self.clock.expired() and self._attended()))

    @property
    def paused(self) -> bool:
        """A host paused the game: its clock stands and no phase is processed."""
        return self.hosted is not None and self.hosted.paused

    def _shutdown(self) -> None:
        """Server shutdown: OFF to every client (docs/protocol.md §4.4); the state is already stored."""
        if self.handle.status == "forming":
            self.store.abandon_forming(self.handle.id)
        for client in self._all_clients():
            client.send(Off())
            client.finish("server shutdown")
        self.log.info("game_closed", status=self.handle.status)

    # --- who is here -----------------------------------------------------------------

    def _all_clients(self) -> list[Client]:
        players = [c for c in self.players.values() if c is not None]
        return players + self.forming.clients() + self.observers

    def audience(self, include: Client | None = None) -> list[Client]:
        """Joined clients (everyone who gets the game's broadcasts), plus ``include``."""
        clients = [c for c in self._all_clients() if c.role.joined]
        if include is not None and include not in clients:
            clients.append(include)
        return clients

    def _broadcast(self, message: Message | Packet) -> None:
        """Send to every joined client, encoding the message once for all of them."""
        audience = self.audience()
        if not audience:
            return
        item = self.encode(message).packet if isinstance(message, Message) else message
        for client in audience:
            client.send(item)

    def _attended(self) -> bool:
        """Some power still in the game has its client connected."""
        survivors = self.engine.survivors()
        return any(c is not None and p in survivors for p, c in self.players.items())

    # --- events ----------------------------------------------------------------------

    def _handle(self, event: Event) -> None:
        match event:
            case Request(client, message, tokens):      # the common event first
                if not client.closed:
                    answer(self, client, message, tokens)
            case Join(client, message, invitation):
                self.forming.join(client, message, invitation)
            case Observe(client, message):
                self._on_observe(client, message)
            case Rejoin(client, message, power):
                self._on_rejoin(client, message, power)
            case Left(client):
                self._on_left(client)
            case Announce(message):
                self._broadcast(message)
            case HostAction(act, reply):
                self._on_command(act, reply)

    def _on_command(self, act: Callable[[Game], dict[str, object]],
                    reply: ActionReply) -> None:
        """A host's action (`server.hosting`): its answer, or the error that refused it."""
        try:
            reply.set(act(self))
        except Exception as exc:        # HostingError, or a bug: this action fails only
            if not getattr(exc, "status", None):
                self.log.exception("host_action_failed")
            reply.set(error=exc)

    def _on_observe(self, client: Client, message: Message) -> None:
        client.role = Role.WATCHING
        client.game_id, client.level = self.handle.id, self.settings.level
        # Parlance's OBS ('name') ('version') names the observer (docs/protocol.md §8.1).
        client.name = getattr(message, "name", None) or ""
        client.version = getattr(message, "version", None) or ""
        self.observers.append(client)
        client.send(Yes(message))
        client.send(MapMessage(self.variant.name))
        self.log.info("observing", conn=client.id,
                      **({"client_name": client.name, "client_version": client.version}
                         if client.name else {}))

    def observer_names(self) -> list[str]:
        """The observers of the game, by the names they gave (``'?'`` for a bare OBS)."""
        return [c.name or "?" for c in self.observers]

    def map_answer(self, client: Client, accepted: bool) -> None:
        """YES (MAP 'x') / REJ (MAP 'x') from a joining or watching client (docs/protocol.md §5)."""
        if not accepted:
            # docs/protocol.md §8.1: a REJ (MAP) means the client leaves.
            self._forget(client)
            client.send(Off())
            client.finish("rejected the map")
            return
        if client.role is Role.WATCHING:
            client.role = Role.OBSERVER
            if self.running:
                client.send(self.hlo(None))
                client.send(self.engine.sco_message())
                client.send(self.engine.now_message())
                self.send_time(client)
        elif client.role is Role.JOINING and self.forming.take_map(client):
            self._start_game()

    def _on_rejoin(self, client: Client, message: Message, power: str) -> None:
        if not self.running or power not in self.players:
            client.game_id = None      # still anonymous
            client.send(Rej(message))
            return
        old = self.players[power]
        if old is not None:
            # Takeover (Parlance's optional mode, docs/protocol.md §13.2; the reference
            # server answered REJ).  The right passcode proves the new connection
            # is the power's owner, whose old connection is most likely dead
            # without the server knowing yet (a NAT that forgot it, half-open
            # TCP: keepalive may take hours to tell).  Refusing would keep the
            # power away until then, and would tell a guesser that it found the
            # code.  The old connection gets OFF and is closed.
            self._retire(old, "replaced by a new connection (IAM)")
        seat = self.seats[power]
        self.players[power] = client
        self.away_since.pop(power, None)
        client.role, client.power, client.game_id = Role.PLAYER, power, self.handle.id
        client.level = self.settings.level
        client.name, client.version = seat.client_name, seat.client_version
        client.send(Yes(message))
        if old is None:
            # docs/protocol.md §13.2: NOT (CCD) to everybody, the returning client included.
            self._broadcast(NotMessage(Ccd(power)))
        self.log.info("reconnected", conn=client.id, power=power,
                      **({} if old is None else {"replaced_conn": old.id}))
        self._maybe_resume_clock()

    def powers_in_disorder(self) -> list[str]:
        """The powers of a running game that a replacement may take over (IAM with the
        power's passcode, docs/protocol.md §13.2): still in the game, no client - gone,
        or ejected by the host - and no server-started bot on its way to it."""
        if not self.running:
            return []
        bots = self.hosted.bots if self.hosted is not None else {}
        survivors = self.engine.survivors()
        return [p for p, c in self.players.items()
                if c is None and p in survivors and p not in bots]

    def _retire(self, client: Client, reason: str) -> None:
        """Close a player's connection that a takeover replaced; it speaks for nobody now."""
        self.time_requests.cancel_all(client)
        client.role, client.power, client.game_id = Role.ANONYMOUS, None, None
        client.send(Off())
        client.finish(reason)

    def _on_left(self, client: Client) -> None:
        power = client.power
        if client.role is Role.PLAYER and power is not None and self.players.get(power) is client:
            self.players[power] = None
            self.away_since[power] = trio.current_time()
            self.time_requests.cancel_all(client)
            if self.running:
                if power in self.engine.survivors():
                    self._broadcast(Ccd(power))
                self.log.info("civil_disorder", power=power,
                              reason=client.close_reason or "connection closed")
                self._maybe_pause_clock()
            return
        self._forget(client)

    def _forget(self, client: Client) -> None:
        """Drop a client that is not a player of a running game (13.1: frees its seat)."""
        self.forming.forget(client)
        if client in self.observers:
            self.observers.remove(client)
        self.time_requests.cancel_all(client)
        client.game_id = None

    # --- start -------------------------------------------------------------------------

    def _start_game(self) -> None:
        """Every seat accepted the map: the deal (`server.forming`), stored, then announced."""
        deal = self.forming.deal(self.hosted)
        self.seats = deal.seats
        self.players = dict(deal.players)
        hosted = self.hosted
        if hosted is not None:
            # Dealt: the host-given lists are forgotten with the start (docs/hosting.md).
            hosted = self.hosted = self.handle.hosted = replace(hosted.without_lists(),
                                                                bots=deal.bots)
        sco, sco_e = self._sco_of(self.engine)
        now_e = self.encode(now_message(self.engine.state))
        self.store.start_game(self.handle.id, list(self.seats.values()), str(self.engine.turn),
                              sco_e.text, now_e.text, hosted)
        self.handle.status = "running"
        self.handle.passcodes = {p: s.passcode for p, s in self.seats.items()}
        self.history = History([PlayedPhase("", None, sco_e.packet, now_e.packet)])
        self.year_tables = [(self.engine.turn.year - 1, owners(sco))]
        self.log.info("game_started", powers={p: s.client_name for p, s in self.seats.items()},
                      observers=self.observer_names())
        for power, player in self.players.items():
            assert player is not None
            player.send(self.hlo(power))
        for observer in self.observers:
            if observer.role is Role.OBSERVER:
                observer.send(self.hlo(None))
        self._broadcast(sco_e.packet)
        self._broadcast(now_e.packet)
        self._start_phase(announce=True)

    def hlo(self, power: str | None) -> Hlo:
        """The HLO of a power, or ``HLO (UNO) (0) ...`` for observers (docs/protocol.md §8.1)."""
        variant = self.settings.hlo_variant()
        if power is None:
            return Hlo("UNO", 0, variant)
        return Hlo(power, self.seats[power].passcode, variant)

    # --- restore after a restart ---------------------------------------------------------

    def _restore(self, record: GameRecord) -> None:
        self.seats = {s.power: s for s in record.seats}
        self.players = {p: None for p in self.seats}
        # After a restart every power is away; each gets its grace to come back.
        self.away_since = {p: trio.current_time() for p in self.seats}
        self.handle.status = "running"
        self.handle.passcodes = {p: s.passcode for p, s in self.seats.items()}
        last: tuple[Sco, Now] | None = None
        for stored in self.store.phases(self.handle.id):
            sco, now = self.parse(stored.sco), self.parse(stored.now)
            assert isinstance(sco, Sco) and isinstance(now, Now)
            last = sco, now
            messages = [self.parse(m) for m in stored.messages]
            results = join((self.encode(m).packet for m in messages if isinstance(m, Ord)), "ORD")
            self.history.append(PlayedPhase(stored.turn, results if stored.seq else None,
                                      self.encode(sco).packet, self.encode(now).packet))
            if stored.seq == 0:
                self.year_tables.append((now.turn.year - 1, owners(sco)))
            elif any(isinstance(m, Sco) for m in messages):
                self.year_tables.append((int(stored.turn.split()[1]), owners(sco)))
        assert last is not None, "a running game has its phase 0"
        self.engine = self.variant.position(*last, self.engine.rulebook)
        self.turn = TurnState(self.engine.season)
        for power, texts in record.pending.items():
            for text in texts:
                self.turn.accept(power, self.parse_order(text))
        self.log.info("game_resumed", turn=str(self.engine.turn),
                      pending={p: len(o) for p, o in record.pending.items()})

    def parse(self, text: str) -> Message:
        """A stored server message, back from its text form."""
        return parse_message(parse_text(text, self.variant.rep), self.variant.rep,
                             sender=Sender.SERVER)

    def parse_order(self, text: str) -> Order:
        """A stored order (the text of its node, as `order_text` wrote it)."""
        return order_from_node(tree_from_text(text, self.variant.rep), self.variant.rep)

    # --- phases ----------------------------------------------------------------------------

    def _start_phase(self, *, announce: bool) -> None:
        """Start the clock for the current phase and announce the time (docs/protocol.md §8.4)."""
        self.handle.turn = str(self.engine.turn)       # for the connections (server.refusals)
        self.time_requests.new_phase()
        self.clock.start(self.settings.time_limit(self.engine.season), paused=self._must_pause())
        self.suspended = not self._attended()
        if self.suspended:
            self.log.warning("game_suspended", turn=str(self.engine.turn),
                             reason="no player connected; waiting for IAM")
        if announce:
            time_left = self._time_left()
            if time_left is not None:
                self._broadcast(time_left)      # encoded once for everybody

    def send_time(self, client: Client) -> None:
        """``TME (seconds)``, or ``NOT (TME (seconds))`` while the clock stands (13.1)."""
        time_left = self._time_left()
        if time_left is not None:
            client.send(time_left)

    def _time_left(self) -> Message | None:
        """What `send_time` sends; None without a deadline."""
        left = self.clock.remaining()
        if left is None:
            return None
        tme = Tme(whole_seconds(left))
        return NotMessage(tme) if self.clock.paused else tme

    def _must_pause(self) -> bool:
        """The clock stands while nobody plays, while a host has paused the game, or
        (DSD) while a power owing orders is away."""
        if not self._attended() or self.paused:
            return True
        if self.settings.dsd:
            # 13.1: "if the disconnected power still owed orders".
            return any(self._lacking(p) for p in self.engine.owing() if self.players.get(p) is None)
        return False

    def _lacking(self, power: str) -> bool:
        """The power has no complete set of orders, or asked to wait (NOT (GOF))."""
        return power in self.turn.waiting or not self._complete(power)

    def _complete(self, power: str) -> bool:
        """Whether `missing` is None, without making the MIS `_ready` does not
        send (in a new phase, of every power that has not ordered yet)."""
        turn = self.turn
        revision = turn.revision(power)
        memo = self._missing_memo.get(power)
        if memo is not None and memo[0] is turn and memo[1] == revision:
            return memo[2] is None
        if self.engine.complete(power, turn.held(power)):
            self._missing_memo[power] = (turn, revision, None)
            return True
        return False

    def missing(self, power: str) -> Mis | None:
        """The power's MIS for the current phase, or None when its orders are complete.

        Remembered until its orders change: `_ready` asks about every power
        after every event, and most events change nobody's orders.
        """
        turn = self.turn
        revision = turn.revision(power)
        memo = self._missing_memo.get(power)
        if memo is not None and memo[0] is turn and memo[1] == revision:
            return memo[2]
        mis = self.engine.missing(power, turn.held(power))
        self._missing_memo[power] = (turn, revision, mis)
        return mis

    def _maybe_pause_clock(self) -> None:
        if self.clock.running and self._must_pause():
            left = self.clock.pause()
            self._broadcast(NotMessage(Tme(whole_seconds(left))))
            self.log.info("clock_paused", seconds=whole_seconds(left))
        if not self._attended() and not self.suspended:
            self.suspended = True
            self.log.warning("game_suspended", turn=str(self.engine.turn),
                             reason="no player connected; waiting for IAM")

    def _maybe_resume_clock(self) -> None:
        if self.suspended and self._attended():
            self.suspended = False
            self.log.info("game_continues", turn=str(self.engine.turn))
        if self.clock.paused and not self._must_pause():
            left = self.clock.resume()
            self._broadcast(Tme(whole_seconds(left)))
            self.log.info("clock_resumed", seconds=whole_seconds(left))

    def _ready(self) -> bool:
        """Every power waited for has a complete set of orders and no NOT (GOF)."""
        if not self._attended():
            return False
        for power in self.engine.owing():
            if not self._lacking(power):
                continue        # complete orders count, whether its client is here or not
            if self.players.get(power) is not None:
                return False
            if self.clock.has_deadline or self._in_grace(power):
                return False    # away: waited for until the deadline, or during its grace
        return True

    def _in_grace(self, power: str) -> bool:
        since = self.away_since.get(power)
        return since is not None and trio.current_time() < since + self.disorder_grace

    def press_closed(self) -> bool:
        """PTL: no press in the last seconds before a movement deadline (docs/protocol.md §15)."""
        left = self.clock.remaining()
        return (self.settings.ptl is not None and self.engine.season in ("SPR", "FAL")
                and left is not None and left <= self.settings.ptl)

    # --- press (docs/protocol.md §16.1; the verdicts are server.press's) -------------

    def relay_press(self, client: Client, message: Snd, tokens: tuple[int, ...]) -> None:
        """Answer one SND from ``client`` with the relay's verdict, and carry it out."""
        player = client.power if client.role is Role.PLAYER and self.running else None
        match self.press.verdict(player, message, self.press_situation, self.variant.rep):
            case RateLimited():
                client.send(Rej(message))
            case Unreadable(position):
                client.send(Huh.at(tokens, position))
            case Refused(reason):
                self.log.info("press_refused", conn=client.id, power=client.power, reason=reason)
                client.send(Rej(message))
            case Eliminated(power):
                client.send(Out(power))
            case InDisorder(power):
                client.send(Ccd(power))
            case Deliver(delivery):
                self._deliver_press(client, message, delivery)

    def press_situation(self) -> Situation:
        """The game as the press relay's `server.press.judge` sees it now."""
        connected = frozenset(p for p, c in self.players.items() if c is not None and not c.closed)
        settings = self.settings
        return Situation(
            running=self.running, turn=self.engine.turn, level=settings.level,
            survivors=self.engine.survivors(), connected=connected,
            powers=tuple(self.variant.powers), npr=settings.npr, npb=settings.npb,
            press_closed=self.press_closed())

    def _deliver_press(self, client: Client, message: Snd, delivery: ReceivedPress) -> None:
        frm = delivered_frm(message, delivery)
        rep = self.variant.rep
        # Persist before announcing (docs/architecture.md "One turn", step 4).
        seq = self.store.save_press(
            self.handle.id, str(self.engine.turn), delivery.sender, delivery.recipients,
            render_text(frm.to_tokens(rep), rep))
        self.log.debug("press_relayed", seq=seq, sender=delivery.sender,
                       recipients=list(delivery.recipients))
        client.send(Yes(message))
        for recipient in recipients_once(delivery.recipients):
            target = self.players.get(recipient)
            if target is not None:
                target.send(frm)

    def _process(self) -> None:
        """Adjudicate the phase, store it, then announce it (docs/architecture.md "One turn")."""
        started = trio.current_time()
        processed = self.engine.turn
        turn = str(processed)
        # Power by power as their orders came, each as checked: the adjudicator
        # then takes the THX checks' records as they are, without finding each
        # order's again (`adjudicator.validate.MovementChecks.plan`; any other
        # order or form, e.g. after a NOT (SUB), is looked up as before).
        orders = {p: tuple(held) for p, held in self.turn.orders.items() if held}
        outcome: Outcome = self.engine.advance(orders)
        new = outcome.engine
        sco, sco_e = self._sco_of(new)
        # Each message is encoded once: the same tokens give the frame every
        # client gets and the text the database keeps.
        ords_e = [self.encode(m) for m in ord_messages(outcome.result)]
        now_e = self.encode(now_message(new.state))
        after: list[Encoded] = []
        if outcome.year_end:
            after.append(sco_e)
            self.year_tables.append((processed.year, owners(sco)))
        ending: Ending | None = None
        if outcome.solo is not None:
            after.append(self.encode(Slo(outcome.solo)))
            ending = Ending.solo(outcome.solo, (processed.season, processed.year))
        elif outcome.year_end:
            ending = self.rules.check(self.year_tables, new.survivors(),
                                      (processed.season, processed.year))
        after.append(now_e)
        end_messages: list[Message] = []
        if ending is not None:
            if ending.draw:
                end_messages.append(ending.draw_message())
            end_messages.append(self._summary(ending, new))
        next_turn = str(new.turn)
        self.store.record_phase(
            self.handle.id, turn,
            {p: [self.order_text(o) for o in held] for p, held in orders.items()},
            [e.text for e in ords_e] + [e.text for e in after], sco_e.text, now_e.text,
            next_turn, [self._text(m) for m in end_messages],
        )
        ords = join((e.packet for e in ords_e), "ORD")
        self.history.append(PlayedPhase(turn, ords, sco_e.packet, now_e.packet))
        self.engine = new
        self.turn = TurnState(new.season)
        self.log.info("phase_processed", turn=turn, next=next_turn,
                      orders=sum(len(v) for v in orders.values()), results=len(ords_e),
                      seconds=round(trio.current_time() - started, 4))
        # The whole announcement (ORD..., SCO, SLO, NOW) goes out as one packet:
        # one queue item per client.
        announcement = join(([ords] if ords is not None else []) + [e.packet for e in after], "ORD")
        if announcement is not None:
            self._broadcast(announcement)
        if ending is not None:
            self._finish(end_messages, ending)
        else:
            self._start_phase(announce=True)

    def _summary(self, ending: Ending, engine: Engine) -> Smr:
        """SMR (docs/protocol.md §8.10): name, version, centres and elimination year per power."""
        counts = engine.centre_counts()
        gone = elimination_years(self.variant.powers, self.year_tables, counts)
        entries = []
        for power in self.variant.powers:
            seat = self.seats.get(power)
            entries.append(SmrEntry(power, seat.client_name if seat else " ",
                                    seat.client_version if seat else " ",
                                    counts.get(power, 0), gone.get(power)))
        # The turn the game reached - that of the final NOW, as Parlance names
        # it - not the phase whose processing ended it (docs/protocol.md §8.10).
        return Smr(engine.turn, tuple(entries))

    def declare_draw(self, powers: frozenset[str]) -> None:
        """Every survivor voted for the same draw (docs/protocol.md §8.10)."""
        turn = self.engine.turn
        ending = Ending.agreed(powers, self.engine.survivors(), (turn.season, turn.year))
        messages = [ending.draw_message(), self._summary(ending, self.engine)]
        self.store.finish_game(self.handle.id, [self._text(m) for m in messages])
        self._finish(messages, ending)

    def _finish(self, messages: Sequence[Message], ending: Ending) -> None:
        self.handle.status = "finished"
        self.end_messages = tuple(messages)
        self.log.info("game_over", result=ending.kind, powers=sorted(ending.powers),
                      turn=f"{ending.turn[0]} {ending.turn[1]}", observers=self.observer_names(),
                      linger=self.linger)
        for message in messages:
            self._broadcast(message)
        # Clients that joined no seat (still forming a game that is over) go now.
        for client in self.forming.clients():
            client.send(Off())
            client.finish("game over")
        # The players and observers get OFF after the linger (`run`).

    # --- helpers -----------------------------------------------------------------------------

    def encode(self, message: Message) -> Encoded:
        """``message`` as the game's connections get it, and as the database stores it."""
        return encode(self.codec, message)

    def order_text(self, order: Order) -> str:
        """An order as the database stores it: the text of its node (``( ENG FLT NTH ) HLD``)."""
        return self.codec.order_text(order)

    def _sco_of(self, engine: Engine) -> tuple[Sco, Encoded]:
        """The SCO of ``engine``'s position, encoded.  It changes only at a
        year's end: the last one is kept while the ownership stays the same
        (the SCO is made of the ownership and the map alone)."""
        ownership = engine.state.ownership
        last = self._last_sco
        if last is not None and (last[0] is ownership or last[0] == ownership):
            return last[1], last[2]
        sco = engine.sco_message()
        encoded = self.encode(sco)
        self._last_sco = (ownership, sco, encoded)
        return sco, encoded

    def _text(self, message: Message) -> str:
        return render_text(message.to_tokens(self.variant.rep), self.variant.rep)

    def note_refused(self, power: str, refused: Sequence[tuple[Order, str]]) -> None:
        """Keep the orders refused from ``power`` for its author's log (`daide export
        --bot-log`); a store that cannot take them costs the log, never the game."""
        refusals.keep(self.store, self.handle.id, str(self.engine.turn), power,
                      [(self.order_text(o), note) for o, note in refused])

    def save_orders(self, power: str) -> None:
        """Persist the power's accepted orders before they are acknowledged."""
        self.store.save_orders(self.handle.id, power, str(self.engine.turn),
                               [self.order_text(o) for o in self.turn.held(power)])


def owners(sco: Sco) -> dict[str, str]:
    """Centre -> owner (``UNO`` for neutral) from an SCO message."""
    return {centre: str(group.owner) for group in sco.ownership for centre in group.centres}

