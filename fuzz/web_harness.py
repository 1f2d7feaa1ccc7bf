"""The web door under fuzz: a real ``daide serve --http-port`` and many hostile connections.

`WebServer` runs ``daide serve --port 0 --http-port 0`` on 127.0.0.1 in a
subprocess (press level 8000, a 1 s ``--http-request-timeout`` so stalled
requests end quickly, ``--trusted-proxy 127.0.0.1`` so X-Forwarded-For is
read, one ``--allow-origin``), its JSON log in a file, and a game of seven
DAIDE TCP players running (so the API's game routes, the preview and the
summary have a live game to work on).

`fuzz_cases` sends the cases of `fuzz.web_inputs` - one TCP connection to
the HTTP port each, ``workers`` at a time - and reads what comes back until
the server closes or falls quiet.  A **finding** is any of:

* a 5xx status in any answer (but the 501 and 505 HTTP prescribes for an
  unknown transfer coding and another HTTP version: `expected_5xx`);
* a log line of level error or critical, one with an ``exception`` (a
  traceback), or a line that is not JSON (a traceback printed raw);
* the server no longer answering: a new DAIDE TCP client gets no RM for
  its IM, or ``GET /api/games/1`` no 200, within 10 s; or the process died.

The log and the server's answers are checked every ``check_every`` seconds;
a finding names the seeds of the cases that ran since the last clean check
(replay one alone with ``python -m fuzz.fuzz_web --replay SEED``).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio
import trio.lowlevel

from fuzz.inputs import RandomChooser
from fuzz.web_inputs import HOST, web_case
from protocol.connection import NEED_DATA, MessageReceived, RepresentationReceived
from protocol.connection import Connection as Machine
from protocol.frames import DiplomacyMessage, InitialMessage, build_frame
from protocol.parse import Sender
from protocol.text import parse_text, render_text

ROOT = Path(__file__).resolve().parent.parent
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
IM = build_frame(InitialMessage())
#: An answer's status line, at the start of the bytes or after a line end.
STATUS = re.compile(rb"(?:^|\r\n)HTTP/1\.[01] (\d{3})")
#: How long a case's connection may stay silent before the case is done.
QUIET = 0.25
#: The longest a case lasts (a stalled request is answered within 1 s).
CASE_SECONDS = 4.0


def dm(text: str) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(text)))


class DaideClient:
    """A DAIDE TCP client: frames out, the texts of messages in."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.machine = Machine(Sender.CLIENT)

    @classmethod
    async def connect(cls, port: int) -> DaideClient:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

    async def next(self) -> str:
        """The next message: ``RM`` or a DM's text; EOFError when the server closes."""
        while True:
            event = self.machine.next_event()
            if event is NEED_DATA:
                data = await self.stream.receive_some(65536)
                if not data:
                    raise EOFError("the server closed the connection")
                self.machine.receive_data(bytes(data))
            elif isinstance(event, RepresentationReceived):
                return "RM"
            elif isinstance(event, MessageReceived):
                return render_text(event.tokens)
            else:
                raise EOFError(f"the server ended the connection: {event}")

    async def until(self, prefix: str) -> str:
        while not (text := await self.next()).startswith(prefix):
            pass
        return text


@dataclass
class Finding:
    """What broke, and the cases that may have broken it."""

    what: str
    seeds: list[int]

    def __str__(self) -> str:
        shown = ", ".join(map(str, self.seeds[:20])) + (" ..." if len(self.seeds) > 20 else "")
        return f"{self.what}\n  cases since the last clean check: {shown}"


@dataclass
class Tally:
    """What the cases got: answers by status, cases by kind, findings."""

    cases: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    upgraded: int = 0
    findings: list[Finding] = field(default_factory=list)


class WebServer:
    """``daide serve --http-port`` in a subprocess, with a game of seven running."""

    def __init__(self, workdir: Path, process: subprocess.Popen[bytes], log: Path) -> None:
        self.workdir = workdir
        self.process = process
        self.log = log
        self.tcp_port = 0
        self.http_port = 0
        self._read = 0
        self.players: list[DaideClient] = []

    @classmethod
    @contextmanager
    def running(cls, *options: str) -> Iterator[WebServer]:
        """Start the server (the caller then awaits `ready`); stop it on leaving."""
        with tempfile.TemporaryDirectory(prefix="daide-fuzz-web-") as tmp:
            work = Path(tmp)
            log = work / "server.log"
            with log.open("wb") as err:
                process = subprocess.Popen(
                    [sys.executable, "-m", "daide", "serve", "--port", "0", "--http-port", "0",
                     "--db", str(work / "games.db"), "--log-json", "--level", "8000",
                     "--http-request-timeout", "1", "--trusted-proxy", "127.0.0.1",
                     "--allow-origin", "https://play.example", *options],
                    cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            server = cls(work, process, log)
            try:
                yield server
            finally:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def lines(self) -> list[str]:
        """The log lines written since the last call."""
        data = self.log.read_bytes()
        end = data.rfind(b"\n") + 1
        if end <= self._read:
            return []
        new, self._read = data[self._read:end], end
        return new.decode("utf-8", "replace").splitlines()

    async def ready(self, nursery: trio.Nursery) -> None:
        """Wait for both ports, then seat seven players (their reader runs in ``nursery``)."""
        with trio.fail_after(30):
            while not (self.tcp_port and self.http_port):
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
                for line in self.lines():
                    event = json.loads(line)
                    if event.get("event") == "listening":
                        self.tcp_port = int(event["port"])
                    elif event.get("event") == "http_listening":
                        self.http_port = int(re.findall(r":(\d+)/", event["url"])[0])
                await trio.sleep(0.05)
            for power in POWERS:
                player = await DaideClient.connect(self.tcp_port)
                await player.stream.send_all(IM + dm(f"NME ( '{power}:fuzz' ) ( '1' )"))
                await player.until("MAP")
                await player.stream.send_all(dm("YES ( MAP ( 'STANDARD' ) )"))
                self.players.append(player)
            for player in self.players:
                await player.until("NOW")
                nursery.start_soon(_drain, player)

    @property
    def host(self) -> bytes:
        return b"127.0.0.1:%d" % self.http_port

    def log_findings(self) -> list[str]:
        """Error lines, tracebacks and raw text in the log since the last call."""
        found: list[str] = []
        raw: list[str] = []             # consecutive lines that are not JSON: one finding
        for line in [*self.lines(), "{}"]:
            try:
                event = json.loads(line)
            except ValueError:
                raw.append(line)
                continue
            if raw:
                found.append("not log lines (a traceback?):\n" + "\n".join(raw[-40:]))
                raw = []
            if event.get("level") in ("error", "critical") or "exception" in event:
                found.append(f"log: {line[:20000]}")
        return found

    async def answering(self) -> str | None:
        """None if a DAIDE TCP client and an API request are answered; else what failed."""
        if self.process.poll() is not None:
            return f"the server exited with {self.process.returncode}"
        try:
            with trio.fail_after(10):
                client = await DaideClient.connect(self.tcp_port)
                try:
                    await client.stream.send_all(IM)
                    if await client.next() != "RM":
                        return "a DAIDE TCP client's IM got no RM"
                finally:
                    await client.stream.aclose()
                stream = await trio.open_tcp_stream("127.0.0.1", self.http_port)
                try:
                    await stream.send_all(b"GET /api/games/1 HTTP/1.1\r\nHost: " + self.host
                                          + b"\r\nConnection: close\r\n\r\n")
                    answer = bytearray()
                    while data := await stream.receive_some(65536):
                        answer += data
                finally:
                    await stream.aclose()
                if not answer.startswith(b"HTTP/1.1 200 "):
                    return f"GET /api/games/1 answered {bytes(answer[:200])!r}, not 200"
        except (trio.TooSlowError, OSError, EOFError) as exc:
            return f"the server did not answer a DAIDE TCP client or an API request: {exc!r}"
        return None


async def _drain(player: DaideClient) -> None:
    """Read a seated player's messages until the run ends; then close its socket."""
    try:
        while True:
            await player.next()
    except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await trio.aclose_forcefully(player.stream)


async def exchange(port: int, chunks: list[bytes], *, wait_head: bool = False
                   ) -> tuple[list[int], bytes]:
    """Send ``chunks`` on one connection to ``port`` (with ``wait_head``, the second once
    the first has an answer's head); read until the server closes or is quiet for
    `QUIET` s (at most `CASE_SECONDS`).  The answers' statuses, the bytes."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    received = bytearray()
    last = [trio.current_time()]
    ended = trio.Event()
    head = trio.Event()

    async def read() -> None:
        try:
            while data := await stream.receive_some(65536):
                received.extend(data)
                last[0] = trio.current_time()
                if b"\r\n\r\n" in received:
                    head.set()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        ended.set()
        head.set()

    try:
        with trio.move_on_after(CASE_SECONDS):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read)
                for i, chunk in enumerate(chunks):
                    try:
                        await stream.send_all(chunk)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        break
                    last[0] = trio.current_time()
                    await trio.lowlevel.checkpoint()
                    if wait_head and i == 0:
                        with trio.move_on_after(2):
                            await head.wait()
                while not ended.is_set() and trio.current_time() - last[0] < QUIET:
                    with trio.move_on_after(0.05):
                        await ended.wait()
                nursery.cancel_scope.cancel()
    finally:
        await trio.aclose_forcefully(stream)
    return [int(s) for s in STATUS.findall(bytes(received))], bytes(received)


#: A Transfer-Encoding other than plain chunked; a request line's version other than 1.x.
_OTHER_CODING = re.compile(rb"(?im)^transfer-encoding:(?![ \t]*chunked[ \t]*\r?$)")
_OTHER_VERSION = re.compile(rb"(?m)^[^\r\n]* HTTP/(?!1\.[01]\r?$)[^\r\n]*\r?$")


def expected_5xx(status: int, sent: bytes) -> bool:
    """The 5xx answers HTTP prescribes for what was sent (not findings): 501 for a
    transfer coding the server does not implement, 505 for an HTTP version other than
    1.x (RFC 9112 §6.1, RFC 9110 §15.6.6) - h11's answers."""
    return ((status == 501 and _OTHER_CODING.search(sent) is not None)
            or (status == 505 and _OTHER_VERSION.search(sent) is not None))


def h2_statuses(data: bytes) -> list[int]:
    """The ``:status`` of each HEADERS block in a server's HTTP/2 bytes (as far as they
    can be read: the statuses up to the first frame that cannot)."""
    import hpack

    decoder = hpack.Decoder()
    statuses: list[int] = []
    block = bytearray()
    at = 0
    try:
        while at + 9 <= len(data):
            length = int.from_bytes(data[at:at + 3], "big")
            kind, flags = data[at + 3], data[at + 4]
            payload = data[at + 9:at + 9 + length]
            at += 9 + length
            if kind in (1, 9):                  # HEADERS, CONTINUATION
                block += payload
                if flags & 0x4:                 # END_HEADERS
                    statuses += [int(v) for k, v in decoder.decode(bytes(block), raw=True)
                                 if k == b":status"]
                    block.clear()
    except Exception:                           # hpack's errors: read no further
        pass
    return statuses


def make_case(seed: int, host: bytes) -> tuple[str, list[bytes]]:
    """The case of ``seed``, with the server's host:port put in."""
    kind, chunks = web_case(RandomChooser(random.Random(seed)))
    return kind, [chunk.replace(HOST, host) for chunk in chunks]


async def fuzz_cases(server: WebServer, seeds: Iterator[int], *, workers: int = 16,
                     check_every: float = 2.0, keep_going: Callable[[], bool] = lambda: True,
                     tally: Tally | None = None) -> Tally:
    """Run the cases of ``seeds`` against ``server`` (module docstring); stop at the first
    finding, when ``seeds`` runs out or ``keep_going()`` says so."""
    tally = tally or Tally()
    recent: list[int] = []
    stop = trio.Event()

    async def worker() -> None:
        while not stop.is_set() and keep_going():
            try:
                seed = next(seeds)
            except StopIteration:
                return
            recent.append(seed)
            kind, chunks = make_case(seed, server.host)
            statuses, data = await exchange(server.http_port, chunks,
                                            wait_head=kind == "websocket")
            if kind == "h2":
                statuses = h2_statuses(data)
            tally.cases += 1
            tally.kinds[kind] += 1
            tally.statuses.update(statuses)
            tally.upgraded += statuses.count(101)
            sent = b"".join(chunks)
            if any(s >= 500 and not expected_5xx(s, sent) for s in statuses):
                tally.findings.append(Finding(f"a 5xx answer: {data[:500]!r}", [seed]))
                stop.set()

    async def checker(workers_done: trio.Event) -> None:
        while True:
            with trio.move_on_after(check_every):
                await workers_done.wait()
            if workers_done.is_set():
                await trio.sleep(0.5)           # what the last cases made the server log
            problems = server.log_findings()
            broken = await server.answering()
            if broken:
                problems.append(broken)
            if problems:
                tally.findings += [Finding(p, list(recent)) for p in problems]
                stop.set()
                return
            recent.clear()
            if workers_done.is_set() or stop.is_set():
                return

    done = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(checker, done)
        async with trio.open_nursery() as pool:
            for _ in range(workers):
                pool.start_soon(worker)
        done.set()
    return tally
