"""A bot process of the load harness: seven RandBots for each of its games.

    python -m load.bot_proc --port P --first-game K --games N --out OUT.json

With ``--stagger S`` each game starts at a random moment (seeded by the
game) within S seconds of the signal instead of all at once.  With
``--think S`` each bot waits a random 0..2S seconds after a NOW
before it orders, as a bot that thinks (or a person) would; the default 0
plays as fast as the bots can.

The bots are the sample client library (`bots.client.BotClient` playing
`bots.randbot.RandBot`, as ``daide bot randbot --count`` runs them).  They
send their NMEs one after the other (each game fills with its own seven,
asking for their powers by name) and hold their YES (MAP) until the harness
writes ``go`` on stdin - after every process printed ``joined`` - so that
all the games start together and really run at the same time.

Each transport notes when a SUB leaves and when a NOW arrives, so the
client's view of a turn - last SUB sent to NOW received by all seven - is
measured too (it includes the bot process's own scheduling).  The bots of
one process share one parsed map (they all get the same MDF).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import socket
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import trio

import bots.client
import engine.mapfiles
from bots.client import BotClient, ClientError, ClientSettings
from bots.link import Received
from bots.randbot import RandBot
from bots.transport import TcpTransport
from protocol.messages import Mdf, Now
from server.logconfig import configure_logging

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
SEASONS = {"SPR": 0, "SUM": 1, "FAL": 2, "AUT": 3, "WIN": 4}

Tree = tuple[Any, ...]


def _freeze(tree: Any) -> Any:
    return tuple(_freeze(x) for x in tree) if isinstance(tree, tuple) else tree


_map_from_mdf = engine.mapfiles.map_from_mdf


@functools.lru_cache(maxsize=4)
def _shared_map(mdf: Any, options: tuple[tuple[str, Any], ...]) -> Any:
    return _map_from_mdf(mdf, **dict(options))


def _cached_map_from_mdf(mdf: Any, **options: Any) -> Any:
    """`engine.mapfiles.map_from_mdf`, once per process: every bot gets the same MDF."""
    return _shared_map(_freeze(mdf), tuple(sorted(options.items())))


class Timings:
    """SUB sent and NOW received, per game and turn (monotonic seconds)."""

    def __init__(self, think: float = 0.0, seed: int = 0, stagger: float = 0.0) -> None:
        self.think = think
        self.stagger = stagger
        self.go_at = 0.0
        self.rng = random.Random(seed)
        self.seated = trio.Event()
        self.go = trio.Event()
        self.subs: dict[int, dict[tuple[int, int], float]] = defaultdict(dict)
        self.nows: dict[int, dict[tuple[int, int], list[float]]] = defaultdict(
            lambda: defaultdict(list))

    def latencies(self) -> list[float]:
        """Last SUB of a phase to the NOW of the next one received by all seven."""
        out = []
        for game, nows in self.nows.items():
            subs = self.subs.get(game, {})
            for turn, times in sorted(nows.items()):
                if len(times) < len(POWERS):
                    continue
                before = [t for t in subs if t < turn]
                if before:
                    out.append(max(times) - subs[max(before)])
        return out


def _turn(tree: Any) -> tuple[int, int]:
    return (int(tree[1]), SEASONS[str(tree[0])])


class TimedTransport(TcpTransport):
    """The bots' TCP transport, noting when SUBs leave and NOWs arrive."""

    def __init__(self, stream: trio.SocketStream, game: int, timings: Timings) -> None:
        super().__init__(stream)
        self.game = game
        self.timings = timings

    async def send(self, message: Tree) -> None:
        await super().send(message)
        if message and message[0] == "SUB" and len(message) > 1 and not isinstance(
                message[1][0], tuple):
            turn = _turn(message[1])
            subs = self.timings.subs[self.game]
            subs[turn] = max(subs.get(turn, 0.0), time.monotonic())

    async def receive(self) -> Received | None:
        received = await super().receive()
        message = received.message if received is not None else None
        if isinstance(message, Now):
            self.timings.nows[self.game][(message.turn.year, SEASONS[message.turn.season])
                                         ].append(time.monotonic())
            if self.timings.think:
                # Thinking time before the bot reads the NOW and orders (--think).
                await trio.sleep(self.timings.rng.uniform(0, 2 * self.timings.think))
        if isinstance(message, Mdf) and not self.timings.go.is_set():
            # This bot has its seat (the lobby placed its NME): let the next one join,
            # and accept the map only when every game is filled (plus the game's offset
            # within --stagger), so that they all run at the same time.
            self.timings.seated.set()
            await self.timings.go.wait()
            offset = random.Random(f"stagger/{self.game}").uniform(0, self.timings.stagger)
            await trio.sleep_until(self.timings.go_at + offset)
        return received


def connector(game: int, timings: Timings) -> Any:
    """A `bots.link.Connector` making `TimedTransport`s (as `open_transport` does)."""
    async def connect(host: str, port: int) -> TcpTransport:
        stream = await trio.open_tcp_stream(host, port)
        stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        transport = TimedTransport(stream, game, timings)
        await transport.start()
        return transport

    return connect


async def play(port: int, first: int, games: int, timings: Timings) -> dict[str, Any]:
    clients = [
        BotClient(RandBot(), ClientSettings(port=port, name=f"{power}:load-g{game}", seed=game,
                                            reconnect_attempts=5),
                  connect=connector(game, timings))
        for game in range(first, first + games) for power in POWERS
    ]
    errors: list[str] = []

    async def run(client: BotClient) -> None:
        try:
            await client.run()
        except (ClientError, OSError) as exc:
            errors.append(f"{client.settings.name}: {exc}")
            timings.seated.set()

    started = time.monotonic()
    async with trio.open_nursery() as nursery:
        for client in clients:
            timings.seated = trio.Event()
            nursery.start_soon(run, client)
            await timings.seated.wait()
        print("joined", round(time.monotonic() - started, 2), flush=True)
        # The harness says "go" on stdin once every process has seated its bots.
        await trio.to_thread.run_sync(sys.stdin.readline)
        timings.go_at = trio.current_time()
        timings.go.set()
    problems = [f"{c.settings.name}: {p.kind} {p.detail}" for c in clients for p in c.problems]
    finished = sum(1 for c in clients if c.tracker.end is not None)
    return {"errors": errors, "problems": problems, "finished_clients": finished,
            "clients": len(clients), "client_latencies": timings.latencies()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m load.bot_proc")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--first-game", type=int, required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a bot thinks before ordering (uniform 0..2x)")
    parser.add_argument("--stagger", type=float, default=0.0,
                        help="games start at random moments within this many seconds")
    args = parser.parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    configure_logging(sys.stderr, json=True, level=30)     # warnings: every problem
    bots.client.map_from_mdf = _cached_map_from_mdf  # type: ignore[attr-defined,assignment]
    timings = Timings(args.think, args.first_game, args.stagger)
    result = trio.run(play, args.port, args.first_game, args.games, timings)
    args.out.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
