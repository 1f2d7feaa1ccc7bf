"""Movement resolution: focused positions (DATC section 5 behaviour, with reasons)."""

from __future__ import annotations

import adjudicator as A
from tests.adjudicator_helpers import STD, loc, positions, result_of, run, state, unit

Move, SupH, SupM, Cvy, Cto, Hold = (
    A.Move,
    A.SupportHold,
    A.SupportMove,
    A.Convoy,
    A.ConvoyMove,
    A.Hold,
)


def mv(u: str, dest: str) -> A.Move:
    return Move(unit(u), loc(dest))


def test_simple_bounce_names_both_units() -> None:
    s = state("AUS AMY VIE", "ITA AMY VEN")
    r = run(s, mv("AUS AMY VIE", "TYR"), mv("ITA AMY VEN", "TYR"))
    vie = result_of(r, "VIE")
    assert vie.tokens == ("BNC",)
    assert vie.reason == A.Bounced("TYR", (unit("ITA AMY VEN"),), True)
    assert result_of(r, "VEN").reason == A.Bounced("TYR", (unit("AUS AMY VIE"),), True)
    assert positions(r.state) == {"AUS AMY VIE", "ITA AMY VEN"}
    assert r.next_phase == A.Phase("FAL", 1901)


def test_supported_attack_dislodges_and_lists_retreats() -> None:
    s = state("ITA AMY VEN", "ITA AMY TYR", "AUS FLT TRI")
    r = run(s, mv("ITA AMY VEN", "TRI"), SupM(unit("ITA AMY TYR"), unit("ITA AMY VEN"), "TRI"))
    tri = result_of(r, "TRI")
    assert tri.tokens == ("RET",)
    assert tri.order == Hold(unit("AUS FLT TRI"))
    assert tri.dislodged_by == A.DislodgedBy(unit("ITA AMY VEN"), "VEN")
    assert r.state.phase == A.Phase("SUM", 1901)
    (d,) = r.state.dislodged
    assert d.unit == unit("AUS FLT TRI")
    assert d.retreats == (A.Location("ADR"), A.Location("ALB"))
    assert d.attacker == "VEN"
    assert positions(r.state) == {"ITA AMY TRI", "ITA AMY TYR"}


def test_support_cut_by_attack_names_the_cutter() -> None:
    s = state("GER AMY PRU", "GER AMY SIL", "RUS AMY WAR", "RUS AMY LVN")
    r = run(
        s,
        mv("GER AMY SIL", "WAR"),
        SupM(unit("GER AMY PRU"), unit("GER AMY SIL"), "WAR"),
        mv("RUS AMY LVN", "PRU"),
        Hold(unit("RUS AMY WAR")),
    )
    pru = result_of(r, "PRU")
    assert pru.tokens == ("CUT",)
    assert pru.reason == A.CutBy(unit("RUS AMY LVN"), "LVN", False)
    assert result_of(r, "SIL").tokens == ("BNC",)
    assert result_of(r, "SIL").reason == A.Bounced("WAR", (unit("RUS AMY WAR"),), False)


def test_support_not_cut_by_attack_from_its_target() -> None:
    s = state("GER AMY BER", "GER AMY SIL", "RUS AMY PRU")
    r = run(
        s,
        mv("GER AMY BER", "PRU"),
        SupM(unit("GER AMY SIL"), unit("GER AMY BER"), "PRU"),
        mv("RUS AMY PRU", "SIL"),
    )
    assert result_of(r, "SIL").tokens == ("SUC",)
    assert result_of(r, "BER").tokens == ("SUC",)
    assert result_of(r, "PRU").tokens == ("BNC", "RET")


def test_dislodged_supporter_is_cut_even_from_its_target() -> None:
    s = state("GER AMY SIL", "GER AMY MUN", "AUS AMY BOH", "AUS AMY GAL")
    r = run(
        s,
        SupM(unit("GER AMY SIL"), unit("GER AMY MUN"), "BOH"),
        mv("GER AMY MUN", "BOH"),
        mv("AUS AMY BOH", "SIL"),
        SupM(unit("AUS AMY GAL"), unit("AUS AMY BOH"), "SIL"),
    )
    sil = result_of(r, "SIL")
    assert sil.tokens == ("CUT", "RET")
    assert sil.reason == A.CutBy(unit("AUS AMY BOH"), "BOH", True)
    assert result_of(r, "MUN").tokens == ("SUC",)  # Bohemia left: 1 against nothing
    assert positions(r.state) == {"GER AMY BOH", "AUS AMY SIL", "AUS AMY GAL"}


def test_unit_cannot_dislodge_own_unit() -> None:
    s = state("GER AMY BER", "GER AMY MUN", "GER AMY SIL")
    r = run(s, mv("GER AMY BER", "MUN"), SupM(unit("GER AMY SIL"), unit("GER AMY BER"), "MUN"))
    ber = result_of(r, "BER")
    assert ber.tokens == ("BNC",)
    assert ber.reason == A.OwnUnit("MUN", unit("GER AMY MUN"))
    assert not r.state.dislodged


def test_head_to_head_supported_side_wins() -> None:
    s = state("GER AMY BER", "GER AMY SIL", "RUS AMY PRU")
    r = run(
        s,
        mv("GER AMY BER", "PRU"),
        SupM(unit("GER AMY SIL"), unit("GER AMY BER"), "PRU"),
        mv("RUS AMY PRU", "BER"),
    )
    assert result_of(r, "BER").tokens == ("SUC",)
    prussia = result_of(r, "PRU")
    assert prussia.tokens == ("BNC", "RET")
    assert prussia.reason == A.Bounced("BER", (unit("GER AMY BER"),), False)  # lost, no standoff
    (d,) = r.state.dislodged
    assert A.Location("BER") not in d.retreats  # the attacker's origin
    assert d.retreats == (A.Location("LVN"), A.Location("WAR"))


def test_swap_without_convoy_bounces() -> None:
    s = state("GER AMY BER", "RUS AMY PRU")
    r = run(s, mv("GER AMY BER", "PRU"), mv("RUS AMY PRU", "BER"))
    assert result_of(r, "BER").tokens == ("BNC",)
    assert result_of(r, "PRU").tokens == ("BNC",)


def test_three_unit_circular_movement_succeeds() -> None:
    s = state("TUR FLT ANK", "TUR AMY CON", "TUR AMY SMY")
    r = run(s, mv("TUR FLT ANK", "CON"), mv("TUR AMY CON", "SMY"), mv("TUR AMY SMY", "ANK"))
    assert all(x.tokens == ("SUC",) for x in r.results)
    assert positions(r.state) == {"TUR FLT CON", "TUR AMY SMY", "TUR AMY ANK"}


def test_circular_movement_broken_by_outside_bounce() -> None:
    s = state("TUR FLT ANK", "TUR AMY CON", "TUR AMY SMY", "RUS AMY BUL")
    r = run(
        s,
        mv("TUR FLT ANK", "CON"),
        mv("TUR AMY CON", "SMY"),
        mv("TUR AMY SMY", "ANK"),
        mv("RUS AMY BUL", "CON"),
    )
    assert {x.tokens for x in r.results} == {("BNC",)}


def test_beleaguered_garrison_holds() -> None:
    # DATC 6.E.? : two equal attacks from different sides bounce; the garrison stays.
    s = state("GER AMY MUN", "FRA AMY RUH", "FRA AMY BUR", "AUS AMY TYR", "AUS AMY BOH")
    r = run(
        s,
        mv("FRA AMY BUR", "MUN"),
        SupM(unit("FRA AMY RUH"), unit("FRA AMY BUR"), "MUN"),
        mv("AUS AMY TYR", "MUN"),
        SupM(unit("AUS AMY BOH"), unit("AUS AMY TYR"), "MUN"),
    )
    assert result_of(r, "BUR").tokens == ("BNC",)
    assert result_of(r, "TYR").tokens == ("BNC",)
    assert result_of(r, "MUN").tokens == ("SUC",)
    bur = result_of(r, "BUR").reason
    assert isinstance(bur, A.Bounced) and bur.standoff
    assert set(bur.against) == {unit("AUS AMY TYR")}


def test_simple_convoy_and_cvy_result() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH")
    r = run(
        s,
        Cto(unit("ENG AMY LON"), "NWY", ("NTH",)),
        Cvy(unit("ENG FLT NTH"), unit("ENG AMY LON"), "NWY"),
    )
    assert result_of(r, "LON").tokens == ("SUC",)
    assert result_of(r, "NTH").tokens == ("SUC",)
    assert "ENG AMY NWY" in positions(r.state)


def test_convoy_disrupted_by_dislodged_fleet_is_dsr() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH", "GER FLT HEL", "GER FLT SKA")
    r = run(
        s,
        Cto(unit("ENG AMY LON"), "NWY", ("NTH",)),
        Cvy(unit("ENG FLT NTH"), unit("ENG AMY LON"), "NWY"),
        mv("GER FLT HEL", "NTH"),
        SupM(unit("GER FLT SKA"), unit("GER FLT HEL"), "NTH"),
    )
    lon = result_of(r, "LON")
    assert lon.tokens == ("DSR",)
    assert lon.reason == A.Disrupted((unit("ENG FLT NTH"),))
    assert result_of(r, "NTH").tokens == ("RET",)


def test_convoy_without_convoy_orders_is_nso() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH")
    r = run(s, Cto(unit("ENG AMY LON"), "NWY", ("NTH",)), Hold(unit("ENG FLT NTH")))
    lon = result_of(r, "LON")
    assert lon.tokens == ("NSO",)
    assert lon.reason == A.NoRoute("NWY")


def test_convoy_to_adjacent_without_fleets_moves_by_land_v24_but_not_v30() -> None:
    # DATC 6.G.8 (v2.4: land route as fallback) / v3.0 (no fallback).
    s = state("FRA AMY BEL", "ENG FLT NTH", "ENG AMY HOL")
    orders = (
        Cto(unit("FRA AMY BEL"), "HOL", ("NTH",)),
        mv("ENG FLT NTH", "HEL"),
        mv("ENG AMY HOL", "KIE"),
    )
    r24 = run(s, *orders)
    assert result_of(r24, "BEL").tokens == ("SUC",)
    r30 = run(s, *orders, rules=A.DATC_3_0)
    assert result_of(r30, "BEL").tokens == ("NSO",)


def test_swap_by_convoy() -> None:
    s = state("ENG AMY LON", "ENG FLT NTH", "FRA AMY BEL", "FRA FLT ECH")
    r = run(
        s,
        Cto(unit("ENG AMY LON"), "BEL", ("NTH",)),
        Cvy(unit("ENG FLT NTH"), unit("ENG AMY LON"), "BEL"),
        Cto(unit("FRA AMY BEL"), "LON", ("ECH",)),
        Cvy(unit("FRA FLT ECH"), unit("FRA AMY BEL"), "LON"),
    )
    assert {x.tokens for x in r.results} == {("SUC",)}
    assert positions(r.state) >= {"ENG AMY BEL", "FRA AMY LON"}


def test_szykman_paradox_voids_the_convoy() -> None:
    # DATC 6.F.14: simple convoy paradox.
    s = state("ENG FLT LON", "ENG FLT WAL", "FRA AMY BRE", "FRA FLT ECH")
    r = run(
        s,
        SupM(unit("ENG FLT LON"), unit("ENG FLT WAL"), "ECH"),
        mv("ENG FLT WAL", "ECH"),
        Cto(unit("FRA AMY BRE"), "LON", ("ECH",)),
        Cvy(unit("FRA FLT ECH"), unit("FRA AMY BRE"), "LON"),
    )
    bre = result_of(r, "BRE")
    assert bre.tokens == ("NSO",)
    assert isinstance(bre.reason, A.Paradox)
    assert result_of(r, "LON").tokens == ("SUC",)
    assert result_of(r, "WAL").tokens == ("SUC",)
    assert result_of(r, "ECH").tokens == ("RET",)


def test_multi_route_convoy_survives_one_disrupted_route() -> None:
    # DATC 4.A.1 b: disrupted only when every route is.
    s = state("FRA AMY TUN", "FRA FLT TYS", "FRA FLT ION", "ITA FLT ROM", "ITA FLT NAP")
    orders = (
        Cto(unit("FRA AMY TUN"), "APU", ("ION",)),
        Cvy(unit("FRA FLT TYS"), unit("FRA AMY TUN"), "APU"),
        Cvy(unit("FRA FLT ION"), unit("FRA AMY TUN"), "APU"),
        mv("ITA FLT ROM", "TYS"),
        SupM(unit("ITA FLT NAP"), unit("ITA FLT ROM"), "TYS"),
    )
    r = run(s, *orders)
    # Two routes: Tyrrhenian-Ionian and Ionian alone.  Only the first is broken.
    assert result_of(r, "TYS").tokens == ("RET",)
    assert result_of(r, "TUN").tokens == ("SUC",)
    r_a = run(s, *orders, rules=A.DEFAULT.with_choice("4.A.1", "a"))
    assert result_of(r_a, "TUN").tokens == ("DSR",)


def test_dislodged_unit_retreat_excludes_standoff_province() -> None:
    # DATC 6.H.? : a province left empty by a bounce is no retreat option.
    s = state(
        "GER AMY MUN", "GER AMY BOH", "FRA AMY BUR", "ITA AMY TYR", "AUS AMY VIE", "RUS AMY SIL"
    )
    r = run(
        s,
        mv("FRA AMY BUR", "MUN"),
        mv("ITA AMY TYR", "MUN"),
        mv("AUS AMY VIE", "BOH"),
        mv("RUS AMY SIL", "BOH"),
    )
    assert not r.state.dislodged
    s2 = state(
        "GER AMY MUN", "FRA AMY BUR", "FRA AMY RUH", "ITA AMY TYR", "AUS AMY VIE", "RUS AMY SIL"
    )
    r2 = run(
        s2,
        mv("FRA AMY BUR", "MUN"),
        SupM(unit("FRA AMY RUH"), unit("FRA AMY BUR"), "MUN"),
        mv("AUS AMY VIE", "BOH"),
        mv("RUS AMY SIL", "BOH"),
    )
    (d,) = r2.state.dislodged
    provinces = {x.province for x in d.retreats}
    assert "BOH" not in provinces  # standoff
    assert "BUR" not in provinces  # attacker's origin
    assert "RUH" not in provinces  # occupied
    assert "SIL" not in provinces and "TYR" not in provinces  # occupied
    assert provinces == {"BER", "KIE"}


def test_unordered_unit_holds_and_can_be_supported() -> None:
    s = state("ENG FLT NTH", "ENG FLT EDI", "GER FLT HEL", "GER FLT DEN")
    r = run(
        s,
        SupH(unit("ENG FLT EDI"), unit("ENG FLT NTH")),
        mv("GER FLT HEL", "NTH"),
        SupM(unit("GER FLT DEN"), unit("GER FLT HEL"), "NTH"),
    )
    nth = result_of(r, "NTH")
    assert nth.order == Hold(unit("ENG FLT NTH"))
    assert nth.tokens == ("SUC",)
    assert isinstance(nth.reason, A.Default)
    assert result_of(r, "HEL").tokens == ("BNC",)


def test_illegal_order_is_a_hold_in_the_results() -> None:
    s = state("ENG FLT NTH")
    r = run(s, mv("ENG FLT NTH", "PIC"))
    assert result_of(r, "NTH").order == Hold(unit("ENG FLT NTH"))
    assert result_of(r, "NTH").tokens == ("SUC",)


def test_aoa_shows_the_note_as_result() -> None:
    s = state("ENG FLT NTH", "ENG AMY LVP")
    r = run(s, mv("ENG FLT NTH", "PIC"), mv("ENG AMY LVP", "YOR"), rules=A.DEFAULT.with_aoa())
    nth = result_of(r, "NTH")
    assert nth.order == mv("ENG FLT NTH", "PIC")
    assert nth.tokens == ("FAR",)
    assert nth.reason == A.Rejected("FAR")
    assert result_of(r, "LVP").tokens == ("SUC",)
    assert "ENG FLT NTH" in positions(r.state)


def test_later_order_replaces_earlier() -> None:
    s = state("ENG FLT NTH")
    r = A.advance(STD, s, {"ENG": [mv("ENG FLT NTH", "HEL"), mv("ENG FLT NTH", "NWY")]})
    assert positions(r.state) == {"ENG FLT NWY"}


def test_fleet_coast_is_supplied_when_unique() -> None:
    s = state("FRA FLT GAS")
    r = run(s, Move(unit("FRA FLT GAS"), A.Location("SPA")))
    assert result_of(r, "GAS").order == Move(unit("FRA FLT GAS"), A.Location("SPA", "NCS"))
    assert positions(r.state) == {"FRA FLT SPA/NCS"}


def test_results_are_deterministic() -> None:
    s = state("AUS AMY VIE", "ITA AMY VEN", "GER AMY MUN")
    orders = (mv("AUS AMY VIE", "TYR"), mv("ITA AMY VEN", "TYR"), mv("GER AMY MUN", "TYR"))
    first = run(s, *orders)
    second = run(s, *reversed(orders))
    assert first == second
    assert repr(first) == repr(second)
