"""The server under fuzz: a real lobby and games, over memory streams, on a virtual clock.

`exchange` runs one fuzz case in a fresh trio run: a server (the real
`server.lobby.Lobby`, `server.connection.handle_connection`, game actors,
an in-memory SQLite store) with a *bystander* game of seven players already
started, and one fuzz client that either stays anonymous or plays a power of
a second game (``as_player``) at press level ``level``.  The fuzz client's
bytes are delivered chunk by chunk (each chunk is read and answered before
the next arrives), then the clock jumps an hour so that every timer fires.
`check` asserts what the issue asks of any input (and `check_readers` that
the cache in front of the grammar reads each DM as the grammar does):

* never an unhandled exception: no error-level log line (``connection_failed``,
  ``game_step_failed``, ``game_failed``, ``unsendable_message``...);
* the fuzz client only ever gets well-formed frames: the RM, DMs, and an EM
  or FM followed by the close - and a connection that has not settled in a
  game does not outlive its timers;
* no effect on another game: the bystanders receive nothing but relayed ADMs
  while the fuzz client is at work, and still get their answers afterwards -
  unless the fuzzer sent a bystander's right passcode, which takes the power
  over as its owner would (a ``reconnected`` log line with ``replaced_conn``).

`tests/test_fuzz_server.py` drives it with Hypothesis; `fuzz/fuzz_server.py`
is the longer, coverage-guided run (atheris).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import structlog
import structlog.testing
import trio
import trio.testing

from engine.variants import load_variant
from protocol.connection import (
    NEED_DATA,
    ConnectionClosed,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
    RepresentationReceived,
)
from protocol.connection import Connection as Machine
from protocol.errors import ProtocolError
from protocol.frames import DiplomacyMessage, InitialMessage, build_frame
from protocol.messages import Message
from protocol.parse import Sender, parse_message
from protocol.reader import MessageReader
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD
from protocol.tree import bytes_to_tokens
from server.connection import handle_connection
from server.lobby import Lobby
from server.settings import GameSettings, ServerSettings
from server.store import Store

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
IM = build_frame(InitialMessage())

#: Log events that are fine at error level: none.  Warnings are the server's business.
ERROR_LEVELS = frozenset({"error", "critical", "exception"})


def dm(text: str) -> bytes:
    """One DM frame from the DAIDE text form."""
    return build_frame(DiplomacyMessage(parse_text(text)))


@dataclass
class Report:
    """What one fuzz case did."""

    replies: list[str] = field(default_factory=list)
    """What the fuzz client got: ``RM``, DM texts, ``EM 0xNN``, ``FM``, ``closed``."""
    violations: list[str] = field(default_factory=list)
    """Frames from the server that the client-side machine refused."""
    errors: list[dict[str, object]] = field(default_factory=list)
    takeovers: int = 0          # IAMs that guessed a connected power's passcode
    bystander_extra: list[str] = field(default_factory=list)
    bystander_answer: str = ""
    closed: bool = False
    settled: bool = False


class _Peer:
    """A client over a memory stream; a reader task decodes what arrives into `inbox`."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.machine = Machine(Sender.CLIENT)
        self.inbox: list[str] = []
        self.violations: list[str] = []
        self.closed = False

    async def send(self, data: bytes) -> None:
        if not self.closed:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.closed = True

    def take(self) -> list[str]:
        """What arrived since the last call (call it when the run is quiet)."""
        out, self.inbox = self.inbox, []
        return out

    async def read(self) -> None:
        while not self.closed:
            event = self.machine.next_event()
            if event is NEED_DATA:
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
                self.machine.receive_data(bytes(data))
                continue
            match event:
                case RepresentationReceived():
                    self.inbox.append("RM")
                case MessageReceived(tokens=tokens) | MessageRejected(tokens=tokens):
                    self.inbox.append(render_text(tokens))
                case ConnectionClosed(reason, code, _):
                    self.inbox.append(f"EM 0x{code:02X}" if code is not None else reason)
                    self.closed = True
                case ProtocolViolation(_, reason, _):
                    self.violations.append(reason)
                    self.closed = True
                case _:
                    self.closed = True


async def _connect(nursery: trio.Nursery, lobby: Lobby, peer: str) -> _Peer:
    client_end, server_end = trio.testing.memory_stream_pair()
    nursery.start_soon(handle_connection, server_end, lobby, peer)
    client = _Peer(client_end)
    nursery.start_soon(client.read)
    return client


async def _quiet() -> None:
    await trio.testing.wait_all_tasks_blocked(cushion=0.0)


async def _start_game(nursery: trio.Nursery, lobby: Lobby, prefix: str,
                      seats: Sequence[str]) -> dict[str, _Peer]:
    peers = {}
    for i, power in enumerate(seats):
        peer = await _connect(nursery, lobby, f"{prefix}.{i + 1}:1000")
        await peer.send(IM + dm(f"NME ( '{power}:{prefix}' ) ( '1' )"))
        await _quiet()
        await peer.send(dm("YES ( MAP ( 'STANDARD' ) )"))
        await _quiet()
        peers[power] = peer
    return peers


async def _exchange(chunks: Sequence[bytes], level: int, as_player: bool, report: Report,
                    clock: trio.testing.MockClock) -> None:
    settings = ServerSettings(db_path=":memory:", game=GameSettings(level=level),  # type: ignore[arg-type]
                              message_rate=math.inf, durability="commit")
    store = Store.open(":memory:")
    try:
        async with trio.open_nursery() as nursery:
            lobby = Lobby(settings, store, load_variant("standard"), nursery)
            bystanders = await _start_game(nursery, lobby, "10.0.0", POWERS)
            for peer in bystanders.values():
                started = peer.take()
                assert any(t.startswith("NOW ( SPR 1901 )") for t in started), started
            if as_player:
                # The fuzz client plays FRA in a second game, beside six quiet players.
                game = await _start_game(nursery, lobby, "10.0.1", POWERS)
                fuzz = game["FRA"]
                report.settled = True
                for peer in game.values():
                    peer.take()
            else:
                fuzz = await _connect(nursery, lobby, "192.0.2.1:4000")
            for chunk in chunks:
                await fuzz.send(chunk)
                await _quiet()
                report.replies += fuzz.take()
            for peer in bystanders.values():
                report.bystander_extra += [t for t in peer.take()
                                           if not t.startswith("ADM ")]
            # An hour later every timer has fired (IM, slow-loris, idle before joining).
            for _ in range(3):
                clock.jump(1200)
                await _quiet()
            report.replies += fuzz.take()
            report.closed = fuzz.closed
            report.violations = fuzz.violations
            report.settled = report.settled or any(
                c.settled for c in lobby.clients if c.peer.startswith("192.0.2.1"))
            ask = bystanders["ENG"]
            for peer in bystanders.values():
                report.bystander_extra += [t for t in peer.take()
                                           if not t.startswith("ADM ")]
            await ask.send(dm("NOW"))
            await _quiet()
            answers = ask.take()
            report.bystander_answer = answers[-1] if answers else ""
            nursery.cancel_scope.cancel()
    finally:
        store.close()


def exchange(chunks: Sequence[bytes], *, level: int = 0, as_player: bool = False) -> Report:
    """Run one fuzz case (see the module docstring) and report what happened."""
    report = Report()
    clock = trio.testing.MockClock()
    with structlog.testing.capture_logs() as logs:
        trio.run(_exchange, chunks, level, as_player, report, clock, clock=clock)
    report.errors = [dict(e) for e in logs if e.get("log_level") in ERROR_LEVELS]
    report.takeovers = sum(1 for e in logs if e["event"] == "reconnected" and "replaced_conn" in e)
    return report


def check_readers(chunks: Sequence[bytes], *, level: int = 0) -> None:
    """Every DM frame in the case's bytes, twice over, read by a
    `protocol.reader.MessageReader` (the cache in front of the grammar, which
    keeps the SUBs' groups) and by the grammar alone
    (`protocol.parse.parse_message`): the same message or the same error."""
    reader = MessageReader(STANDARD)
    for tokens in _dm_tokens(b"".join(chunks)) * 2:
        fast = _reading(reader.read, tokens, sender=Sender.CLIENT, level=level)
        slow = _reading(parse_message, tokens, STANDARD, sender=Sender.CLIENT, level=level)
        assert fast == slow, f"the reader and the grammar disagree on {tokens}: {fast} / {slow}"


def _dm_tokens(data: bytes) -> list[tuple[int, ...]]:
    """The tokens of the whole DM frames found in ``data`` (scanning past anything else)."""
    found = []
    i = 0
    while i + 4 <= len(data):
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if data[i] == 2 and length % 2 == 0 and i + 4 + length <= len(data):
            found.append(bytes_to_tokens(data[i + 4:i + 4 + length]))
            i += 4 + length
        else:
            i += 1
    return found


def _reading(read: Callable[..., Message], *args: object, **kwargs: object) -> object:
    try:
        return read(*args, **kwargs)
    except ProtocolError as exc:
        return type(exc).__name__, str(exc), getattr(exc, "tokens", None)


def check(report: Report) -> None:
    """The properties of the module docstring; AssertionError names the first one broken."""
    assert not report.errors, f"unhandled exception in the server: {report.errors[0]}"
    assert not report.violations, f"the server sent a malformed frame: {report.violations}"
    replies = report.replies
    for i, reply in enumerate(replies):
        if reply.startswith("EM") or reply == "FM":
            assert i == len(replies) - 1, f"{reply} was not the last thing sent: {replies}"
    if not report.settled:
        assert report.closed, f"an unsettled connection outlived its timers: {replies[-3:]}"
    if report.takeovers:
        # The fuzzer sent a player's right passcode (about 1 in 16000 IAMs):
        # the owner's takeover (`server.game.Game._on_rejoin`), not a fault.
        return
    assert not report.bystander_extra, f"another game was affected: {report.bystander_extra}"
    assert report.bystander_answer.startswith("NOW ( SPR 1901 )"), report.bystander_answer
