"""The I/O floor of a phase: what a trio server pays for a phase's messages alone.

A yardstick for `benchmarks.bench_server`: a trio server that does nothing
but the phase's input and output - seven SUB-sized frames read, a THX-sized
frame written back for each, and an announcement-sized packet written to
each of the seven players once all seven are in - with the same system
calls the real server makes when its sockets are ready (`os.read`,
`os.write`, `trio.lowlevel.wait_readable`) and no parsing, game, database
or log.  Its CPU per phase, measured in the same run on the same machine,
is what no game logic could go below on this event loop and kernel, so the
real server's figure reads as a multiple of it.

    python -m benchmarks.io_floor [--games N] [--phases N] [--instructions]

The server runs as a subprocess (``python -m benchmarks.io_floor serve
PORT_FILE``); the driver here plays every game's phases in turn over
loopback TCP and reads the server's CPU time from ``/proc`` - or, with
``--instructions``, counts its instructions (`benchmarks.meters`).
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import trio

from benchmarks.meters import CpuMeter, InstructionMeter

PLAYERS = 7
#: frame sizes (4-byte header included) of a typical phase of the real
#: benchmark: a SUB of a few orders, its THX packet, the ORD..SCO NOW packet
SUB_SIZE, THX_SIZE, ANNOUNCEMENT_SIZE = 56, 64, 800


def _frame(size: int) -> bytes:
    """A DM frame header (type 2, pad, big-endian length) and a zero body."""
    return struct.pack(">BBH", 2, 0, size - 4) + bytes(size - 4)


async def _serve(port_file: Path) -> None:
    thx, announcement = _frame(THX_SIZE), _frame(ANNOUNCEMENT_SIZE)
    games: dict[int, list[int]] = {}
    arrived: dict[int, int] = {}

    async def player(stream: trio.SocketStream) -> None:
        sock = stream.socket
        fd = sock.fileno()
        head = b""
        while len(head) < 2:                 # the driver names the game first
            await trio.lowlevel.wait_readable(sock)
            head += os.read(fd, 2 - len(head))
        game = struct.unpack(">H", head)[0]
        games.setdefault(game, []).append(fd)
        buffer = b""
        while True:
            await trio.lowlevel.wait_readable(sock)
            data = os.read(fd, 4096)
            if not data:
                return
            buffer += data
            while len(buffer) >= 4:
                end = 4 + struct.unpack(">H", buffer[2:4])[0]
                if len(buffer) < end:
                    break
                buffer = buffer[end:]
                os.write(fd, thx)
                arrived[game] = arrived.get(game, 0) + 1
                if arrived[game] == PLAYERS:
                    arrived[game] = 0
                    for each in games[game]:
                        os.write(each, announcement)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    await trio.Path(port_file).write_text(str(port))
    await trio.serve_listeners(player, listeners)


def _exactly(sock: socket.socket, size: int) -> None:
    got = 0
    while got < size:
        chunk = sock.recv(size - got)
        if not chunk:
            raise ConnectionError("the floor server closed")
        got += len(chunk)


def measure(games: int = 10, phases: int = 300, *,
            instructions: bool = False) -> tuple[float, float]:
    """User and system CPU ms per phase of the floor server; with ``instructions``,
    its instructions per phase (`benchmarks.meters.InstructionMeter`) and 0."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="daide-io-floor-") as tmp:
        port_file = Path(tmp) / "port"
        meter = InstructionMeter(Path(tmp)) if instructions else CpuMeter()
        server = subprocess.Popen(
            meter.command([sys.executable, "-m", "benchmarks.io_floor", "serve", str(port_file)]),
            cwd=root, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + (600 if instructions else 30)
            while not (port_file.exists() and port_file.read_text()):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the floor server did not start")
                time.sleep(0.02)
            port = int(port_file.read_text())
            tables = []
            for game in range(games):
                seats = []
                for _ in range(PLAYERS):
                    sock = socket.create_connection(("127.0.0.1", port))
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    sock.settimeout(30)
                    sock.sendall(struct.pack(">H", game))
                    seats.append(sock)
                tables.append(seats)
            time.sleep(0.3)                  # every connection seated
            sub = _frame(SUB_SIZE)
            meter.start(server.pid)
            for _ in range(phases):
                for seats in tables:
                    for sock in seats:
                        sock.sendall(sub)
                        _exactly(sock, THX_SIZE)
                    for sock in seats:
                        _exactly(sock, ANNOUNCEMENT_SIZE)
            user, system = meter.stop(server.pid)
            for seats in tables:
                for sock in seats:
                    sock.close()
        finally:
            server.kill()
            server.wait()
    count = games * phases
    if instructions:
        return user / count, 0.0
    return user * 1000 / count, system * 1000 / count


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"]:
        trio.run(_serve, Path(args[1]))
        return 0
    games = int(args[args.index("--games") + 1]) if "--games" in args else 10
    phases = int(args[args.index("--phases") + 1]) if "--phases" in args else 300
    if "--instructions" in args:
        count, _ = measure(games, phases, instructions=True)
        print(f"I/O floor: {count / 1e3:.1f} K instructions per phase (user space, callgrind): "
              f"{PLAYERS} SUBs read, {PLAYERS} THX and {PLAYERS} announcements written")
        return 0
    user, system = measure(games, phases)
    print(f"I/O floor: {user + system:.3f} ms CPU per phase ({user:.3f} user, {system:.3f} "
          f"system): {PLAYERS} SUBs read, {PLAYERS} THX and {PLAYERS} announcements written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
