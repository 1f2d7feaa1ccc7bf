"""`engine.position.PhaseOrders` gives what `Engine.check` + `keep_order` +
`Engine.advance` give on lists: the same THX notes, the same ORDs,
the same next position (docs/protocol.md §8.3, 8.4, 9.3)."""

from __future__ import annotations

from adjudicator.values import GameState, Phase
from engine import convert
from engine.position import Engine, PhaseOrders, keep_order
from engine.variants import load_variant
from orders import AMY, Location, Order, Unit
from protocol.text import tree_from_text, tree_to_text


def _order(text: str) -> Order:
    [node] = tree_from_text(text)
    return convert.order_from_node(node)


def _text(text: str) -> str:
    """``text`` as the server writes it (a space around every bracket)."""
    return tree_to_text(tree_from_text(text))


def _both(engine: Engine, submitted: list[tuple[str, str]]) -> tuple[list[str], list[str], list[str]]:
    """Notes and ORD lines from PhaseOrders and from the list path; the NOW of both."""
    phase = PhaseOrders(engine)
    notes = [phase.submit(power, _order(text)) for power, text in submitted]
    outcome = phase.advance()
    accepted: dict[str, list[Order]] = {}
    list_notes = []
    for power, text in submitted:
        order = _order(text)
        mine = accepted.setdefault(power, [])
        note = engine.check(power, order, mine)
        list_notes.append(note)
        if note == "MBV":
            keep_order(mine, order, engine.season)
    reference = engine.advance(accepted)
    assert notes == list_notes
    ords = [tree_to_text(o.to_tree()) for o in outcome.results]
    assert ords == [tree_to_text(o.to_tree()) for o in reference.results]
    assert outcome.engine.now_message() == reference.engine.now_message()
    return notes, ords, [tree_to_text(outcome.engine.now_message().to_tree())]


def test_a_later_movement_order_replaces_the_earlier_one() -> None:
    engine = load_variant("standard").start()
    notes, ords, _ = _both(engine, [
        ("FRA", "((FRA AMY PAR) MTO BUR)"),
        ("FRA", "((FRA AMY PAR) MTO MOS)"),      # not adjacent: FAR, the first stays
        ("FRA", "((FRA AMY PAR) MTO PIC)"),      # replaces MTO BUR
        ("GER", "((GER AMY MUN) MTO BUR)"),
    ])
    assert notes == ["MBV", "FAR", "MBV", "MBV"]
    assert _text("ORD (SPR 1901) ((FRA AMY PAR) MTO PIC) (SUC)") in ords
    assert _text("ORD (SPR 1901) ((GER AMY MUN) MTO BUR) (SUC)") in ords
    assert sum(_text("(FRA AMY PAR)") in line for line in ords) == 1


def test_adjustment_orders_accumulate() -> None:
    start = load_variant("standard").start()
    state = start.state
    # France's armies left Paris and Marseilles for Belgium and Spain: two builds.
    units = tuple(u for u in state.units if u.location.province not in ("PAR", "MAR"))
    units += (Unit("FRA", AMY, Location("BEL")), Unit("FRA", AMY, Location("SPA")))
    winter = GameState(Phase("WIN", 1901), units,
                       {**state.ownership, "BEL": "FRA", "SPA": "FRA"}, ())
    engine = Engine(start.map, winter, start.rulebook)
    notes, ords, _ = _both(engine, [
        ("FRA", "((FRA AMY PAR) BLD)"),
        ("FRA", "((FRA AMY PAR) BLD)"),          # the site is taken: ESC
        ("FRA", "(FRA WVE)"),
        ("FRA", "((FRA AMY MAR) BLD)"),          # both builds used: NMB
    ])
    assert notes == ["MBV", "ESC", "MBV", "NMB"]
    assert ords == [_text("ORD (WIN 1901) ((FRA AMY PAR) BLD) (SUC)"),
                    _text("ORD (WIN 1901) (FRA WVE) (SUC)")]


def test_missing_in_a_movement_phase_is_the_mis_of_the_units_without_an_order() -> None:
    """`Engine.missing` answers the common case (every unit ordered) without
    building the MIS: seeded lists of orders - the power's own units, other
    powers' units, units that are not there, a wrong coast, waives,
    repeated units - give what `convert.missing_message` gives."""
    import random  # noqa: PLC0415 - only this test

    from orders import FLT, Hold, Waive  # noqa: PLC0415

    rng = random.Random(7)
    engine = load_variant("standard").start()
    units = list(engine.state.units)
    strangers = [Unit("ENG", AMY, Location("PIC")), Unit("RUS", FLT, Location("STP", "NCS")),
                 Unit("RUS", FLT, Location("STP"))]
    answers = set()
    for _ in range(1500):
        power = rng.choice(engine.powers)
        mine = [u for u in units if u.power == power]
        pool = mine * 3 + rng.sample(units, 4) + strangers
        accepted: list[Order] = [Hold(u) for u in rng.sample(pool, rng.randint(0, 6))]
        if rng.random() < 0.2:
            accepted.append(Waive(power))
        expected = convert.missing_message(engine.state, power, accepted)
        assert engine.missing(power, accepted) == expected
        answers.add(expected is None)
    assert answers == {True, False}
