"""server/assignment.py against the Player's Technical Guide's text (tests/data/dptg-assignment.txt).

One seeded test per rule of the Guide (named ``rule N`` as the data file
numbers them), property checks over generated wishes, the distribution of
many seeded draws, and the DAIDE name convention.  Every random choice comes
from a seeded ``random.Random``: each test gives the same answer every run.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.variants import variant_map, variant_names
from server.assignment import (
    NO_PREFERENCE,
    RANDOM_POWER,
    AssignmentError,
    Invited,
    NoPreference,
    Preferences,
    RandomPower,
    Requested,
    Wish,
    assign,
    parse_name,
)

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
NAMES = {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany",
         "ITA": "Italy", "RUS": "Russia", "TUR": "Turkey"}
GUIDE = Path(__file__).parent / "data" / "dptg-assignment.txt"
SEEDS = range(400)


def guide_facts() -> dict[str, str]:
    facts = {}
    for line in GUIDE.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(": ")
            facts[key] = value
    return facts


def ranked(*groups: str) -> Preferences:
    """``ranked("FRA", "ENG=GER")``: a preference list."""
    return Preferences(tuple(tuple(g.split("=")) for g in groups))


def outcomes(wishes: Sequence[Wish], taken: Sequence[str] = (), seeds: range = SEEDS,
             powers: Sequence[str] = POWERS) -> list[list[str]]:
    return [assign(powers, wishes, taken, random.Random(seed)) for seed in seeds]


def chi_square(counts: Counter[str], expected: dict[str, float]) -> float:
    return sum((counts[k] - e) ** 2 / e for k, e in expected.items())


# --- the Guide's rules, one seeded test each --------------------------------------


def test_the_data_file_holds_the_guides_ten_rules_and_its_example() -> None:
    facts = guide_facts()
    assert [k for k in facts if k.startswith("rule")] == [f"rule {n}" for n in range(1, 11)]
    assert {"example list", "example taken", "example award"} <= facts.keys()


def test_the_guides_example_awards_austria_or_germany() -> None:
    """Rules 1, 6 and 7 on the Guide's own example list."""
    facts = guide_facts()
    name, wish = parse_name(f"player [{facts['example list']}]", POWERS, NAMES)
    assert name == "player"
    assert wish == ranked("FRA", "GER=ITA=AUS", "ENG=RUS", "TUR")
    taken = facts["example taken"].split()
    got = Counter(p for [p] in outcomes([wish], taken))
    assert set(got) == set(facts["example award"].split())


def test_rule_1_the_best_group_is_taken_first() -> None:
    for got in outcomes([ranked("TUR", "FRA=ENG"), NO_PREFERENCE, NO_PREFERENCE]):
        assert got[0] == "TUR"


def test_rule_2_a_short_list_that_is_met_and_players_with_no_list() -> None:
    wishes: list[Wish] = [NO_PREFERENCE, NO_PREFERENCE, ranked("ENG"), NO_PREFERENCE, NO_PREFERENCE,
              NO_PREFERENCE, NO_PREFERENCE]
    seen: Counter[str] = Counter()
    for got in outcomes(wishes):
        assert got[2] == "ENG" and sorted(got) == sorted(POWERS)
        seen[got[0]] += 1
    assert set(seen) == set(POWERS) - {"ENG"}      # the others: everything else, at random


def test_rule_3_no_list_is_not_a_request_for_a_random_power() -> None:
    """A random request is served before the lists, an empty list after them."""
    taken = ("AUS", "GER", "ITA", "RUS", "TUR")     # FRA and ENG are free
    for got in outcomes([NO_PREFERENCE, ranked("FRA")], taken):
        assert got == ["ENG", "FRA"]
    random_first = Counter(got[1] for got in outcomes([RANDOM_POWER, ranked("FRA")], taken))
    assert set(random_first) == {"FRA", "ENG"}     # the random player sometimes took France


def test_rule_4_random_requests_are_served_before_every_list() -> None:
    taken = ("AUS", "GER", "ITA", "RUS", "TUR")
    runs = outcomes([ranked("FRA"), RANDOM_POWER], taken)
    assert {tuple(r) for r in runs} == {("FRA", "ENG"), ("ENG", "FRA")}
    # the random player's power is uniform among all free ones, lists or not
    got = Counter(r[1] for r in outcomes([ranked("FRA", "ENG"), RANDOM_POWER, NO_PREFERENCE]))
    assert set(got) == set(POWERS)


def test_rule_5_lists_are_read_in_a_random_order_not_the_joining_order() -> None:
    for wishes in ([ranked("FRA"), ranked("FRA")], [ranked("FRA", "ENG"), ranked("FRA")]):
        winners = Counter(got.index("FRA") for got in outcomes(wishes))
        assert set(winners) == {0, 1}


def test_rule_6_the_top_choice_still_available() -> None:
    for got in outcomes([ranked("FRA", "ENG", "GER")], taken=("FRA",)):
        assert got == ["ENG"]
    # taken by an earlier list in the same deal
    for got in outcomes([ranked("FRA"), ranked("FRA", "ENG", "GER")]):
        assert got[1] == ("ENG" if got[0] == "FRA" else "FRA")


def test_rule_7_equal_choices_are_awarded_at_random() -> None:
    got = Counter(p for [p] in outcomes([ranked("GER=ITA=AUS", "FRA")], taken=("ITA",)))
    assert set(got) == {"GER", "AUS"}


def test_rule_8_an_exhausted_list_is_discarded_and_the_next_read() -> None:
    """Two lists want France only; the loser's list is discarded - it does not
    take England from the third list, read after it - and the loser gets the
    power left over."""
    taken = ("AUS", "ITA", "RUS", "TUR")            # ENG, FRA, GER free
    runs = outcomes([ranked("FRA"), ranked("FRA"), ranked("ENG")], taken)
    for got in runs:
        assert got[2] == "ENG" and sorted(got[:2]) == ["FRA", "GER"]
    assert {got[0] for got in runs} == {"FRA", "GER"}


def test_rule_9_the_powers_left_over_go_at_random_to_the_players_left_over() -> None:
    wishes: list[Wish] = [ranked("FRA"), ranked("FRA"), NO_PREFERENCE]
    taken = ("AUS", "ITA", "RUS", "TUR")            # ENG, FRA, GER free
    loser_got: Counter[str] = Counter()
    for got in outcomes(wishes, taken):
        loser = 1 if got[0] == "FRA" else 0
        loser_got[got[loser]] += 1
        assert sorted([got[loser], got[2]]) == ["ENG", "GER"]
    assert set(loser_got) == {"ENG", "GER"}


def test_rule_10_names_never_carry_the_lists() -> None:
    for name in ("alice [FRA ENG=GER ITA]", "bob [random]", "carol []", "dave [invite X1]"):
        shown, _ = parse_name(name, POWERS, NAMES)
        assert shown == name.split()[0]


def test_seats_fixed_in_advance_are_never_dealt() -> None:
    taken = ("FRA", "TUR")                          # reserved for alice, an invitation
    wishes: list[Wish] = [ranked("FRA", "TUR", "ENG"), Requested("FRA"), NO_PREFERENCE,
                          ranked("TUR"), NO_PREFERENCE]
    for got in outcomes(wishes, taken):
        assert got[0] == "ENG" and sorted(got) == ["AUS", "ENG", "GER", "ITA", "RUS"]


def test_fewer_players_than_free_powers_leave_the_rest_free() -> None:
    for got in outcomes([ranked("FRA"), NO_PREFERENCE]):
        assert got[0] == "FRA" and got[1] != "FRA"


# --- the MILA convention ('FRA:name') ---------------------------------------------


def test_mila_requests_are_served_in_joining_order_and_the_rest_dealt() -> None:
    wishes = [parse_name(n, ("AUS", "ENG", "FRA", "TUR"))[1]
              for n in ("FRA:alpha", "beta", "F:gamma", "tur:delta")]
    assert wishes == [Requested("FRA"), NO_PREFERENCE, Requested("FRA"), Requested("TUR")]
    dealt = set()
    for got in outcomes(wishes, powers=("AUS", "ENG", "FRA", "TUR")):
        assert got[0] == "FRA" and got[3] == "TUR"
        dealt.add((got[1], got[2]))
    assert dealt == {("AUS", "ENG"), ("ENG", "AUS")}  # gamma's France was gone: dealt at random


def test_mila_requests_come_before_random_requests_and_lists() -> None:
    taken = ("AUS", "GER", "ITA", "RUS", "TUR")
    cases: list[list[Wish]] = [[RANDOM_POWER, Requested("FRA")], [ranked("FRA"), Requested("FRA")]]
    for wishes in cases:
        for got in outcomes(wishes, taken):
            assert got == ["ENG", "FRA"]


# --- properties over generated wishes -----------------------------------------------


def as_list(groups: list[list[str]]) -> Wish:
    """A preference list of these groups, each power kept at its first place."""
    listed: list[str] = []
    kept = []
    for group in groups:
        fresh = tuple(p for p in group if p not in listed)
        if fresh:
            listed += fresh
            kept.append(fresh)
    return Preferences(tuple(kept)) if kept else NO_PREFERENCE


WISHES = st.one_of(st.just(NO_PREFERENCE), st.just(RANDOM_POWER),
                   st.sampled_from(POWERS).map(Requested),
                   st.lists(st.lists(st.sampled_from(POWERS), min_size=1, max_size=3),
                            max_size=4).map(as_list))


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[Wish], list[str]]:
    """Seats taken in advance, and the wishes of at most as many players as are left."""
    taken = draw(st.lists(st.sampled_from(POWERS), unique=True, max_size=4))
    return draw(st.lists(WISHES, max_size=len(POWERS) - len(taken))), taken


@settings(derandomize=True, max_examples=400)
@given(deals(), st.integers(0, 2**32))
def test_every_player_gets_a_distinct_free_power(case: tuple[list[Wish], list[str]],
                                                 seed: int) -> None:
    wishes, taken = case
    got = assign(POWERS, wishes, taken, random.Random(seed))
    assert len(got) == len(wishes) == len(set(got))
    assert set(got) <= set(POWERS) - set(taken)
    assert got == assign(POWERS, wishes, taken, random.Random(seed))  # deterministic


@settings(derandomize=True, max_examples=400)
@given(deals(), st.integers(0, 2**32))
def test_a_first_choice_nobody_else_wants_is_always_honoured(
        case: tuple[list[Wish], list[str]], seed: int) -> None:
    wishes, taken = case
    # (a random request is served first and may take any power: none here)
    wishes = [NO_PREFERENCE if isinstance(w, RandomPower) else w for w in wishes]
    got = assign(POWERS, wishes, taken, random.Random(seed))
    for i, wish in enumerate(wishes):
        if not isinstance(wish, Preferences):
            continue
        first = set(wish.groups[0]) - set(taken)
        others = set()
        for j, other in enumerate(wishes):
            if j != i and isinstance(other, Preferences):
                others |= {p for g in other.groups for p in g}
            elif j != i and isinstance(other, Requested):
                others.add(other.power)
        if first and not first & others:
            assert got[i] in first


# --- the distribution over many draws ---------------------------------------------

DRAWS = 20_000
#: Chi-square bounds at p = 0.001 for 1, 2 and 6 degrees of freedom: far above
#: what a fair deal gives, far below what a biased one would (each test's seed is
#: fixed, so it can never flake).
CHI2_1, CHI2_2, CHI2_6 = 10.83, 13.82, 22.46


def test_two_players_ranking_france_first_each_get_it_half_the_time() -> None:
    rng = random.Random(27)
    wishes: list[Wish] = [ranked("FRA", "ENG"), NO_PREFERENCE, ranked("FRA", "GER"),
                          *[NO_PREFERENCE] * 4]
    first: Counter[str] = Counter()
    for _ in range(DRAWS):
        got = assign(POWERS, wishes, (), rng)
        assert "FRA" in (got[0], got[2])
        first["first" if got[0] == "FRA" else "second"] += 1
    assert chi_square(first, {"first": DRAWS / 2, "second": DRAWS / 2}) < CHI2_1
    assert abs(first["first"] / DRAWS - 0.5) < 0.02


def test_equal_choices_are_equally_likely() -> None:
    rng = random.Random(1998)
    got = Counter(assign(POWERS, [ranked("GER=ITA=AUS")], (), rng)[0] for _ in range(DRAWS))
    assert chi_square(got, dict.fromkeys(("GER", "ITA", "AUS"), DRAWS / 3)) < CHI2_2


def test_players_without_lists_get_every_power_equally_often() -> None:
    rng = random.Random(7)
    wishes = [NO_PREFERENCE] * 6 + [RANDOM_POWER]
    for who in (0, 6):
        got = Counter(assign(POWERS, wishes, (), rng)[who] for _ in range(DRAWS))
        assert chi_square(got, dict.fromkeys(POWERS, DRAWS / 7)) < CHI2_6


# --- the name convention -----------------------------------------------------------


@pytest.mark.parametrize(("name", "shown", "wish"), [
    ("alice", "alice", NO_PREFERENCE),
    ("alice []", "alice", NO_PREFERENCE),
    ("alice [  ]", "alice", NO_PREFERENCE),
    ("alice [FRA ENG=GER ITA]", "alice", ranked("FRA", "ENG=GER", "ITA")),
    ("alice [fra  eng = ger Italy]", "alice", ranked("FRA", "ENG=GER", "ITA")),
    ("alice [France England=Germany]", "alice", ranked("FRA", "ENG=GER")),
    ("alice smith [TUR]", "alice smith", ranked("TUR")),
    ("bob [random]", "bob", RANDOM_POWER),
    ("bob [RANDOM]", "bob", RANDOM_POWER),
    ("bob [*]", "bob", RANDOM_POWER),
    ("carol [invite 7f3K-2q]", "carol", Invited("7F3K-2Q")),
    ("carol [ Invite K7Q2-9XMB-3TCP ]", "carol", Invited("K7Q2-9XMB-3TCP")),
    ("FRA:dave", "FRA:dave", Requested("FRA")),       # a request was never secret
    ("t:DumbBot#T1.G2.1", "t:DumbBot#T1.G2.1", Requested("TUR")),
    ("DumbBot[2]", "DumbBot[2]", NO_PREFERENCE),
    ("alice [FRA", "alice [FRA", NO_PREFERENCE),
    ("alice FRA]", "alice FRA]", NO_PREFERENCE),
    ("XYZ:eve", "XYZ:eve", NO_PREFERENCE),
    ("http://x", "http://x", NO_PREFERENCE),
    ("[ENG]", "", ranked("ENG")),
    ("", "", NO_PREFERENCE),
])
def test_names_that_parse(name: str, shown: str, wish: Wish) -> None:
    assert parse_name(name, POWERS, NAMES) == (shown, wish)


@pytest.mark.parametrize(("name", "problem"), [
    ("alice [XYZ]", "unknown power 'XYZ'"),
    ("alice [France Spain]", "unknown power 'Spain'"),
    ("alice [FRA ENG FRA]", "FRA is listed twice"),
    ("alice [France FRA]", "FRA is listed twice"),
    ("alice [FRA=ENG=fra]", "FRA is listed twice"),
    ("alice [FRA =]", "an empty group"),
    ("alice [= FRA]", "an empty group"),
    ("alice [FRA == ENG]", "an empty group"),
    ("alice [=]", "an empty group"),
    ("alice [FRA random]", "'random' stands alone"),
    ("alice [* *]", "'random' stands alone"),
    ("alice [invite]", "[invite CODE]"),
    ("alice [invite a b]", "[invite CODE]"),
    ("alice [invite a_b]", "[invite CODE]"),
    ("alice [invite " + "A" * 41 + "]", "[invite CODE]"),
    ("FRA:alice [ENG]", "asks for a power twice"),
    ("FRA:alice [invite x]", "asks for a power twice"),
    ("alice [" + "Q" * 200 + "]", "unknown power 'QQQQQQQQQQQQQQQQQQQQ...'"),
    ("alice [\x07]", r"unknown power '\x07'"),
])
def test_names_that_are_refused_with_one_line(name: str, problem: str) -> None:
    with pytest.raises(AssignmentError) as caught:
        parse_name(name, POWERS, NAMES)
    message = str(caught.value)
    assert problem in message and "\n" not in message and len(message) < 200


def test_full_names_only_where_the_map_gives_them() -> None:
    with pytest.raises(AssignmentError, match="unknown power 'France'"):
        parse_name("alice [France]", POWERS)        # no names given: mnemonics only


@pytest.mark.parametrize("variant", variant_names())
def test_every_variants_powers_by_mnemonic_and_full_name(variant: str) -> None:
    the_map = variant_map(variant)
    for power in the_map.powers:
        full = the_map.power_names[power]
        for spelling in (power, power.lower(), full, full.upper()):
            assert parse_name(f"x [{spelling}]", the_map.powers, the_map.power_names) == \
                ("x", Preferences(((power,),))), spelling
    every = " ".join(the_map.power_names[p] for p in reversed(the_map.powers))
    _, wish = parse_name(f"x [{every}]", the_map.powers, the_map.power_names)
    assert wish == Preferences(tuple((p,) for p in reversed(the_map.powers)))


# --- what assign refuses -----------------------------------------------------------


@pytest.mark.parametrize(("wishes", "taken", "problem"), [
    ([NO_PREFERENCE] * 8, (), "8 players for 7 free powers"),
    ([NO_PREFERENCE] * 7, ("FRA",), "7 players for 6 free powers"),
    ([NO_PREFERENCE], ("XYZ",), "XYZ is not a power of this game"),
    ([Requested("XYZ")], (), "XYZ is not a power of this game"),
    ([ranked("FRA", "XYZ")], (), "XYZ is not a power of this game"),
    ([Invited("abc")], (), "an invitation is seated by its code"),
])
def test_assign_refuses_with_one_line(wishes: list[Wish], taken: tuple[str, ...],
                                      problem: str) -> None:
    with pytest.raises(AssignmentError, match=problem):
        assign(POWERS, wishes, taken, random.Random(0))


def test_wish_kinds_are_distinct() -> None:
    kinds: list[Wish] = [NoPreference(), RandomPower(), Requested("FRA"), ranked("FRA"),
                         Invited("FRA")]
    assert kinds[0] == NO_PREFERENCE and kinds[1] == RANDOM_POWER
    assert len(set(kinds)) == len(kinds)
