"""A flood of the web door: what `load.web` runs beside DAIDE bots (docs/hardening.md).

    python -m load.web_flood --port H [--stalled 400] [--websockets 300] [--fast 8] --out OUT.json

`WebFlood` keeps, against ``--http-port`` on 127.0.0.1, until it is stopped
(the process: until its stdin closes):

* ``stalled`` connections each sending a request's headers and the first
  byte of a 60,000-byte body, then nothing - each is answered 408 and closed
  after the server's request timeout, or refused at once when the web's
  connection budget is full; either way the slot opens a new one;
* ``websockets`` WebSocket connections that complete the handshake and never
  send the DAIDE IM - each is closed by the IM timer, or refused at once when
  the budget is full; the slot then opens a new one;
* ``fast`` workers sending requests one after the other as fast as the
  server answers (``GET /api/games``, ``GET /``, ``GET /api/games/1``, a
  ``POST /api/render``), one connection each.

A refused connection (closed with no answer) waits 0.1 s before the slot
tries again, so the flood holds the door full rather than spinning on
accept.  `FloodCounts` says what happened to each kind; the process prints
``flooding`` once every slot has opened its first connection.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import trio

STALLED = (b"POST /api/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"X-Daide-Client: web\r\nContent-Length: 60000\r\n\r\n{")
HANDSHAKE = (b"GET /daide HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
             b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             b"Sec-WebSocket-Version: 13\r\n\r\n")
RENDER = b'{"now": "NOW ( SPR 1901 ) ( FRA AMY PAR ) ( ENG FLT LON )", "sco": null, "orders": []}'
FAST = (b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"GET /api/games/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"POST /api/render HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nX-Daide-Client: web\r\n"
        b"Content-Length: %d\r\n\r\n" % len(RENDER) + RENDER)
#: Wait after a refusal before the slot tries again.
RETRY = 0.1


@dataclass
class FloodCounts:
    """What the flood's connections met."""

    stalled_opened: int = 0
    stalled_timed_out: int = 0          # answered 408 and closed
    stalled_refused: int = 0            # closed (or reset) with no answer
    stalled_other: int = 0
    websockets_opened: int = 0
    websockets_upgraded: int = 0        # 101, then held until the server closed them
    websockets_closed_after_upgrade: int = 0   # by the IM timer (or the server's stop)
    websockets_refused: int = 0         # closed with no answer, or refused (403, 429)
    requests: int = 0
    request_statuses: Counter[int] = field(default_factory=Counter)
    requests_refused: int = 0           # closed with no answer
    connect_failures: int = 0           # the connection could not even be opened

    def summary(self) -> dict[str, object]:
        out = asdict(self)
        out["request_statuses"] = {str(k): v for k, v in sorted(self.request_statuses.items())}
        return out


class WebFlood:
    """The flood of the module docstring against ``127.0.0.1:port``."""

    def __init__(self, port: int, *, stalled: int = 400, websockets: int = 300,
                 fast: int = 8) -> None:
        self.port = port
        self.stalled = stalled
        self.websockets = websockets
        self.fast = fast
        self.counts = FloodCounts()
        self.holding = trio.Event()     # every slot has opened its first connection
        self._started = 0

    async def run(self) -> None:
        """Flood until cancelled."""
        async with trio.open_nursery() as nursery:
            for _ in range(self.stalled):
                nursery.start_soon(self._slot, self._stalled_once)
            for _ in range(self.websockets):
                nursery.start_soon(self._slot, self._websocket_once)
            for _ in range(self.fast):
                nursery.start_soon(self._slot, self._request_once)

    async def _slot(self, once: Callable[[trio.SocketStream], Awaitable[bool]]) -> None:
        """Open a connection, let ``once`` use it (True: it was refused), again."""
        first = True
        while True:
            try:
                stream = await trio.open_tcp_stream("127.0.0.1", self.port)
            except OSError:
                self.counts.connect_failures += 1
                await trio.sleep(RETRY)
                continue
            try:
                refused = await once(stream)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                refused = True
            finally:
                await trio.aclose_forcefully(stream)
            if first:
                first = False
                self._started += 1
                if self._started == self.stalled + self.websockets + self.fast:
                    self.holding.set()
            if refused:
                await trio.sleep(RETRY)

    async def _until_eof(self, stream: trio.SocketStream, first: bytes = b"") -> bytes:
        got = bytearray(first)
        try:
            while data := await stream.receive_some(65536):
                got += data
        except (trio.BrokenResourceError, OSError):
            pass
        return bytes(got)

    async def _stalled_once(self, stream: trio.SocketStream) -> bool:
        self.counts.stalled_opened += 1
        try:
            await stream.send_all(STALLED)
            answer = await self._until_eof(stream)
        except (trio.BrokenResourceError, OSError):
            answer = b""
        if not answer:
            self.counts.stalled_refused += 1
            return True
        if answer.startswith(b"HTTP/1.1 408 "):
            self.counts.stalled_timed_out += 1
        else:
            self.counts.stalled_other += 1
        return False

    async def _websocket_once(self, stream: trio.SocketStream) -> bool:
        self.counts.websockets_opened += 1
        try:
            await stream.send_all(HANDSHAKE)
            head = bytearray()
            while b"\r\n\r\n" not in head:
                data = await stream.receive_some(65536)
                if not data:
                    break
                head += data
            if not head.startswith(b"HTTP/1.1 101 "):
                self.counts.websockets_refused += 1
                return True
            self.counts.websockets_upgraded += 1
            await self._until_eof(stream)
            self.counts.websockets_closed_after_upgrade += 1
            return False
        except (trio.BrokenResourceError, OSError):
            self.counts.websockets_refused += 1
            return True

    async def _request_once(self, stream: trio.SocketStream) -> bool:
        request = FAST[self.counts.requests % len(FAST)]
        self.counts.requests += 1
        await stream.send_all(request)
        answer = await self._until_eof(stream)
        if not answer.startswith(b"HTTP/1.1 "):
            self.counts.requests_refused += 1
            return True
        self.counts.request_statuses[int(answer[9:12])] += 1
        return False


async def _flood_until_stdin_closes(flood: WebFlood) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(flood.run)
        await flood.holding.wait()
        print("flooding", flush=True)
        await trio.to_thread.run_sync(sys.stdin.read)
        nursery.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.web_flood",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the server's HTTP port")
    parser.add_argument("--stalled", type=int, default=400)
    parser.add_argument("--websockets", type=int, default=300)
    parser.add_argument("--fast", type=int, default=8)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    flood = WebFlood(args.port, stalled=args.stalled, websockets=args.websockets,
                     fast=args.fast)
    trio.run(_flood_until_stdin_closes, flood)
    args.out.write_text(json.dumps(flood.counts.summary()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
