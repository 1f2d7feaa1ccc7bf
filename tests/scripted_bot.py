"""A bot whose moves are written in advance, for tests that need a known turn.

    python -m tests.scripted_bot SCRIPT --host HOST --port PORT

A real client over TCP (the project's `bots.client`), asking for its power
with the ``'GER:name'`` convention; it plays the orders of its script at the
turns the script names, and as the project's HoldBot everywhere else (hold,
disband, waive).  The browser's whole-game test uses it so that the person's
unit is certainly dislodged at a known turn, and must retreat.

=====================  ====================================================
``germany-takes-bel``  Germany: Spring 1901 A Mun - Ruh, F Kie - Hol;
                       Spring 1902 F Hol - Bel supported by A Ruh
=====================  ====================================================
"""

from __future__ import annotations

import argparse
import random
import sys

import trio

from bots.board import MOVEMENT, BoardView
from bots.client import BotClient, ClientSettings
from bots.holdbot import HoldBot
from orders import AMY, FLT, Location, Move, Order, SupportMove, Unit


def _army(province: str) -> Unit:
    return Unit("GER", AMY, Location(province))


def _fleet(province: str) -> Unit:
    return Unit("GER", FLT, Location(province))


#: Each script: its power and, by (season, year), the orders replacing the holds of
#: the units they name.
SCRIPTS: dict[str, tuple[str, dict[tuple[str, int], list[Order]]]] = {
    "germany-takes-bel": ("GER", {
        ("SPR", 1901): [Move(_army("MUN"), Location("RUH")), Move(_fleet("KIE"), Location("HOL"))],
        ("SPR", 1902): [Move(_fleet("HOL"), Location("BEL")),
                        SupportMove(_army("RUH"), _fleet("HOL"), "BEL")],
    }),
}


class Scripted(HoldBot):
    """HoldBot, except at the turns of its script."""

    name = "Scripted"

    def __init__(self, script: dict[tuple[str, int], list[Order]]) -> None:
        self.script = script

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        orders = super().orders(view, rng)
        written = self.script.get((view.season, view.year))
        if view.phase_kind != MOVEMENT or not written:
            return orders
        moved = {order.unit for order in written if hasattr(order, "unit")}
        return [o for o in orders if getattr(o, "unit", None) not in moved] + written


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("script", choices=sorted(SCRIPTS))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    power, script = SCRIPTS[args.script]
    client = BotClient(Scripted(script), ClientSettings(host=args.host, port=args.port,
                                                        name=f"{power}:Scripted"))
    trio.run(client.run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
