"""The adjudicator benchmark's own parts: positions and the reference's notation."""

from __future__ import annotations

from adjudicator.values import Dislodged, GameState, Phase
from benchmarks.bench_adjudicator import (
    generate_positions,
    order_text,
    reference_position,
    units_after,
)
from engine.variants import standard_map
from orders import Convoy, ConvoyMove, Hold, Location, Move, SupportHold, SupportMove, Unit

PAR = Unit("FRA", "AMY", Location("PAR"))
BRE = Unit("FRA", "FLT", Location("BRE"))
STP = Unit("RUS", "FLT", Location("STP", "SCS"))
LON = Unit("ENG", "AMY", Location("LON"))
ECH = Unit("ENG", "FLT", Location("ECH"))


def test_orders_in_the_reference_notation() -> None:
    assert order_text(Hold(PAR)) == "A PAR H"
    assert order_text(Move(PAR, Location("BUR"))) == "A PAR - BUR"
    assert order_text(Move(BRE, Location("SPA", "NCS"))) == "F BRE - SPA/NC"
    assert order_text(SupportHold(BRE, PAR)) == "F BRE S A PAR"
    assert order_text(SupportMove(BRE, PAR, "PIC")) == "F BRE S A PAR - PIC"
    assert order_text(Move(STP, Location("GOB"))) == "F STP/SC - BOT"
    assert order_text(Convoy(ECH, LON, "BRE")) == "F ENG C A LON - BRE"
    assert order_text(ConvoyMove(LON, "BEL", ("NTH",))) == "A LON - BEL VIA"


def test_positions_are_seeded_and_convert() -> None:
    m = standard_map()
    first = generate_positions(m, 1, 2, seed=7)
    assert first == generate_positions(m, 1, 2, seed=7)
    assert [str(p.state.phase) for p in first] == ["SPR 1901", "FAL 1901", "SPR 1902", "FAL 1902"]
    ref = reference_position(first[0])
    assert ref["phase"] == "S1901M"
    units = ref["units"]
    assert isinstance(units, dict) and units["RUSSIA"] == ["A MOS", "F SEV", "F STP/SC", "A WAR"]
    orders = ref["orders"]
    assert isinstance(orders, dict) and sum(len(o) for o in orders.values()) == 22


def test_units_after_marks_dislodged_units_with_retreats_only() -> None:
    state = GameState(
        Phase("SUM", 1901), (PAR,), {},
        (Dislodged(BRE, (Location("GAS"),)), Dislodged(LON, ())),
    )
    assert units_after(state) == {"FRANCE": ["*F BRE", "A PAR"]}
