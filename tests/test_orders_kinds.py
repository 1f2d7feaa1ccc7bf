"""The table of order kinds (orders/kinds.py) against the classes it describes
and the code that goes by it: the protocol's writers and readers, the
adjudicator's checks, the bots' consistency judgement."""

from __future__ import annotations

import dataclasses

import pytest

from adjudicator import values as adj
from adjudicator.validate import _CHECKS, _MOVEMENT_CHECKS
from orders import (
    AMY,
    FLT,
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
    find_kind,
    kind_of,
)
from orders.kinds import ADJUSTMENT, BY_WORD, KINDS, MOVEMENT, RETREAT, kind_for
from protocol.orders import order_node, order_text

LON = Unit("ENG", AMY, Location("LON"))
NTH = Unit("ENG", FLT, Location("NTH"))
STP = Unit("RUS", FLT, Location("STP", "SCS"))

#: one order of every kind, with what the table says it names
SAMPLES: list[tuple[Order, tuple[Unit, ...], tuple[str, ...], str | None, str | None]] = [
    # order, units, provinces, target, goes_to
    (Hold(LON), (LON,), ("LON",), None, None),
    (Move(STP, Location("BOT")), (STP,), ("STP", "BOT"), "BOT", "BOT"),
    (SupportHold(NTH, LON), (NTH, LON), ("NTH", "LON"), None, None),
    (SupportMove(NTH, LON, "YOR"), (NTH, LON), ("NTH", "LON", "YOR"), "YOR", None),
    (Convoy(NTH, LON, "NWY"), (NTH, LON), ("NTH", "LON", "NWY"), "NWY", None),
    (ConvoyMove(LON, "NWY", ("NTH", "NWG")), (LON,), ("LON", "NWY", "NTH", "NWG"), "NWY", "NWY"),
    (Retreat(STP, Location("BUL", "ECS")), (STP,), ("STP", "BUL"), "BUL", "BUL"),
    (Disband(LON), (LON,), ("LON",), None, None),
    (Build(STP), (STP,), ("STP",), None, None),
    (Remove(NTH), (NTH,), ("NTH",), None, None),
    (Waive("ENG"), (), (), None, None),
]


def test_every_order_class_has_one_kind_numbered_by_its_place() -> None:
    classes = [Hold, Move, SupportHold, SupportMove, Convoy, ConvoyMove,
               Retreat, Disband, Build, Remove, Waive]
    assert [k.cls for k in KINDS] == classes
    assert all(KINDS[k.code] is k and kind_for(k.cls) is k for k in KINDS)
    assert {type(o) for o, *_ in SAMPLES} == set(classes)
    assert find_kind("HLD") is None
    with pytest.raises(TypeError):  # compiled: the argument check says so first
        kind_of("HLD")  # type: ignore[arg-type]


def test_the_parts_are_the_fields_in_the_order_the_class_takes_them() -> None:
    for order, *_ in SAMPLES:
        kind = kind_of(order)
        fields = [f.name for f in dataclasses.fields(order) if f.init]
        assert [p.name for p in kind.parts] == fields
        assert kind.values(order) == tuple(getattr(order, p.name) for p in kind.parts)
        assert kind.make(kind.values(order)) == order
        assert kind.make(list(kind.values(order))) == order


@pytest.mark.parametrize(("order", "units", "provinces", "target", "goes_to"), SAMPLES,
                         ids=[type(sample[0]).__name__ for sample in SAMPLES])
def test_what_an_order_names(order: Order, units: tuple[Unit, ...], provinces: tuple[str, ...],
                             target: str | None, goes_to: str | None) -> None:
    kind = kind_of(order)
    assert tuple(kind.units(order)) == units
    assert tuple(kind.provinces(order)) == provinces
    assert kind.target(order) == target
    assert kind.goes_to(order) == goes_to
    assert kind.power(order) == ("ENG" if isinstance(order, Waive) else order.unit.power)


def test_word_and_size_are_those_the_protocol_writes() -> None:
    for order, *_ in SAMPLES:
        kind = kind_of(order)
        node = order_node(order)
        assert node[1] == kind.word and len(node) == kind.size
        assert f" {kind.word} " in order_text(order)
    assert [k.cls for k in BY_WORD["SUP"]] == [SupportHold, SupportMove]


def test_phases_agree_with_the_adjudicator() -> None:
    assert (adj.MOVEMENT, adj.RETREAT, adj.ADJUSTMENT) == (MOVEMENT, RETREAT, ADJUSTMENT)
    assert adj.MOVEMENT_ORDERS == (Hold, Move, SupportHold, SupportMove, Convoy, ConvoyMove)
    assert adj.RETREAT_ORDERS == (Retreat, Disband)
    assert adj.ADJUSTMENT_ORDERS == (Build, Remove, Waive)


def test_the_adjudicator_has_one_check_per_kind_for_its_phase() -> None:
    for kind in KINDS:
        movement = _MOVEMENT_CHECKS[kind.code]
        other = _CHECKS[kind.code]
        assert (movement is not None) == (kind.phase == MOVEMENT), kind
        assert (other is not None) == (kind.phase != MOVEMENT), kind
