"""``daide adjudicate`` end to end, against the PyPI ``diplomacy`` package.

1. Phases: the movement phases of the adjudicator benchmark's seeded random
   games (:func:`benchmarks.bench_adjudicator.generate_positions`: every unit
   a random legal order, supports and convoys as common as moves), written
   as ``daide adjudicate`` input - one block per phase: its ``SCO``, its
   ``NOW`` and one ``SUB`` per power, as a server would receive them.
2. Ours: each block goes through :func:`daide.cmd_adjudicate.adjudicate_stream`
   - reading the lines, parsing SCO, NOW and every SUB, the THX check of
   every order, adjudication, rendering THX, ORD, SCO and NOW as text and
   writing them - timed per block with ``perf_counter``.  The whole input is
   also run once through the real ``daide adjudicate`` command as a
   subprocess, whose wall time per phase (start-up included) is printed, and
   whose output must equal the in-process output byte for byte.
3. The reference: the same phases in the package's notation, timed in its
   own interpreter (``bench-env/``, :class:`benchmarks.bench_adjudicator.Reference`)
   on ``Game.set_orders`` for every power + ``Game.process``.  Chunks of
   phases alternate between the two so that load changes hit both alike;
   each side runs a few phases untimed before each of its chunks (a process
   woken after the other's turn runs slower until it has run a few
   milliseconds).
4. Printed: both medians, the ratio, and the targets (median <= 150 us per
   phase, >= 15x the reference: printed, never asserted).

``python -m benchmarks adjudicate_cli [--games N]``.
"""

from __future__ import annotations

import gc
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import adjudicator
from benchmarks.bench_adjudicator import (
    BENCH_PYTHON,
    SEED,
    YEARS,
    Position,
    Reference,
    generate_positions,
)
from daide.cmd_adjudicate import adjudicate_stream
from engine import convert
from engine.phase_text import Setting, rulebook, setting
from engine.variants import standard_map
from load.report import machine
from protocol.messages import Sub
from protocol.text import render_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = 30
CHUNK = 100
#: Blocks run untimed before the first chunk and after each of the reference's turns.
WARM_UP = 50
TARGET_US = 150.0
TARGET_RATIO = 15.0


def block_text(game: Setting, position: Position) -> str:
    """One phase as ``daide adjudicate`` input: SCO, NOW, a SUB per power."""
    state = position.state
    rep = game.rep
    lines = [render_text(convert.sco_message(state, game.map.powers, game.centres).to_tokens(rep), rep),
             render_text(convert.now_message(state).to_tokens(rep), rep)]
    for given in position.orders.values():
        sub = Sub(tuple(given))
        lines.append(render_text(sub.to_tokens(rep), rep))
    return "\n".join(lines) + "\n\n"


def time_block(game: Setting, text: str) -> tuple[float, str]:
    """Seconds for one block through ``adjudicate_stream``, and its output."""
    out = io.StringIO()
    lines = text.splitlines(keepends=True)
    start = time.perf_counter()
    status = adjudicate_stream(game, lines, out)
    elapsed = time.perf_counter() - start
    if status:
        raise RuntimeError(f"daide adjudicate failed on a benchmark block: {out.getvalue()}")
    return elapsed, out.getvalue()


def run_command(text: str) -> tuple[float, str]:
    """The real ``daide adjudicate`` on the whole input: wall seconds and its output."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "daide", "adjudicate", f.name],
                              capture_output=True, text=True, cwd=ROOT, check=False)
        elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"daide adjudicate exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed, done.stdout


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} us"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    games = int(args[args.index("--games") + 1]) if "--games" in args else GAMES
    game = setting("standard", rulebook("datc-2.4"))
    positions = generate_positions(standard_map(), games, YEARS, SEED)
    blocks = [block_text(game, p) for p in positions]
    print(f"machine: {machine()}, load average {os.getloadavg()[0]:.1f}")
    print(f"phases: {len(blocks)} movement phases from {games} seeded random games "
          f"(SCO + NOW + 7 SUB lines each, {sum(map(len, blocks)) // len(blocks)} characters "
          "per block)")
    for text in blocks[:WARM_UP]:  # warm the caches before timing
        time_block(game, text)
    # The positions and their states are this process's, not the command's:
    # keep the garbage collector from walking them on every timed block.
    gc.freeze()
    reference = Reference() if BENCH_PYTHON.exists() else None
    ours: list[float] = []
    outputs: list[str] = []
    theirs: list[float] = []
    try:
        for k in range(0, len(positions), CHUNK):
            for text in blocks[k : k + CHUNK]:
                elapsed, output = time_block(game, text)
                ours.append(elapsed)
                outputs.append(output)
            if reference is not None:
                theirs.extend(float(str(r["orders_seconds"])) + float(str(r["seconds"]))
                              for r in reference.run(positions[k : k + CHUNK]))
                # Woken after the reference's turn, this process runs a whole chunk
                # slower (~200 instead of ~125 us a phase on the reference VM) unless
                # it runs a few milliseconds first: warm up again, untimed, as the
                # reference worker does before each chunk.
                for text in blocks[:WARM_UP]:
                    time_block(game, text)
    finally:
        if reference is not None:
            reference.close()
    median = statistics.median(ours)
    print("the adjudicator: " + ("compiled with mypyc" if adjudicator.COMPILED else
                                 "pure Python (no compiled build matches the sources)"))
    print(f"daide adjudicate (in process, text in -> text out): median {_us(median)} per "
          f"phase, p90 {_us(statistics.quantiles(ours, n=10)[-1])}")
    wall, stdout = run_command("".join(blocks))
    same = stdout == "".join(outputs)
    print(f"daide adjudicate (subprocess, whole stream, start-up included): "
          f"{_us(wall / len(blocks))} per phase; output "
          f"{'identical to' if same else 'DIFFERS from'} the in-process output")
    time_met = median * 1e6 <= TARGET_US
    if not theirs:
        print("reference: skipped (no bench-env/; `make bench` creates it)")
        print(f"targets: median {_us(median)} <= {TARGET_US:.0f} us "
              f"{'met' if time_met else 'NOT met'}; ratio not measured")
        return 0 if same else 1
    ref_median = statistics.median(theirs)
    ratio = ref_median / median
    ratio_met = ratio >= TARGET_RATIO
    print(f"diplomacy: median {_us(ref_median)} per phase (set_orders + process)")
    print(f"targets: median {_us(median)} <= {TARGET_US:.0f} us "
          f"{'met' if time_met else 'NOT met'}; {ratio:.1f}x >= {TARGET_RATIO:.0f}x the "
          f"reference {'met' if ratio_met else 'NOT met'} - "
          f"{'both met' if time_met and ratio_met else 'NOT all met'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
