"""`python -m benchmarks storage`: the server's storage on its own, without the server.

The store (`server.store.Store`) is driven the way the game actors drive it,
on a fresh database in a temporary directory with the server's default
durability (``"os"``: `server.durability.GroupCommitStore`, no fsyncs):
`GAMES` games played round by round to `ROUNDS` phases each, every phase
`ORDER_LINES` changes of a power's orders (`save_orders`: a journal line each)
and then the phase itself (`record_phase`: a journal line), with realistic
texts (a standard-map phase: 22 orders, their ORDs, the SCO and the NOW).
When the store says a fold is due (`Store.on_fold_due`) the phases gathered
are folded into SQLite after the current game's turn, as `server.durability`
does between the actors' turns.  Figures, in CPU time (``time.process_time``)
per phase, the median of `RUNS` runs with the range beside it:

* **write**: the order lines, the phase line and the phase's share of the folds;
* **read**: `Store.game` and `Store.phases` of every game once all are
  played (every phase of the game, merged from SQLite and the journal), per
  phase read;
* **replay**: a restart after a kill that left `REPLAY_ROUNDS` rounds of
  phases in the journal: `Store.open` reading the journal and
  `load_unfinished` folding it into SQLite, per phase of the journal.

No target: the figures compare two builds of the store on the same machine
(docs/performance.md, "The storage").

``python -m benchmarks storage [--write-only] [--rounds N]``
(``--write-only``: one run of the writes alone, ``--rounds`` phases a game
(default `ROUNDS`), nothing printed - for counting instructions:
``valgrind --tool=callgrind`` with two round counts, the difference over
the phases between them.)
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from server.durability import GroupCommitStore
from server.settings import GameSettings
from server.store import Seat, Store

GAMES = 30
ROUNDS = 30
ORDER_LINES = 6
REPLAY_ROUNDS = 4      # phases a game left in the journal (the store folds at 128)
RUNS = 5

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
_UNITS = {
    "AUS": ("AMY BUD", "AMY VIE", "FLT TRI"), "ENG": ("FLT EDI", "FLT LON", "AMY LVP"),
    "FRA": ("AMY PAR", "FLT BRE", "AMY MAR"), "GER": ("AMY MUN", "AMY BER", "FLT KIE"),
    "ITA": ("FLT NAP", "AMY ROM", "AMY VEN"), "RUS": ("AMY MOS", "AMY WAR", "FLT SEV"),
    "TUR": ("FLT ANK", "AMY CON", "AMY SMY"),
}
ORDERS = {power: [f"( {power} {unit} ) MTO {unit[-3:]}X" for unit in units]
          for power, units in _UNITS.items()}
ORDERS["RUS"].append("( RUS FLT ( STP SCS ) ) SUP ( RUS AMY MOS ) MTO LVN")
SCO = ("SCO " + " ".join(f"( {p} {' '.join(u[-3:] for u in _UNITS[p])} )" for p in POWERS)
       + " ( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )")
SEATS = [Seat(power, 1000 + i, "bot", "1.0") for i, power in enumerate(POWERS)]


def _turn(index: int) -> str:
    return f"{('SPR', 'FAL')[index % 2]} {1901 + index // 2}"


def _now(turn: str) -> str:
    return f"NOW ( {turn} ) " + " ".join(f"( {p} {u} )" for p in POWERS for u in _UNITS[p])


def _messages(turn: str) -> list[str]:
    return ([f"ORD ( {turn} ) ( {order} ) ( SUC )" for orders in ORDERS.values()
             for order in orders] + [SCO, _now(turn)])


def _play(store: Store, games: list[int], rounds: range, fold: bool) -> int:
    """Play ``rounds`` of every game; fold when the store asks (``fold``) or never
    (the store folds by itself only once too many have gathered).  Returns the
    phases played."""
    due = False

    def fold_due() -> None:
        nonlocal due
        due = True

    store.on_fold_due = fold_due if fold else (lambda: None)
    phases = 0
    for index in rounds:
        turn, new_turn = _turn(index), _turn(index + 1)
        messages = _messages(turn)
        now = _now(new_turn)
        for game in games:
            for line in range(ORDER_LINES):
                power = POWERS[line]
                store.save_orders(game, power, turn, ORDERS[power])
            store.record_phase(game, turn, ORDERS, messages, SCO, now, new_turn)
            phases += 1
            if due:
                due = False
                store.fold()
    return phases


def _started(store: Store, count: int) -> list[int]:
    games = []
    for _ in range(count):
        game = store.create_game(GameSettings())
        store.start_game(game, SEATS, _turn(0), SCO, _now(_turn(0)))
        games.append(game)
    return games


def _cpu(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def run_once(directory: Path, rounds: int = ROUNDS) -> tuple[float, float, float]:
    """One run: CPU seconds per phase written, per phase read, per phase replayed."""
    store = GroupCommitStore.open(directory / "games.db")
    try:
        games = _started(store, GAMES)
        played = 0

        def write() -> None:
            nonlocal played
            played = _play(store, games, range(rounds), fold=True)

        write_cpu = _cpu(write)
        read = 0

        def reads() -> None:
            nonlocal read
            for game in games:
                store.game(game)
                read += len(store.phases(game))

        read_cpu = _cpu(reads)
    finally:
        store.close()
    # A server killed with phases in its journal, and the next start.
    killed = GroupCommitStore.open(directory / "replay.db")
    games = _started(killed, GAMES)
    _play(killed, games, range(REPLAY_ROUNDS), fold=False)
    unfolded = REPLAY_ROUNDS * GAMES

    def replay() -> None:
        again = GroupCommitStore.open(directory / "replay.db")
        again.load_unfinished()
        again.close()

    replay_cpu = _cpu(replay)
    killed.close()
    return write_cpu / played, read_cpu / read, replay_cpu / unfolded


def write_only(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = GroupCommitStore.open(Path(directory) / "games.db")
        _play(store, _started(store, GAMES), range(rounds), fold=True)
        store.close()


def main() -> int:
    args = sys.argv[1:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else ROUNDS
    if "--write-only" in args:
        write_only(rounds)
        return 0
    print(f"{GAMES} games x {rounds} phases, {ORDER_LINES} order lines a phase, durability os;"
          f" replay of {REPLAY_ROUNDS * GAMES} phases; load average {os.getloadavg()[0]:.1f}")
    results = []
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as directory:
            results.append(run_once(Path(directory), rounds))
    for name, figures in zip(("write", "read", "replay"), zip(*results, strict=True),
                             strict=True):
        micros = [f * 1e6 for f in figures]
        print(f"  {name:6} {statistics.median(micros):7.1f} us per phase"
              f" (runs {min(micros):.1f}-{max(micros):.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
