"""Deliberately broken bots, for the tests of ``daide check-bot`` and of the faults the
tournament report and the bot log name: each has one fault.

    python -m tests.broken_bots FAULT --host HOST --port PORT

=================  ====================================================
``no-map``         joins (IM, NME) and never answers MAP
``foreign-units``  orders another power's units and a unit that is not there
``no-retreats``    orders nothing in retreat phases
``no-builds``      orders nothing when it owes builds
``crash-on-adm``   dies (an exception, exit status 1) on the first ADM
``leaves-on-press`` closes its connection and exits on the first press
``garbage``        before its orders of each phase, sends a SUB that breaks
                   the grammar (HUH) and a SUB for a turn long past (REJ)
=================  ====================================================

The others play as the project's HoldBot (`bots.holdbot`), through the
project's client (`bots.client`), so the one fault is all the checker should find.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Mapping
from pathlib import Path

import trio

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardView
from bots.client import BotClient, ClientSettings
from bots.holdbot import HoldBot
from bots.link import Received, Transport
from orders import AMY, Hold, Location, Order, Unit
from protocol.frames import InitialMessage, build_frame, dm_frame
from protocol.messages import Adm, Frm
from protocol.text import parse_text, tree_from_text


async def play_with(db: Path, faulty: Mapping[str, HoldBot], **game: object) -> None:
    """A whole game on a server over TCP with SQLite at ``db`` (``game``: its settings):
    the powers of ``faulty`` played by those broken bots, every other by a HoldBot."""
    from bots.runner import run_clients
    from tests.server_helpers import POWERS, start_server

    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, db, **game)
        clients = [BotClient(faulty.get(power) or HoldBot(),
                             ClientSettings(port=port, name=f"{power}:bot"))
                   for power in POWERS]
        with trio.fail_after(60):
            await run_clients(clients)
        server.stop()

class ForeignUnits(HoldBot):
    """Holds its own units, and orders a neighbour's unit and one that is nowhere."""

    name = "ForeignUnits"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        orders = super().orders(view, rng)
        if view.phase_kind == MOVEMENT:
            theirs = next((u for u in view.units if u.power != view.power), None)
            if theirs is not None:
                orders.append(Hold(Unit(theirs.power, theirs.kind, Location(theirs.province))))
            orders.append(Hold(Unit(view.power, AMY, Location("BOH"))))
        return orders


class NoRetreats(HoldBot):
    name = "NoRetreats"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        return [] if view.phase_kind == RETREAT else super().orders(view, rng)


class NoBuilds(HoldBot):
    name = "NoBuilds"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        if view.phase_kind == ADJUSTMENT and view.adjustment > 0:
            return []
        return super().orders(view, rng)


class Crash(Exception):
    """What the crash-on-adm bot dies of."""


def crash_on_adm(received: Received) -> None:
    if isinstance(received.message, Adm):
        raise Crash(f"cannot handle {received.message.COMMAND}")


def leave_on_press(received: Received) -> None:
    if isinstance(received.message, Frm):
        print("press received: leaving", flush=True)
        sys.exit(0)


class SendsGarbage(BotClient):
    """A HoldBot that sends two faulty messages before its orders of each phase:
    `broken_sub` (the server answers HUH) and `past_sub` (REJ)."""

    async def _submit(self, link: Transport) -> None:
        power = self.tracker.power or "ENG"
        await self._send(link, tree_from_text(broken_sub(power)))
        await self._send(link, tree_from_text(past_sub(power)))
        await super()._submit(link)


def broken_sub(power: str) -> str:
    """A SUB whose order does not follow the grammar (a power after HLD)."""
    return f"SUB ( ( {power} AMY LVP ) HLD ( {power} ) )"


def past_sub(power: str) -> str:
    """A SUB for a turn that is not being played."""
    return f"SUB ( SPR 1850 ) ( ( {power} AMY LVP ) HLD )"


async def never_answer_map(host: str, port: int) -> None:
    stream = await trio.open_tcp_stream(host, port)
    async with stream:
        await stream.send_all(build_frame(InitialMessage()))
        await stream.send_all(dm_frame(parse_text("NME ( 'NoMap' ) ( '1.0' )")))
        while await stream.receive_some(65536):
            pass        # MAP arrives and is never answered


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("fault", choices=("no-map", "foreign-units", "no-retreats", "no-builds",
                                          "crash-on-adm", "leaves-on-press", "garbage"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    if args.fault == "no-map":
        trio.run(never_answer_map, args.host, args.port)
        return 0
    strategy = {"foreign-units": ForeignUnits(), "no-retreats": NoRetreats(),
                "no-builds": NoBuilds()}.get(args.fault, HoldBot())
    hook = {"crash-on-adm": crash_on_adm, "leaves-on-press": leave_on_press}.get(args.fault)
    kind = SendsGarbage if args.fault == "garbage" else BotClient
    client = kind(strategy, ClientSettings(host=args.host, port=args.port,
                                           name="SendsGarbage" if args.fault == "garbage"
                                           else type(strategy).__name__),
                  on_message=hook)
    trio.run(client.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
