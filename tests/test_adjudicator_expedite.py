"""The expedited removal of players (the French adjudicator's house rule, section 3;
docs/adjudication-conventions.md): each condition of parts (a) and (b) holding
and failing, the rule off by default, and a game over TCP that skips the
retreat phase it would otherwise wait for.

Part (a) positions are autumn moves on the standard map built around one
scene: Austria's army in Bohemia, its only unit, is dislodged by Germany
(Tyrolia to Bohemia, supported from Silesia; Munich holds), while Russia sits
in Vienna, Austria's only centre.  Its one retreat, Galicia, is not a centre
and no other power may retreat there, so all four conditions hold; each
variant below breaks exactly one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import trio

import adjudicator as A
from adjudicator.expedite import doomed_powers
from bots.client import BotClient, ClientSettings
from bots.registry import make_strategy
from bots.runner import ClientOutcome, run_clients
from tests.adjudicator_helpers import STD, loc, positions, result_of, run, state, unit
from tests.cli_helpers import daide
from tests.server_helpers import POWERS, ScriptClient, ServeProcess, start_server

EXPEDITE = A.DEFAULT.with_expedite()

OWNERS = {"VIE": "AUS", "BER": "GER", "KIE": "GER", "MUN": "GER", "WAR": "RUS"}
SCENE = ("AUS AMY BOH", "GER AMY MUN", "GER AMY TYR", "GER AMY SIL", "RUS AMY VIE",
         "RUS AMY WAR")
ATTACK = (A.Move(unit("GER AMY TYR"), loc("BOH")),
          A.SupportMove(unit("GER AMY SIL"), unit("GER AMY TYR"), "BOH"))


def autumn(*units: str, owners: Mapping[str, str] = OWNERS) -> A.GameState:
    return state(*units, phase="FAL 1901", ownership=owners)


def destroyed(r: A.PhaseResult) -> list[A.OrderResult]:
    """The results of the orders the rule gave (destroyed or removed units)."""
    return [x for x in r.results if isinstance(x.reason, A.Expedited)]


# -- part (a): the autumn moves ----------------------------------------------------


def test_a_all_four_conditions_hold_the_dislodged_unit_is_destroyed() -> None:
    r = run(autumn(*SCENE), *ATTACK, rules=EXPEDITE)
    # The movement result is the one of any dislodged unit (docs/protocol.md §9.4) ...
    assert result_of(r, "BOH").tokens == ("RET",)
    # ... then the unit is disbanded as an unordered unit with no retreat would be.
    gone = destroyed(r)
    assert [(x.order, x.tokens) for x in gone] == [(A.Disband(unit("AUS AMY BOH")), ("SUC",))]
    assert gone[0].reason is not None and "(expedited removal, a)" in str(gone[0].reason)
    # No retreat phase: the year ends at once (Austria lost Vienna to Russia).
    assert r.state.dislodged == ()
    assert r.ownership_updated and r.next_phase == A.Phase("SPR", 1902)
    assert "AUS" not in r.state.ownership.values()
    assert r.eliminated == ("AUS",)
    assert not any(u.power == "AUS" for u in r.state.units)


def test_a_is_off_by_default_and_the_same_scene_waits_for_the_retreat() -> None:
    assert A.DEFAULT.expedite is False and A.DATC_3_0.expedite is False
    assert A.DEFAULT.with_expedite() != A.DEFAULT
    assert A.DEFAULT.with_expedite().with_expedite(False) == A.DEFAULT
    r = run(autumn(*SCENE), *ATTACK)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("AUT", 1901)
    assert r.state.dislodged == (A.Dislodged(unit("AUS AMY BOH"), (loc("GAL"),), "TYR"),)


def test_a_fails_when_the_power_occupies_a_centre() -> None:
    # Condition 1: an Austrian fleet stands in Trieste (Italy's): Austria takes it at the year's end.
    owners = dict(OWNERS, TRI="ITA")
    r = run(autumn(*SCENE, "AUS FLT TRI", owners=owners), *ATTACK, rules=EXPEDITE)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("AUT", 1901)
    assert [d.unit for d in r.state.dislodged] == [unit("AUS AMY BOH")]


def test_a_fails_when_one_of_its_centres_is_empty() -> None:
    # Condition 2: Austria also owns Budapest, which nobody occupies: it keeps a centre.
    r = run(autumn(*SCENE, owners=dict(OWNERS, BUD="AUS")), *ATTACK, rules=EXPEDITE)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("AUT", 1901)


def test_a_fails_when_a_retreat_could_reach_a_centre() -> None:
    # Condition 3: without the German army in Munich, Bohemia may retreat to
    # Munich (a centre) as well as Galicia; Munich stays German-owned (2: Austria's
    # Vienna is still occupied; 4: nobody else retreats).
    units = tuple(u for u in SCENE if u != "GER AMY MUN")
    r = run(autumn(*units), *ATTACK, rules=EXPEDITE)
    assert not destroyed(r)
    assert r.state.dislodged == (
        A.Dislodged(unit("AUS AMY BOH"), (loc("GAL"), loc("MUN")), "TYR"),)


def test_a_fails_when_a_retreat_could_meet_another_powers_retreat() -> None:
    # Condition 4: Russia's army in Warsaw is dislodged too (Prussia to Warsaw,
    # supported from Livonia) and may also retreat to Galicia.
    units = (*SCENE, "GER AMY PRU", "GER AMY LVN")
    attack = (*ATTACK, A.Move(unit("GER AMY PRU"), loc("WAR")),
              A.SupportMove(unit("GER AMY LVN"), unit("GER AMY PRU"), "WAR"))
    r = run(autumn(*units), *attack, rules=EXPEDITE)
    assert not destroyed(r)
    dislodged = {d.unit.power: {p.province for p in d.retreats} for d in r.state.dislodged}
    assert "GAL" in dislodged["AUS"] and "GAL" in dislodged["RUS"]


def test_a_holds_when_the_unit_has_no_retreat_at_all() -> None:
    # Galicia occupied too: MRT ( ) - the plain case of a unit that must disband.
    r = run(autumn(*SCENE, "RUS AMY GAL"), *ATTACK, rules=EXPEDITE)
    assert [x.order for x in destroyed(r)] == [A.Disband(unit("AUS AMY BOH"))]
    assert r.next_phase == A.Phase("WIN", 1901)      # Russia: two centres, three units


def test_a_only_the_doomed_power_loses_its_retreat() -> None:
    # Russia is dislodged from Warsaw too (Ukraine and Moscow open; Galicia is
    # Russian-held, so Bohemia has no retreat at all): Austria's unit goes, Russia
    # (in Vienna, a centre) still retreats.
    units = (*SCENE, "RUS AMY GAL", "GER AMY PRU", "GER AMY LVN")
    attack = (*ATTACK, A.Move(unit("GER AMY PRU"), loc("WAR")),
              A.SupportMove(unit("GER AMY LVN"), unit("GER AMY PRU"), "WAR"))
    r = run(autumn(*units), *attack, rules=EXPEDITE)
    assert [x.order for x in destroyed(r)] == [A.Disband(unit("AUS AMY BOH"))]
    assert r.next_phase == A.Phase("AUT", 1901)
    assert [d.unit for d in r.state.dislodged] == [unit("RUS AMY WAR")]


def test_a_a_power_meeting_only_its_own_retreats_still_counts_as_doomed() -> None:
    # "collide with the retreat of another player": two Austrian retreats that
    # could meet each other do not save Austria (it loses every unit in the winter).
    units = (unit("GER AMY BOH"), unit("GER AMY GAL"), unit("RUS AMY VIE"))
    alone = (A.Dislodged(unit("AUS AMY BOH"), (loc("SIL"),), "TYR"),
             A.Dislodged(unit("AUS AMY GAL"), (loc("SIL"), loc("UKR")), "BUD"))
    assert doomed_powers(STD, OWNERS, units, alone) == frozenset({"AUS"})
    # ... while a Russian retreat to Ukraine would (condition 4).
    shared = (*alone, A.Dislodged(unit("RUS AMY SEV"), (loc("UKR"),), "ARM"))
    assert doomed_powers(STD, OWNERS, units, shared) == frozenset()


def test_a_is_an_autumn_rule_only() -> None:
    spring = state(*SCENE, phase="SPR 1901", ownership=OWNERS)
    r = run(spring, *ATTACK, rules=EXPEDITE)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("SUM", 1901)


# -- part (b): the autumn retreats ---------------------------------------------------


def retreat_scene(*extra_units: str, owners: Mapping[str, str] = OWNERS,
                  retreats: tuple[str, ...] = ("GAL",)) -> A.GameState:
    """Autumn retreats: Austria's army in Bohemia is dislodged (Galicia open),
    Austria has an army in Tyrolia as well; Russia holds Vienna."""
    return state("AUS AMY TYR", "GER AMY BOH", "GER AMY MUN", "GER AMY SIL", "RUS AMY VIE",
                 "RUS AMY WAR", *extra_units, phase="AUT 1901", ownership=owners,
                 dislodged=[A.Dislodged(unit("AUS AMY BOH"), tuple(loc(p) for p in retreats),
                                        "SIL")])


def test_b_a_power_without_a_centre_loses_its_units_at_the_autumn_retreats() -> None:
    r = run(retreat_scene(), A.Retreat(unit("AUS AMY BOH"), loc("GAL")), rules=EXPEDITE)
    assert result_of(r, "BOH").tokens == ("SUC",)          # the retreat itself succeeded
    removed = destroyed(r)
    # A removal is shown as the server shows a forced removal (docs/protocol.md §8.4).
    assert [(x.order, x.tokens) for x in removed] == [
        (A.Remove(unit("AUS AMY GAL")), ("SUC",)), (A.Remove(unit("AUS AMY TYR")), ("SUC",))]
    assert "(expedited removal, b)" in str(removed[0].reason)
    assert not any(u.power == "AUS" for u in r.state.units)
    assert r.eliminated == ("AUS",)
    # Nobody else has an adjustment: the winter Austria would have owed is skipped.
    assert r.next_phase == A.Phase("SPR", 1902)


def test_b_is_off_by_default_and_the_winter_waits_for_the_removals() -> None:
    r = run(retreat_scene(), A.Retreat(unit("AUS AMY BOH"), loc("GAL")))
    assert not destroyed(r)
    assert r.next_phase == A.Phase("WIN", 1901)
    assert r.state.adjustment("AUS") == -2


def test_b_counts_the_centres_after_the_year_end_a_retreat_onto_a_centre_saves() -> None:
    # Austria owns nothing before the count, but its retreat to Munich (empty,
    # German) takes a centre: it keeps its units and owes one removal.
    owners = {k: v for k, v in OWNERS.items() if k != "VIE"}
    s = state("AUS AMY TYR", "GER AMY BOH", "GER AMY SIL", "RUS AMY VIE", "RUS AMY WAR",
              phase="AUT 1901", ownership=owners,
              dislodged=[A.Dislodged(unit("AUS AMY BOH"), (loc("GAL"), loc("MUN")), "SIL")])
    r = run(s, A.Retreat(unit("AUS AMY BOH"), loc("MUN")), rules=EXPEDITE)
    assert not destroyed(r)
    assert r.state.ownership["MUN"] == "AUS"
    assert {"AUS AMY MUN", "AUS AMY TYR"} <= positions(r.state)


def test_b_a_power_keeping_a_centre_keeps_its_units() -> None:
    # Austria also owns Budapest (empty): one centre, two units - the winter decides.
    r = run(retreat_scene(owners=dict(OWNERS, BUD="AUS")),
            A.Retreat(unit("AUS AMY BOH"), loc("GAL")), rules=EXPEDITE)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("WIN", 1901)
    assert r.state.adjustment("AUS") == -1


def test_b_applies_at_the_year_end_without_a_retreat_phase() -> None:
    # No unit dislodged anywhere: the autumn retreats are empty and come with the
    # moves; Austria (Vienna taken by Russia's move) loses its army in Tyrolia then.
    s = autumn("AUS AMY TYR", "RUS AMY GAL", "RUS AMY WAR")
    r = run(s, A.Move(unit("RUS AMY GAL"), loc("VIE")), rules=EXPEDITE)
    assert [x.order for x in destroyed(r)] == [A.Remove(unit("AUS AMY TYR"))]
    assert result_of(r, "TYR").tokens == ("SUC",)     # its hold, first
    assert r.eliminated == ("AUS",)
    off = run(s, A.Move(unit("RUS AMY GAL"), loc("VIE")))
    assert not destroyed(off) and off.state.adjustment("AUS") == -1


def test_b_is_not_applied_at_the_summer_retreats() -> None:
    s = state("AUS AMY TYR", "GER AMY BOH", "RUS AMY VIE", phase="SUM 1901",
              ownership={"MUN": "GER"},
              dislodged=[A.Dislodged(unit("AUS AMY BOH"), (loc("GAL"),), "SIL")])
    r = run(s, A.Retreat(unit("AUS AMY BOH"), loc("GAL")), rules=EXPEDITE)
    assert not destroyed(r)
    assert r.next_phase == A.Phase("FAL", 1901)


# -- over TCP: the retreat phase is not waited for -------------------------------------

_OTHERS = ("ANK BEL BRE BUD BUL CON DEN EDI GRE HOL LON LVP MAR MOS NAP NWY PAR POR ROM RUM "
           "SER SEV SMY SPA STP SWE TRI TUN VEN")
START = (f"SCO ( AUS VIE ) ( GER BER KIE MUN ) ( RUS WAR ) ( UNO {_OTHERS} )\n"
         "NOW ( FAL 1901 ) ( AUS AMY BOH ) ( GER AMY MUN ) ( GER AMY TYR ) ( GER AMY SIL ) "
         "( RUS AMY VIE ) ( RUS AMY WAR )")
ORDERS = {
    "AUS": "SUB ( ( AUS AMY BOH ) HLD )",
    "GER": "SUB ( ( GER AMY TYR ) MTO BOH ) ( ( GER AMY SIL ) SUP ( GER AMY TYR ) MTO BOH ) "
           "( ( GER AMY MUN ) HLD )",
    "RUS": "SUB ( ( RUS AMY VIE ) HLD ) ( ( RUS AMY WAR ) HLD )",
}


async def _autumn_over_tcp(tmp_path: Path, expedite: bool) -> list[str]:
    """Seven scripted players in a game starting at the scene's autumn; the three
    with units order; what the Austrian player hears up to the next NOW."""
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path / "g.db", start=START,
                                          expedite=expedite)
        clients: dict[str, ScriptClient] = {}
        for power in POWERS:
            clients[power] = client = await ScriptClient.connect(port, f"{power}:script")
            await client.join()
        for client in clients.values():
            await client.receive_until("NOW")
        for power, sub in ORDERS.items():
            await clients[power].send(sub)
        heard = await clients["AUS"].receive_until("NOW")
        server.stop()
        for client in clients.values():
            await client.stream.aclose()
    return heard


async def test_over_tcp_an_expedited_game_does_not_wait_for_a_retreat(tmp_path: Path) -> None:
    heard = await _autumn_over_tcp(tmp_path, expedite=True)
    assert "ORD ( FAL 1901 ) ( ( AUS AMY BOH ) HLD ) ( RET )" in heard
    assert "ORD ( FAL 1901 ) ( ( AUS AMY BOH ) DSB ) ( SUC )" in heard
    assert f"SCO ( GER BER KIE MUN ) ( RUS VIE WAR ) ( UNO {_OTHERS} )" in heard
    # The year ended with the moves: nobody owes anything until the spring.
    assert heard[-1] == ("NOW ( SPR 1902 ) ( GER AMY BOH ) ( GER AMY MUN ) ( GER AMY SIL ) "
                         "( RUS AMY VIE ) ( RUS AMY WAR )")


async def test_over_tcp_without_the_rule_the_game_waits_in_the_autumn_retreats(
        tmp_path: Path) -> None:
    heard = await _autumn_over_tcp(tmp_path, expedite=False)
    assert not any("DSB" in m for m in heard)
    assert heard[-1].startswith("NOW ( AUT 1901 )")
    assert "( AUS AMY BOH MRT ( GAL ) )" in heard[-1]


async def test_over_tcp_bots_play_on_through_the_rules_orders(tmp_path: Path) -> None:
    """Austria is a bot that holds (and so is dislodged and destroyed), the powers
    without units are bots that learn from the ORD results (RegretBot) or not:
    all take the DSB in the autumn's results and the end of the game in their stride."""
    lineup = {"AUS": "holdbot", "ENG": "regret", "FRA": "dumbbot", "ITA": "regret",
              "TUR": "randbot"}
    outcomes: list[ClientOutcome] = []
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, tmp_path / "g.db", start=START,
                                          expedite=True, max_year=1901)
        scripts: dict[str, ScriptClient] = {}
        for power in ("GER", "RUS"):
            scripts[power] = client = await ScriptClient.connect(port, f"{power}:script")
            await client.join()
        bots = [BotClient(make_strategy(name),
                          ClientSettings(port=port, name=f"{power}:{name}", seed=i))
                for i, (power, name) in enumerate(lineup.items())]

        done = trio.Event()

        async def play() -> None:
            outcomes.extend(await run_clients(bots))
            done.set()

        nursery.start_soon(play)
        for power, client in scripts.items():
            await client.receive_until("NOW")
            await client.send(ORDERS[power])
        heard = await scripts["GER"].receive_until("SMR")
        with trio.fail_after(60):
            await done.wait()
        server.stop()
        for client in scripts.values():
            await client.stream.aclose()
    assert "ORD ( FAL 1901 ) ( ( AUS AMY BOH ) DSB ) ( SUC )" in heard
    assert not any(m.startswith("NOW ( AUT") for m in heard)
    assert [o.error for o in outcomes] == [None] * len(bots)
    assert all(not bot.problems for bot in bots), [bot.problems for bot in bots]


async def _autumn_over_a_served_game(nursery: trio.Nursery, tmp_path: Path) -> list[str]:
    start = tmp_path / "start.txt"
    start.write_text(START + "\n", encoding="utf-8")
    server = await ServeProcess.start(nursery, tmp_path / "g.db", "--start-from", str(start),
                                      "--expedite")
    clients: dict[str, ScriptClient] = {}
    for power in POWERS:
        clients[power] = client = await ScriptClient.connect(server.port, f"{power}:script")
        await client.join()
    for client in clients.values():
        await client.receive_until("NOW")
    for power, sub in ORDERS.items():
        await clients[power].send(sub)
    heard = await clients["AUS"].receive_until("NOW")
    for client in clients.values():
        await client.stream.aclose()
    await server.kill()
    return heard


async def test_daide_serve_expedite_plays_the_rule(nursery: trio.Nursery, tmp_path: Path) -> None:
    heard = await _autumn_over_a_served_game(nursery, tmp_path)
    assert "ORD ( FAL 1901 ) ( ( AUS AMY BOH ) DSB ) ( SUC )" in heard
    assert heard[-1].startswith("NOW ( SPR 1902 )")


def test_daide_adjudicate_expedite() -> None:
    block = START + "\n" + "\n".join(ORDERS.values()) + "\n"
    on = daide("adjudicate", "--expedite", input=block.encode())
    off = daide("adjudicate", input=block.encode())
    assert on.returncode == 0 and off.returncode == 0, on.stdout + on.stderr + off.stdout
    assert "ORD ( FAL 1901 ) ( ( AUS AMY BOH ) DSB ) ( SUC )" in on.stdout.splitlines()
    assert on.stdout.splitlines()[-2].startswith("NOW ( SPR 1902 )")
    assert "DSB" not in off.stdout
    assert "NOW ( AUT 1901 )" in off.stdout and "( AUS AMY BOH MRT ( GAL ) )" in off.stdout
