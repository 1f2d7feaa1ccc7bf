"""Instruction counts of the adjudicator's movement-phase work (valgrind callgrind).

Wall-clock medians move by +-25 % on a shared machine, so changes to the
hot path are compared by the number of machine instructions instead: the
work of ``benchmarks/bench_adjudicator.py`` (``validate`` on every order,
then ``advance``) over the same positions, counted by callgrind.

* The positions are those of the benchmark (same seed), written once to a
  JSON cache in the temporary directory: generating them under valgrind
  would take minutes, and every later build is then measured on exactly
  the same input even if it would generate other positions.
* Compiled build: one callgrind run that counts only inside the two entry
  points (``--toggle-collect`` on their C wrappers), so loading, decoding
  and copying the states are left out (but not the garbage collections
  that the work triggers).
* The heap left by loading the positions is collected and frozen first, so
  a full garbage collection of it does not land at random inside the count.
* Pure Python (``DAIDE_PURE_PYTHON=1``): the interpreter has no per-function
  symbol to toggle on, so two runs - with and without the work - are
  subtracted.

::

    python -m benchmarks.profile_adjudicator [--games N] [--keep FILE]
    python -m benchmarks.profile_adjudicator --run [--no-work]   # no valgrind

``--keep FILE`` keeps the callgrind output (compiled build) for
``callgrind_annotate``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import adjudicator
from adjudicator import DATC_2_4, GameState, Order, advance, validate
from adjudicator.tables import tables
from adjudicator.values import Phase
from benchmarks.bench_adjudicator import GAMES, SEED, YEARS, generate_positions
from engine.variants import standard_map
from maps import Map
from orders import (
    AMY,
    FLT,
    Convoy,
    ConvoyMove,
    Hold,
    Location,
    Move,
    SupportHold,
    SupportMove,
    Unit,
)

#: the C wrappers of the two entry points in the compiled build
ENTRY_SYMBOLS = ("CPyPy_validate___validate", "CPyPy_engine___advance")

Encoded = list[object]


# --- a plain JSON form of the positions (the cache) ---------------------------------


def _enc_unit(u: Unit) -> Encoded:
    return [u.power, u.kind, u.location.province, u.location.coast]


class _Decoder:
    """Rebuilds positions with the objects the benchmark's positions share:
    the map's own strings (so names compare by identity, as they do for
    strings that come from the map), the adjudicator's shared
    :class:`Location` of each place (its units and ``legal_orders`` use
    them) and, in the orders, the board's own :class:`Unit` values
    (``legal_orders`` names the units of the state)."""

    def __init__(self, m: Map) -> None:
        names: list[str] = [p.mnemonic for p in m.provinces]
        names += [c for c in m.loc_coast if c is not None]
        names += [*m.powers, AMY, FLT]
        self.strings: dict[str, str] = {s: s for s in names}
        t = tables(m)
        self.places: dict[tuple[str, str | None], Location] = {
            (loc.province, loc.coast): loc for loc in t.locations
        }
        self.board: dict[tuple[str, str, str, str | None], Unit] = {}

    def location(self, province: str, coast: str | None) -> Location:
        place = self.places.get((province, coast))
        return place if place is not None else Location(province, coast)

    def text(self, e: object) -> str:
        assert isinstance(e, str)
        return self.strings.get(e, e)

    def coast(self, e: object) -> str | None:
        return None if e is None else self.text(e)

    def unit(self, e: Sequence[object]) -> Unit:
        power, kind, province, coast = e
        key = (self.text(power), self.text(kind), self.text(province), self.coast(coast))
        u = self.board.get(key)
        return u if u is not None else Unit(key[0], key[1], self.location(key[2], key[3]))


def _enc_order(o: Order) -> Encoded:
    match o:
        case Hold(unit):
            return ["HLD", _enc_unit(unit)]
        case Move(unit, dest):
            return ["MTO", _enc_unit(unit), dest.province, dest.coast]
        case SupportHold(unit, supported):
            return ["SUPH", _enc_unit(unit), _enc_unit(supported)]
        case SupportMove(unit, supported, dest):
            return ["SUPM", _enc_unit(unit), _enc_unit(supported), dest]
        case Convoy(unit, army, dest):
            return ["CVY", _enc_unit(unit), _enc_unit(army), dest]
        case ConvoyMove(unit, dest, via):
            return ["CTO", _enc_unit(unit), dest, list(via)]
    raise TypeError(f"not a movement order: {o!r}")


def _dec_order(d: _Decoder, e: list[object]) -> Order:
    kind = e[0]
    unit = d.unit(e[1])  # type: ignore[arg-type]
    if kind == "HLD":
        return Hold(unit)
    if kind == "MTO":
        return Move(unit, d.location(d.text(e[2]), d.coast(e[3])))
    if kind == "SUPH":
        return SupportHold(unit, d.unit(e[2]))  # type: ignore[arg-type]
    if kind == "SUPM":
        return SupportMove(unit, d.unit(e[2]), d.text(e[3]))  # type: ignore[arg-type]
    if kind == "CVY":
        return Convoy(unit, d.unit(e[2]), d.text(e[3]))  # type: ignore[arg-type]
    if kind == "CTO":
        via = e[3]
        assert isinstance(via, list)
        return ConvoyMove(unit, d.text(e[2]), tuple(d.text(v) for v in via))
    raise ValueError(f"unknown order kind {kind!r}")


def _cache_file(games: int) -> Path:
    return Path(tempfile.gettempdir()) / f"daide-bench-positions-{SEED}-{games}-{YEARS}.json"


Item = tuple[GameState, dict[str, tuple[Order, ...]]]


def load_positions(m: Map, games: int) -> list[Item]:
    """The benchmark's positions as (state, orders), from the cache if present."""
    path = _cache_file(games)
    if not path.exists():
        data = [
            {
                "phase": [p.state.phase.season, p.state.phase.year],
                "units": [_enc_unit(u) for u in p.state.units],
                "ownership": dict(p.state.ownership),
                "orders": {
                    power: [_enc_order(o) for o in given] for power, given in p.orders.items()
                },
            }
            for p in generate_positions(m, games, YEARS, SEED)
        ]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    items: list[Item] = []
    dec = _Decoder(m)
    for d in json.loads(path.read_text(encoding="utf-8")):
        season, year = d["phase"]
        dec.board = {}
        units = tuple(dec.unit(u) for u in d["units"])
        dec.board = {
            (u.power, u.kind, u.location.province, u.location.coast): u for u in units
        }
        ownership = {dec.text(c): dec.text(p) for c, p in d["ownership"].items()}
        state = GameState(Phase(dec.text(season), year), units, ownership)
        orders = {
            dec.text(power): tuple(_dec_order(dec, o) for o in given)
            for power, given in d["orders"].items()
        }
        items.append((state, orders))
    return items


# --- the measured work -----------------------------------------------------------------


def work(m: Map, items: Sequence[Item]) -> list[GameState]:
    """What the benchmark times, for every position, in the same setting:
    each position on a fresh copy of its state (the adjudicator keeps
    derived facts per state object, adjudicator.derived), and every resulting state kept, as the
    benchmark keeps them for its cross-check - the garbage collector's share
    depends on what stays alive."""
    kept: list[GameState] = []
    for old, orders in items:
        state = GameState(old.phase, old.units, old.ownership, old.dislodged)
        for power, given in orders.items():
            for order in given:
                validate(m, state, power, order)
        kept.append(advance(m, state, orders, DATC_2_4).state)
    return kept


def run(games: int, do_work: bool) -> None:
    m = standard_map()
    items = load_positions(m, games)
    # The benchmark warms up before timing; here the map's tables (built once
    # per process) are made outside the counted calls the same way.
    tables(m)
    # Whether a full collection of the whole heap (the decoded positions)
    # happens to fall inside the counted calls depends on the setup's
    # allocations, not on the adjudicator: start from a clean, frozen heap so
    # that only the collections the work itself causes are counted.
    gc.collect()
    gc.freeze()
    start = time.perf_counter()
    placed = sum(len(s.units) for s in work(m, items)) if do_work else 0
    elapsed = time.perf_counter() - start
    print(f"positions {len(items)} placed {placed} seconds {elapsed:.3f} "
          f"compiled {adjudicator.COMPILED}", flush=True)


# --- under callgrind -------------------------------------------------------------------


def _callgrind(games: int, do_work: bool, out: Path, toggle: bool) -> int:
    """Run this script's ``--run`` under callgrind; the instructions counted."""
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    if toggle:
        cmd += ["--collect-atstart=no"] + [f"--toggle-collect={s}" for s in ENTRY_SYMBOLS]
    cmd += [sys.executable, "-m", "benchmarks.profile_adjudicator", "--run",
            "--games", str(games)]
    if not do_work:
        cmd.append("--no-work")
    env = dict(os.environ, PYTHONHASHSEED="0")  # same dict layouts run to run
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"callgrind failed:\n{done.stderr[-2000:]}")
    sys.stdout.write(done.stdout)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in callgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--run", action="store_true", help="run the work here, no valgrind")
    parser.add_argument("--no-work", action="store_true", help="with --run: only the setup")
    parser.add_argument("--keep", type=Path, help="keep the callgrind output in this file")
    args = parser.parse_args(argv)
    if args.run:
        run(args.games, not args.no_work)
        return 0
    m = standard_map()
    n = len(load_positions(m, args.games))  # writes the cache outside valgrind
    with tempfile.TemporaryDirectory(prefix="daide-callgrind-") as tmp:
        out = args.keep or Path(tmp) / "callgrind.out"
        if adjudicator.COMPILED:
            total = _callgrind(args.games, True, out, toggle=True)
            how = "compiled, counted inside validate + advance"
        else:
            full = _callgrind(args.games, True, out, toggle=False)
            setup = _callgrind(args.games, False, Path(tmp) / "setup.out", toggle=False)
            total = full - setup
            how = "pure Python, whole run minus the run without the work"
    print(f"instructions: {total:,} for {n} movement phases = {total / n:,.0f} per phase ({how})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
