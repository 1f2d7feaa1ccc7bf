"""The files `daide new-bot` writes: a bot on `bots/`, its test, a README.

Templates with ``{name}`` (the bot's module and command name, ``snake_case``)
and ``{title}`` (its class and NME name, ``CamelCase``); braces meant for
the files themselves are doubled.
"""

from __future__ import annotations

BOT = '''"""{title}: a no-press DAIDE bot on the daide-server bot library (`bots/`).

It goes for supply centres: each unit moves towards the nearest centre its
power does not own (never into a province another of its units stands in or
is moving to), holds on a centre it must keep, retreats towards centres
instead of disbanding, and builds armies in free home centres - where
HoldBot holds, disbands and waives.  Run it against any DAIDE server:

    python {name}.py --host 127.0.0.1 --port 16713
"""

from __future__ import annotations

import argparse
import random

import trio

from bots.board import MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.client import BotClient, ClientSettings
from bots.geography import ARMY, Node
from bots.holdbot import farthest_units
from bots.orders import location_of, unit_of
from orders import Build, Disband, Hold, Move, Order, Remove, Retreat, Unit, Waive


class {title}:
    name = "{title}"

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        targets = {{c for c, owner in view.owners.items() if owner != view.power}}
        if view.phase_kind == MOVEMENT:
            taken = {{u.province for u in view.my_units}}
            orders: list[Order] = []
            for unit in view.my_units:
                step = self.nearest(view, unit, unit.node, targets, taken)
                if step is None or (unit.province in targets and view.season == "FAL"):
                    orders.append(Hold(unit_of(unit)))
                else:
                    taken.add(step[0])
                    orders.append(Move(unit_of(unit), location_of(step)))
            return orders
        if view.phase_kind == RETREAT:
            return [Retreat(unit_of(u), location_of(min(u.retreats, key=lambda n: self.distance(
                        view, u, n, targets)))) if u.retreats else Disband(unit_of(u))
                    for u in view.my_dislodged]
        owed = view.adjustment
        if owed < 0:
            return [Remove(unit_of(u)) for u in farthest_units(view, -owed)]
        sites = view.build_sites()[:owed]
        builds: list[Order] = [Build(Unit(view.power, ARMY, location_of((s, None))))
                               for s in sites]
        return builds + [Waive(view.power)] * (owed - len(sites))

    def distance(self, view: BoardView, unit: BoardUnit, node: Node, targets: set[str]) -> int:
        found = view.geography.distance_to_any(unit.kind, node, targets)
        return 1000 if found is None else found

    def nearest(self, view: BoardView, unit: BoardUnit, node: Node, targets: set[str],
                taken: set[str]) -> Node | None:
        """The next step towards the nearest target, if it brings the unit closer."""
        steps = [n for n in view.geography.neighbours(unit.kind, node) if n[0] not in taken]
        best = min(steps, key=lambda n: (self.distance(view, unit, n, targets), n), default=None)
        here = self.distance(view, unit, node, targets)
        if best is None or self.distance(view, unit, best, targets) >= here:
            return None
        return best


def main() -> None:
    parser = argparse.ArgumentParser(description="{title}, a no-press DAIDE bot")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=16713)
    parser.add_argument("--name", default="{title}")
    args = parser.parse_args()
    client = BotClient({title}(), ClientSettings(host=args.host, port=args.port, name=args.name))
    trio.run(client.run)


if __name__ == "__main__":
    main()
'''

TEST = '''"""{title} passes `daide check-bot` (every check; run with `python -m pytest`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_{name}_passes_the_bot_checker(tmp_path: Path) -> None:
    daide = shutil.which("daide") or str(Path(sys.executable).with_name("daide"))
    report = tmp_path / "report.json"
    done = subprocess.run(
        [daide, "check-bot", "--parallel", "3", "--json", str(report), "--",
         sys.executable, str(HERE / "{name}.py"), "--host", "{{host}}", "--port", "{{port}}"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(report.read_text())["passed"] is True
'''

README = '''# {title}

A no-press bot for the DAIDE protocol, written with the daide-server bot
library (`bots/`): `{name}.py` is the whole bot.  It goes for the nearest
supply centre its power does not own, retreats instead of disbanding and
builds in free home centres - where the sample HoldBot holds, disbands and
waives.

It needs the daide-server project installed in the Python you run it with
(the `daide` command and its `bots`, `orders` packages), e.g. its `.venv`.

## Play

    daide serve &                                   # a server on 127.0.0.1:16713
    python {name}.py --host 127.0.0.1 --port 16713  # one power
    daide bot holdbot --count 6                     # the other six

## Check it

    daide check-bot -- python {name}.py --host {{host}} --port {{port}}
    python -m pytest                                # the same, as a test

`daide check-bot` plays short scripted games (every kind of phase, unexpected
messages, a dropped connection, another variant) and says pass, warn or
fail for each check, with the messages exchanged and one line of advice.
After a real game, `daide export GAME --bot-log POWER` shows what your power
was sent, what the server accepted from it and what was missing.

## A tournament against the sample bots

    daide tournament --bots {name},dumbbot,randbot,holdbot --games 14 \\
        --external "{name}=python $PWD/{name}.py --host {{host}} --port {{port}}"

The tournament seats every bot at every power in turn and reports each bot's
score with its confidence interval (see the project's docs/tournament.md).

## Change it

`{title}.orders(view, rng)` gets a `BoardView` (the power, the phase, every
unit, the centres' owners, the map's geography) and returns the orders of
the phase.  Every phase kind is answered: movement, retreat (`view.my_dislodged`,
each with its `retreats`), adjustment (`view.adjustment`: builds owed if
positive, removals if negative).
'''
