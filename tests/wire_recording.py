"""A whole game recorded byte for byte as the clients received it.

`record` serves one game on the real server (loopback TCP, port 0) to seven
seeded bots (DumbBots and RandBots) and an observer, and keeps every byte each connection
received.  Everything in it is deterministic - each bot's orders come from
its seed and the turn (`bots.strategy.phase_rng`), no deadline runs - except
the passcodes in the HLOs, which `frames_of` replaces by 0.  One bot also
sends orders the server refuses (a move too far, a unit it does not have),
so THX answers other than MBV are on the wire too.

The recording stops at each connection's SMR: what follows (the OFF, the
close) depends on which side closes first.

``python -m tests.wire_recording`` writes the recording to
`GOLDEN` (tests/data/wire/recorded-game.txt.gz): run it only when the bytes
on the wire are meant to change, and say why in the commit.
"""

from __future__ import annotations

import gzip
import random
import sys
from pathlib import Path

import trio

from bots.board import MOVEMENT, BoardView
from bots.client import BotClient, ClientSettings
from bots.dumbbot import DumbBot
from bots.orders import unit_of
from bots.randbot import RandBot
from bots.runner import run_clients
from bots.transport import TcpTransport
from orders import Hold, Location, Move, Order, Unit
from protocol.frames import DiplomacyMessage, Frame, parse_frames
from protocol.text import render_text
from protocol.tokens import STANDARD
from server.app import serve
from server.settings import GameSettings, ServerSettings

GOLDEN = Path(__file__).parent / "data" / "wire" / "recorded-game.txt.gz"
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
MAX_YEAR = 1905
#: The bot that also sends refused orders.
CLUMSY = "ENG"
#: The powers DumbBot plays.
DUMB = ("AUS", "FRA", "RUS", "TUR")


class RecordingStream(trio.abc.Stream):
    """A TCP stream that keeps every byte it receives."""

    def __init__(self, inner: trio.SocketStream) -> None:
        self.inner = inner
        self.received = bytearray()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self.received += data
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


class ClumsyRandBot(RandBot):
    """RandBot that first orders its first unit somewhere it cannot reach (FAR) and a
    unit it does not have to hold (NSU); its own legal orders follow."""

    name = "ClumsyRandBot"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        legal = super().orders(view, rng)
        if view.phase_kind != MOVEMENT or not view.my_units:
            return legal
        first = unit_of(view.my_units[0])
        far = "SYR" if first.location.province != "SYR" else "NAF"
        stranger = Unit("TUR" if view.power != "TUR" else "AUS", "AMY", Location("BOH", None))
        return [Move(first, Location(far, None)), Hold(stranger), *legal]


def strategy(power: str) -> RandBot | DumbBot:
    """DumbBots, which attack with support (so units are dislodged and retreat),
    RandBots, and the clumsy one."""
    if power == CLUMSY:
        return ClumsyRandBot()
    return DumbBot() if power in DUMB else RandBot()


async def record(db: Path) -> dict[str, list[bytes]]:
    """Play the game and return each connection's received frames (whole, raw),
    keyed by its power (``UNO`` for the observer), up to and including its SMR."""
    streams: dict[str, RecordingStream] = {}

    def connector(name: str):  # noqa: ANN202 - a Connector
        async def connect(host: str, port: int) -> TcpTransport:
            stream = RecordingStream(await trio.open_tcp_stream(host, port))
            streams[name] = stream
            transport = TcpTransport(stream)
            await transport.start()
            return transport
        return connect

    settings = ServerSettings(host="127.0.0.1", port=0, db_path=db,
                              game=GameSettings(max_year=MAX_YEAR))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(serve, settings)
            port = int(listeners[0].socket.getsockname()[1])
            observer = BotClient(None, ClientSettings(port=port, name="watcher", observer=True),
                                 connect=connector("UNO"))
            bots = [BotClient(strategy(power),
                              ClientSettings(port=port, name=f"{power}:{strategy(power).name}",
                                             seed=index),
                              connect=connector(power))
                    for index, power in enumerate(POWERS)]
            # The observer first: it watches from before the first NME.
            await nursery.start(observer.run)
            outcomes = await run_clients(bots)
            nursery.cancel_scope.cancel()
    errors = [o.error for o in outcomes if o.error is not None]
    if errors:
        raise AssertionError(f"a bot failed: {errors}")
    return {name: frames_of(bytes(stream.received)) for name, stream in sorted(streams.items())}


def frames_of(data: bytes) -> list[bytes]:
    """The raw frames of a received stream up to its SMR, with HLO passcodes set to 0."""
    frames: list[Frame]
    frames, _rest = parse_frames(data)
    raw: list[bytes] = []
    pos = 0
    for frame in frames:
        length = 4 + int.from_bytes(data[pos + 2:pos + 4], "big")
        chunk = data[pos:pos + length]
        pos += length
        if isinstance(frame, DiplomacyMessage) and render_text(frame.tokens[:1], STANDARD) == "HLO":
            chunk = _without_passcode(chunk)
        raw.append(chunk)
        if isinstance(frame, DiplomacyMessage) and render_text(frame.tokens[:1], STANDARD) == "SMR":
            break
    return raw


def _without_passcode(frame: bytes) -> bytes:
    """``HLO ( power ) ( passcode ) ...``: the passcode's token (body words 5) set to 0."""
    body = bytearray(frame)
    at = 4 + 2 * 5
    body[at:at + 2] = b"\x00\x00"        # the integer 0
    return bytes(body)


def dump(recording: dict[str, list[bytes]]) -> bytes:
    """The recording as text: one ``NAME HEX`` line per frame, gzipped (no time stamp)."""
    lines = [f"{name} {frame.hex()}" for name, frames in recording.items() for frame in frames]
    return gzip.compress(("\n".join(lines) + "\n").encode("ascii"), mtime=0)


def load(data: bytes) -> dict[str, list[bytes]]:
    recording: dict[str, list[bytes]] = {}
    for line in gzip.decompress(data).decode("ascii").splitlines():
        name, hexed = line.split()
        recording.setdefault(name, []).append(bytes.fromhex(hexed))
    return recording


def main() -> None:
    import logging
    import tempfile

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as tmp:
        recording = trio.run(record, Path(tmp) / "record.db")
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_bytes(dump(recording))
    frames = sum(len(f) for f in recording.values())
    print(f"wrote {GOLDEN}: {len(recording)} connections, {frames} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
