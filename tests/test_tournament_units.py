"""Tournament building blocks: seating design, scoring, statistics, relay, plots, CLI."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from daide.cli import main
from protocol.frames import DiplomacyMessage, build_frame
from protocol.messages import Mis, MisRequest, Nme
from protocol.parse import Sender
from protocol.tree import Text, from_tree
from tournament.config import STANDARD_POWERS, BotEntry, ConfigError, TournamentConfig, parse_bots
from tournament.design import balance, game_seed, schedule, seat_counts
from tournament.plots import centre_chart, nice_ticks, score_chart
from tournament.progress import progress_line
from tournament.proxy import FrameSplitter, SeatProxy, decode_dm
from tournament.runner import Progress
from tournament.scoring import (
    DPTG_LOSS,
    DPTG_TABLE,
    SYSTEMS,
    GameResult,
    dptg,
    draw_size,
    points_by_rank,
    sum_of_squares,
)
from tournament.stats import (
    ScoredGame,
    bot_summaries,
    courses,
    head_to_head,
    per_power,
    percentile_interval,
)
from tournament.store import SeatResult, StoredGame

P = STANDARD_POWERS


# --- seating design ------------------------------------------------------------------


@pytest.mark.parametrize("bots", [1, 2, 3, 4, 5, 7, 9])
def test_every_bot_plays_every_power_equally_when_the_games_divide(bots: int) -> None:
    names = [f"b{i}" for i in range(bots)]
    plans = schedule(names, 2 * bots, seed=11)
    counts = seat_counts(plans)
    assert {counts[(b, p)] for b in names for p in P} == {2}
    assert [plan.number for plan in plans] == list(range(1, 2 * bots + 1))
    for plan in plans:
        assert [p for p, _ in plan.seats] == list(P)


@pytest.mark.parametrize(("bots", "games"), [(3, 14), (4, 10), (10, 5), (7, 9), (5, 1), (8, 3)])
def test_leftover_games_keep_every_pair_within_one(bots: int, games: int) -> None:
    names = [f"b{i}" for i in range(bots)]
    plans = schedule(names, games, seed=3)
    spread = balance(plans, names)
    assert spread["pair"] <= 1
    totals = Counter(bot for plan in plans for _, bot in plan.seats)
    assert sum(totals.values()) == 7 * games
    # Evenly spread offsets: seat totals as even as the numbers allow here.
    assert spread["seats"] <= {(3, 14): 1, (4, 10): 1, (10, 5): 1, (7, 9): 2, (5, 1): 1,
                               (8, 3): 1}[(bots, games)]


def test_three_bots_fourteen_games_exact_counts() -> None:
    plans = schedule(["dumbbot", "randbot", "holdbot"], 14, seed=0)
    counts = seat_counts(plans)
    # 4 full cycles (each bot 4 times at every power) + 2 games with distinct offsets.
    for bot in ("dumbbot", "randbot", "holdbot"):
        assert sorted(counts[(bot, p)] for p in P) in ([4] * 7, *[
            sorted([4] * (7 - k) + [5] * k) for k in range(1, 8)])
    assert sum(counts.values()) == 98


def test_two_bots_meet_in_many_line_ups() -> None:
    """Every cycle deals the powers anew: with two bots, 70 games are not two
    line-ups repeated (one bot always on the same four powers) but many, and
    any two powers are held by the same bot in some games and not in others."""
    plans = schedule(["regret", "other"], 70, seed=101)
    assert balance(plans, ["regret", "other"]) == {"pair": 0, "seats": 0}
    line_ups = {frozenset(p for p, bot in plan.seats if bot == "regret") for plan in plans}
    assert len(line_ups) >= 25
    for i, first in enumerate(P):
        for second in P[i + 1:]:
            together = sum(plan.lineup[first] == plan.lineup[second] for plan in plans)
            assert 0 < together < 70, (first, second)
    # a longer tournament begins with the cycles of a shorter one
    assert schedule(["regret", "other"], 10, seed=101) == plans[:10]


def test_the_design_is_seeded() -> None:
    names = ["a", "b", "c"]
    assert schedule(names, 9, seed=5) == schedule(names, 9, seed=5)
    assert schedule(names, 9, seed=5) != schedule(names, 9, seed=6)
    assert game_seed(5, 1) == game_seed(5, 1) != game_seed(5, 2)
    with pytest.raises(ValueError):
        schedule(["a", "a"], 3, seed=0)


# --- scoring -------------------------------------------------------------------------


def result(counts: dict[str, int], winner: str | None = None,
           units: dict[str, int] | None = None) -> GameResult:
    units = units or {}
    return GameResult.of({p: counts.get(p, 0) for p in P},
                         {p for p in P if counts.get(p, 0) or units.get(p, 0)}, winner)


def test_dptg_table_is_the_one_in_the_guide() -> None:
    text = (Path(__file__).parent / "data" / "dptg-scoring.txt").read_text(encoding="utf-8")
    line = next(row for row in text.splitlines() if "GAME RESULTS" in row)
    found = dict(re.findall(r"(\d)-way draw ([+-]?\d+|zero)", line))
    assert {int(k): (0 if v == "zero" else int(v)) for k, v in found.items()} == {
        n: DPTG_TABLE[n] for n in range(2, 8)}
    assert int(re.search(r"Win \+(\d+)", line).group(1)) == DPTG_TABLE[1]  # type: ignore[union-attr]
    assert int(re.search(r"Loss (-\d+)", line).group(1)) == DPTG_LOSS  # type: ignore[union-attr]


def test_dptg_is_zero_sum_for_every_draw_size() -> None:
    for n in range(1, 8):
        counts = {p: (5 if i < n else 0) for i, p in enumerate(P)}
        assert sum(dptg(result(counts)).values()) == 0
    solo = dptg(result({"FRA": 18, "GER": 10, "ENG": 6}, winner="FRA"))
    assert solo == {p: (360.0 if p == "FRA" else -60.0) for p in P}


def test_sum_of_squares_values() -> None:
    scores = sum_of_squares(result({"AUS": 10, "ENG": 10, "FRA": 4, "GER": 0}))
    assert scores["AUS"] == pytest.approx(100 * 100 / 216)
    assert scores["FRA"] == pytest.approx(100 * 16 / 216)
    assert scores["GER"] == 0.0 and scores["ITA"] == 0.0
    assert sum(scores.values()) == pytest.approx(100.0)
    assert sum_of_squares(result({"TUR": 18, "RUS": 16}, winner="TUR"))["TUR"] == 100.0


def test_draw_size_counts_survivors_with_units_but_no_centre() -> None:
    # RUS has no centre left but still a unit: it survives and shares the draw
    # (the French adjudicator's convention 2(b) in docs/references.md, the server's DRW).
    r = result({"AUS": 17, "ENG": 17}, units={"RUS": 1})
    scores = draw_size(r)
    assert scores["AUS"] == scores["ENG"] == scores["RUS"] == pytest.approx(100 / 3)
    assert scores["FRA"] == 0.0
    assert dptg(r)["RUS"] == 80.0 and dptg(r)["FRA"] == -60.0


def test_points_by_rank_splits_ties_and_gives_the_dead_nothing() -> None:
    scores = points_by_rank(result({"AUS": 9, "ENG": 9, "FRA": 6, "GER": 5, "ITA": 5,
                                    "RUS": 0, "TUR": 0}))
    assert scores == {"AUS": 6.5, "ENG": 6.5, "FRA": 5.0, "GER": 3.5, "ITA": 3.5,
                      "RUS": 0.0, "TUR": 0.0}
    assert points_by_rank(result({"ITA": 18}, winner="ITA"))["ITA"] == 28.0
    assert list(SYSTEMS) == ["sos", "draw-size", "dptg", "points"]


# --- statistics ------------------------------------------------------------------------


def games_of(rows: list[tuple[dict[str, str], dict[str, int]]]) -> list[ScoredGame]:
    return [ScoredGame(i + 1, tuple(sorted(lineup.items())), result(counts))
            for i, (lineup, counts) in enumerate(rows)]


LINEUP_A = dict(zip(P, ["x", "y", "x", "y", "x", "y", "x"], strict=True))
LINEUP_B = dict(zip(P, ["y", "x", "y", "x", "y", "x", "y"], strict=True))


def test_bot_means_are_ratios_over_seats_with_intervals_around_them() -> None:
    rows = [(LINEUP_A, {"AUS": 6, "ENG": 4, "FRA": 6, "GER": 4, "ITA": 6, "RUS": 4, "TUR": 4}),
            (LINEUP_B, {"AUS": 4, "ENG": 6, "FRA": 4, "GER": 6, "ITA": 4, "RUS": 6, "TUR": 4}),
            (LINEUP_A, {"AUS": 8, "ENG": 3, "FRA": 5, "GER": 3, "ITA": 5, "RUS": 3, "TUR": 7})]
    games = games_of(rows)
    system = SYSTEMS["draw-size"]
    ranking = bot_summaries(games, ["y", "x"], system, seed=1)
    # Every game is a 7-way draw: 100/7 for each of the 21 seats.
    assert [s.bot for s in ranking] == ["x", "y"]
    assert all(s.score.mean == pytest.approx(100 / 7) for s in ranking)
    assert (ranking[0].seats, ranking[1].seats) == (4 + 3 + 4, 3 + 4 + 3)
    sos = bot_summaries(games, ["x", "y"], SYSTEMS["sos"], seed=1)
    x = next(s for s in sos if s.bot == "x")
    assert x.score.low <= x.score.mean <= x.score.high
    assert x.mean_centres == pytest.approx((6 * 3 + 4 + 6 * 3 + 8 + 5 + 5 + 7) / 11)
    assert bot_summaries(games, ["x", "y"], SYSTEMS["sos"], seed=1) == sos


def test_head_to_head_and_per_power() -> None:
    rows = [(LINEUP_A, {"AUS": 9, "ENG": 1, "FRA": 9, "GER": 1, "ITA": 9, "RUS": 1, "TUR": 1})] * 4
    games = games_of(rows)
    pairs = head_to_head(games, ["x", "y"], SYSTEMS["points"], seed=0)
    assert len(pairs) == 1 and pairs[0].games == 4 and pairs[0].first_better == 4
    assert pairs[0].difference.low > 0
    table = per_power(games, SYSTEMS["points"])
    assert table[("x", "AUS")] == (4, 6.0)      # three tied for first: (7+6+5)/3
    assert table[("y", "ENG")] == (4, 2.5)      # four tied last of the living: (4+3+2+1)/4


def test_courses_follow_each_power_year_by_year() -> None:
    def game(number: int, history: list[tuple[str, dict[str, int]]],
             bots: dict[str, str], status: str = "finished") -> StoredGame:
        last = history[-1][1] if history else {}
        seats = tuple(SeatResult(p, bots[p], last.get(p, 0), last.get(p, 0), last.get(p, 0) > 0, 0)
                      for p in ("AUS", "GER"))
        return StoredGame(number, 0, status, 1, None, 1.0, "draw", history[-1][0] if history
                          else None, None, tuple(history), None, seats)

    start = {"AUS": 3, "GER": 3}
    both_x = {"AUS": "x", "GER": "x"}
    games = [
        # AUS falls to nothing in 1902 (a year with no adjustment: no winter turn, the
        # spring after shows it); the game goes on to 1903
        game(1, [("SPR 1901", start), ("FAL 1901", start),
                 ("WIN 1901", {"AUS": 2, "GER": 5}), ("SPR 1902", {"AUS": 2, "GER": 5}),
                 ("AUT 1902", {"AUS": 2, "GER": 5}), ("SPR 1903", {"AUS": 0, "GER": 6}),
                 ("WIN 1903", {"AUS": 0, "GER": 7})], both_x),
        # over after 1901: its final centres count for the later years
        game(2, [("SPR 1901", start), ("WIN 1901", {"AUS": 4, "GER": 4})],
             {"AUS": "x", "GER": "y"}),
        game(3, [], both_x),                                        # no history: left out
        game(4, [("WIN 1901", {"AUS": 9, "GER": 0})], both_x, "failed"),  # not finished
    ]
    table = courses(games)
    assert set(table) == {("x", "AUS"), ("x", "GER"), ("y", "GER")}
    aus = table[("x", "AUS")]
    assert (aus.seats, aus.eliminated) == (2, 1)
    assert aus.centres == {1901: 3.0, 1902: 2.0, 1903: 2.0}   # (2+4)/2, (0+4)/2, (0+4)/2
    assert table[("x", "GER")].centres == {1901: 5.0, 1902: 6.0, 1903: 7.0}
    assert table[("y", "GER")].centres == {1901: 4.0, 1902: 4.0, 1903: 4.0}
    assert table[("y", "GER")].eliminated == 0


def test_percentile_interval() -> None:
    interval = percentile_interval(5.0, [float(i) for i in range(100)], 0.95)
    assert (interval.low, interval.high) == (2.0, 97.0)
    assert percentile_interval(1.0, [], 0.95).low == 1.0


# --- config -----------------------------------------------------------------------------


def test_bots_and_externals_parse() -> None:
    bots = parse_bots("DumbBot, albert", ["albert=albert.exe -s{host} -p{port} -r{seed}"])
    assert bots[0] == BotEntry("dumbbot", strategy="dumbbot")
    assert bots[1].external
    assert bots[1].argv("127.0.0.1", 4000, 7) == ["albert.exe", "-s127.0.0.1", "-p4000", "-r7"]
    for names, externals, message in [
        ("dumbbot,dumbbot", [], "twice"),
        ("nobot", [], "unknown bot"),
        ("x", ["x=run-me"], "{port}"),
        ("dumbbot", ["x=a {port}"], "not in --bots"),
        ("dumbbot", ["randbot=a {port}"], "sample bot"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_bots(names, externals)
    with pytest.raises(ConfigError, match="scoring"):
        TournamentConfig(bots=bots, games=3, scoring="elo")


def test_identity_ignores_how_the_games_are_run(tmp_path: Path) -> None:
    bots = parse_bots("dumbbot,randbot")
    a = TournamentConfig(bots=bots, games=4, seed=2, parallel=1, scoring="sos", out=tmp_path)
    b = TournamentConfig(bots=bots, games=4, seed=2, parallel=4, scoring="dptg", out=tmp_path)
    c = TournamentConfig(bots=bots, games=4, seed=3, out=tmp_path)
    assert a.identity() == b.identity() != c.identity()
    assert a.db_path == tmp_path / "tournament.db" and a.max_year == 1910


def test_cli_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["tournament", "--bots", "dumbbot,nobot", "--games", "2",
                 "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err.strip().startswith("daide tournament: error: unknown bot")
    assert main(["tournament", "--bots", "dumbbot", "--games", "2", "--server", "nowhere",
                 "--out", str(tmp_path)]) == 1
    assert "HOST:PORT" in capsys.readouterr().err


# --- the relay's frame handling ------------------------------------------------------------


def test_relay_rewrites_the_name_and_passes_everything_else() -> None:
    proxy = SeatProxy("127.0.0.1", 1, power="FRA", tag="T1.G2.1", move_timeout=5)
    nme = build_frame(DiplomacyMessage(from_tree(("NME", (Text("Albert"),), (Text("v6"),)))))
    im = bytes([0, 0, 0, 4, 0, 1, 0xDA, 0x10])
    splitter = FrameSplitter()
    frames = splitter.feed(im + nme[:5]) + splitter.feed(nme[5:])
    assert frames == [im, nme]
    assert proxy._from_bot(im) == im
    rewritten = proxy._from_bot(nme)
    assert decode_dm(rewritten, proxy.rep, Sender.CLIENT) == Nme("FRA:Albert#T1.G2.1", "v6")
    # Golden bytes: header (DM, length 2 * tokens) then NME ( 'FRA:Albert#T1.G2.1' ) ( 'v6' ).
    assert rewritten[:4] == bytes([2, 0, 0, 2 * (1 + 1 + 18 + 1 + 1 + 2 + 1)])
    assert rewritten[4:6] == bytes([0x48, 0x0C])          # NME (tokens.tsv: 0x480C)
    assert rewritten[8:10] == bytes([0x4B, ord("F")])     # text token 'F'
    yes = build_frame(DiplomacyMessage(from_tree(("YES", ("MAP", (Text("STANDARD"),))))))
    assert proxy._from_bot(yes) == yes and proxy.accepted.is_set()


def test_relay_reads_hlo_and_keeps_its_own_probe_answer() -> None:
    proxy = SeatProxy("127.0.0.1", 1, power="ENG", tag="t", move_timeout=5)
    hlo = build_frame(DiplomacyMessage(from_tree(("HLO", ("ENG",), (1234,), (("LVL", 0),)))))
    assert proxy._from_server(hlo) and proxy.passcode == 1234 and proxy.started.is_set()
    mis = build_frame(DiplomacyMessage(from_tree(("MIS",))))
    assert proxy._from_server(mis)               # not asked for: passed to the bot
    proxy._probe_pending = True
    assert not proxy._from_server(mis)           # our probe's answer: kept
    assert proxy._probe_answer == Mis()


# --- output ------------------------------------------------------------------------------


def test_plots_are_valid_svg() -> None:
    rows = [(LINEUP_A, {"AUS": 6, "ENG": 4, "FRA": 6, "GER": 4, "ITA": 6, "RUS": 4, "TUR": 4}),
            (LINEUP_B, {"AUS": 4, "ENG": 6, "FRA": 4, "GER": 6, "ITA": 4, "RUS": 6, "TUR": 4})]
    ranking = bot_summaries(games_of(rows), ["x", "y"], SYSTEMS["dptg"], seed=0)
    bars = ET.fromstring(score_chart(ranking, title="t"))
    assert len([e for e in bars.iter() if e.tag.endswith("rect")]) == 1 + 2
    history = [("SPR 1901", {p: 3 for p in P}), ("FAL 1901", {p: 3 for p in P}),
               ("WIN 1901", {"AUS": 5, "ENG": 3, "FRA": 4, "GER": 3, "ITA": 3, "RUS": 4,
                             "TUR": 2})]
    lines = ET.fromstring(centre_chart(history, dict(LINEUP_A), title="g"))
    polylines = [e for e in lines.iter() if e.tag.endswith("polyline")]
    assert len(polylines) == 7
    assert nice_ticks(-60, 360) == [-100, 0, 100, 200, 300, 400]
    assert nice_ticks(0, 18)[-1] >= 18


def test_progress_line() -> None:
    line = progress_line(Progress(14, 7, 0, {8: "SPR 1905", 9: "joining"}, 12.4, 1), width=10)
    assert line == ("[#####-----]  7/14 done  2 running: g8 SPR 1905, g9 joining  "
                    "1 bot failure(s)  12 s  ETA 12 s")


async def test_relay_blames_the_bot_only_when_its_writes_are_blocked(
        autojump_clock: object) -> None:
    from trio.testing import memory_stream_pair

    from tournament.proxy import _Link

    proxy = SeatProxy("127.0.0.1", 1, power="ENG", tag="t", move_timeout=2)
    up_ours, up_server = memory_stream_pair()
    down_ours, _down_bot = memory_stream_pair()
    link = _Link(up_ours, down_ours)  # type: ignore[arg-type]
    proxy._link = link
    # The server never answers and nothing is stuck: not the bot's fault.
    assert await proxy._probe() is None
    sent = await up_server.receive_some()
    assert decode_dm(bytes(sent), proxy.rep, Sender.CLIENT) == MisRequest()
    # The answer cannot reach us because the bot does not read: hung.
    link.delivering = True
    assert await proxy._probe() == "the bot does not read what the server sends"
