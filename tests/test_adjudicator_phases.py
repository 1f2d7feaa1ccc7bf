"""Retreats, adjustments, civil disorder, ownership, solo, elimination, phase skipping."""

from __future__ import annotations

import random

import pytest

import adjudicator as A
from tests.adjudicator_helpers import STD, loc, positions, result_of, run, state, unit


def test_initial_state_matches_the_map() -> None:
    s = A.initial_state(STD)
    assert s.phase == A.Phase("SPR", 1901)
    assert len(s.units) == 22
    assert s.unit_at("STP") == unit("RUS FLT STP/SCS")
    assert s.centre_counts()["RUS"] == 4
    assert s.adjustment("RUS") == 0


def test_spring_without_dislodgement_goes_to_fall() -> None:
    r = run(A.initial_state(STD))
    assert r.next_phase == A.Phase("FAL", 1901)
    assert not r.ownership_updated
    assert len(r.results) == 22
    assert {x.tokens for x in r.results} == {("SUC",)}


def test_fall_without_changes_skips_winter() -> None:
    s = A.initial_state(STD)
    fall = A.GameState(A.Phase("FAL", 1901), s.units, s.ownership)
    r = run(fall)
    assert r.ownership_updated
    assert r.next_phase == A.Phase("SPR", 1902)
    assert r.winner is None


def test_fall_capture_updates_ownership_and_goes_to_winter() -> None:
    s = state("ENG FLT NTH", "ENG FLT LON", phase="FAL 1901")
    r = run(s, A.Move(unit("ENG FLT NTH"), loc("NWY")))
    assert r.ownership_updated
    assert r.state.ownership["NWY"] == "ENG"
    assert r.next_phase == A.Phase("WIN", 1901)


def _retreat_state() -> A.GameState:
    # Two dislodged units, both with Holland among their options.
    return state(
        "GER AMY BEL",
        "GER AMY KIE",
        phase="SUM 1901",
        dislodged=[
            A.Dislodged(unit("FRA AMY BEL"), (loc("HOL"), loc("PIC")), "BUR"),
            A.Dislodged(unit("ENG AMY KIE"), (loc("HOL"), loc("DEN")), "BER"),
        ],
    )


def test_retreat_clash_destroys_both() -> None:
    s = _retreat_state()
    r = run(
        s, A.Retreat(unit("FRA AMY BEL"), loc("HOL")), A.Retreat(unit("ENG AMY KIE"), loc("HOL"))
    )
    bel = result_of(r, "BEL")
    assert bel.tokens == ("BNC",)
    assert bel.reason == A.RetreatClash("HOL", (unit("ENG AMY KIE"),))
    assert result_of(r, "KIE").tokens == ("BNC",)
    assert positions(r.state) == {"GER AMY BEL", "GER AMY KIE"}
    assert r.next_phase == A.Phase("FAL", 1901)


def test_retreat_success_and_unordered_disband() -> None:
    s = _retreat_state()
    r = run(s, A.Retreat(unit("FRA AMY BEL"), loc("PIC")))
    assert result_of(r, "BEL").tokens == ("SUC",)
    kie = result_of(r, "KIE")
    assert kie.order == A.Disband(unit("ENG AMY KIE"))
    assert isinstance(kie.reason, A.Default)
    assert positions(r.state) == {"GER AMY BEL", "GER AMY KIE", "FRA AMY PIC"}


def test_autumn_retreat_then_ownership_update() -> None:
    s = state(
        "GER AMY BEL",
        phase="AUT 1901",
        dislodged=[A.Dislodged(unit("FRA AMY BEL"), (loc("HOL"),), "BUR")],
    )
    r = run(s, A.Retreat(unit("FRA AMY BEL"), loc("HOL")))
    assert r.ownership_updated
    assert r.state.ownership["BEL"] == "GER"
    assert r.state.ownership["HOL"] == "FRA"
    assert r.next_phase == A.Phase("WIN", 1901)


def test_builds_waives_and_implicit_waives() -> None:
    own = dict(STD.start_ownership, NWY="ENG", SWE="ENG")
    s = state("ENG FLT NWY", "ENG FLT SWE", phase="WIN 1901", ownership=own)
    assert s.adjustment("ENG") == 3
    r = run(s, A.Build(unit("ENG FLT LON")), A.Waive("ENG"))
    tokens = [(type(x.order).__name__, x.tokens) for x in r.results if _power(x) == "ENG"]
    assert tokens == [("Build", ("SUC",)), ("Waive", ("SUC",)), ("Waive", ("SUC",))]
    implicit = [x for x in r.results if _power(x) == "ENG"][-1]
    assert isinstance(implicit.reason, A.Default)
    assert "ENG FLT LON" in positions(r.state)
    assert r.next_phase == A.Phase("SPR", 1902)


def _power(res: A.OrderResult) -> str:
    o = res.order
    return o.power if isinstance(o, A.Waive) else o.unit.power


def test_civil_disorder_removal_v24_distance_to_home_centres() -> None:
    # DATC 6.J.5: fleets cannot cross land: Berlin is 3 from St Petersburg, Skagerrak 2.
    own = {"MOS": "RUS"}
    s = state("RUS FLT SKA", "RUS FLT BER", phase="WIN 1901", ownership=own)
    r = run(s)
    (res,) = r.results
    assert res.order == A.Remove(unit("RUS FLT BER"))
    assert isinstance(res.reason, A.Default)


def test_civil_disorder_ties_fleet_first_then_alphabetical() -> None:
    # DATC 6.J.7: army Bohemia, fleets Skagerrak and North Sea all at distance 2.
    own = {"MOS": "RUS", "WAR": "RUS"}
    s = state("RUS AMY BOH", "RUS FLT SKA", "RUS FLT NTH", phase="WIN 1901", ownership=own)
    r = run(s)
    assert [x.order for x in r.results] == [A.Remove(unit("RUS FLT NTH"))]


def test_civil_disorder_2023_rule_uses_owned_centres() -> None:
    # DATC v3.0 6.J.11: Italy owns Warsaw only; Tuscany is removed (v2.4: Warsaw).
    own = {"WAR": "ITA"}
    s = state("ITA AMY WAR", "ITA AMY TUS", phase="WIN 1901", ownership=own)
    assert [x.order for x in run(s).results] == [A.Remove(unit("ITA AMY WAR"))]
    r30 = run(s, rules=A.DATC_3_0)
    assert [x.order for x in r30.results] == [A.Remove(unit("ITA AMY TUS"))]


def test_ordered_removal_then_civil_disorder_for_the_rest() -> None:
    # DATC 6.J.2: the same removal twice counts once; civil disorder removes
    # the other unit owed (Burgundy and Picardy tie at distance 1 from Paris:
    # alphabetical order of the English names).
    s = state(
        "FRA AMY PAR", "FRA AMY PIC", "FRA AMY BUR", phase="WIN 1901", ownership={"PAR": "FRA"}
    )
    r = run(s, A.Remove(unit("FRA AMY PAR")), A.Remove(unit("FRA AMY PAR")))
    assert [x.order for x in r.results] == [
        A.Remove(unit("FRA AMY PAR")),
        A.Remove(unit("FRA AMY BUR")),
    ]
    assert r.results[0].reason is None
    assert isinstance(r.results[1].reason, A.Default)
    assert positions(r.state) == {"FRA AMY PIC"}


def test_solo_is_detected_after_fall() -> None:
    centres = [STD.provinces[c].mnemonic for c in STD.supply_centres]
    own: dict[str, str] = {}
    for c in centres:
        if c != "POR" and len(own) < 17:
            own[c] = "FRA"
    s = state("FRA FLT MAO", phase="FAL 1905", ownership=own)
    r = run(s, A.Move(unit("FRA FLT MAO"), loc("POR")))
    assert r.winner == "FRA"
    assert sum(1 for p in r.state.ownership.values() if p == "FRA") == 18
    assert STD.victory_centres == 18


def test_elimination_reported_when_last_unit_and_centre_go() -> None:
    s = state("FRA AMY PAR", phase="WIN 1901", ownership={})
    r = run(s)
    assert [x.order for x in r.results] == [A.Remove(unit("FRA AMY PAR"))]
    assert r.eliminated == ("FRA",)
    assert positions(r.state) == set()


def test_rulebook_presets_and_overrides() -> None:
    assert A.Rulebook.preset("datc-2.4") is A.DATC_2_4
    assert A.DATC_2_4.choice("4.A.2") == "d"
    assert A.DATC_3_0.choice("4.D.8") == "2023"
    assert A.DATC_3_0.choice("4.A.3") == "e"
    assert A.DATC_2_4.with_choice("4.A.5", "a").retreat_to_convoy_origin is False
    assert A.DATC_2_4 == A.Rulebook()
    with pytest.raises(ValueError):
        A.DATC_2_4.with_choice("4.A.2", "a")
    with pytest.raises(ValueError):
        A.Rulebook.preset("datc-9")


@pytest.mark.parametrize(
    ("owned", "units", "removed"),
    [
        # DATC v3.0 6.J.6: both fleets 3 from Munich over land and sea; alphabetical.
        ({"MUN": "RUS"}, ("RUS FLT GOB", "RUS FLT NTH"), "RUS FLT GOB"),
        # DATC v3.0 6.J.8: the fleet in the Baltic is 2 from Warsaw, the army 3.
        ({"WAR": "RUS"}, ("RUS AMY TYR", "RUS FLT BAL"), "RUS AMY TYR"),
        # DATC v3.0 6.J.10: Greece reaches Naples over the Ionian Sea in 2.
        ({"NAP": "ITA"}, ("ITA AMY GRE", "ITA AMY PIE"), "ITA AMY PIE"),
    ],
)
def test_civil_disorder_2023_cases(
    owned: dict[str, str], units: tuple[str, ...], removed: str
) -> None:
    s = state(*units, phase="WIN 1901", ownership=owned)
    r = run(s, rules=A.DATC_3_0)
    assert [x.order for x in r.results] == [A.Remove(unit(removed))]


def test_adjudicator_does_not_pull_in_the_protocol_package() -> None:
    import subprocess
    import sys

    code = "import sys, adjudicator; print(any(m.startswith('protocol') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _expected_end_of_year(
    before: A.GameState, after: A.GameState
) -> tuple[list[tuple[str, str]], A.Phase, str | None, tuple[str, ...]]:
    """The fall ownership update written out plainly (docs/protocol.md §8.2): each
    centre goes to the unit standing on it, else stays with its owner; builds
    or removals are owed when some power's centres differ from its units."""
    occupant = {u.location.province: u.power for u in after.units}
    ownership: list[tuple[str, str]] = []
    for c in STD.supply_centres:  # province order
        name = STD.provinces[c].mnemonic
        owner = occupant.get(name, before.ownership.get(name))
        if owner is not None:
            ownership.append((name, owner))
    centres: dict[str, int] = {}
    for _, owner in ownership:
        centres[owner] = centres.get(owner, 0) + 1
    units: dict[str, int] = {}
    for u in after.units:
        units[u.power] = units.get(u.power, 0) + 1
    year = before.phase.year
    following = A.Phase("WIN", year) if centres != units else A.Phase("SPR", year + 1)
    winner = next((p for p in STD.powers if centres.get(p, 0) >= STD.victory_centres), None)
    gone = tuple(
        sorted(p for p in set(before.ownership.values()) if p not in centres and p not in units)
    )
    return ownership, following, winner, gone


def test_fall_end_of_year_on_random_games() -> None:
    # Every fall without a dislodgement of a few seeded random games: the new
    # ownership (in province order), the next phase, a solo and eliminations
    # as the rules say.
    rng = random.Random(4)
    checked = 0
    for _game in range(8):
        s = A.initial_state(STD)
        while s.phase.year < 1915:
            orders: dict[str, list[A.Order]] = {}
            for power in STD.powers:
                # no builds (they are waived): fewer units, more changes of hands
                options = A.legal_orders(STD, s, power)
                orders[power] = [rng.choice(opts) for opts in options.values()]
            r = A.advance(STD, s, orders)
            if s.phase.season == "FAL" and r.ownership_updated:
                ownership, following, winner, gone = _expected_end_of_year(s, r.state)
                assert list(r.state.ownership.items()) == ownership
                assert r.next_phase == following
                assert r.winner == winner
                assert r.eliminated == gone
                checked += 1
            if r.winner is not None:
                break
            s = r.state
    assert checked > 40


def test_fall_ownership_out_of_order_and_stray_entries() -> None:
    # An ownership given in another order, with a province that is no centre:
    # the result lists the centres in province order and drops the stray
    # entry; a power whose only entry it was, with no unit, is eliminated.
    own = {"PAR": "FRA", "BUR": "ITA", "BRE": "FRA", "LON": "ENG"}
    s = state("FRA AMY PIC", "ENG FLT NTH", phase="FAL 1901", ownership=own)
    r = run(s, A.Move(unit("FRA AMY PIC"), loc("BEL")))
    assert list(r.state.ownership.items()) == [
        ("BEL", "FRA"), ("BRE", "FRA"), ("LON", "ENG"), ("PAR", "FRA")
    ]
    assert r.eliminated == ("ITA",)
    assert r.next_phase == A.Phase("WIN", 1901)


def test_fall_without_changes_keeps_the_ownership() -> None:
    s = A.initial_state(STD)
    fall = A.GameState(A.Phase("FAL", 1901), s.units, s.ownership)
    r = run(fall)
    assert r.state.ownership == s.ownership
    assert list(r.state.ownership) == sorted(s.ownership)
