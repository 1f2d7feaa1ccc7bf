"""Reference timing with the PyPI ``diplomacy`` package (run in ``bench-env/``).

This script is run by ``benchmarks/bench_adjudicator.py`` as a subprocess
of the separate benchmark interpreter ``bench-env/bin/python``; it must not
import anything of this project (the project is not installed there, and
``diplomacy`` is never a dependency of the product).

Input (stdin): one JSON document per line, each a list of positions (the
benchmark sends the positions in chunks, interleaved with its own timing,
so that a change of machine load hits both sides alike)::

    [{"phase": "S1901M",
      "units": {"FRANCE": ["A PAR", "F BRE"], ...},
      "orders": {"FRANCE": ["A PAR - BUR", "F BRE S A PAR - BUR"], ...}},
     ...]

Output (stdout): one JSON line per input line, a list with one entry per
position::

    {"orders_seconds": 0.00051, "seconds": 0.00042,
     "units": {"FRANCE": ["A BUR", "*F BRE"], ...}}

``orders_seconds`` times ``Game.set_orders()`` for every power - the
package's order validation (each order is parsed and checked against the
board; an illegal one is refused) - and ``seconds`` times
``Game.process()``, the adjudication; setting up the board is not timed.
``units`` is the board right after the movement phase, dislodged units
marked with ``*`` as the package writes them.
"""

from __future__ import annotations

import json
import sys
import time

#: Untimed runs of a chunk's first position before the chunk (~10 ms).
WARM_UP = 3


def run_position(position: dict) -> dict:  # type: ignore[type-arg]
    from diplomacy import Game

    game = Game()
    game.set_current_phase(position["phase"])
    game.clear_units()
    for power, units in position["units"].items():
        game.set_units(power, units)
    clock = time.perf_counter
    start = clock()
    for power, orders in position["orders"].items():
        game.set_orders(power, orders)
    ordered = clock()
    game.process()
    processed = clock()
    units = {power: sorted(u) for power, u in game.get_state()["units"].items() if u}
    return {"orders_seconds": ordered - start, "seconds": processed - ordered, "units": units}


def main() -> int:
    for line in sys.stdin:
        if line.strip():
            positions = json.loads(line)
            if positions:
                # Untimed: woken after the benchmark's turn, a process runs slower
                # until it has run a few milliseconds (the benchmark warms up too).
                for _ in range(WARM_UP):
                    run_position(positions[0])
            sys.stdout.write(json.dumps([run_position(p) for p in positions]) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
