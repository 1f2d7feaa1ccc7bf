"""Test helpers for the server: a scripted DAIDE client over real TCP.

`ScriptClient` speaks the protocol through the project's sans-IO
`protocol.connection.Connection` (client side) on a real socket to
127.0.0.1.  Tests talk in the DAIDE text form (docs/protocol.md §6.8) both ways:
``await c.send("SUB ( ( ENG AMY LVP ) HLD )")`` and
``assert await c.receive() == "THX ( ( ENG AMY LVP ) HLD ) ( MBV )"``.

`start_server` runs `server.app.Server` in a test's nursery on port 0.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import trio
import trio.testing

from protocol.connection import (
    NEED_DATA,
    ConnectionClosed,
    MessageReceived,
    MessageRejected,
    ProtocolViolation,
    RepresentationReceived,
)
from protocol.connection import Connection as Machine
from protocol.frames import DiplomacyMessage, FinalMessage, InitialMessage, build_frame
from protocol.parse import Sender
from protocol.text import parse_text, render_text
from server.app import Server
from server.settings import GameSettings, ServerSettings


def jumping_clock() -> trio.testing.MockClock:
    """A mock clock that jumps ahead when the run has been idle for a moment.

    The short real-time threshold (not 0) lets loopback TCP deliver what is
    in flight before time jumps, so only true waits (deadlines) are skipped.
    A test gets it through a fixture returning it (pytest-trio runs the test
    on any clock fixture).
    """
    return trio.testing.MockClock(autojump_threshold=0.02)


POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
TIMEOUT = 10.0


class Closed(Exception):
    """The server closed the connection while a message was expected."""


async def start_server(nursery: trio.Nursery, db: Path, options: dict[str, object] | None = None,
                       **game: object) -> tuple[Server, int]:
    """Run a server on 127.0.0.1 port 0 with these game settings (and server
    ``options``); returns it and its port."""
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db,  # type: ignore[arg-type]
                                   game=GameSettings(**game), **(options or {})))  # type: ignore[arg-type]
    listeners = await nursery.start(server.run)
    return server, int(listeners[0].socket.getsockname()[1])


@dataclass
class ScriptClient:
    """One scripted client; every received message is kept in ``log``."""

    stream: trio.SocketStream
    name: str = "client"
    machine: Machine = field(default_factory=lambda: Machine(Sender.CLIENT))
    log: list[str] = field(default_factory=list)
    closed_by_server: str | None = None
    power: str | None = None
    passcode: int | None = None

    @classmethod
    async def connect(cls, port: int, name: str = "client", *, im: bool = True) -> ScriptClient:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        client = cls(stream, name)
        if im:
            await client.send_raw(client.machine.send(InitialMessage()))
        return client

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def send(self, text: str) -> None:
        """Send one message written in the text form."""
        await self.send_raw(build_frame(DiplomacyMessage(parse_text(text))))

    async def receive(self) -> str:
        """The next message, in the text form (fails after TIMEOUT seconds).

        Under a mock clock the timeout is far beyond any test deadline, as
        the clock jumps to the nearest deadline whenever the run is idle.
        """
        mock = isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock)
        with trio.fail_after(TIMEOUT * 1000 if mock else TIMEOUT):
            while True:
                event = self.machine.next_event()
                if event is NEED_DATA:
                    try:
                        data = await self.stream.receive_some(65536)
                    except trio.BrokenResourceError:
                        data = b""
                    self.machine.receive_data(data)
                    continue
                match event:
                    case RepresentationReceived():
                        continue
                    case MessageReceived(tokens=tokens) | MessageRejected(tokens=tokens):
                        text = render_text(tokens)
                        self.log.append(text)
                        self._note(text)
                        return text
                    case ConnectionClosed(reason, code, _):
                        self.closed_by_server = reason if code is None else f"{reason} 0x{code:02X}"
                        raise Closed(self.closed_by_server)
                    case ProtocolViolation(_, reason, _):
                        raise AssertionError(f"server broke the protocol: {reason}")
                    case _:
                        self.closed_by_server = "closed"
                        raise Closed("closed")

    def _note(self, text: str) -> None:
        found = re.match(r"HLO \( (\w+) \) \( (\d+) \)", text)
        if found:
            self.power, self.passcode = found.group(1), int(found.group(2))

    async def expect(self, *texts: str) -> None:
        """The next messages are exactly these."""
        for text in texts:
            got = await self.receive()
            assert got == text, f"{self.name}: expected {text!r}, got {got!r}"

    async def receive_until(self, match: str | Callable[[str], bool]) -> list[str]:
        """Messages up to and including the first one that matches (prefix or predicate)."""
        test = match if callable(match) else (lambda t: t.startswith(match))
        seen = []
        while True:
            text = await self.receive()
            seen.append(text)
            if test(text):
                return seen

    async def expect_closed(self) -> str:
        """Read until the server closes; returns how (``FM``, ``EOF``, ``EM 0x01``...)."""
        try:
            while True:
                await self.receive()
        except Closed as closed:
            return str(closed)

    async def close(self) -> None:
        """Leave in an orderly way (FM, then close)."""
        try:
            await self.send_raw(self.machine.send(FinalMessage()))
        except (trio.BrokenResourceError, trio.ClosedResourceError, Exception):
            pass
        await self.stream.aclose()

    async def drop(self) -> None:
        """Lose the connection (no FM): the server must treat it as a disconnect."""
        await self.stream.aclose()

    async def join(self, name: str | None = None, version: str = "1.0") -> str:
        """NME, then YES (MAP) after the map arrives; returns the MAP name."""
        await self.send(f"NME ( '{name or self.name}' ) ( '{version}' )")
        await self.expect(f"YES ( NME ( '{name or self.name}' ) ( '{version}' ) )")
        map_message = await self.receive()
        assert map_message.startswith("MAP ( '"), map_message
        await self.send(f"YES ( {map_message} )")
        return map_message


async def join_game(port: int, names: Iterable[str] | None = None) -> dict[str, ScriptClient]:
    """Seven clients asking for the seven powers ('AUS:bot' ...); returns them by power after HLO."""
    clients = [await ScriptClient.connect(port, f"{p}:bot") for p in (names or POWERS)]
    for client in clients:
        await client.join()
    return await seated(clients)


async def seated(clients: Iterable[ScriptClient]) -> dict[str, ScriptClient]:
    """Joined clients by the power each was dealt, once each has its HLO."""
    by_power: dict[str, ScriptClient] = {}
    for client in clients:
        await client.receive_until("HLO")
        assert client.power is not None
        by_power[client.power] = client
    return by_power


async def start_game(port: int) -> dict[str, ScriptClient]:
    """`join_game`, then read the SCO and NOW (and a TME if any) every client gets at the start."""
    clients = await join_game(port)
    for client in clients.values():
        await client.receive_until("NOW")
    return clients


def holds(now: str, power: str) -> str:
    """A SUB holding every unit of ``power`` in the NOW text."""
    units = re.findall(rf"\( ({power} (?:AMY|FLT) (?:\w{{3}}|\( \w{{3}} \w{{3}} \))) \)", now)
    return "SUB " + " ".join(f"( ( {u} ) HLD )" for u in units)


ROOT = Path(__file__).resolve().parent.parent


class ServeProcess:
    """`daide serve` in a subprocess on port 0 (plus ``options``); the first
    log line gives the port, and the log is read on so the server never blocks."""

    def __init__(self, process: trio.Process, port: int) -> None:
        self.process = process
        self.port = port

    @classmethod
    async def start(cls, nursery: trio.Nursery, db: Path, *options: str) -> ServeProcess:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "daide", "serve", "--port", "0", "--db", str(db),
             "--log-json", *options],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert process.stderr is not None
        buffer = b""
        with trio.fail_after(20):
            while b"\n" not in buffer:
                chunk = await process.stderr.receive_some(4096)
                assert chunk, "the server exited before listening"
                buffer += chunk
        first = json.loads(buffer.split(b"\n")[0])
        assert first["event"] == "listening"

        async def drain() -> None:
            assert process.stderr is not None
            async for _chunk in process.stderr:
                pass

        nursery.start_soon(drain)
        return cls(process, int(first["port"]))

    async def kill(self) -> None:
        self.process.kill()             # SIGKILL: no shutdown code runs
        await self.process.wait()
