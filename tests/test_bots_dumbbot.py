"""DumbBot's movement plans: self-consistent supports (issue 5 regression) and convoys."""

from __future__ import annotations

import random

from adjudicator.values import GameState, Location, Phase, Unit
from bots.dumbbot import DumbBot
from bots.local import submit, view_of
from bots.orders import unmatched_supports
from bots.strategy import phase_rng
from maps.variants import variant_map
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
    return [format_tree(o) for o in orders]


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
    rep = sa32.representation()

    orders = DumbBot().orders(view, phase_rng(1, "BZL", "FAL", 1903))
    rejected: list = []
    submit(sa32, state, "BZL", orders, rejected, rep)
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
        submit(sa32, state, "BZL", orders, rejected, rep)
        assert rejected == [], (seed, rejected)
        chains += "( BZL AMY ROR ) SUP ( BZL FLT BLM ) MTO GUY" in texts(orders)
    assert chains > 20


def test_unmatched_supports_names_contradicted_supports_only() -> None:
    ror = ("BZL", "AMY", "ROR")
    bsl = ("BZL", "AMY", "BSL")
    blm = ("BZL", "FLT", "BLM")
    orders = [
        (ror, "HLD"),
        (bsl, "SUP", ror, "MTO", "ROR"),                 # ROR holds: unmatched
        (blm, "SUP", ror),                               # support to hold a holder: fine
        (("BZL", "AMY", "LAP"), "SUP", ("COL", "AMY", "GUY"), "MTO", "BLM"),  # foreign
    ]
    assert unmatched_supports(orders) == [orders[1]]
    moving = [(ror, "MTO", "CRC"), (bsl, "SUP", ror, "MTO", "CRC"), (blm, "SUP", ror)]
    assert unmatched_supports(moving) == [moving[2]]
    by_sea = [(ror, "CTO", "CRC", "VIA", ("BLM",)), (bsl, "SUP", ror, "MTO", "CRC")]
    assert unmatched_supports(by_sea) == []
    coast = [(blm, "MTO", ("STP", "NCS")), (bsl, "SUP", blm, "MTO", "STP")]
    assert unmatched_supports(coast) == []
