"""DumbBot's movement plans: self-consistent supports (issue 5 regression) and convoys.

`bots.orders.unmatched_supports` and `bots.convoys.unmatched_convoys` judge an
order set as a whole: each support and convoy must match the own unit's order.
"""

from __future__ import annotations

import random

from adjudicator import advance
from adjudicator.values import GameState, Phase
from bots.board import BoardView
from bots.convoys import unmatched_convoys
from bots.dumbbot import DumbBot
from bots.local import play_game, submit, view_of
from bots.orders import unmatched_supports
from bots.strategy import phase_rng
from engine.variants import standard_map, variant_map
from orders import Convoy, ConvoyMove, Hold, Location, Move, SupportHold, SupportMove, Unit
from protocol.orders import order_node
from protocol.text import format_tree


def state_of(season: str, year: int, units: str, owners: str) -> GameState:
    """A movement state from ``"BZL AMY ANT, COL FLT CRC, ..."`` and ``"ANT BZL, ..."``."""
    parsed = []
    for text in units.split(","):
        power, kind, province, *coast = text.split()
        parsed.append(Unit(power, kind, Location(province, coast[0] if coast else None)))
    ownership = dict(pair.split() for pair in owners.split(","))
    return GameState(Phase(season, year), tuple(parsed), ownership, ())


def texts(orders: list) -> list[str]:
    return [format_tree(order_node(o)) for o in orders]


def unit(text: str) -> Unit:
    """``"ENG FLT STP NCS"`` as a unit."""
    power, kind, province, *coast = text.split()
    return Unit(power, kind, Location(province, coast[0] if coast else None))


# South America (3 player) in FAL 1903 of DumbBot game seed 1, where Brazil ordered
# ( BZL AMY BSL ) SUP ( BZL AMY ROR ) MTO ROR: the first attack (BLM -> GUY) recruited
# ROR as its supporter, and ROR's own attack on CRC - now called off - still recruited BSL.
SA32_UNITS = (
    "BZL AMY ANT, CHI FLT ARE, CHI AMY BAI, BZL FLT BLM, BZL AMY BSL, CHI AMY CON,"
    " COL FLT CRC, COL FLT ECU, COL AMY GUY, BZL AMY LAP, CHI AMY LIM, COL AMY MED,"
    " COL AMY MNT, COL FLT MRC, ARG AMY PNT, ARG AMY PRG, BZL FLT RDJ, BZL AMY ROR,"
    " ARG AMY SAN, ARG AMY SFE, ARG FLT URU")
SA32_OWNERS = (
    "ANT BZL, ARE CHI, BAI ARG, BAR COL, BLM BZL, BOG COL, BSL BZL, CON CHI, CRC COL,"
    " GUY COL, LAP BZL, LIM CHI, MAN BZL, MDP CHI, MED COL, MRC COL, PRG ARG, RDJ BZL,"
    " SAN ARG, SFE ARG, URU ARG")


def test_supports_match_final_orders_after_recruiting_an_attacker() -> None:
    sa32 = variant_map("south_america32")
    state = state_of("FAL", 1903, SA32_UNITS, SA32_OWNERS)
    view = view_of(sa32, state, "BZL")

    orders = DumbBot().orders(view, phase_rng(1, "BZL", "FAL", 1903))
    rejected: list = []
    submit(sa32, state, "BZL", orders, rejected)
    assert rejected == []
    assert unmatched_supports(orders) == []
    # The seed of the report: ROR is the supporter of the attack on Guyana, and BSL
    # (no longer giving up its move for ROR's cancelled attack) follows into BLM.
    assert "( BZL AMY ROR ) SUP ( BZL FLT BLM ) MTO GUY" in texts(orders)
    assert "( BZL AMY BSL ) MTO BLM" in texts(orders)

    # The same position under many generators: a recruit chain comes up often,
    # and the supports always match.
    chains = 0
    for seed in range(200):
        orders = DumbBot().orders(view, random.Random(seed))
        assert unmatched_supports(orders) == [], (seed, texts(orders))
        rejected = []
        submit(sa32, state, "BZL", orders, rejected)
        assert rejected == [], (seed, rejected)
        chains += "( BZL AMY ROR ) SUP ( BZL FLT BLM ) MTO GUY" in texts(orders)
    assert chains > 20


def test_unmatched_supports_names_contradicted_supports_only() -> None:
    ror, bsl, blm = unit("BZL AMY ROR"), unit("BZL AMY BSL"), unit("BZL FLT BLM")
    orders = [
        Hold(ror),
        SupportMove(bsl, ror, "ROR"),                    # ROR holds: unmatched
        SupportHold(blm, ror),                           # support to hold a holder: fine
        SupportMove(unit("BZL AMY LAP"), unit("COL AMY GUY"), "BLM"),  # foreign
    ]
    assert unmatched_supports(orders) == [orders[1]]
    moving = [Move(ror, Location("CRC")), SupportMove(bsl, ror, "CRC"), SupportHold(blm, ror)]
    assert unmatched_supports(moving) == [moving[2]]
    by_sea = [ConvoyMove(ror, "CRC", ("BLM",)), SupportMove(bsl, ror, "CRC")]
    assert unmatched_supports(by_sea) == []
    coast = [Move(blm, Location("STP", "NCS")), SupportMove(bsl, blm, "STP")]
    assert unmatched_supports(coast) == []


# -- convoys ---------------------------------------------------------------------------

STANDARD = standard_map()
OTHERS = ("FRA AMY PAR, FRA FLT BRE, FRA AMY MAR, GER AMY MUN, GER AMY BER, GER FLT KIE,"
          " RUS AMY WAR, RUS AMY MOS, RUS FLT SEV, RUS FLT STP SCS")
OWNERS = ("LON ENG, EDI ENG, LVP ENG, PAR FRA, BRE FRA, MAR FRA, BER GER, KIE GER, MUN GER,"
          " MOS RUS, WAR RUS, SEV RUS, STP RUS")


def test_dumbbot_convoys_an_army_to_the_continent() -> None:
    """England's army cannot walk to Norway, which nobody else can reach: the
    North Sea fleet gives up its own move and carries it there."""
    state = state_of("FAL", 1901, "ENG AMY YOR, ENG FLT NTH, " + OTHERS, OWNERS)
    view = view_of(STANDARD, state, "ENG")
    for seed in range(20):
        orders = DumbBot().orders(view, random.Random(seed))
        assert texts(orders) == ["( ENG AMY YOR ) CTO NWY VIA ( NTH )",
                                 "( ENG FLT NTH ) CVY ( ENG AMY YOR ) CTO NWY"]
        assert unmatched_convoys(orders) == [] and unmatched_supports(orders) == []
    accepted = submit(STANDARD, state, "ENG", orders)
    result = advance(STANDARD, state, {"ENG": accepted})
    assert [r.outcome for r in result.results if r.order.unit.power == "ENG"] == ["SUC", "SUC"]
    assert any(u.power == "ENG" and u.kind == "AMY" and u.location.province == "NWY"
               for u in result.state.units)


def test_dumbbot_keeps_a_fleet_moving_when_an_own_unit_follows_it() -> None:
    """With the London fleet following into the North Sea, the North Sea fleet
    must leave it: no convoy (the follower would be stopped)."""
    state = state_of("FAL", 1901, "ENG AMY YOR, ENG FLT NTH, ENG FLT LON, " + OTHERS, OWNERS)
    view = view_of(STANDARD, state, "ENG")
    for seed in range(20):
        orders = texts(DumbBot().orders(view, random.Random(seed)))
        assert "( ENG FLT LON ) MTO NTH" in orders
        assert not any(" CTO " in order or " CVY " in order for order in orders), orders


def test_dumbbot_england_lands_convoyed_armies_in_played_games() -> None:
    """All-DumbBot games: England convoys, every convoy order set is whole, and
    some convoyed armies land."""
    convoys: list[tuple[int, str, int, ConvoyMove]] = []

    class Recording:
        name = "DumbBot"

        def __init__(self, seed: int) -> None:
            self.seed = seed

        def orders(self, view: BoardView, rng: random.Random) -> list:
            orders = DumbBot().orders(view, rng)
            assert unmatched_convoys(orders) == [] and unmatched_supports(orders) == []
            convoys.extend((self.seed, view.season, view.year, o) for o in orders
                           if isinstance(o, ConvoyMove))
            return orders

    landed = 0
    for seed in range(8):
        states: list[GameState] = []
        game = play_game(STANDARD, {p: Recording(seed) for p in STANDARD.powers}, seed=seed,
                         max_year=1908, on_phase=states.append)
        assert game.rejections == []
        states.append(game.state)
        for (s, season, year, order) in convoys:
            if s != seed:
                continue
            after = next(i for i, st in enumerate(states)
                         if (st.phase.season, st.phase.year) == (season, year)) + 1
            landed += any(u.power == order.unit.power and u.kind == "AMY"
                          and u.location.province == order.dest for u in states[after].units)
    assert {order.unit.power for *_, order in convoys} >= {"ENG"}
    assert len(convoys) >= 4 and landed >= 1, convoys


def test_unmatched_convoys_names_broken_convoy_orders() -> None:
    yor, nth, ech = unit("ENG AMY YOR"), unit("ENG FLT NTH"), unit("ENG FLT ECH")
    whole = [ConvoyMove(yor, "BRE", ("NTH", "ECH")),
             Convoy(nth, yor, "BRE"), Convoy(ech, yor, "BRE")]
    assert unmatched_convoys(whole) == []
    wrong_dest = [whole[0], whole[1], Convoy(ech, yor, "PIC")]
    assert unmatched_convoys(wrong_dest) == [whole[0], wrong_dest[2]]
    walking = [Move(yor, Location("LON")), whole[1]]
    assert unmatched_convoys(walking) == [whole[1]]
    not_in_chain = [ConvoyMove(yor, "NWY", ("NTH",)), Convoy(nth, yor, "NWY"),
                    Convoy(ech, yor, "NWY")]
    assert unmatched_convoys(not_in_chain) == [not_in_chain[2]]
    foreign = [Convoy(nth, unit("FRA AMY BEL"), "YOR"),
               ConvoyMove(yor, "NWY", ("NTH", "NWG"))]     # NWG: not ours
    assert unmatched_convoys(foreign) == [foreign[1]]
