"""RegretBot (bots/regret.py and its parts): legal everywhere, reproducible,
within its budget, learning from the orders it sees, and playing on the server.

Everything is played for real: in-process games through the adjudicator
(`bots.local`), generated positions of every phase kind, the modern variant,
and a game over loopback TCP that must equal the same game played in
process.  Small iteration budgets keep the file fast; how strong the bot is
and how long a phase takes are measured by `daide tournament` and `make
bench` (docs/bots.md), never asserted here.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from adjudicator.values import GameState, Phase
from bots.budget import Budget
from bots.client import BotClient, ClientSettings
from bots.convoys import unmatched_convoys
from bots.dumbbot import DumbBot
from bots.equilibrium import solve
from bots.evaluation import Evaluator, EvalWeights
from bots.geography import geography_of
from bots.holdbot import HoldBot
from bots.local import Rejection, owes_orders, play_game, submit, view_of
from bots.lookahead import LookaheadBot
from bots.openings import openings
from bots.opponents import (
    POLICIES,
    Beliefs,
    evidence_of,
    models_for,
    sample,
    weakest_neighbours,
)
from bots.orders import unmatched_supports
from bots.randbot import RandBot
from bots.registry import make_strategy
from bots.regret import DEFAULT_ITERATIONS, STANDARD_CENTRES, RegretBot, default_budget, raids
from bots.runner import run_clients
from bots.strategy import Strategy
from daide.cmd_demo import start_embedded_server
from engine.variants import standard_map, variant_map
from maps import Map
from orders import Hold, Location, Move, Order, SupportMove, Unit
from tests.test_bots_legal import random_state

MAP = standard_map()
MAP_GEO = geography_of(MAP)
MODERN = variant_map("modern")
SMALL = Budget(iterations=150, seconds=None)
"""A budget without a clock: the same seed must give the same orders on any machine."""


def small_bot(iterations: int = 150) -> RegretBot:
    return RegretBot(Budget(iterations=iterations, seconds=None))


class Watched(RegretBot):
    """A RegretBot that notes its beliefs about every other power at each phase."""

    def __init__(self) -> None:
        super().__init__(SMALL)
        self.seen: dict[str, dict[str, dict[str, float]]] = {}

    def orders(self, view, rng):  # type: ignore[no-untyped-def]
        beliefs = self.beliefs(view.power)
        chosen = super().orders(view, rng)
        self.seen[f"{view.year} {view.season}"] = {
            p: beliefs.summary(p) for p in view.geography.powers if p != view.power}
        return chosen


def start_of(game_map: Map) -> GameState:
    return GameState(Phase(*game_map.start_phase), tuple(
        Unit(s.power, s.kind, Location(s.province, s.coast)) for s in game_map.start_units),
        dict(game_map.start_ownership))


START = start_of(MAP)


def legal(game_map: Map, state: GameState, power: str, orders: list[Order]) -> list[Rejection]:
    rejected: list[Rejection] = []
    submit(game_map, state, power, orders, rejected)
    return rejected


# -- regret matching alone -------------------------------------------------------------


def test_regret_matching_finds_the_dominant_choice_and_the_mixed_equilibrium() -> None:
    """Two players.  In the first game the second candidate of each player wins
    whatever the other does: both average strategies go to it.  In matching
    pennies the only equilibrium is half and half."""
    def dominant(joint: tuple[int, ...]) -> list[float]:
        a, b = joint
        return [1.0 * a + 0.1 * b, 1.0 * b + 0.1 * a]

    got = solve([2, 2], [[0.5, 0.5]] * 2, [0.0, 0.0], dominant, random.Random(1), 200)
    assert got.iterations == 200
    assert got.average[0][1] > 0.95 and got.average[1][1] > 0.95
    assert got.values[0][1] > got.values[0][0]

    def pennies(joint: tuple[int, ...]) -> list[float]:
        same = 1.0 if joint[0] == joint[1] else -1.0
        return [same, -same]

    got = solve([2, 2], [[0.5, 0.5]] * 2, [0.0, 0.0], pennies, random.Random(2), 2000)
    assert abs(got.average[0][0] - 0.5) < 0.1 and abs(got.average[1][0] - 0.5) < 0.1


def test_regret_matching_stops_when_the_payoff_is_refused() -> None:
    calls = []

    def payoff(joint: tuple[int, ...]) -> list[float] | None:
        calls.append(joint)
        return None if len(calls) > 10 else [0.0, 0.0, 0.0]

    got = solve([3, 3, 3], [[1 / 3] * 3] * 3, [0.0] * 3, payoff, random.Random(3), 100)
    assert got.iterations < 3 and len(calls) == 11


# -- legality, every phase kind, two variants ------------------------------------------


@pytest.mark.parametrize("game_map", [MAP, MODERN], ids=["standard", "modern"])
def test_orders_are_legal_on_generated_positions(game_map) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(f"regret/{game_map.name}")
    bot = small_bot(40)
    checked = 0
    seen: set[str] = set()
    for _ in range(12):
        state = random_state(game_map, rng)
        for power in game_map.powers[:4]:
            if not owes_orders(state, power):
                continue
            orders = bot.orders(view_of(game_map, state, power), random.Random(rng.random()))
            assert legal(game_map, state, power, orders) == [], (state, power)
            assert unmatched_supports(orders) + unmatched_convoys(orders) == [], (state, power)
            checked += len(orders)
            seen.add(state.phase.kind)
    assert checked > 50 and seen == {"movement", "retreat", "adjustment"}, (checked, seen)


def test_a_modern_game_is_played_with_no_illegal_order() -> None:
    """Three years of the modern variant (ten powers): RegretBots on half the
    seats, LookaheadBots, DumbBots and RandBots on the rest - every phase kind,
    no order refused."""
    bot = small_bot(60)
    others: list[Strategy] = [LookaheadBot(Budget(iterations=40, seconds=None)), DumbBot(),
                              RandBot()]
    players: dict[str, Strategy] = {p: (bot if i % 2 == 0 else others[i % 3])
                                    for i, p in enumerate(MODERN.powers)}
    game = play_game(MODERN, players, seed=5, max_year=MODERN.start_phase[1] + 2)
    assert game.rejections == []
    assert {r.kind for r in bot.reports} >= {"movement", "adjustment"}
    assert game.phases >= 9


# -- reproducibility and budget ------------------------------------------------------------


def _game(seed: int, hero: str = "FRA", last: int = 1903) -> tuple[list[str], RegretBot]:
    bot = small_bot()
    players: dict[str, Strategy] = {p: (bot if p == hero else DumbBot()) for p in MAP.powers}
    history: list[str] = []
    game = play_game(MAP, players, seed=seed, max_year=last,
                     on_phase=lambda s: history.append(repr(sorted(map(str, s.units)))))
    assert game.rejections == []
    return history, bot


def test_the_same_seed_plays_the_same_game() -> None:
    first, bot = _game(seed=4)
    second, _ = _game(seed=4)
    assert first == second and len(first) >= 7
    assert bot.reports and all(r.iterations > 0 for r in bot.reports)
    other, _ = _game(seed=5, last=1902)
    assert other != first[:len(other)]


def test_the_same_phase_and_seed_give_the_same_orders() -> None:
    view = view_of(MAP, START, "AUS")
    a = small_bot().orders(view, random.Random("x"))
    b = small_bot().orders(view, random.Random("x"))
    assert a == b and len(a) == 3


def test_an_iteration_budget_stops_the_search() -> None:
    view = view_of(MAP, START, "RUS")
    for limit in (60, 200):
        bot = small_bot(limit)
        orders = bot.orders(view, random.Random(1))
        report = bot.reports[-1]
        assert report.stopped == "iterations" and report.iterations <= limit
        assert report.rm_iterations >= 1
        assert legal(MAP, START, "RUS", orders) == [] and len(orders) == 4
    big = small_bot(100_000)
    big.orders(view, random.Random(1))
    assert big.reports[-1].iterations > 200 and big.reports[-1].stopped is None


def test_a_time_budget_stops_the_search_on_its_clock() -> None:
    """A fake CPU clock that advances 1 ms per reading: the search stops once
    the 0.2 s of the budget have passed, and still returns a full legal set."""
    ticks = iter(range(10_000_000))
    budget = Budget(seconds=0.2, clock=lambda: next(ticks) * 0.001)
    bot = RegretBot(budget)
    orders = bot.orders(view_of(MAP, START, "TUR"), random.Random(2))
    report = bot.reports[-1]
    assert report.stopped == "time" and report.iterations > 0
    assert legal(MAP, START, "TUR", orders) == [] and len(orders) == 3


def test_the_default_budget_shrinks_on_a_larger_map() -> None:
    """The default budget is `DEFAULT_ITERATIONS` on the standard map and fewer in
    proportion on one with more centres (modern: 64), so a phase there stays
    within the CPU limit; a bot given a budget keeps it on every map."""
    modern_geo = geography_of(MODERN)
    assert default_budget(MAP_GEO).iterations == DEFAULT_ITERATIONS == 2600
    scaled = default_budget(modern_geo)
    assert len(modern_geo.centres) == 64
    assert scaled.iterations == round(DEFAULT_ITERATIONS * STANDARD_CENTRES / 64) == 1381
    start = start_of(MODERN)
    power = MODERN.powers[0]
    bot = RegretBot()
    orders = bot.orders(view_of(MODERN, start, power), random.Random(4))
    assert legal(MODERN, start, power, orders) == []
    assert 0 < bot.reports[-1].iterations <= scaled.iterations
    assert bot.budget.iterations == DEFAULT_ITERATIONS
    given = small_bot(100)            # scaled, it would be 53
    given.orders(view_of(MODERN, start, power), random.Random(4))
    assert given.reports[-1].iterations == 100


def test_no_budget_left_still_gives_orders() -> None:
    bot = small_bot(1)
    orders = bot.orders(view_of(MAP, START, "ENG"), random.Random(3))
    assert len(orders) == 3 and legal(MAP, START, "ENG", orders) == []
    assert bot.reports[-1].rm_iterations == 0 and bot.reports[-1].stopped == "iterations"


def test_the_registry_and_the_budget() -> None:
    assert isinstance(make_strategy("regret", SMALL), RegretBot)
    assert make_strategy("Regret").name == "RegretBot"
    assert make_strategy("regret", SMALL).budget == SMALL   # type: ignore[attr-defined]


# -- beliefs -------------------------------------------------------------------------------


def test_beliefs_learn_who_holds_and_who_plans() -> None:
    """Against three HoldBots and three DumbBots the bot's beliefs, updated
    from the orders each power gave, put most weight on ``holder`` for the
    HoldBots and on a DumbBot-like planner for the DumbBots."""
    bot = small_bot(80)
    holders = {"ENG", "ITA", "RUS"}
    players: dict[str, Strategy] = {p: (bot if p == "AUS" else HoldBot() if p in holders
                                        else DumbBot()) for p in MAP.powers}
    play_game(MAP, players, seed=1, max_year=1903)
    beliefs = bot.beliefs("AUS")
    for power in MAP.powers:
        if power == "AUS":
            continue
        summary = beliefs.summary(power)
        assert beliefs.updates[power] >= 4
        if power in holders:
            assert max(summary, key=summary.__getitem__) == "holder", (power, summary)
        else:
            planners = summary["dumbbot"] + summary["attacker"] + summary["defender"]
            assert planners > 0.6 and summary["holder"] < 0.1, (power, summary)


def test_one_phase_of_evidence_moves_a_belief_but_never_rules_a_policy_out() -> None:
    view = view_of(MAP, START, "FRA")
    models = models_for(view, "GER")
    holds = [Hold(Unit(u.power, u.kind, Location(u.province, u.node[1])))
             for u in view.units_of("GER")]
    samples = [[sample(models, p, random.Random(i)) for i in range(p.samples)] for p in POLICIES]
    beliefs = Beliefs()
    before = beliefs.summary("GER")
    beliefs.update("GER", evidence_of(models.view, samples), holds)
    after = beliefs.summary("GER")
    assert after["holder"] > before["holder"]
    assert min(after.values()) > 0


def test_the_weakest_neighbour_is_every_power_tied_for_fewest_centres() -> None:
    """An Italian army in Tyrolia touches Austria (Vienna, Trieste) and Germany
    (Munich), three centres each: both are Italy's weakest neighbours, neither
    picked by its name.  With one more centre Germany is no longer one; a power
    next to no one has none."""
    units = tuple(Unit("ITA", "AMY", Location("TYR")) if u.location.province == "VEN" else u
                  for u in START.units)
    tyrol = GameState(START.phase, units, START.ownership)
    assert weakest_neighbours(view_of(MAP, tyrol, "ITA")) == {"AUS", "GER"}
    richer = GameState(START.phase, units, {**START.ownership, "DEN": "GER"})
    assert weakest_neighbours(view_of(MAP, richer, "ITA")) == {"AUS"}
    assert weakest_neighbours(view_of(MAP, START, "ENG")) == frozenset()


def test_a_centre_taken_in_the_spring_counts_in_part_until_the_autumn() -> None:
    """An Italian army that walked into Trieste: before the autumn's movement
    Italy gains only ``held`` of a centre and Austria keeps the rest; once the
    autumn is over (winter) the centre is Italy's whole.  Nothing else differs
    between the two positions, so the difference is exactly that rest for each."""
    units = tuple(Unit("ITA", "AMY", Location("TRI")) if u.location.province == "VEN" else u
                  for u in START.units if u.location.province != "TRI")
    evaluator = Evaluator(MAP_GEO, {})
    autumn = evaluator.scores(GameState(Phase("FAL", 1901), units, START.ownership))
    winter = evaluator.scores(GameState(Phase("WIN", 1901), units, START.ownership))
    held = EvalWeights().held
    assert 0 < held < 1
    assert winter["ITA"] - autumn["ITA"] == pytest.approx(1 - held)
    assert autumn["AUS"] - winter["AUS"] == pytest.approx(1 - held)
    assert {p: autumn[p] - winter[p] for p in MAP.powers if p not in ("ITA", "AUS")} == \
        dict.fromkeys(set(MAP.powers) - {"ITA", "AUS"}, 0.0)


def test_an_empty_home_centre_an_enemy_reaches_as_strongly_is_threatened() -> None:
    """A Russian army in Galicia reaches Vienna and Budapest.  With Austria's
    armies in Tyrolia and Serbia (each empty centre reached by one Austrian
    army: as many as Russia) both are threatened - Austria is worth two threats
    less than with the Russian army in Ukraine, which reaches neither.  With an
    army holding Budapest (a unit in the centre) and Vienna reached by two,
    neither is."""
    evaluator = Evaluator(MAP_GEO, {})

    def austria(at: tuple[str, ...], russia: str) -> float:
        units = (*(Unit("AUS", "AMY", Location(p)) for p in at),
                 Unit("AUS", "FLT", Location("TRI")), Unit("RUS", "AMY", Location(russia)))
        return evaluator.scores(GameState(Phase("WIN", 1901), units, START.ownership))["AUS"]

    threat = EvalWeights().threat
    assert austria(("TYR", "SER"), "UKR") - austria(("TYR", "SER"), "GAL") == \
        pytest.approx(2 * threat)
    assert austria(("TYR", "BUD"), "UKR") == pytest.approx(austria(("TYR", "BUD"), "GAL"))


def test_a_centre_taken_from_the_leader_is_worth_more_to_everyone() -> None:
    """England owns eight centres, Austria its three.  Italy taking London rather
    than Vienna is worth ``leader`` times (2*8 - 1) - (2*3 - 1) = 10 squares more to
    Italy (the centre is the same one centre either way), and as much to France,
    which takes nothing: the sum of the others' squares is 10 smaller.  With no
    unit on the board no other term differs."""
    owners = {**START.ownership, "NWY": "ENG", "BEL": "ENG", "HOL": "ENG", "DEN": "ENG",
              "SWE": "ENG"}
    evaluator = Evaluator(MAP_GEO, {})

    def taken(centre: str) -> dict[str, float]:
        return evaluator.scores(GameState(Phase("WIN", 1902), (), {**owners, centre: "ITA"}))

    from_leader, from_austria = taken("LON"), taken("VIE")
    leader = EvalWeights().leader
    assert leader > 0
    assert from_leader["ITA"] - from_austria["ITA"] == pytest.approx(10 * leader)
    assert from_leader["FRA"] - from_austria["FRA"] == pytest.approx(10 * leader)


def test_a_raid_per_centre_by_the_power_that_reaches_it_most() -> None:
    """The raids the refinement weighs plans against: one per centre of Austria's
    at the start, and Serbia, which its army occupies (it is Austria's at the
    winter if the army stays), in name order.  Budapest: Russia's armies in
    Galicia and Rumania both reach it - Galicia's walks in, Rumania's supports,
    Warsaw's reaches nothing and keeps its order.  Serbia: Turkey's armies in
    Bulgaria and Greece reach it, Russia's Rumania only one - Turkey attacks.
    Trieste: Italy's army in Venice walks in instead of supporting, and its
    fleet in the Adriatic supports it.  Vienna: only Galicia is next to it.
    Every raid leaves the other powers' orders as they were; England's centres
    are out of everyone's reach: no raid.  Albania, where an Austrian unit
    stands too, is no centre and is not raided."""
    ven, nap = Unit("ITA", "AMY", Location("VEN")), Unit("ITA", "FLT", Location("NAP"))
    adr = Unit("ITA", "FLT", Location("ADR"))
    bul, gre = Unit("TUR", "AMY", Location("BUL")), Unit("TUR", "AMY", Location("GRE"))
    war, gal = Unit("RUS", "AMY", Location("WAR")), Unit("RUS", "AMY", Location("GAL"))
    rum = Unit("RUS", "AMY", Location("RUM"))
    future: dict[str, list[Order]] = {
        "ITA": [SupportMove(ven, nap, "ROM"), Move(nap, Location("ROM")), Hold(adr)],
        "TUR": [Hold(bul), Move(gre, Location("ALB"))],
        "RUS": [Move(war, Location("SIL")), Hold(gal), Hold(rum)],
    }
    budapest, serbia, trieste, vienna = raids(MAP_GEO, START.ownership, "AUS", future,
                                              occupied=["SER", "ALB"])
    assert budapest == {**future, "RUS": [Move(war, Location("SIL")), Move(gal, Location("BUD")),
                                          SupportMove(rum, gal, "BUD")]}
    assert serbia == {**future, "TUR": [Move(bul, Location("SER")), SupportMove(gre, bul, "SER")]}
    assert trieste == {**future, "ITA": [Move(ven, Location("TRI")), Move(nap, Location("ROM")),
                                         SupportMove(adr, ven, "TRI")]}
    assert vienna == {**future, "RUS": [Move(war, Location("SIL")), Move(gal, Location("VIE")),
                                        Hold(rum)]}
    assert future["ITA"][0] == SupportMove(ven, nap, "ROM")      # the prediction is left as it was
    assert raids(MAP_GEO, START.ownership, "ENG", future) == []


# -- openings ----------------------------------------------------------------------------


def test_openings_apply_to_the_standard_start_only() -> None:
    view = view_of(MAP, START, "FRA")
    found = openings(view, "FRA")
    assert found and all(legal(MAP, START, "FRA", o) == [] for o in found)
    assert Move(Unit("FRA", "FLT", Location("BRE")), Location("MAO")) in found[0]
    for power in MAP.powers:
        assert all(legal(MAP, START, power, o) == [] for o in openings(view, power)), power
    assert openings(view_of(MODERN, start_of(MODERN), MODERN.powers[0]),
                    MODERN.powers[0]) == []
    later = GameState(Phase("FAL", 1901), START.units, START.ownership)
    assert openings(view_of(MAP, later, "FRA"), "FRA") == []


# -- the real server -----------------------------------------------------------------------


async def test_a_game_on_the_server_is_the_game_played_in_process(tmp_path: Path) -> None:
    """One RegretBot, a LookaheadBot and five DumbBots over loopback TCP to 1902,
    all seeded 7: no problem reported, the bot's beliefs were updated from the
    ORD results, and the final position is the one `bots.local` plays."""
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1902, tmp_path / "games.db")
        hero = Watched()
        look = LookaheadBot(Budget(iterations=40, seconds=None))
        strategies: list[Strategy] = [hero, look, *(DumbBot() for _ in range(5))]
        clients = [BotClient(s, ClientSettings(port=port, name=f"{s.name}-{i}", seed=7))
                   for i, s in enumerate(strategies)]
        with trio.fail_after(120):
            outcomes = await run_clients(clients)
        nursery.cancel_scope.cancel()
    assert [o.error for o in outcomes] == [None] * 7
    assert [p for c in clients for p in c.problems] == []
    assert all(c.tracker.end is not None for c in clients)
    power = str(clients[0].tracker.power)
    assert hero.reports and hero.beliefs(power).updates      # ORD results were seen
    position = clients[0].tracker.position
    assert position is not None

    seats = {str(c.tracker.power): s for c, s in zip(clients, strategies, strict=True)}
    again = Watched()
    players: dict[str, Strategy] = {
        p: (again if s is hero else LookaheadBot(Budget(iterations=40, seconds=None))
            if s is look else DumbBot()) for p, s in seats.items()}
    game = play_game(MAP, players, seed=7, max_year=1902)
    assert sorted((u.power, u.kind, u.node) for u in position.units) == sorted(
        (u.power, u.kind, (u.location.province, u.location.coast)) for u in game.state.units)
    # The ORD results over TCP taught the bot what the phase's orders taught it in
    # process: the same beliefs at every phase both played (the server also plays
    # WIN 1902, after which local play stops).
    common = sorted(set(hero.seen) & set(again.seen))
    assert len(common) >= 4
    assert [hero.seen[k] for k in common] == [again.seen[k] for k in common]


async def test_daide_bot_plays_the_regret_bot(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_embedded_server(nursery, 1901, tmp_path / "games.db")
        regret = [sys.executable, "-m", "daide", "bot", "regret", "--port", str(port),
                  "--budget", "100it", "--seed", "1"]
        dumbbots = [sys.executable, "-m", "daide", "bot", "dumbbot", "--port", str(port),
                    "--count", "6", "--seed", "2"]
        results: list[subprocess.CompletedProcess[bytes]] = []

        async def run(argv: list[str]) -> None:
            results.append(await trio.run_process(argv, capture_stdout=True,
                                                  capture_stderr=True, check=False))

        with trio.fail_after(90):
            async with trio.open_nursery() as inner:
                inner.start_soon(run, regret)
                await trio.sleep(0.5)
                inner.start_soon(run, dumbbots)
        nursery.cancel_scope.cancel()
    assert [r.returncode for r in results] == [0, 0], [r.stderr.decode()[-500:] for r in results]
    line = next(r for r in results if r.args[4] == "regret").stdout.decode().strip()
    assert line.startswith("RegretBot: power ") and line.endswith("0 problem(s)"), line
    assert "Traceback" not in "".join(r.stderr.decode() for r in results)


def test_a_tournament_takes_the_regret_bot() -> None:
    from tournament.config import parse_bots

    entries = parse_bots("Regret,lookahead")
    assert [(e.name, e.strategy) for e in entries] == [("regret", "regret"),
                                                        ("lookahead", "lookahead")]
