"""The English order notation (server/notation.py): each form read into its DAIDE order.

The synonyms are those of maps/data/synonyms.tsv (international abbreviations
such as LPL, NWG/NRG, MID, GOL and the usual names players type).
"""

from __future__ import annotations

import pytest

from engine.variants import variant_map, variant_names
from server.notation import Context, NotationError, parse_order, province_names, units_of_now

START = ("NOW ( SPR 1901 ) ( AUS AMY BUD ) ( ENG FLT LON ) ( ENG AMY LVP ) ( ENG FLT NTH )"
         " ( FRA FLT BRE ) ( FRA AMY PAR ) ( FRA AMY MAR ) ( RUS FLT ( STP SCS ) )"
         " ( GER AMY MUN ) ( GER AMY BER ) ( FRA FLT MAO )")
STANDARD = variant_map("standard")


def read(text: str, season: str = "SPR", power: str = "FRA") -> str:
    return parse_order(text, Context(STANDARD, power, season, units_of_now(START)))


@pytest.mark.parametrize(("text", "order"), [
    ("A Par - Bur", "( ( FRA AMY PAR ) MTO BUR )"),
    ("a par-bur", "( ( FRA AMY PAR ) MTO BUR )"),
    ("Par -> Bur", "( ( FRA AMY PAR ) MTO BUR )"),            # the unit type from the position
    ("A Paris to Burgundy", "( ( FRA AMY PAR ) MTO BUR )"),
    ("A Par H", "( ( FRA AMY PAR ) HLD )"),
    ("A Par holds", "( ( FRA AMY PAR ) HLD )"),
    ("F NTH C A LON - NWY", "( ( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY )"),
    ("A Lon - Nwy via Nth", "( ( ENG AMY LON ) CTO NWY VIA ( NTH ) )"),
    ("A Ber S A Mun", "( ( GER AMY BER ) SUP ( GER AMY MUN ) )"),
    ("A Mar S A Par - Bur", "( ( FRA AMY MAR ) SUP ( FRA AMY PAR ) MTO BUR )"),
    ("A Mar S A Mun - Bur", "( ( FRA AMY MAR ) SUP ( GER AMY MUN ) MTO BUR )"),
    ("F Bre R Pic", "( ( FRA FLT BRE ) RTO PIC )"),
    ("build A Par", "( ( FRA AMY PAR ) BLD )"),
    ("build F StP/nc", "( ( FRA FLT ( STP NCS ) ) BLD )"),
    ("waive", "( FRA WVE )"),
    ("remove A Par", "( ( FRA AMY PAR ) REM )"),
    ("F Bre - Spa/nc", "( ( FRA FLT BRE ) MTO ( SPA NCS ) )"),
    ("F Bre - Spa (sc)", "( ( FRA FLT BRE ) MTO ( SPA SCS ) )"),
    ("F Bre - Spa nc", "( ( FRA FLT BRE ) MTO ( SPA NCS ) )"),
    ("F Bre - Spain north coast", "( ( FRA FLT BRE ) MTO ( SPA NCS ) )"),
    ("F StP - Bot", "( ( FRA FLT ( STP SCS ) ) MTO GOB )"),   # the fleet's coast from the position
    ("F Mao - Mid-Atlantic Ocean", "( ( FRA FLT MAO ) MTO MAO )"),
])
def test_each_form_of_the_notation(text: str, order: str) -> None:
    power = "ENG" if "NTH C" in text or "Lon - Nwy" in text else \
        "GER" if text.startswith("A Ber") else "FRA"
    assert read(text, power=power) == order


@pytest.mark.parametrize(("synonym", "province"), [
    ("Lpl", "LVP"), ("Edi", "EDI"), ("St Petersburg", "STP"), ("St. Petersburg", "STP"),
    ("NAf", "NAF"), ("GoL", "GOL"), ("Gulf of Lions", "GOL"), ("Nwg", "NWG"), ("NRG", "NWG"),
    ("MID", "MAO"), ("Mid-Atlantic", "MAO"), ("ENG", "ECH"), ("English Channel", "ECH"),
    ("Heligoland Bight", "HEL"), ("Tyrrhenian", "TYS"), ("BOT", "GOB"), ("Norway", "NWY"),
])
def test_province_synonyms(synonym: str, province: str) -> None:
    assert read(f"A Par - {synonym}").endswith(f"MTO {province} )")
    assert province_names(STANDARD)[" ".join(synonym.lower().replace(".", "")
                                             .replace("-", " ").split())] == province


def test_the_phase_decides_retreat_and_disband_words() -> None:
    assert read("F Bre - Pic", season="AUT") == "( ( FRA FLT BRE ) RTO PIC )"
    assert read("A Par D", season="SUM") == "( ( FRA AMY PAR ) DSB )"
    assert read("A Par D", season="WIN") == "( ( FRA AMY PAR ) REM )"
    assert read("disband A Par", season="WIN") == "( ( FRA AMY PAR ) REM )"


def test_a_dislodged_unit_is_the_one_a_retreat_names() -> None:
    now = "NOW ( FAL 1901 ) ( GER AMY BUR ) ( FRA FLT BUR MRT ( GAS ) )"
    assert units_of_now(now)["BUR"].power == "FRA"


@pytest.mark.parametrize(("text", "message"), [
    ("", "an empty order"),
    ("A Par - Xyz", "'xyz' is not a province of standard"),
    ("A Par X Bur", "'x' is not an order word"),
    ("A Par -", "a province is missing"),
    ("Pic - Bel", "say A or F - no unit stands in PIC"),
    ("A Par - Bur now", "unexpected 'now' at the end"),
    ("F Bre - Spa/xx", "'xx' is not a coast"),
    ("build Par", "build A or F"),
    ("F Nth C A Lon Nwy", "a convoy reads"),
])
def test_what_is_not_an_order_says_why(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        read(text)


def test_synonyms_hold_on_variants_with_the_same_province_only() -> None:
    # 1900's map has provinces of the standard names: the standard synonyms apply
    # where the province has the same name.
    for name in variant_names():
        board = variant_map(name)
        names = province_names(board)
        for province in board.provinces:
            assert names[province.mnemonic.lower()] == province.mnemonic


@pytest.mark.parametrize(("text", "order"), [
    # Issue 28, finding 15: what people type that was not understood.
    ("A Par moves to Bur", "( ( FRA AMY PAR ) MTO BUR )"),
    ("A Par move to Bur", "( ( FRA AMY PAR ) MTO BUR )"),
    ("A Par \u2013 Bur", "( ( FRA AMY PAR ) MTO BUR )"),       # en-dash
    ("A Par \u2014 Bur", "( ( FRA AMY PAR ) MTO BUR )"),       # em-dash
    ("A Par \u2192 Bur", "( ( FRA AMY PAR ) MTO BUR )"),       # arrow
    ("A Mar S Par - Bur", "( ( FRA AMY MAR ) SUP ( FRA AMY PAR ) MTO BUR )"),
    ("A Mar supports Mun to Bur", "( ( FRA AMY MAR ) SUP ( GER AMY MUN ) MTO BUR )"),
])
def test_the_forms_people_type(text: str, order: str) -> None:
    assert read(text) == order


def read_fr(text: str, season: str = "SPR") -> str:
    return parse_order(text, Context(STANDARD, "FRA", season, units_of_now(START), "fr"))


@pytest.mark.parametrize(("text", "order"), [
    # The French Descartes map's names (issue 28): Bou is Burgundy, Man the Channel...
    ("A Par - Bou", "( ( FRA AMY PAR ) MTO BUR )"),
    ("A Par - Bourgogne", "( ( FRA AMY PAR ) MTO BUR )"),
    ("F Bre - Man", "( ( FRA FLT BRE ) MTO ECH )"),
    ("F Bre - Atl", "( ( FRA FLT BRE ) MTO MAO )"),
    # Toulon is Marseilles; MAR is Maroc-et-Algérie (North Africa) in French.
    ("A Tou - Pie", "( ( FRA AMY MAR ) MTO PIE )"),
    ("F Atl - Mar", "( ( FRA FLT MAO ) MTO NAF )"),
    ("A Tou - Piemont", "( ( FRA AMY MAR ) MTO PIE )"),     # without the accent
    ("A Tou T", "( ( FRA AMY MAR ) HLD )"),
    ("A Par S A Tou - Bou", "( ( FRA AMY PAR ) SUP ( FRA AMY MAR ) MTO BUR )"),
    ("F Atl - Esp côte nord", "( ( FRA FLT MAO ) MTO ( SPA NCS ) )"),
    ("F Atl - Esp/nc", "( ( FRA FLT MAO ) MTO ( SPA NCS ) )"),
])
def test_french_orders(text: str, order: str) -> None:
    assert read_fr(text) == order


def test_the_french_names_cover_the_standard_map() -> None:
    from server.french import FRENCH
    assert set(FRENCH) == {p.mnemonic for p in STANDARD.provinces}


def test_mar_is_marseilles_in_english_and_maroc_in_french() -> None:
    assert read("A Mar H") == "( ( FRA AMY MAR ) HLD )"
    assert read_fr("F Atl - Mar") == "( ( FRA FLT MAO ) MTO NAF )"
