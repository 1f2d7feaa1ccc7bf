"""engine.convert: DAIDE messages around the one order model, golden trees both ways."""

from __future__ import annotations

import pytest

from adjudicator import values as adj
from adjudicator.results import DislodgedBy, OrderResult, PhaseResult
from engine import convert
from orders import ConvoyMove, Hold, Location, Move, Unit, Waive
from protocol import orders as po
from protocol.errors import GrammarError
from protocol.text import tree_from_text, tree_to_text
from protocol.tree import Node

STANDARD_SCO = (
    "SCO ( AUS BUD VIE TRI ) ( ENG EDI LON LVP ) ( FRA PAR BRE MAR ) ( GER MUN BER KIE ) "
    "( ITA NAP ROM VEN ) ( RUS MOS WAR SEV STP ) ( TUR ANK CON SMY ) "
    "( UNO SER BEL DEN GRE HOL NWY POR RUM SWE TUN BUL SPA )"
)
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
CENTRES = (
    "ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP MAR MOS MUN NAP NWY PAR POR "
    "ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE WAR"
).split()

ORDERS = [
    "( ( ENG AMY LVP ) HLD )",
    "( ( ENG FLT LON ) MTO NTH )",
    "( ( RUS FLT ( STP SCS ) ) MTO GOB )",
    "( ( ENG FLT BAR ) MTO ( STP NCS ) )",
    "( ( ENG FLT EDI ) SUP ( ENG FLT LON ) MTO NTH )",
    "( ( ENG FLT EDI ) SUP ( ENG AMY LVP ) )",
    "( ( ITA AMY TUN ) CTO SYR VIA ( ION EAS ) )",
    "( ( ITA FLT ION ) CVY ( ITA AMY TUN ) CTO SYR )",
    "( ( TUR FLT ( BUL SCS ) ) RTO CON )",
    "( ( TUR AMY SER ) DSB )",
    "( ( RUS FLT ( STP NCS ) ) BLD )",
    "( ( RUS FLT GOB ) REM )",
    "( ITA WVE )",
]


def _node(text: str) -> Node:
    [node] = tree_from_text(text)
    return node


@pytest.mark.parametrize("text", ORDERS)
def test_orders_round_trip_through_the_order_model(text: str) -> None:
    order = convert.order_from_node(_node(text))
    assert tree_to_text((po.order_node(order),)) == text
    # the values are the ones the adjudicator takes: built from their fields again,
    # they render the same
    assert po.order_node(type(order)(*(getattr(order, f) for f in order.__match_args__))) \
        == po.order_node(order)


def test_order_values_are_the_adjudicators() -> None:
    order = convert.order_from_node(_node(ORDERS[3]))
    assert order == Move(
        Unit("ENG", "FLT", Location("BAR")), Location("STP", "NCS")
    )
    assert type(order) is Move and type(order.unit) is Unit
    cto = convert.order_from_node(_node(ORDERS[6]))
    assert cto == ConvoyMove(Unit("ITA", "AMY", Location("TUN")), "SYR", ("ION", "EAS"))


def test_a_bad_order_node_is_a_grammar_error_with_position() -> None:
    with pytest.raises(GrammarError) as exc:
        convert.order_from_node(_node("( ( ENG FLT LON ) MTO )"))
    # ( ( ENG FLT LON ) MTO ERR ) : the destination is missing at token 7
    assert exc.value.position == 7


def test_thx_echoes_the_submitted_order() -> None:
    submitted = convert.order_from_node(_node("( ( ENG FLT NTH ) MTO PIC )"))
    thx = convert.thx_message(submitted, "FAR")
    assert tree_to_text(thx.to_tree()) == "THX ( ( ENG FLT NTH ) MTO PIC ) ( FAR )"


def test_standard_sco_and_now_round_trip() -> None:
    now_text = (
        "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( AUS AMY VIE ) ( AUS FLT TRI ) ( RUS FLT ( STP SCS ) )"
    )
    state = convert.state_from_trees(tree_from_text(STANDARD_SCO), tree_from_text(now_text))
    assert state.phase == adj.Phase("SPR", 1901)
    assert state.ownership["STP"] == "RUS" and "SER" not in state.ownership
    assert state.unit_at("STP") == Unit("RUS", "FLT", Location("STP", "SCS"))
    sco = convert.sco_message(state, POWERS, CENTRES)
    assert tree_to_text(sco.to_tree()) == (
        "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN ) "
        "( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY ) "
        "( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )"
    )
    assert tree_to_text(convert.now_message(state).to_tree()) == (
        "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( RUS FLT ( STP SCS ) ) ( AUS FLT TRI ) ( AUS AMY VIE )"
    )


def test_power_without_centres_is_omitted_and_no_uno_when_all_owned() -> None:
    state = adj.GameState(adj.Phase("WIN", 1901), (), {"BUD": "AUS", "VIE": "AUS"})
    sco = convert.sco_message(state, POWERS, ["BUD", "VIE"])
    assert tree_to_text(sco.to_tree()) == "SCO ( AUS BUD VIE )"


def test_sco_lists_owners_unknown_to_the_powers_after_them_and_every_owned_centre() -> None:
    # An owner missing from the powers comes after them; a centre owned but
    # missing from the map's list is listed with its owner; each group sorted.
    state = adj.GameState(adj.Phase("WIN", 1901), (),
                          {"VIE": "AUS", "XXX": "ZZZ", "BUD": "AUS", "LON": "AAA", "ABC": "AUS"})
    sco = convert.sco_message(state, ["AUS", "ENG"], ["BUD", "LON", "VIE", "SER", "BEL"])
    assert [(g.owner, g.centres) for g in sco.ownership] == [
        ("AUS", ("ABC", "BUD", "VIE")), ("AAA", ("LON",)), ("ZZZ", ("XXX",)),
        ("UNO", ("BEL", "SER"))]


def test_dislodged_units_carry_mrt_lists() -> None:
    text = (
        "NOW ( SUM 1901 ) ( TUR FLT CON MRT ( BLA SMY ( BUL ECS ) ( BUL SCS ) ) ) "
        "( RUS FLT CON ) ( ENG FLT NTH MRT ( ) )"
    )
    state = convert.state_from_trees(tree_from_text("SCO ( UNO CON )"), tree_from_text(text))
    assert state.unit_at("CON") == Unit("RUS", "FLT", Location("CON"))
    assert [d.unit.power for d in state.dislodged] == ["TUR", "ENG"]
    assert state.dislodged[0].retreats[2] == Location("BUL", "ECS")
    assert tree_to_text(convert.now_message(state).to_tree()) == (
        "NOW ( SUM 1901 ) ( RUS FLT CON ) ( TUR FLT CON MRT ( BLA SMY ( BUL ECS ) ( BUL SCS ) ) ) "
        "( ENG FLT NTH MRT ( ) )"
    )


def test_results_render_as_ord_messages() -> None:
    spring = adj.Phase("SPR", 1901)
    lon = Unit("ENG", "FLT", Location("LON"))
    bre = Unit("FRA", "FLT", Location("BRE"))
    results = (
        OrderResult(Move(lon, Location("ECH")), "BNC", dislodged=True,
                    dislodged_by=DislodgedBy(bre, "ECH")),
        OrderResult(Hold(bre), None, dislodged=True),
        OrderResult(Waive("RUS"), "SUC"),
    )
    state = adj.GameState(adj.Phase("FAL", 1901), ())
    outcome = PhaseResult(spring, results, state, False, None, ())
    assert [tree_to_text(o.to_tree()) for o in convert.ord_messages(outcome)] == [
        "ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO ECH ) ( BNC RET )",
        "ORD ( SPR 1901 ) ( ( FRA FLT BRE ) HLD ) ( RET )",
        "ORD ( SPR 1901 ) ( RUS WVE ) ( SUC )",
    ]
    assert tree_to_text(convert.slo_message("FRA").to_tree()) == "SLO ( FRA )"


def test_missing_orders() -> None:
    tri = Unit("AUS", "FLT", Location("TRI"))
    vie = Unit("AUS", "AMY", Location("VIE"))
    moving = adj.GameState(adj.Phase("SPR", 1901), (tri, vie))
    mis = convert.missing_message(moving, "AUS", [Hold(tri)])
    assert mis is not None and tree_to_text(mis.to_tree()) == "MIS ( AUS AMY VIE )"
    assert convert.missing_message(moving, "AUS", [Hold(tri), Hold(vie)]) is None
    winter = adj.GameState(adj.Phase("WIN", 1901), (tri,), {"TRI": "AUS", "VIE": "AUS", "BUD": "AUS"})
    mis = convert.missing_message(winter, "AUS", [Waive("AUS")])
    assert mis is not None and tree_to_text(mis.to_tree()) == "MIS ( -1 )"
    retreat = adj.GameState(adj.Phase("SUM", 1901), (), {},
                            (adj.Dislodged(tri, (Location("ALB"),)),))
    mis = convert.missing_message(retreat, "AUS", [])
    assert mis is not None and tree_to_text(mis.to_tree()) == "MIS ( AUS FLT TRI MRT ( ALB ) )"
    assert convert.centre_counts(winter, ["AUS", "ENG"]) == {"AUS": 3, "ENG": 0}
