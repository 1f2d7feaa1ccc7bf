"""An external DAIDE bot for the tournament tests that fails on purpose.

    python tests/tournament_faulty_bot.py MODE HOST PORT [YEAR]

It plays DumbBot through the project's client (`bots.client.BotClient`)
until the first phase of YEAR (default 1902) in which it owes orders, then:

* ``crash`` - ends the process at once with status 3 (``os._exit``: no FM,
  the socket simply closes);
* ``hang`` - blocks the whole process (``time.sleep``): still connected,
  but reading and ordering nothing.
"""

from __future__ import annotations

import os
import random
import sys
import time

import trio

from bots.board import BoardView
from bots.client import BotClient, ClientSettings
from bots.dumbbot import DumbBot
from orders import Order


class FaultyBot:
    name = "FaultyBot"

    def __init__(self, mode: str, year: int) -> None:
        self.mode = mode
        self.year = year
        self.inner = DumbBot()

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        if view.year >= self.year:
            if self.mode == "crash":
                os._exit(3)
            time.sleep(3600)
        return self.inner.orders(view, rng)


def main() -> None:
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    year = int(sys.argv[4]) if len(sys.argv) > 4 else 1902
    client = BotClient(FaultyBot(mode, year), ClientSettings(host=host, port=port,
                                                             name="FaultyBot"))
    trio.run(client.run)


if __name__ == "__main__":
    main()
