"""The trio DAIDE client: joins a game, keeps track of it, plays a strategy.

`BotClient` owns one bot's whole life (docs/protocol.md §12, the normal game):

1. connect, IM/RM (the `Transport` does the framing), then ``NME`` (or
   ``OBS`` for an observer);
2. on ``MAP ('name')`` ask for the ``MDF``, build the map with the `maps`
   loader (so any variant the server offers can be played), answer
   ``YES (MAP ('name'))`` - the client counts as *joined* here, which is what
   `trio.Nursery.start` waits for;
3. ``HLO`` gives the power and the passcode; ``SCO``/``NOW``/``ORD`` are
   tracked by a `GameTracker`;
4. on every ``NOW`` in which the power owes orders, the strategy is asked
   (with a generator seeded from the bot's seed and the phase) and the orders
   are sent as ``SUB (turn) (order) ...`` (``GOF`` only if asked); every ``THX``
   note other than MBV, every ``MIS``, ``REJ``, ``HUH`` and ``PRN`` is a
   *problem*: logged with structlog and kept in `BotClient.problems`;
5. press: without a `bots.press.Negotiator`, every FRM is answered the
   no-press way (HUH, TRY: docs/protocol.md §16.5); with one, FRMs are read as
   typed :mod:`protocol.press` values and handed to it, the press it returns
   is sent (never above the game's level), press it cannot understand is
   answered for it with HUH and TRY, and the server's answer to each SND
   (YES, REJ, CCD, OUT, HUH) is matched to the SND and reported.
   `BotClient.press_log` keeps all press in the one global order of 16.1
   (own messages at their YES, others' at their FRM);
6. ``SLO``/``DRW`` end the game; on ``OFF`` (which follows the ``SMR``, or
   comes at any time when the server shuts down) the client says goodbye
   (FM) and returns - also when no OFF came within `off_wait` of the SMR.

A connection lost while the game runs is re-established: a new connection,
``IAM (power) (passcode)`` (retried while the server has not yet noticed the
loss and answers REJ), then bare ``SCO`` and ``NOW`` requests to catch up
(docs/protocol.md §13.2).  Orders already sent for the current turn are replaced
(``NOT (SUB)`` then the same ``SUB``), since the server may or may not have
received them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import structlog
import trio

from bots.geography import geography_of
from bots.holdbot import HoldBot
from bots.link import ConnectionLost, Connector, Received, Transport
from bots.press import (
    Negotiator,
    PendingPress,
    PressAnswer,
    PressContext,
    no_press_replies,
    not_understood,
)
from bots.strategy import Strategy, phase_rng
from bots.tracking import GameTracker
from engine.mapfiles import map_from_mdf
from protocol.messages import (
    Ccd,
    Drw,
    Frm,
    Hlo,
    Huh,
    Iam,
    MapMessage,
    Mdf,
    Message,
    Mis,
    Nme,
    NotMessage,
    Now,
    Obs,
    Off,
    Out,
    Prn,
    Rej,
    Slo,
    Smr,
    Snd,
    Thx,
    Yes,
)
from protocol.orders import Turn, order_node
from protocol.press import (
    PressFault,
    ReceivedPress,
    SendPress,
    check_level,
    try_parse_press,
)
from protocol.text import format_tree
from protocol.tokens import STANDARD, Representation
from protocol.tree import Text

Tree = tuple[Any, ...]

VERSION = "1.0"
"""Version string the sample bots give in NME."""


class ClientError(Exception):
    """The client cannot go on (refused by the server, server unreachable)."""


@dataclass(frozen=True)
class ClientSettings:
    """How one client connects and plays."""

    host: str = "127.0.0.1"
    port: int = 16713
    name: str = "bot"
    version: str = VERSION
    seed: int = 0
    observer: bool = False
    """Join with OBS instead of NME (no strategy)."""
    draw_from_year: int | None = None
    """Vote for a draw (DRW) in every phase from this year on."""
    off_wait: float = 2.0
    """Seconds to wait for the server's OFF after the game's SMR before leaving."""
    gof: bool = False
    """Send GOF after each SUB.  Not needed - GOF is assumed at the start of
    every turn (docs/protocol.md §8.3) - and racy: when this SUB completes the last
    set of orders, the phase is processed before the GOF arrives, which then
    meets the next phase and is answered with a MIS for it."""
    press_numbering: str = "daide"
    """Values of the disputed press tokens the server uses: ``daide``,
    ``parlance`` or ``mila`` (docs/protocol.md §6.7; `daide serve --press-numbering`)."""
    pace: float = 0.0
    """Seconds to wait before submitting each phase's orders (``daide demo --pace``:
    a game slow enough to watch in a browser)."""
    rejoin: tuple[str, int] | None = None
    """Join with ``IAM (power) (passcode)`` instead of NME: a seat this client's
    process never held, e.g. a server-started bot taking a power over
    (`server.bot_seats`); the map, HLO and the position are asked for after YES."""
    reconnect_attempts: int = 40
    reconnect_delay: float = 0.05
    """First wait before reconnecting; doubles per attempt up to 2 s."""


@dataclass(frozen=True)
class Problem:
    """Something the server did not accept, or that went wrong, as logged."""

    kind: str
    """``rejected-order``, ``missing-orders``, ``rejected``, ``huh``, ``prn``, ``strategy``."""
    turn: str | None
    detail: str


@dataclass
class BotClient:
    """One DAIDE client playing `strategy` (None for an observer); see the module doc."""

    strategy: Strategy | None
    settings: ClientSettings = field(default_factory=ClientSettings)
    connect: Connector | None = None
    on_message: Callable[[Received], object] | None = None
    """Called with every message received (the demo's progress display)."""
    negotiator: Negotiator | None = None
    """Typed press (`bots.press`); None for a no-press bot."""

    def __post_init__(self) -> None:
        self.tracker = GameTracker()
        self.problems: list[Problem] = []
        self.press_log: list[ReceivedPress] = []
        """All press of the game in the one global order (docs/protocol.md §16.1)."""
        self.press_answers: list[PressAnswer] = []
        """The server's answer to each of our SNDs, in the order they came."""
        self._pending = PendingPress()
        self._opened: Turn | None = None
        self._observed: Turn | None = None      # the phase whose orders the strategy saw
        self._orders_due = False
        self.rejoins = 0
        """How many times the client came back with an accepted IAM."""
        self.log = structlog.get_logger("bots").bind(bot=self.settings.name)
        self._off = False
        self._over = False
        self._map_name: str | None = None
        self._submitted: Turn | None = None
        self._sever = False
        self._joined: Callable[[Any], None] | None = None
        self.joined = False
        """True once the map was accepted (or, after a restart, IAM was)."""
        if self.settings.rejoin is not None:
            self.tracker.power, self.tracker.passcode = self.settings.rejoin

    # -- public -----------------------------------------------------------------

    def sever_connection(self) -> None:
        """Drop the connection (no FM) after the current message, then rejoin.

        For tests and demonstrations of docs/protocol.md §13: the server sees a lost
        connection, the client comes back with IAM.
        """
        self._sever = True

    async def run(self, *, task_status: trio.TaskStatus[BotClient] = trio.TASK_STATUS_IGNORED
                  ) -> GameTracker:
        """Play until the game's SMR, an OFF, or the server closing after the end.

        With `nursery.start`, returns to the starter once the map is accepted.
        """
        self._joined = task_status.started
        link = await self._open()
        await self._join(link)
        try:
            while not self._off:
                try:
                    with trio.move_on_after(self.settings.off_wait if self._over else math.inf
                                            ) as waiting:
                        received = await link.receive()
                except ConnectionLost:
                    received = None
                if waiting.cancelled_caught:
                    break
                if received is None:
                    if self.tracker.end is not None:
                        break
                    link = await self._reconnect(link, "connection lost")
                    continue
                try:
                    await self._handle(link, received)
                except ConnectionLost as exc:
                    link = await self._reconnect(link, str(exc) or "connection lost")
                    continue
                if self._sever and not self._off:
                    self._sever = False
                    await link.abort()
                    link = await self._reconnect(link, "connection severed on request")
        finally:
            with trio.CancelScope(shield=True):
                await link.aclose()
        return self.tracker

    # -- connection ---------------------------------------------------------------

    async def _open(self) -> Transport:
        connect = self.connect
        if connect is None:
            # here, not at the top: a client given its own connector never loads the
            # TCP stack (trio sockets, the framing, construct)
            from bots.transport import open_transport
            from protocol.press_tokens import PressNumbering

            numbering = PressNumbering(self.settings.press_numbering)
            return await open_transport(self.settings.host, self.settings.port, numbering)
        return await connect(self.settings.host, self.settings.port)

    async def _send(self, link: Transport, message: Tree) -> None:
        self.log.debug("sent", message=self._text(message))
        await link.send(message)

    async def _join(self, link: Transport) -> None:
        s = self.settings
        if self.tracker.started and not s.observer:
            assert self.tracker.power is not None and self.tracker.passcode is not None
            await self._send(link, ("IAM", (self.tracker.power,), (self.tracker.passcode,)))
        elif s.observer:
            await self._send(link, ("OBS",))
        else:
            await self._send(link, ("NME", (Text(s.name),), (Text(s.version),)))

    async def _reconnect(self, old: Transport, why: str) -> Transport:
        with trio.CancelScope(shield=True):
            await old.abort()
        self.log.warning("reconnecting", reason=why, turn=self._turn_text())
        delay = self.settings.reconnect_delay
        for attempt in range(1, self.settings.reconnect_attempts + 1):
            await trio.sleep(delay)
            delay = min(delay * 2, 2.0)
            try:
                link = await self._open()
            except (OSError, ConnectionLost) as exc:
                self.log.info("reconnect failed", attempt=attempt, error=str(exc))
                continue
            try:
                await self._join(link)
            except BaseException as exc:
                # The new connection is ours until it is returned: close it whatever
                # ends the attempt (a refused join, a reset, a cancellation), or its
                # socket is left to the garbage collector (ResourceWarning).
                with trio.CancelScope(shield=True):
                    await link.abort()
                if not isinstance(exc, (OSError, ConnectionLost)):
                    raise
                self.log.info("reconnect failed", attempt=attempt, error=str(exc))
                continue
            return link
        raise ClientError(f"could not reconnect to {self.settings.host}:{self.settings.port}")

    # -- messages -----------------------------------------------------------------

    async def _handle(self, link: Transport, received: Received) -> None:
        tree, message = received.tree, received.message
        self.log.debug("received", message=self._text(tree))
        if self.on_message is not None:
            self.on_message(received)
        if message is None:
            self.log.warning("unreadable server message", message=self._text(tree))
            return
        self.tracker.on_message(message)

        match message:
            case MapMessage(name=name):
                if self.tracker.geography is not None and name == self._map_name:
                    await self._send(link, ("YES", tree))
                else:
                    self._map_name = name
                    await self._send(link, ("MDF",))
            case Mdf():
                # The MDF is read in the representation the link announced (the
                # RM's, docs/protocol.md §4.2): a variant's own powers and provinces.
                game_map = map_from_mdf(tree, name=(self._map_name or "standard").lower(),
                                        rep=_link_representation(link))
                self.tracker.game_map = game_map
                self.tracker.geography = geography_of(game_map)
                self.tracker.map_name = self._map_name
                await self._send(link, ("YES", ("MAP", (Text(self._map_name or "standard"),))))
                self._mark_joined()
                if self.tracker.started:
                    # Rejoined a seat with no map yet (`ClientSettings.rejoin`): the position
                    # now - even if a NOW came before the map, its orders were not given.
                    await self._send(link, ("SCO",))
                    await self._send(link, ("NOW",))
            case Hlo(variant=variant):
                self.log.info("game started", power=self.tracker.power,
                              variant=self._text(("HLO", variant.to_node())))
            case Now():
                self._observe()
                self._orders_due = self.strategy is not None and self.tracker.owes_orders()
                await self._open_phase(link)
                await self._maybe_submit(link)
            case Thx(order=order, note=note):
                if note != "MBV":
                    self._problem("rejected-order", f"{self._text(order_node(order))} -> {note}")
            case Mis(units=units, count=count):
                if units or count is not None:
                    self._problem("missing-orders", self._text(tree))
            case Yes():
                await self._on_yes(link, message)
            case Rej():
                await self._on_rej(link, message, tree)
            case Huh() | Prn():
                self._problem(message.COMMAND.lower(), self._text(tree))
                if self._press_answer(message):
                    await self._maybe_submit(link)
            case Frm():
                if self.negotiator is None:
                    if self.tracker.level == 0:
                        # Press in a game without press (docs/protocol.md §10): an answer
                        # would only be refused, so none is sent.
                        self.log.info("press at level 0 ignored", message=self._text(tree))
                        return
                    for reply in no_press_replies(message):
                        await self._send(link, reply)
                else:
                    await self._on_press(link, message)
                    await self._maybe_submit(link)
            case Ccd() | Out() if self._press_answer(message):
                await self._maybe_submit(link)     # the answer to one of our SNDs
            case Slo() | Drw():
                self.log.info("game over", result=self._text(tree), turn=self._turn_text())
            case Ccd() | NotMessage(message=Ccd()):
                self.log.info("civil disorder", message=self._text(tree))
            case Smr():
                # The game is over (docs/protocol.md §8.10): the server should now
                # send OFF; wait for it a little, then leave anyway.
                self._over = True
            case Off():
                self._off = True

    async def _on_yes(self, link: Transport, yes: Yes) -> None:
        inner = yes.message
        if isinstance(inner, Snd) and self._press_answer(yes):
            await self._maybe_submit(link)
        if isinstance(inner, Iam):
            self.rejoins += 1
            self.log.info("rejoined", power=self.tracker.power)
            # docs/protocol.md §13.2: nothing is repeated after IAM; ask for the state.
            if self.tracker.geography is None:
                # A seat taken over with IAM: the map first, the position once it is read.
                await self._send(link, ("MAP",))
                await self._send(link, ("HLO",))
                return
            self._mark_joined()
            await self._send(link, ("SCO",))
            await self._send(link, ("NOW",))

    async def _on_rej(self, link: Transport, rej: Rej, tree: Tree) -> None:
        inner = rej.message
        if isinstance(inner, Iam):
            # The server may not have noticed our old connection's loss yet.
            raise ConnectionLost("IAM refused (the server may not have seen the loss yet)")
        if isinstance(inner, Nme):
            raise ClientError(f"server refused to let {self.settings.name} join: "
                              f"{self._text(tree)}")
        if isinstance(inner, Obs):
            raise ClientError("server refused the observer")
        self._problem("rejected", self._text(tree))
        if isinstance(inner, Snd) and self._press_answer(rej):
            await self._maybe_submit(link)

    async def _maybe_submit(self, link: Transport) -> None:
        """Submit the phase's orders once they are due and the negotiator is ready."""
        if not self._orders_due:
            return
        if self.negotiator is not None and not self.negotiator.ready_to_order(self._context()):
            return
        self._orders_due = False
        await self._submit(link)

    async def _submit(self, link: Transport) -> None:
        assert self.strategy is not None and self.tracker.position is not None
        if self.settings.pace > 0:
            await trio.sleep(self.settings.pace)
        view = self.tracker.view()
        turn = self.tracker.position.turn
        rng = phase_rng(self.settings.seed, view.power, view.season, view.year)
        try:
            orders = self.strategy.orders(view, rng)
        except Exception as exc:  # a bot author's bug must not kill the connection
            self.log.exception("strategy failed, holding", turn=str(turn))
            self._problem("strategy", f"{type(exc).__name__}: {exc}")
            orders = HoldBot().orders(view, rng)
        async def send(message: Tree) -> None:
            await self._send(link, message)

        if self.settings.draw_from_year is not None and view.year >= self.settings.draw_from_year:
            await send(("DRW",))
        if self._submitted == turn:
            await send(("NOT", ("SUB",)))
        self._submitted = turn
        if orders:
            # The one place orders become DAIDE trees (docs/protocol.md §9.1).
            await send(("SUB", turn.to_node(), *(order_node(order) for order in orders)))
        if self.settings.gof:
            await send(("GOF",))

    def _observe(self) -> None:
        """Hand a strategy that learns (one with ``observe``, e.g. `bots.regret`) the
        orders of the phase just processed: the ORD results before this NOW."""
        observe = getattr(self.strategy, "observe", None)
        results = self.tracker.results
        if observe is not None and results and results[0].turn != self._observed:
            turn = self._observed = results[0].turn     # once, though a NOW may come twice
            observe(turn.season, turn.year, [r.order for r in results])

    # -- press --------------------------------------------------------------------

    def _context(self) -> PressContext:
        position = self.tracker.position
        turn = position.turn if position else None
        view = self.tracker.view() if position and self.tracker.geography else None
        return PressContext(str(self.tracker.power), self.tracker.level, turn, view,
                            tuple(self.press_log))

    async def _open_phase(self, link: Transport) -> None:
        """Ask the negotiator for its opening press once per phase."""
        position = self.tracker.position
        if (self.negotiator is None or position is None or self.tracker.end is not None
                or position.turn == self._opened or self.tracker.level < 10):
            return
        self._opened = position.turn
        for value in self.negotiator.opening(self._context()):
            await self._send_press(link, value)

    async def _on_press(self, link: Transport, frm: Frm) -> None:
        """An FRM for a negotiating bot: typed, or answered with HUH and TRY."""
        assert self.negotiator is not None
        rep = _representation(link)
        found = try_parse_press(frm.press, self.negotiator.level, rep)
        if isinstance(found, PressFault):
            self.log.info("press not understood", message=self._text(frm.to_tree()),
                          reason=found.reason)
            for value in not_understood(frm, found, self.negotiator.vocabulary()):
                await self._send_press(link, value)
            return
        press = ReceivedPress(frm.sender, frm.recipients, found)
        self.press_log.append(press)
        for value in self.negotiator.received(press, self._context()):
            await self._send_press(link, value)

    async def _send_press(self, link: Transport, value: SendPress) -> bool:
        """Send one typed press message if the game's level allows it (else a problem)."""
        rep = _representation(link)
        fault = check_level(value, self.tracker.level, rep)
        if fault is not None:
            self._problem("press-level", f"{self._text(value.nodes())}: {fault.reason}")
            return False
        self._pending.rep = rep
        self._pending.sent(value)
        await self._send(link, value.nodes())
        return True

    def _press_answer(self, message: Message) -> bool:
        """Match a server message to a pending SND; True if it was its answer."""
        answer = self._pending.match(message)
        if answer is None:
            return False
        self.press_answers.append(answer)
        if answer.delivered:
            self.press_log.append(ReceivedPress(str(self.tracker.power), answer.send.recipients,
                                                answer.send.message))
        if self.negotiator is not None:
            self.negotiator.answered(answer, self._context())
        return True

    # -- helpers --------------------------------------------------------------------

    def _mark_joined(self) -> None:
        self.joined = True
        if self._joined is not None:
            started, self._joined = self._joined, None
            started(self)

    def _problem(self, kind: str, detail: str) -> None:
        turn = self._turn_text()
        self.problems.append(Problem(kind, turn, detail))
        self.log.warning("problem", kind=kind, turn=turn, detail=detail)

    def _turn_text(self) -> str | None:
        position = self.tracker.position
        return str(position.turn) if position else None

    @staticmethod
    def _text(tree: Any) -> str:
        """DAIDE text for logs, without representation lookups (any map's names)."""
        try:
            return format_tree(tree if isinstance(tree, tuple) else (tree,))
        except Exception:
            return repr(tree)


def _link_representation(link: Transport) -> Representation | None:
    """The token representation the link decodes with, if it has one.

    The TCP transport keeps it in its connection (switched by the RM,
    docs/protocol.md §4.2); a transport without a connection (a test script) has none.
    """
    rep = getattr(getattr(link, "connection", None), "representation", None)
    return rep if isinstance(rep, Representation) else None


def _representation(link: Transport) -> Representation:
    """The link's representation, else the standard one (for telling powers from
    provinces in press)."""
    rep = _link_representation(link)
    return STANDARD if rep is None else rep

