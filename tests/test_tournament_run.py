"""Tournaments end to end over real sockets on the embedded server.

One uninterrupted 14-game tournament (module fixture) is checked three ways:
its scores are recomputed here, independently, from the server's own game
records (`server.store.Store`: the ending texts and the last phase's SCO and
NOW); the seats the server gave match the plan; and a second run of the
same tournament, interrupted after a few games and then resumed, ends with
exactly the same games, totals and report tables.
"""

from __future__ import annotations

import csv
import io
import logging
import re
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from daide.cli import main
from server.logconfig import configure_logging
from server.store import Store
from tournament.config import TournamentConfig, parse_bots
from tournament.report import write_report
from tournament.runner import Progress, run_tournament
from tournament.store import StoredGame, TournamentStore

BOTS = "dumbbot,randbot,holdbot"
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
DPTG = {1: 360, 2: 150, 3: 80, 4: 45, 5: 24, 6: 10, 7: 0}


def config(out: Path, **changes: object) -> TournamentConfig:
    options: dict[str, object] = {"bots": parse_bots(BOTS), "games": 14, "seed": 42,
                                  "year_limit": 2, "parallel": 3, "out": out,
                                  "disorder_grace": 1.0, "time_limit": 60.0}
    options.update(changes)
    return TournamentConfig(**options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Played:
    config: TournamentConfig
    tournament_id: int
    seconds: float


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    configure_logging(sys.stderr, json=True, level=logging.WARNING)
    cfg = config(tmp_path_factory.mktemp("whole"))
    started = time.monotonic()
    run = trio.run(run_tournament, cfg)
    seconds = time.monotonic() - started
    assert run.complete and run.played == 14 and run.failed == 0 and not run.resumed
    store = TournamentStore.open(cfg.db_path)
    write_report(cfg, store, run.tournament_id)
    store.close()
    yield Played(cfg, run.tournament_id, seconds)


# --- an independent scorer over the server's records ------------------------------------


def centres_of(sco: str) -> dict[str, int]:
    counts = {p: 0 for p in POWERS}
    for owner, centres in re.findall(r"\( ([A-Z]{3})((?: [A-Z]{3})*) \)", sco):
        if owner in counts:
            counts[owner] = len(centres.split())
    return counts


def units_of(now: str) -> dict[str, int]:
    counts = {p: 0 for p in POWERS}
    for power in re.findall(r"\( ([A-Z]{3}) (?:AMY|FLT) ", now):
        counts[power] += 1
    return counts


def scores_of(centres: dict[str, int], units: dict[str, int], winner: str | None
              ) -> dict[str, dict[str, float]]:
    """Each system's score per power, written from the rules in the module doc of scoring."""
    alive = [p for p in POWERS if centres[p] or units[p]]
    shared = [winner] if winner else alive
    squares = sum(c * c for c in centres.values())
    out: dict[str, dict[str, float]] = {"sos": {}, "draw-size": {}, "dptg": {}, "points": {}}
    for p in POWERS:
        out["sos"][p] = (100.0 if p == winner else 0.0) if winner else 100 * centres[p] ** 2 / squares
        out["draw-size"][p] = 100 / len(shared) if p in shared else 0.0
        out["dptg"][p] = DPTG[len(shared)] if p in shared else -60
        if winner:
            out["points"][p] = 28.0 if p == winner else 0.0
        elif centres[p] == 0:
            out["points"][p] = 0.0
        else:
            above = sum(1 for q in POWERS if centres[q] > centres[p])
            tied = sum(1 for q in POWERS if centres[q] == centres[p])
            out["points"][p] = sum(7 - i for i in range(above, above + tied)) / tied
    return out


def test_scores_recomputed_from_the_server_records(played: Played) -> None:
    cfg = played.config
    store = TournamentStore.open(cfg.db_path)
    games = store.games(played.tournament_id)
    store.close()
    server = Store.open(cfg.db_path)
    totals: dict[tuple[str, str], list[float]] = {}
    centres_total: dict[str, list[int]] = {}
    try:
        for game in games:
            assert game.status == "finished" and game.server_game_id is not None
            record = server.game(game.server_game_id)
            assert record.status == "finished"
            # The server seated every bot where the plan put it ('FRA:DumbBot#T1.G3.1').
            lineup = {s.power: s.bot for s in game.seats}
            for seat in record.seats:
                prefix, _, rest = seat.client_name.partition(":")
                assert prefix == seat.power
                assert rest.split("#")[0].lower() == lineup[seat.power]
                assert rest.endswith(f"#T{played.tournament_id}.G{game.number}.1")
            last = server.phases(game.server_game_id)[-1]
            ending = record.ending
            winner = ending[0][len("SLO ( "):-2] if ending[0].startswith("SLO") else None
            assert winner is not None or ending[0] == "DRW"
            assert ending[-1].startswith("SMR")
            centres, units = centres_of(last.sco), units_of(last.now)
            # The year limit: a draw after the autumn of 1902 (max_year house rule).
            assert re.match(r"(FAL|AUT) 1902", last.turn) and game.ending == "draw"
            assert {s.power: s.centres for s in game.seats} == centres
            for system, per_power in scores_of(centres, units, winner).items():
                for power, score in per_power.items():
                    totals.setdefault((system, lineup[power]), []).append(score)
            for power, count in centres.items():
                centres_total.setdefault(lineup[power], []).append(count)
    finally:
        server.close()
    rows = list(csv.DictReader(io.StringIO((cfg.out / "bots.csv").read_text())))
    assert len(rows) == 4 * 3
    for row in rows:
        scores = totals[(row["system"], row["bot"])]
        assert int(row["seats"]) == len(scores)
        assert float(row["mean"]) == pytest.approx(sum(scores) / len(scores), abs=1e-4)
        assert float(row["ci_low"]) <= float(row["mean"]) <= float(row["ci_high"])
        mean_centres = sum(centres_total[row["bot"]]) / len(centres_total[row["bot"]])
        assert float(row["mean_centres"]) == pytest.approx(mean_centres, abs=1e-4)
    # 14 games x 7 seats, every (bot, power) pair 4 or 5 times (3 bots, 14 games).
    assert sum(int(r["seats"]) for r in rows if r["system"] == "sos") == 98


def test_report_files(played: Played) -> None:
    out = played.config.out
    text = (out / "report.md").read_text()
    assert text.startswith("# Tournament report")
    for heading in ("## Ranking: sum of squares", "## Every scoring system", "## Per power",
                    "## Per power: centres by year (mean) and eliminations",
                    "## Head to head", "## Seating", "## Games", "## Bot failures"):
        assert heading in text
    # one course row per (bot, power) pair that played, its seats as in the seating table
    courses = [line.split("|")[1:-1] for line in text.split("eliminations", 1)[1]
               .split("## Head to head")[0].splitlines() if re.match(r"\| \w+ \| [A-Z]{3} \|", line)]
    assert len(courses) == 21 and sum(int(c[2]) for c in courses) == 98
    assert "None: every bot played every game to its end." in text
    assert (out / "scores.svg").read_text().startswith("<svg")
    assert list(out.glob("centres-game-*.svg"))
    games_csv = list(csv.DictReader(io.StringIO((out / "games.csv").read_text())))
    assert len(games_csv) == 98
    # DumbBot beats the bots that hold or move at random, even in two years.
    ranking = [line.split("|")[2].strip() for line in text.splitlines()
               if re.match(r"\| [123] \|", line)]
    assert ranking[0] == "dumbbot"
    assert "- CPU limit: none of these bots searches in process (nothing to cut)" in text
    # Seven parallel-safe games on one server: three at a time, well under the budget.
    assert played.seconds < 30


def assert_played_whole(games: list[StoredGame], played: Played) -> None:
    """``games`` are those of the uninterrupted tournament, result for result."""
    whole = TournamentStore.open(played.config.db_path)
    original = whole.games(played.tournament_id)
    whole.close()

    def results(g: StoredGame) -> tuple[object, ...]:
        return (g.number, g.seed, g.ending, g.end_turn, g.winner, g.seats, g.history)

    assert [results(g) for g in games] == [results(g) for g in original]


async def test_resume_after_interruption_gives_the_same_totals(
        played: Played, tmp_path: Path) -> None:
    cfg = config(tmp_path, parallel=2)
    seen: list[Progress] = []
    with trio.CancelScope() as scope:
        def stop_half_way(progress: Progress) -> None:
            seen.append(progress)
            if progress.done >= 5:
                scope.cancel()

        await run_tournament(cfg, on_progress=stop_half_way)
    assert scope.cancelled_caught
    store = TournamentStore.open(cfg.db_path)
    statuses = [g.status for g in store.games(1)]
    store.close()
    assert 5 <= statuses.count("finished") < 14
    assert any(p.running for p in seen)

    run = await run_tournament(cfg)
    assert run.resumed and run.complete and run.played == 14 - statuses.count("finished")
    store = TournamentStore.open(cfg.db_path)
    resumed = store.games(1)
    report = write_report(cfg, store, 1)
    store.close()
    assert_played_whole(resumed, played)
    # Games cut off half way were replayed (attempt 2) with the same result.
    assert any(g.attempts == 2 for g in resumed)
    for name in ("games.csv", "bots.csv"):
        assert (cfg.out / name).read_text() == (played.config.out / name).read_text()
    assert report.ranking[0].bot == "dumbbot"


def test_more_games_extend_a_finished_tournament_to_the_longer_ones_results(
        played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Six games (two whole cycles of three bots), then the same command with 14: the
    # eight new games are played and the tournament is the 14-game one played whole.
    short = config(tmp_path, games=6)
    first = trio.run(run_tournament, short)
    assert first.complete and first.played == 6 and first.extended_from == 0
    args = ["tournament", "--bots", BOTS, "--games", "14", "--year-limit", "2", "--seed", "42",
            "--parallel", "3", "--disorder-grace", "1", "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(
        "played 8 game(s), extending the tournament of 6 games to 14\n")
    store = TournamentStore.open(short.db_path)
    assert [tid for tid, _ in store.tournaments()] == [first.tournament_id]
    extended = store.games(first.tournament_id)
    store.close()
    assert_played_whole(extended, played)
    assert (tmp_path / "games.csv").read_text() == (played.config.out / "games.csv").read_text()
    # Asked again, nothing is left to play.
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(
        "nothing to play: the 14 games of this tournament are finished; "
        "its report is written again\n")
    # Asked with the old count, played or reported: the database holds it extended,
    # so the command neither plays the six games again nor reports only them.
    for extra in ([], ["--report-only"]):
        old = [*args[:4], "6", *args[5:], *extra]
        assert main(old) == 1
        err = capsys.readouterr().err
        assert err == (f"daide tournament: error: this tournament was extended to 14 games in "
                       f"{short.db_path}: ask for --games 14 (its report covers every game)\n")
    store = TournamentStore.open(short.db_path)
    assert [tid for tid, _ in store.tournaments()] == [first.tournament_id]
    store.close()


@pytest.mark.parametrize("cut", [True, False])
def test_phases_cut_by_the_cpu_limit_are_counted_per_seat_and_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cut: bool) -> None:
    # LookaheadBot with a CPU limit it always reaches (a billionth of a second): every
    # phase it orders in is cut short, and the report says its games may not replay;
    # with 20 adjudications a phase and the default 1 s limit, none is.
    import tournament.play
    from bots.budget import Budget
    from bots.lookahead import LookaheadBot
    from bots.registry import make_strategy

    budget = Budget(iterations=None, seconds=1e-9) if cut else Budget(iterations=20)
    monkeypatch.setattr(tournament.play, "make_strategy", lambda name: LookaheadBot(
        budget) if name == "lookahead" else make_strategy(name))
    cfg = config(tmp_path, bots=parse_bots("lookahead,holdbot"), games=2, year_limit=1)
    run = trio.run(run_tournament, cfg)
    assert run.complete
    store = TournamentStore.open(cfg.db_path)
    games = store.games(run.tournament_id)
    report = write_report(cfg, store, run.tournament_id)
    store.close()
    seats = [s for g in games for s in g.seats]
    # HoldBot does not search: nothing to count
    assert all(s.cut is None for s in seats if s.bot == "holdbot")
    counts = [s.cut for s in seats if s.bot == "lookahead"]
    if not cut:
        assert counts and all(c == 0 for c in counts)
        assert ("- CPU limit: no phase of lookahead reached it; the games replay from "
                "their seeds") in report.text.splitlines()
        return
    # 1901: spring, autumn and (for a power with a change) winter; every one cut
    assert all(c is not None and c >= 2 for c in counts)
    phases = sum(c or 0 for c in counts)
    assert (f"- CPU limit: lookahead {phases} phase(s) cut short in 2 game(s) - those games "
            "may not replay from their seeds") in report.text.splitlines()
    # A game stored by a version that kept no count is said to be unknown, not counted.
    with closing(sqlite3.connect(cfg.db_path)) as db, db:
        db.execute("UPDATE tournament_seats SET cut = NULL WHERE number = 1")
    store = TournamentStore.open(cfg.db_path)
    report = write_report(cfg, store, run.tournament_id)
    store.close()
    first = sum(c or 0 for g in games[:1] for s in g.seats if (c := s.cut) is not None)
    assert (f"- CPU limit: lookahead {phases - first} phase(s) cut short in 1 game(s) - those "
            "games may not replay from their seeds; not recorded in 1 game(s) played by an "
            "older version") in report.text.splitlines()


def test_command_line_run_and_report_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    args = ["tournament", "--bots", "randbot,holdbot", "--games", "2", "--year-limit", "1",
            "--seed", "5", "--out", str(tmp_path), "--no-progress", "--scoring", "dptg"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("played 2 game(s)\n## Ranking: DPTG zero-sum")
    assert f"report: {tmp_path / 'report.md'}" in out
    assert main([*args, "--report-only", "--scoring", "points"]) == 0
    assert "## Ranking: points by rank" in capsys.readouterr().out
    assert (tmp_path / "tournament.log").stat().st_size > 0
    # Running it again finds nothing left to play.
    assert main(args) == 0
    assert capsys.readouterr().out.startswith(
        "nothing to play: the 2 games of this tournament are finished; "
        "its report is written again\n")


async def test_on_an_existing_server_the_tournament_applies_the_year_limit(
        played: Played, tmp_path: Path, nursery: trio.Nursery) -> None:
    from server.app import Server
    from server.settings import ServerSettings

    db = tmp_path / "server.db"
    server = Server(ServerSettings(host="127.0.0.1", port=0, db_path=db, disorder_grace=1.0))
    listeners = await nursery.start(server.run)
    port = int(listeners[0].socket.getsockname()[1])
    # The first cycle of the 14-game plan is the whole plan of 3 games (same seed).
    cfg = config(tmp_path / "out", games=3, server=("127.0.0.1", port), db=db)
    run = await run_tournament(cfg)
    server.stop()
    assert run.complete
    store = TournamentStore.open(db)
    games = store.games(run.tournament_id)
    store.close()
    whole = TournamentStore.open(played.config.db_path)
    original = whole.games(played.tournament_id)[:3]
    whole.close()
    for game, same in zip(games, original, strict=True):
        # No max_year on this server: the game is ended by the tournament at the
        # first position after the autumn of 1902 it sees - with the same centres.
        # The units may differ: when the bots leave at WIN 1902 the server
        # plays the builds they had not ordered yet as waived.
        assert game.ending == "year-limit" and same.ending == "draw"
        assert game.end_turn in ("WIN 1902", "SPR 1903")
        assert [(s.power, s.bot, s.centres) for s in game.seats] == \
            [(s.power, s.bot, s.centres) for s in same.seats]
        common = min(len(game.history), len(same.history))
        assert common >= 4 and game.history[:common] == same.history[:common]
        assert game.server_game_id is not None


async def test_a_game_over_its_time_limit_is_scored_as_it_stands(tmp_path: Path) -> None:
    cfg = config(tmp_path, games=1, year_limit=60, time_limit=1.5)
    run = await run_tournament(cfg)
    store = TournamentStore.open(cfg.db_path)
    (game,) = store.games(run.tournament_id)
    store.close()
    assert game.status == "finished" and game.ending == "time-limit"
    assert game.seconds is not None and 1.5 <= game.seconds < 30   # generous: CI machines may be loaded
    last_turn, last_centres = game.history[-1]
    assert game.end_turn == last_turn and int(last_turn.split()[1]) < 1960
    assert {s.power: s.centres for s in game.seats} == last_centres
