"""Bots without a server: geography, tracking, press answers, the three strategies."""

from __future__ import annotations

import random

import pytest

from bots.board import BoardUnit, BoardView
from bots.convoys import convoy_routes
from bots.demo import DEFAULT_LINEUP, DemoError, demo_map, parse_lineup
from bots.dumbbot import DumbBot
from bots.geography import geography_of
from bots.holdbot import HoldBot, farthest_units
from bots.press import no_press_replies
from bots.randbot import RandBot
from bots.strategy import phase_rng
from bots.tracking import GameTracker, read_server_message
from bots.values import base_values, valuation
from engine.variants import standard_map
from protocol.messages import Frm, Message
from protocol.orders import order_node
from protocol.text import tree_from_text, tree_to_text

GEO = geography_of(standard_map())
START_SCO = ("SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN )"
             " ( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY )"
             " ( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )")
START_NOW = ("NOW ( SPR 1901 ) ( AUS AMY BUD ) ( AUS AMY VIE ) ( AUS FLT TRI ) ( ENG FLT EDI )"
             " ( ENG FLT LON ) ( ENG AMY LVP ) ( FRA FLT BRE ) ( FRA AMY MAR ) ( FRA AMY PAR )"
             " ( GER FLT KIE ) ( GER AMY BER ) ( GER AMY MUN ) ( ITA FLT NAP ) ( ITA AMY ROM )"
             " ( ITA AMY VEN ) ( RUS AMY WAR ) ( RUS AMY MOS ) ( RUS FLT SEV )"
             " ( RUS FLT ( STP SCS ) ) ( TUR FLT ANK ) ( TUR AMY CON ) ( TUR AMY SMY )")


def from_server(text: str) -> Message:
    """A server message in DAIDE text, typed as the client reads it."""
    message = read_server_message(tree_from_text(text))
    assert message is not None, text
    return message


def view(power: str, now: str = START_NOW, sco: str = START_SCO) -> BoardView:
    tracker = GameTracker(geography=GEO)
    tracker.on_message(from_server(f"HLO ( {power} ) ( 1234 ) ( ( LVL 0 ) )"))
    tracker.on_message(from_server(sco))
    tracker.on_message(from_server(now))
    return tracker.view()


def texts(orders: list) -> list[str]:
    return [tree_to_text(order_node(o)) for o in orders]


# -- geography ------------------------------------------------------------------


def test_geography_of_standard_map() -> None:
    assert GEO.powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
    assert len(GEO.provinces) == 75 and len(GEO.centres) == 34
    assert GEO.homes["RUS"] == {"MOS", "SEV", "STP", "WAR"}
    assert GEO.fleet_nodes("STP") == (("STP", "NCS"), ("STP", "SCS"))
    assert GEO.neighbours("FLT", ("STP", "SCS")) == (("FIN", None), ("GOB", None), ("LVN", None))
    assert GEO.is_sea("NTH") and not GEO.is_land("NTH") and GEO.is_land("BUR")
    assert GEO.army_distances("PAR")["MOS"] == 5
    assert GEO.distance_to_any("FLT", ("NAO", None), {"LON", "EDI"}) == 2


# -- tracking --------------------------------------------------------------------


def test_tracker_reads_hlo_sco_now_with_retreats() -> None:
    tracker = GameTracker(geography=GEO)
    tracker.on_message(from_server("HLO ( ENG ) ( 4321 ) ( ( LVL 0 ) ( MTL 60 ) )"))
    tracker.on_message(from_server(START_SCO))
    tracker.on_message(from_server(
        "NOW ( SUM 1902 ) ( ENG FLT NTH MRT ( LON ( STP NCS ) ) ) ( FRA FLT NTH ) ( ENG AMY YOR )"))
    assert (tracker.power, tracker.passcode, tracker.level) == ("ENG", 4321, 0)
    v = tracker.view()
    assert v.phase_kind == "retreat" and (v.season, v.year) == ("SUM", 1902)
    assert v.my_dislodged == (BoardUnit("ENG", "FLT", ("NTH", None),
                                        (("LON", None), ("STP", "NCS"))),)
    assert [u.province for u in v.units] == ["NTH", "YOR"]
    assert tracker.owes_orders()
    tracker.on_message(from_server("SLO ( FRA )"))
    assert tracker.end is not None and tracker.end.winner == "FRA"
    assert not tracker.owes_orders()


# -- press -------------------------------------------------------------------------


def test_no_press_bot_answers_frm_with_huh_then_try() -> None:
    frm = from_server("FRM ( FRA ) ( ENG ) ( PRP ( PCE ( ENG FRA ) ) )")
    assert isinstance(frm, Frm)
    assert [tree_to_text(m) for m in no_press_replies(frm)] == [
        "SND ( FRA ) ( HUH ( ERR PRP ( PCE ( ENG FRA ) ) ) )",
        "SND ( FRA ) ( TRY ( ) )",
    ]


@pytest.mark.parametrize("press", ["HUH ( ERR PRP ( PCE ( ENG FRA ) ) )", "TRY ( PRP PCE )"])
def test_no_press_bot_never_answers_huh_or_try(press: str) -> None:
    frm = from_server(f"FRM ( FRA ) ( ENG ) ( {press} )")
    assert isinstance(frm, Frm) and no_press_replies(frm) == []


# -- strategies ----------------------------------------------------------------------


def test_holdbot_holds_disbands_waives_and_removes_the_farthest() -> None:
    bot = HoldBot()
    rng = random.Random(0)
    assert texts(bot.orders(view("AUS"), rng)) == [
        "( AUS AMY BUD ) HLD", "( AUS AMY VIE ) HLD", "( AUS FLT TRI ) HLD"]
    retreat = view("ENG", now="NOW ( AUT 1901 ) ( ENG FLT NTH MRT ( LON ) ) ( FRA FLT NTH )")
    assert texts(bot.orders(retreat, rng)) == ["( ENG FLT NTH ) DSB"]
    builds = view("ENG", now="NOW ( WIN 1901 ) ( ENG FLT NTH )")
    assert texts(bot.orders(builds, rng)) == ["ENG WVE", "ENG WVE"]
    removals = view("ENG", sco="SCO ( ENG LON ) ( UNO EDI LVP )",
                    now="NOW ( WIN 1901 ) ( ENG FLT NTH ) ( ENG AMY MOS ) ( ENG FLT MAO )")
    assert [u.province for u in farthest_units(removals, 2)] == ["MOS", "MAO"]
    assert texts(bot.orders(removals, rng)) == ["( ENG AMY MOS ) REM", "( ENG FLT MAO ) REM"]


def test_phase_rng_depends_on_seed_power_and_phase_only() -> None:
    a = phase_rng(7, "ENG", "SPR", 1901).random()
    assert a == phase_rng(7, "ENG", "SPR", 1901).random()
    assert a != phase_rng(8, "ENG", "SPR", 1901).random()
    assert a != phase_rng(7, "FRA", "SPR", 1901).random()
    assert a != phase_rng(7, "ENG", "FAL", 1901).random()


GER_HOL_FRA_BEL = START_SCO.replace("GER BER KIE MUN", "GER BER KIE MUN HOL").replace(
    "FRA BRE MAR PAR", "FRA BRE MAR PAR BEL").replace("BEL BUL", "BUL").replace(" HOL NWY", " NWY")


def test_values_attack_neutrals_and_defend_threatened_centres() -> None:
    threatened = view("GER", sco=GER_HOL_FRA_BEL,
                      now="NOW ( FAL 1901 ) ( GER AMY MUN ) ( FRA AMY BUR ) ( GER FLT KIE )")
    base = base_values(threatened)
    assert base["DEN"] > 0 and base["BEL"] > 0          # neutral and enemy centres
    assert base["MUN"] > 0                               # threatened from BUR
    assert base["BER"] == 0 and base["RUH"] == 0         # safe centre, non-centre
    assert base["BEL"] > base["DEN"] * 0.5
    safe = view("GER", sco=GER_HOL_FRA_BEL,
                now="NOW ( FAL 1901 ) ( GER AMY MUN ) ( FRA AMY GAS ) ( GER FLT KIE )")
    assert base_values(safe)["MUN"] == 0
    assert (valuation(threatened).value("AMY", ("MUN", None))
            > valuation(safe).value("AMY", ("MUN", None)))


def test_dumbbot_opens_towards_neutral_centres() -> None:
    bot = DumbBot()
    for power in GEO.powers:
        orders = texts(bot.orders(view(power), phase_rng(1, power, "SPR", 1901)))
        assert len(orders) == len(view(power).my_units)
        assert any(" MTO " in o for o in orders), (power, orders)
    turkey = texts(bot.orders(view("TUR"), phase_rng(1, "TUR", "SPR", 1901)))
    assert "( TUR AMY CON ) MTO BUL" in turkey


def test_dumbbot_supports_where_its_moves_meet() -> None:
    # Germany next to French Belgium and Burgundy: its moves meet in BUR.
    v = view("GER", sco=GER_HOL_FRA_BEL,
             now="NOW ( SPR 1902 ) ( GER AMY RUH ) ( GER AMY HOL ) ( GER AMY MUN )"
                 " ( FRA AMY BEL ) ( FRA AMY BUR )")
    for seed in range(5):
        orders = texts(DumbBot().orders(v, random.Random(seed)))
        supports = [o for o in orders if " SUP " in o]
        assert supports, orders
        for support in supports:
            # "( GER AMY RUH ) SUP ( GER AMY MUN ) MTO BUR" matches "( GER AMY MUN ) MTO BUR"
            supported = support.split(" SUP ", 1)[1]
            assert supported in orders, (support, orders)


def test_dumbbot_retreats_and_builds_by_value() -> None:
    retreat = view("ENG", now="NOW ( AUT 1901 ) ( ENG FLT NTH MRT ( LON NWY ) ) ( GER FLT NTH )")
    assert texts(DumbBot().orders(retreat, random.Random(0))) == ["( ENG FLT NTH ) RTO NWY"]
    builds = view("RUS", sco="SCO ( RUS MOS SEV STP WAR RUM SWE )",
                  now="NOW ( WIN 1901 ) ( RUS AMY RUM ) ( RUS FLT SWE ) ( RUS AMY UKR )"
                      " ( RUS AMY MOS )")
    orders = texts(DumbBot().orders(builds, random.Random(0)))
    assert len(orders) == 2 and all(o.endswith("BLD") for o in orders)
    assert not any("MOS" in o for o in orders)            # occupied home centre


def test_randbot_convoy_routes_are_real_chains() -> None:
    v = view("ENG", now="NOW ( SPR 1901 ) ( ENG AMY LON ) ( ENG FLT NTH ) ( ENG FLT NWG )")
    fleets = {u.province: u for u in v.my_units if u.kind == "FLT"}
    army = v.unit_in("LON")
    assert army is not None
    routes = set(convoy_routes(v, army, fleets))
    assert ("NWY", ("NTH",)) in routes and ("BEL", ("NTH",)) in routes
    assert ("CLY", ("NTH", "NWG")) in routes
    assert all(dest != "LON" for dest, _ in routes)


def test_randbot_uses_every_kind_of_order() -> None:
    v = view("ENG", now="NOW ( SPR 1901 ) ( ENG AMY LON ) ( ENG FLT NTH ) ( ENG FLT ECH )"
                        " ( ENG AMY WAL )")
    seen = set()
    for seed in range(200):
        for order in texts(RandBot().orders(v, random.Random(seed))):
            seen.add(order.split(" ) ", 1)[1].split()[0])
    assert seen == {"HLD", "MTO", "SUP", "CVY", "CTO"}


# -- the demo's line-up ------------------------------------------------------------


def test_demo_lineup_is_sized_to_the_variant() -> None:
    assert parse_lineup(None) == DEFAULT_LINEUP
    assert parse_lineup(None, 3) == ("dumbbot", "dumbbot", "dumbbot")
    world = demo_map("WORLD3")
    assert world.name == "world3" and len(world.powers) == 17 and world.first_year == 1901
    assert parse_lineup(None, 17) == DEFAULT_LINEUP * 2 + DEFAULT_LINEUP[:3]
    assert parse_lineup("RandBot, holdbot", 4) == ("randbot", "holdbot", "randbot", "holdbot")
    with pytest.raises(DemoError, match="at most 4 bots, one per power"):
        parse_lineup("randbot," * 5, 4)
    with pytest.raises(DemoError, match="unknown bot 'smartbot'"):
        parse_lineup("smartbot", 4)
    with pytest.raises(DemoError, match="unknown variant 'atlantis'"):
        demo_map("atlantis")
    assert demo_map("south_america32").powers == ("ARG", "BZL", "CHI", "COL")
