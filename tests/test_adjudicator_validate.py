"""THX notes (docs/protocol.md §9.3, docs/adjudication-conventions.md) and move generation."""

from __future__ import annotations

import random

import pytest

import adjudicator as A
from tests.adjudicator_helpers import STD, by_power, loc, state, unit


def note(s: A.GameState, power: str, order: A.Order, accepted: tuple[A.Order, ...] = ()) -> str:
    return A.validate(STD, s, power, order, accepted)


START = A.initial_state(STD)


@pytest.mark.parametrize(
    ("power", "order", "expected"),
    [
        ("FRA", A.Move(unit("FRA AMY PAR"), loc("BUR")), "MBV"),
        ("FRA", A.Hold(unit("FRA AMY PAR")), "MBV"),
        ("GER", A.Move(unit("FRA AMY PAR"), loc("BUR")), "NYU"),
        ("FRA", A.Move(unit("FRA AMY PAR"), loc("XYZ")), "NSP"),
        ("FRA", A.Move(unit("FRA FLT PAR"), loc("BUR")), "NSU"),
        ("FRA", A.Move(unit("FRA AMY GAS"), loc("BUR")), "NSU"),
        ("FRA", A.Move(unit("FRA AMY PAR"), loc("MAR")), "FAR"),
        ("FRA", A.Move(unit("FRA AMY PAR"), loc("PAR")), "FAR"),
        ("FRA", A.Move(unit("FRA FLT BRE"), loc("PAR")), "FAR"),
        ("FRA", A.Build(unit("FRA AMY PAR")), "NRS"),
        ("FRA", A.Retreat(unit("FRA AMY PAR"), loc("BUR")), "NRS"),
        ("FRA", A.SupportHold(unit("FRA AMY PAR"), unit("FRA AMY PAR")), "FAR"),
        ("FRA", A.SupportHold(unit("FRA AMY PAR"), unit("FRA FLT BRE")), "MBV"),
        ("FRA", A.SupportHold(unit("FRA FLT BRE"), unit("FRA AMY PAR")), "FAR"),
        ("FRA", A.SupportHold(unit("FRA FLT BRE"), unit("FRA AMY MAR")), "FAR"),
        ("FRA", A.SupportHold(unit("FRA FLT BRE"), unit("GER AMY PAR")), "NSU"),
        ("FRA", A.SupportMove(unit("FRA FLT BRE"), unit("FRA AMY PAR"), "PIC"), "MBV"),
        ("FRA", A.SupportMove(unit("FRA AMY MAR"), unit("FRA AMY PAR"), "PIC"), "FAR"),
        ("FRA", A.SupportMove(unit("FRA FLT BRE"), unit("FRA AMY PAR"), "BRE"), "FAR"),
        ("ITA", A.Move(unit("ITA FLT NAP"), loc("ROM")), "MBV"),
        ("RUS", A.Move(unit("RUS FLT STP/SCS"), loc("BOT")), "NSP"),
        ("RUS", A.Move(unit("RUS FLT STP/SCS"), loc("GOB")), "MBV"),
        # DATC 4.B.5 b: a wrong coast of the ordered unit is ignored
        ("RUS", A.Move(unit("RUS FLT STP/NCS"), loc("GOB")), "MBV"),
        ("TUR", A.ConvoyMove(unit("TUR FLT ANK"), "SEV", ("BLA",)), "NSA"),
        ("TUR", A.ConvoyMove(unit("TUR AMY CON"), "SEV", ("BLA",)), "NSF"),
        ("TUR", A.Convoy(unit("TUR FLT ANK"), unit("TUR AMY CON"), "SEV"), "NAS"),
        ("TUR", A.Convoy(unit("TUR AMY SMY"), unit("TUR AMY CON"), "SEV"), "NSF"),
    ],
)
def test_movement_notes(power: str, order: A.Order, expected: str) -> None:
    assert note(START, power, order) == expected


def test_coasts() -> None:
    s = state("FRA FLT MAO", "FRA FLT GAS", "FRA FLT WES", "TUR FLT CON")
    assert note(s, "FRA", A.Move(unit("FRA FLT MAO"), loc("SPA"))) == "CST"  # 4.B.1 a
    assert note(s, "FRA", A.Move(unit("FRA FLT GAS"), loc("SPA/SCS"))) == "FAR"  # 4.B.3 b
    assert note(s, "FRA", A.Move(unit("FRA FLT MAO"), loc("SPA/NCS"))) == "MBV"
    checked = A.check_order(STD, s, "FRA", A.Move(unit("FRA FLT WES"), loc("SPA")))
    assert checked == ("MBV", A.Move(unit("FRA FLT WES"), loc("SPA/SCS")))  # 4.B.2 a
    assert note(s, "TUR", A.Move(unit("TUR FLT CON"), loc("BUL"))) == "CST"


def test_convoy_notes() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH", "ENG FLT ECH", "FRA FLT MAO")
    cto = A.ConvoyMove(unit("ENG AMY LON"), "NWY", ("NTH",))
    assert note(s, "ENG", cto) == "MBV"
    assert note(s, "ENG", A.ConvoyMove(unit("ENG AMY LON"), "NWY", ("ECH",))) == "FAR"
    assert note(s, "ENG", A.ConvoyMove(unit("ENG AMY LON"), "NWY", ("NWG",))) == "NSF"
    assert note(s, "ENG", A.ConvoyMove(unit("ENG AMY LON"), "LON", ("NTH",))) == "FAR"
    assert note(s, "ENG", A.Convoy(unit("ENG FLT NTH"), unit("ENG AMY LON"), "NWY")) == "MBV"
    assert note(s, "ENG", A.Convoy(unit("ENG FLT NTH"), unit("ENG FLT ECH"), "NWY")) == "NSA"
    assert note(s, "ENG", A.Convoy(unit("ENG FLT NTH"), unit("ENG AMY YOR"), "NWY")) == "NSU"
    # MAO is a dead end beside the route London - NTH - Norway: legal under
    # v2.4 (its fleet group joins both ends, DATC 6.F.12), illegal under v3.0
    # (6.G.19: no route needs it).
    dead_end = A.Convoy(unit("FRA FLT MAO"), unit("ENG AMY LON"), "NWY")
    assert note(s, "FRA", dead_end) == "MBV"
    assert A.validate(STD, s, "FRA", dead_end, (), A.DATC_3_0) == "FAR"
    assert note(s, "FRA", A.Convoy(unit("FRA FLT MAO"), unit("ENG AMY LON"), "GRE")) == "FAR"
    # ... but with the Channel it can: London - ECH - MAO - Portugal.
    assert note(s, "FRA", A.Convoy(unit("FRA FLT MAO"), unit("ENG AMY LON"), "POR")) == "MBV"


def test_support_of_convoyed_army_not_through_the_supporter() -> None:
    # DATC 6.D.31: the only convoy route would use the supporting fleet itself.
    s = state("TUR AMY RUM", "TUR FLT BLA")
    order = A.SupportMove(unit("TUR FLT BLA"), unit("TUR AMY RUM"), "ARM")
    assert note(s, "TUR", order) == "FAR"
    s2 = state("TUR AMY BUL", "TUR FLT AEG", "TUR FLT CON", "RUS FLT BLA")
    assert note(s2, "TUR", A.SupportMove(unit("TUR FLT CON"), unit("TUR AMY BUL"), "SMY")) == "MBV"


def test_retreat_notes() -> None:
    s = state(
        "GER AMY BEL",
        "GER AMY KIE",
        phase="SUM 1901",
        dislodged=[A.Dislodged(unit("FRA AMY BEL"), (loc("HOL"), loc("PIC")), "BUR")],
    )
    assert note(s, "FRA", A.Retreat(unit("FRA AMY BEL"), loc("PIC"))) == "MBV"
    assert note(s, "FRA", A.Retreat(unit("FRA AMY BEL"), loc("BUR"))) == "NVR"
    assert note(s, "FRA", A.Retreat(unit("FRA AMY BEL"), loc("MUN"))) == "FAR"
    assert note(s, "FRA", A.Disband(unit("FRA AMY BEL"))) == "MBV"
    assert note(s, "GER", A.Disband(unit("GER AMY KIE"))) == "NRN"
    assert note(s, "GER", A.Disband(unit("GER AMY MUN"))) == "NSU"
    assert note(s, "FRA", A.Hold(unit("FRA AMY BEL"))) == "NRS"
    assert note(s, "GER", A.Retreat(unit("FRA AMY BEL"), loc("PIC"))) == "NYU"


def test_adjustment_notes() -> None:
    own = dict(STD.start_ownership, NWY="RUS", SWE="RUS", HOL="GER")
    s = state(
        "RUS AMY MOS", "GER AMY HOL", "GER AMY KIE", "GER AMY BER", phase="WIN 1901", ownership=own
    )
    assert s.adjustment("RUS") == 5
    bld = A.Build(unit("RUS AMY WAR"))
    assert note(s, "RUS", bld) == "MBV"
    assert note(s, "RUS", A.Build(unit("RUS FLT WAR"))) == "CST"  # 4.C.4 a
    assert note(s, "RUS", A.Build(unit("RUS FLT STP"))) == "CST"  # 4.B.7 a
    assert note(s, "RUS", A.Build(unit("RUS FLT STP/NCS"))) == "MBV"
    assert note(s, "RUS", A.Build(unit("RUS AMY MOS"))) == "ESC"
    assert note(s, "RUS", A.Build(unit("RUS FLT WAR")), (bld,)) == "ESC"  # same site (4.D.5 b)
    assert note(s, "RUS", A.Build(unit("RUS AMY NWY"))) == "HSC"
    assert note(s, "RUS", A.Build(unit("RUS AMY UKR"))) == "NSC"
    assert note(s, "RUS", A.Build(unit("RUS AMY BER"))) == "HSC"
    assert note(s, "GER", A.Build(unit("GER AMY MUN"))) == "MBV"
    assert note(s, "GER", A.Build(unit("GER AMY MUN")), (A.Waive("GER"),)) == "NMB"  # 4.D.4 b
    assert note(s, "GER", A.Waive("GER"), (A.Waive("GER"),)) == "NMB"
    assert note(s, "RUS", A.Waive("GER")) == "NYU"
    assert note(s, "GER", A.Remove(unit("GER AMY KIE"))) == "NMR"
    assert note(s, "GER", A.Move(unit("GER AMY KIE"), loc("RUH"))) == "NRS"
    own2 = dict(STD.start_ownership, SEV="TUR")
    s2 = state(
        "RUS AMY MOS",
        "RUS AMY WAR",
        "RUS FLT STP/SCS",
        "TUR AMY ANK",
        phase="WIN 1901",
        ownership=own2,
    )
    assert note(s2, "TUR", A.Build(unit("TUR AMY SEV"))) == "HSC"
    assert note(s2, "RUS", A.Build(unit("RUS AMY SEV"))) == "YSC"
    assert note(s2, "RUS", A.Remove(unit("RUS AMY WAR"))) == "NMR"


def test_legal_orders_all_validate_on_random_positions() -> None:
    rng = random.Random(2024)
    s = A.initial_state(STD)
    checked = 0
    for _ in range(30):
        orders: dict[str, list[A.Order]] = {}
        if s.phase.kind == "adjustment":
            for p in STD.powers:
                opts = A.adjustment_orders(STD, s, p)
                mine: list[A.Order] = []
                for o in opts:
                    assert note(s, p, o) == "MBV", o
                    checked += 1
                for _ in range(abs(s.adjustment(p))):
                    if opts:
                        mine.append(rng.choice(opts))
                orders[p] = mine
        else:
            for p in STD.powers:
                options = A.legal_orders(STD, s, p)
                for opts in options.values():
                    for o in opts:
                        assert note(s, p, o) == "MBV", o
                        checked += 1
                orders[p] = [rng.choice(v) for v in options.values()]
        s = A.advance(STD, s, orders).state
    assert checked > 5000


def test_unit_orders_of_an_army_include_convoys() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH", "ENG FLT ECH")
    opts = A.unit_orders(STD, s, unit("ENG AMY LON"))
    assert A.Hold(unit("ENG AMY LON")) == opts[0]
    ctos = {o.dest for o in opts if isinstance(o, A.ConvoyMove)}
    assert {"NWY", "BEL", "BRE", "PIC", "HOL", "EDI"} <= ctos
    fleet_opts = A.unit_orders(STD, s, unit("ENG FLT NTH"))
    assert A.Convoy(unit("ENG FLT NTH"), unit("ENG AMY LON"), "NWY") in fleet_opts
    assert A.SupportHold(unit("ENG FLT NTH"), unit("ENG AMY LON")) in fleet_opts


def test_advance_ignores_orders_of_the_wrong_power() -> None:
    s = state("ENG FLT LON")
    r = A.advance(STD, s, {"GER": [A.Move(unit("ENG FLT LON"), loc("NTH"))]})
    assert r.results[0].order == A.Hold(unit("ENG FLT LON"))
    assert by_power(A.Waive("ENG")) == {"ENG": [A.Waive("ENG")]}


def test_route_seas_excludes_dead_ends_and_keeps_cycles() -> None:
    from adjudicator.convoys import route_seas

    ids = STD.ids
    reach = STD.fleet_reach
    seas = {ids[p] for p in ("NTH", "ECH", "MAO", "IRI")}
    on = route_seas(reach, seas, ids["LON"], ids["BEL"])
    assert on == {ids["NTH"], ids["ECH"]}  # MAO and IRI hang off the Channel
    # to Portugal every sea serves: LON-NTH-ECH-MAO, LON-ECH-IRI-MAO, ...
    assert route_seas(reach, seas, ids["LON"], ids["POR"]) == seas
    ring = {ids[p] for p in ("TYS", "ION", "WES")}
    assert route_seas(reach, ring, ids["TUN"], ids["NAP"]) == {ids["TYS"], ids["ION"], ids["WES"]}


def test_necessary_seas_keeps_only_minimal_routes() -> None:
    # DATC v3.0 6.G.19: Marseilles - Gulf of Lyon - Western Mediterranean -
    # Spain is a simple route, but the Gulf of Lyon touches Spain, so no route
    # needs the Western Mediterranean.
    from adjudicator.convoys import necessary_seas, route_seas

    ids = STD.ids
    reach = STD.fleet_reach
    seas = {ids["GOL"], ids["WES"]}
    assert route_seas(reach, seas, ids["MAR"], ids["SPA"]) == seas
    assert necessary_seas(reach, seas, ids["MAR"], ids["SPA"]) == {ids["GOL"]}
    # Both seas of a two-step chain are needed; a dead end is not.
    chain = {ids[p] for p in ("NTH", "ECH", "IRI")}
    assert necessary_seas(reach, chain, ids["EDI"], ids["BRE"]) == {ids["NTH"], ids["ECH"]}
    # Tunis - Naples: Tyrrhenian and Ionian each alone; Western Med never.
    ring = {ids[p] for p in ("TYS", "ION", "WES")}
    assert necessary_seas(reach, ring, ids["TUN"], ids["NAP"]) == {ids["TYS"], ids["ION"]}


def test_a_convoy_order_no_route_needs_is_illegal_under_v3_0_only() -> None:
    s = state("FRA AMY MAR", "FRA FLT WES", "ITA FLT GOL", "ITA AMY SPA")
    unneeded = A.Convoy(unit("FRA FLT WES"), unit("FRA AMY MAR"), "SPA")
    needed = A.Convoy(unit("ITA FLT GOL"), unit("FRA AMY MAR"), "SPA")
    assert A.validate(STD, s, "FRA", unneeded, (), A.DATC_2_4) == "MBV"
    assert A.validate(STD, s, "FRA", unneeded, (), A.DATC_3_0) == "FAR"
    assert A.validate(STD, s, "ITA", needed, (), A.DATC_3_0) == "MBV"


def test_derived_facts_are_kept_by_the_state_object_and_not_part_of_its_value() -> None:
    s = state("ENG FLT NTH", "ENG AMY LON")
    order = A.ConvoyMove(unit("ENG AMY LON"), "NWY", ("NTH",))
    assert note(s, "ENG", order) == "MBV"
    facts = s.facts
    assert facts.checks is not None and s.facts is facts
    # an equal state is another object: its own facts, asked from scratch
    twin = A.GameState(s.phase, s.units, s.ownership)
    assert twin == s and hash(twin) == hash(s) and twin.facts is not facts
    assert twin.facts.checks is None
    assert "facts" not in repr(s)
    assert note(twin, "ENG", order) == "MBV"


def test_what_is_derived_from_a_map_is_kept_with_the_map() -> None:
    from adjudicator.tables import tables

    t = tables(STD)
    assert tables(STD) is t
    assert STD.derived("adjudicator.tables", lambda m: None) is t
    assert "memo" not in repr(STD)
