"""LookaheadBot (bots/lookahead.py): deterministic, within its budget, legal everywhere.

The bot adjudicates its candidate order sets against sampled futures, so
these tests play it for real: in-process games through the adjudicator
(`bots.local`), hand-made positions for each phase type, odd generated
positions, a variant map, and a game on the real server over TCP that must
equal the same game played in process.  Small iteration budgets keep the
file fast; how strong the bot is, and how long a phase takes, is measured
by `python -m benchmarks.strength` (docs/bots.md), never asserted here.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import trio

from adjudicator.values import Dislodged, GameState, Phase
from bots.budget import Budget, BudgetError
from bots.client import BotClient, ClientSettings
from bots.convoys import unmatched_convoys
from bots.dumbbot import DumbBot
from bots.futures import map_of, mdf_of, state_of
from bots.geography import geography_of
from bots.local import owes_orders, play_game, submit, view_of
from bots.lookahead import LookaheadBot
from bots.orders import unmatched_supports
from bots.randbot import RandBot
from bots.registry import make_strategy
from bots.runner import run_clients
from bots.strategy import Strategy
from daide.cmd_demo import start_embedded_server
from engine.variants import standard_map, variant_map
from orders import Build, Location, Move, Remove, SupportMove, Unit, Waive
from protocol.orders import order_node
from protocol.text import format_tree
from tests.test_bots_legal import PLAYABLE, random_state

MAP = standard_map()
SMALL = Budget(iterations=80, seconds=None)
"""A budget without a clock: the same seed must give the same orders on any machine."""


def small_bot() -> LookaheadBot:
    return LookaheadBot(SMALL)


def texts(orders: list) -> list[str]:
    return sorted(format_tree(order_node(o)) for o in orders)


def unit(text: str) -> Unit:
    power, kind, province, *coast = text.split()
    return Unit(power, kind, Location(province, coast[0] if coast else None))


def legal(state: GameState, power: str, orders: list) -> list:
    rejected: list = []
    submit(MAP, state, power, orders, rejected)
    return rejected


# -- the map, rebuilt from what a bot sees ------------------------------------------


@pytest.mark.parametrize("name", ["standard", "south_america32", "modern", "hundred3"])
def test_the_map_rebuilt_from_the_geography_is_the_map(name: str) -> None:
    game_map = variant_map(name)
    geo = geography_of(game_map)
    rebuilt = map_of(geo)
    assert rebuilt is map_of(geo)           # built once per geography
    assert mdf_of(geo)[1] == game_map.powers
    assert [p.mnemonic for p in rebuilt.provinces] == [p.mnemonic for p in game_map.provinces]
    assert [p.kind for p in rebuilt.provinces] == [p.kind for p in game_map.provinces]
    assert rebuilt.army_adj == game_map.army_adj and rebuilt.fleet_adj == game_map.fleet_adj
    assert rebuilt.home_centres == game_map.home_centres
    assert rebuilt.supply_centres == game_map.supply_centres


def test_a_view_becomes_the_adjudicator_state_it_shows() -> None:
    state = GameState(Phase("AUT", 1903), (unit("ENG FLT NTH"), unit("FRA AMY BEL")),
                      {"LON": "ENG", "BEL": "FRA"},
                      (Dislodged(unit("GER FLT HOL"), (Location("KIE"), Location("HEL"))),))
    back = state_of(view_of(MAP, state, "ENG"))
    assert back.phase == state.phase and back.units == state.units
    assert dict(back.ownership) == dict(state.ownership)
    assert back.dislodged == state.dislodged


# -- determinism -----------------------------------------------------------------


def _game(seed: int, hero: str = "FRA", last: int = 1903):
    bot = small_bot()
    players: dict[str, Strategy] = {p: (bot if p == hero else DumbBot()) for p in MAP.powers}
    history: list[str] = []
    game = play_game(MAP, players, seed=seed, max_year=last,
                     on_phase=lambda s: history.append(repr(sorted(map(str, s.units)))))
    return game, history, bot


def test_the_same_seed_plays_the_same_game() -> None:
    first, history_a, bot = _game(seed=4)
    second, history_b, _ = _game(seed=4)
    assert history_a == history_b and len(history_a) >= 7
    assert first.centre_counts() == second.centre_counts()
    assert first.rejections == [] and second.rejections == []
    # Every phase was searched: at least one adjudication per phase it played.
    assert bot.reports and all(r.iterations > 0 for r in bot.reports)
    other, history_c, _ = _game(seed=5, last=1902)
    assert history_c != history_a[:len(history_c)]


def test_the_same_phase_and_seed_give_the_same_orders() -> None:
    view = view_of(MAP, MAP_START, "RUS")
    a = small_bot().orders(view, random.Random("x"))
    b = small_bot().orders(view, random.Random("x"))
    assert a == b and len(a) == 4


# -- the budget --------------------------------------------------------------------


MAP_START = GameState(Phase("SPR", 1901), tuple(
    Unit(s.power, s.kind, Location(s.province, s.coast)) for s in MAP.start_units),
    dict(MAP.start_ownership))


def test_an_iteration_budget_stops_the_search() -> None:
    view = view_of(MAP, MAP_START, "RUS")
    for limit in (40, 120):
        bot = LookaheadBot(Budget(iterations=limit, seconds=None))
        orders = bot.orders(view, random.Random(1))
        report = bot.reports[-1]
        assert report.stopped == "iterations" and report.iterations <= limit
        assert legal(MAP_START, "RUS", orders) == [] and len(orders) == 4
    # A larger budget is spent further (the search had more to try).
    big = LookaheadBot(Budget(iterations=100_000, seconds=None))
    big.orders(view, random.Random(1))
    assert big.reports[-1].iterations > 120


def test_a_time_budget_stops_the_search_on_its_clock() -> None:
    """A fake CPU clock that advances 10 ms per reading: the search must stop
    expanding once 50 ms have passed, and still return a full legal set."""
    ticks = iter(range(1_000_000))
    budget = Budget(seconds=0.05, clock=lambda: next(ticks) * 0.01)
    bot = LookaheadBot(budget)
    orders = bot.orders(view_of(MAP, MAP_START, "TUR"), random.Random(2))
    report = bot.reports[-1]
    assert report.stopped == "time"
    assert 0 < report.iterations <= 8 * 5          # at most five evaluations of 8 futures
    assert legal(MAP_START, "TUR", orders) == [] and len(orders) == 3


def test_no_budget_left_still_gives_orders() -> None:
    bot = LookaheadBot(Budget(iterations=1, seconds=None))
    orders = bot.orders(view_of(MAP, MAP_START, "ENG"), random.Random(3))
    assert len(orders) == 3 and legal(MAP_START, "ENG", orders) == []
    assert bot.reports[-1].iterations == 0 and bot.reports[-1].stopped == "iterations"


@pytest.mark.parametrize(("text", "iterations", "seconds"), [
    ("0.3", None, 0.3), ("0.25s", None, 0.25), ("800it", 800, 1.0), ("800it,0.5s", 800, 0.5),
    ("2s, 50it", 50, 2.0)])
def test_budget_texts(text: str, iterations: int | None, seconds: float) -> None:
    budget = Budget.parse(text)
    assert (budget.iterations, budget.seconds) == (iterations, seconds)


@pytest.mark.parametrize("text", ["", "fast", "0", "-1s", "0it", "5it,6it", "1s,2s", "a,b,c"])
def test_bad_budget_texts_are_refused(text: str) -> None:
    with pytest.raises(BudgetError):
        Budget.parse(text)


def test_only_the_searching_bot_takes_a_budget() -> None:
    assert isinstance(make_strategy("lookahead", SMALL), LookaheadBot)
    assert make_strategy("Lookahead").name == "LookaheadBot"
    with pytest.raises(ValueError, match="does not search"):
        make_strategy("dumbbot", SMALL)


# -- every phase type ------------------------------------------------------------


def test_movement_supports_an_attack_that_needs_it() -> None:
    """A German army in Belgium hemmed in by six French units can only hold, and
    nobody can support it: a lone attack bounces, a supported one destroys it.
    The bot attacks Belgium with support."""
    state = GameState(Phase("FAL", 1905), tuple(unit(u) for u in (
        "GER AMY BEL", "FRA AMY HOL", "FRA AMY RUH", "FRA AMY BUR", "FRA AMY PIC",
        "FRA FLT ECH", "FRA FLT NTH")),
        {"BEL": "GER", "MUN": "GER", "KIE": "GER", "BER": "GER", "HOL": "FRA",
         "PAR": "FRA", "MAR": "FRA", "BRE": "FRA"})
    orders = small_bot().orders(view_of(MAP, state, "FRA"), random.Random(0))
    assert legal(state, "FRA", orders) == []
    attacks = [o for o in orders if isinstance(o, Move) and o.dest == Location("BEL")]
    supports = [o for o in orders if isinstance(o, SupportMove) and o.dest == "BEL"]
    assert len(attacks) == 1 and supports, texts(orders)
    assert all(s.supported == attacks[0].unit for s in supports)


def test_retreats_take_the_open_centre() -> None:
    """An autumn retreat onto an empty neutral centre wins it (ownership changes
    after the autumn retreats), so the bot retreats there rather than disband."""
    dislodged = Dislodged(unit("AUS AMY SER"), (Location("BUL"), Location("ALB")))
    state = GameState(Phase("AUT", 1902), (unit("TUR AMY SER"), unit("AUS AMY BUD")),
                      {"VIE": "AUS", "BUD": "AUS", "TRI": "AUS", "SER": "TUR"}, (dislodged,))
    view = view_of(MAP, state, "AUS")
    orders = small_bot().orders(view, random.Random(0))
    assert texts(orders) == ["( AUS AMY SER ) RTO BUL"]
    assert legal(state, "AUS", orders) == []


def test_a_retreat_without_a_place_disbands() -> None:
    state = GameState(Phase("SUM", 1902), (unit("TUR AMY SER"),), {"VIE": "AUS"},
                      (Dislodged(unit("AUS AMY SER"), ()),))
    orders = small_bot().orders(view_of(MAP, state, "AUS"), random.Random(0))
    assert texts(orders) == ["( AUS AMY SER ) DSB"]


def test_builds_fill_the_free_home_centres_and_waive_the_rest() -> None:
    """England owes five builds with two free home centres: two builds, three waives."""
    state = GameState(Phase("WIN", 1902), (unit("ENG FLT LON"), unit("FRA AMY BEL")),
                      {"LON": "ENG", "LVP": "ENG", "EDI": "ENG", "NWY": "ENG", "HOL": "ENG",
                       "DEN": "ENG", "BEL": "FRA"})
    orders = small_bot().orders(view_of(MAP, state, "ENG"), random.Random(0))
    assert legal(state, "ENG", orders) == []
    built = [o for o in orders if isinstance(o, Build)]
    assert sorted(o.unit.province for o in built) == ["EDI", "LVP"]
    assert [o for o in orders if isinstance(o, Waive)] == [Waive("ENG")] * 3


def test_removals_take_the_units_owed() -> None:
    state = GameState(Phase("WIN", 1904), (unit("ITA AMY VEN"), unit("ITA FLT ION"),
                                           unit("ITA AMY TUN"), unit("AUS AMY TRI")),
                      {"ROM": "ITA", "TRI": "AUS", "VIE": "AUS"})
    orders = small_bot().orders(view_of(MAP, state, "ITA"), random.Random(0))
    assert legal(state, "ITA", orders) == []
    assert len(orders) == 2 and all(isinstance(o, Remove) for o in orders)
    # Rome is threatened by nobody; an army on a centre will own it after the
    # fall if it stays, a fleet at sea holds nothing: the fleet goes.
    assert "( ITA FLT ION ) REM" in texts(orders)


# -- legality ---------------------------------------------------------------------


def test_orders_are_legal_on_generated_positions() -> None:
    rng = random.Random("lookahead/positions")
    bot = LookaheadBot(Budget(iterations=24, seconds=None))
    checked = kinds = 0
    seen: set[str] = set()
    for _ in range(30):
        state = random_state(MAP, rng)
        for power in MAP.powers:
            if not owes_orders(state, power):
                continue
            orders = bot.orders(view_of(MAP, state, power), random.Random(rng.random()))
            assert legal(state, power, orders) == [], (state, power)
            assert unmatched_supports(orders) + unmatched_convoys(orders) == [], (state, power)
            checked += len(orders)
            seen.add(state.phase.kind)
    kinds = len(seen)
    assert checked > 200 and kinds == 3, (checked, seen)


def test_a_variant_game_is_played_legally() -> None:
    """Four years of South America (4 powers): the bot on every seat in turn."""
    sa = variant_map("south_america32")
    for i, hero in enumerate(sa.powers[:2]):
        bot = small_bot()
        players: dict[str, Strategy] = {p: (bot if p == hero else RandBot() if i else DumbBot())
                                        for p in sa.powers}
        game = play_game(sa, players, seed=i, max_year=sa.start_phase[1] + 3)
        assert game.rejections == []
        assert {r.kind for r in bot.reports} >= {"movement", "adjustment"}


@pytest.mark.parametrize("stem", PLAYABLE)
def test_every_playable_variant_gets_legal_first_orders(stem: str) -> None:
    """The first phase of every variant, for three of its powers: the map
    rebuilt from the bot's view adjudicates, and every order is legal."""
    variant = variant_map(stem)
    start = GameState(Phase(*variant.start_phase), tuple(
        Unit(s.power, s.kind, Location(s.province, s.coast)) for s in variant.start_units),
        dict(variant.start_ownership))
    bot = LookaheadBot(Budget(iterations=16, seconds=None))
    for power in variant.powers[:3]:
        if not owes_orders(start, power):
            continue
        orders = bot.orders(view_of(variant, start, power), random.Random(power))
        rejected: list = []
        submit(variant, start, power, orders, rejected)
        owed = (len(start.units_of(power)) if start.phase.kind == "movement"
                else abs(start.adjustment(power)))     # some variants start with builds
        assert rejected == [] and len(orders) == owed, (stem, power)
    assert bot.reports and all(r.iterations > 0 for r in bot.reports)


# -- the real server -----------------------------------------------------------------


async def test_a_game_on_the_server_is_the_game_played_in_process(tmp_path: Path) -> None:
    """One LookaheadBot and six DumbBots over loopback TCP to 1902, all seeded 7:
    no problem reported, and the same final position as `bots.local` plays."""
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1902, tmp_path / "games.db")
        hero = small_bot()
        strategies: list[Strategy] = [hero] + [DumbBot() for _ in range(6)]
        clients = [BotClient(s, ClientSettings(port=port, name=f"{s.name}-{i}", seed=7))
                   for i, s in enumerate(strategies)]
        with trio.fail_after(60):
            outcomes = await run_clients(clients)
        nursery.cancel_scope.cancel()
    assert [o.error for o in outcomes] == [None] * 7
    assert [p for c in clients for p in c.problems] == []
    seats = {c.tracker.power: s for c, s in zip(clients, strategies, strict=True)}
    assert all(c.tracker.end is not None for c in clients)
    position = clients[0].tracker.position
    assert position is not None and hero.reports

    players: dict[str, Strategy] = {str(p): (small_bot() if s is hero else DumbBot())
                                    for p, s in seats.items()}
    game = play_game(MAP, players, seed=7, max_year=1902)
    assert sorted((u.power, u.kind, u.node) for u in position.units) == sorted(
        (u.power, u.kind, (u.location.province, u.location.coast)) for u in game.state.units)


async def test_daide_bot_plays_the_lookahead_bot(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1901, tmp_path / "games.db")
        lookahead = [sys.executable, "-m", "daide", "bot", "lookahead", "--port", str(port),
                     "--budget", "100it", "--seed", "1"]
        dumbbots = [sys.executable, "-m", "daide", "bot", "dumbbot", "--port", str(port),
                    "--count", "6", "--seed", "2"]
        results: list = []

        async def run(argv: list[str]) -> None:
            results.append(await trio.run_process(argv, capture_stdout=True,
                                                  capture_stderr=True, check=False))

        with trio.fail_after(60):
            async with trio.open_nursery() as inner:
                inner.start_soon(run, lookahead)
                await trio.sleep(0.5)
                inner.start_soon(run, dumbbots)
        nursery.cancel_scope.cancel()
    assert [r.returncode for r in results] == [0, 0], [r.stderr.decode()[-500:] for r in results]
    line = next(r for r in results if r.args[4] == "lookahead").stdout.decode().strip()
    assert line.startswith("LookaheadBot: power ") and line.endswith("0 problem(s)"), line
    assert "Traceback" not in "".join(r.stderr.decode() for r in results)


async def test_daide_bot_refuses_a_bad_budget() -> None:
    with trio.fail_after(30):
        bad = await trio.run_process(
            [sys.executable, "-m", "daide", "bot", "lookahead", "--budget", "soon"],
            capture_stdout=True, capture_stderr=True, check=False)
    assert bad.returncode == 1
    assert "--budget: budget 'soon'" in bad.stderr.decode()
    assert "Traceback" not in bad.stderr.decode()


def test_a_tournament_takes_the_lookahead_bot() -> None:
    from tournament.config import parse_bots

    entries = parse_bots("Lookahead,dumbbot")
    assert [(e.name, e.strategy) for e in entries] == [("lookahead", "lookahead"),
                                                        ("dumbbot", "dumbbot")]
