"""A bot process of the hosted load run: a RandBot in every seat of its share of the games.

    python -m load.hosted_bots --plan PLAN.json --out OUT.json [--nice 10] [--stagger 5]

``PLAN.json`` lists the games a host created (`load.hosted`): for each, its
number, the port its players use (its own door, or the shared port) and an
invitation code per power.  Every bot joins with ``NME ('load-gN-POW
[invite CODE]')`` - the invitation names the game and the power, so the
bots of all the games may join at once, in any order - and holds its YES
(MAP) until the harness writes ``go`` on stdin, after every process
printed ``joined``; each game then starts at a random moment within
``--stagger`` seconds (`load.bot_proc.Timings`).  The bots are RandBots of
the sample client library, as in `load.bot_proc`, whose transport notes
SUBs sent and NOWs received for the client's view of a turn.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import socket
import sys
import time
from pathlib import Path
from typing import Any

import trio

import bots.client
from bots.client import BotClient, ClientError, ClientSettings
from bots.link import Received
from bots.randbot import RandBot
from bots.transport import TcpTransport
from load.bot_proc import SEASONS, TimedTransport, Timings, _cached_map_from_mdf
from protocol.messages import Mdf, Now
from server.logconfig import configure_logging

#: Joins in flight at once (each is NME, YES, MAP, MDF: a few round trips).
JOINING = 64


class Seating:
    """Counts the bots seated (their MDF arrived); the last one of the process says so."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.seated = 0
        self.all_seated = trio.Event()

    def one_more(self) -> None:
        self.seated += 1
        if self.seated >= self.total:
            self.all_seated.set()


class HostedTransport(TimedTransport):
    """`load.bot_proc.TimedTransport`, but seated bots are counted, not sequenced."""

    def __init__(self, stream: trio.SocketStream, game: int, timings: Timings,
                 seating: Seating, seated: trio.Event) -> None:
        super().__init__(stream, game, timings)
        self.seating = seating
        self.seated_event = seated

    async def receive(self) -> Received | None:
        received = await TcpTransport.receive(self)
        message = received.message if received is not None else None
        if isinstance(message, Mdf) and not self.timings.go.is_set():
            if not self.seated_event.is_set():
                self.seated_event.set()
                self.seating.one_more()
            await self.timings.go.wait()
            offset = random.Random(f"stagger/{self.game}").uniform(0, self.timings.stagger)
            await trio.sleep_until(self.timings.go_at + offset)
            return received
        if received is not None:
            # The timings of SUB/NOW (and --think) as in bot_proc: its receive without
            # the MDF gate, which the lines above replace.
            self._note(received)
        return received

    def _note(self, received: Received) -> None:
        if isinstance(received.message, Now):
            turn = received.message.turn
            self.timings.nows[self.game][(turn.year, SEASONS[turn.season])].append(
                time.monotonic())


async def play(plan: list[dict[str, Any]], timings: Timings) -> dict[str, Any]:
    seating = Seating(sum(len(g["codes"]) for g in plan))
    clients: list[tuple[BotClient, trio.Event]] = []
    for game in plan:
        for power, code in sorted(game["codes"].items()):
            seated = trio.Event()

            def connect(host: str, port: int, _game: int = game["id"],
                        _seated: trio.Event = seated) -> Any:
                return _open(host, port, _game, timings, seating, _seated)

            settings = ClientSettings(port=game["port"], seed=game["id"],
                                      name=f"load-g{game['id']}-{power} [invite {code}]",
                                      reconnect_attempts=5)
            clients.append((BotClient(RandBot(), settings, connect=connect), seated))
    errors: list[str] = []
    joining = trio.Semaphore(JOINING)

    async def run(client: BotClient, seated: trio.Event) -> None:
        await joining.acquire()
        released = False
        try:
            async with trio.open_nursery() as inner:
                async def release_when_seated() -> None:
                    nonlocal released
                    await seated.wait()
                    released = True
                    joining.release()
                inner.start_soon(release_when_seated)
                try:
                    await client.run()
                except (ClientError, OSError) as exc:
                    errors.append(f"{client.settings.name.split(' [')[0]}: {exc}")
                    if not seated.is_set():
                        seated.set()
                        seating.one_more()
                inner.cancel_scope.cancel()
        finally:
            if not released:
                joining.release()

    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        for client, seated in clients:
            nursery.start_soon(run, client, seated)
        await seating.all_seated.wait()
        print("joined", round(time.monotonic() - started, 2), flush=True)
        await trio.to_thread.run_sync(sys.stdin.readline)
        timings.go_at = trio.current_time()
        timings.go.set()
    problems = [f"{c.settings.name.split(' [')[0]}: {p.kind} {p.detail}"
                for c, _ in clients for p in c.problems]
    finished = sum(1 for c, _ in clients if c.tracker.end is not None)
    return {"errors": errors, "problems": problems, "finished_clients": finished,
            "clients": len(clients), "client_latencies": timings.latencies()}


async def _open(host: str, port: int, game: int, timings: Timings, seating: Seating,
                seated: trio.Event) -> TcpTransport:
    stream = await trio.open_tcp_stream(host, port)
    stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    transport = HostedTransport(stream, game, timings, seating, seated)
    await transport.start()
    return transport


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.hosted_bots")
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--stagger", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))     # a socket per bot
    configure_logging(sys.stderr, json=True, level=30)
    bots.client.map_from_mdf = _cached_map_from_mdf  # type: ignore[attr-defined,assignment]
    plan = json.loads(args.plan.read_text())
    timings = Timings(0.0, plan[0]["id"] if plan else 0, args.stagger)
    result = trio.run(play, plan, timings)
    args.out.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
