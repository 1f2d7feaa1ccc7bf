"""Map pictures (render/): every variant drawn whole, the standard map as Europe,
orders with their results, and the DAIDE text the boards are read from."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from engine.variants import variant_map, variant_names
from maps import MapError
from render import (
    Board,
    DrawnUnit,
    Order,
    RenderError,
    board_from_daide,
    layout_for,
    map_geometry,
    parse_order,
    render_svg,
)
from render.autolayout import auto_layout
from render.geometry import point_in_polygon
from render.maps import LAYOUT_DIR, uses_standard_geography
from render.turns import turn_from_text, turn_words

SVG = "{http://www.w3.org/2000/svg}"


def playable() -> list[str]:
    names = []
    for name in variant_names():
        try:
            variant_map(name)
        except MapError:
            continue
        names.append(name)
    return names


PLAYABLE = playable()


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def by_attr(root: ET.Element, attr: str) -> dict[str, ET.Element]:
    return {e.get(attr): e for e in root.iter() if e.get(attr) is not None}


def label_boxes(root: ET.Element) -> list[tuple[str, float, float, float, float]]:
    """Province label boxes estimated from the text: 0.6 x font size per character wide
    (DejaVu Sans capitals are ~0.65-0.7 em), one font size high, around the baseline."""
    boxes = []
    for text in root.iter(f"{SVG}text"):
        if text.get("data-label") is None:
            continue
        size = float(text.get("font-size"))
        x, y = float(text.get("x")), float(text.get("y"))
        w = 0.6 * size * len(text.text)
        boxes.append((text.text, x - w / 2, y - 0.8 * size, x + w / 2, y + 0.2 * size))
    return boxes


def test_every_playable_variant_is_drawn() -> None:
    """At least the 25 playable variants of issue 14 (more as maps/data is corrected)."""
    assert len(PLAYABLE) >= 25


@pytest.mark.parametrize("name", PLAYABLE)
def test_every_variant_draws_every_province_unit_and_centre(name: str) -> None:
    map_ = variant_map(name)
    root = parse(render_svg(map_))
    season, year = map_.start_phase
    assert root.get("data-turn") == f"{season} {year}"
    provinces = by_attr(root, "data-province")
    assert set(provinces) == {p.mnemonic for p in map_.provinces}
    for m, element in provinces.items():
        assert element.get("d", "").startswith("M"), f"{m} has no shape"
    centres = by_attr(root, "data-sc")
    assert set(centres) == {map_.provinces[c].mnemonic for c in map_.supply_centres}
    for centre, element in centres.items():
        assert element.get("data-owner") == map_.start_ownership.get(centre, "UNO")
    units = [e.get("data-unit") for e in root.iter() if e.get("data-unit") is not None]
    expected = [f"{u.power} {u.kind} ({u.province} {u.coast})" if u.coast
                else f"{u.power} {u.kind} {u.province}" for u in map_.start_units]
    assert sorted(units) == sorted(expected)
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("data-label")]
    assert sorted(labels) == sorted(provinces)


@pytest.mark.parametrize("name", PLAYABLE)
def test_no_two_province_labels_overlap(name: str) -> None:
    root = parse(render_svg(variant_map(name)))
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    boxes = label_boxes(root)
    for i, (a, ax0, ay0, ax1, ay1) in enumerate(boxes):
        assert 0 <= ax0 and ax1 <= width and 0 <= ay0 and ay1 <= height, f"{a} off the map"
        for b, bx0, by0, bx1, by1 in boxes[i + 1:]:
            assert not (ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1), \
                f"labels {a} and {b} overlap"


@pytest.mark.parametrize("name", PLAYABLE)
def test_every_unit_spot_lies_in_its_own_province(name: str) -> None:
    layout = layout_for(variant_map(name))
    for m, shape in layout.provinces.items():
        assert any(point_in_polygon(shape.unit, poly) for poly in shape.polys), m


def test_standard_map_is_europe() -> None:
    layout = layout_for(variant_map("standard"))
    spot = {m: s.unit for m, s in layout.provinces.items()}
    assert spot["PAR"][0] < spot["BER"][0]                  # Paris west of Berlin
    assert spot["LON"][1] < spot["PAR"][1]                  # London north of Paris
    assert spot["MOS"][0] > spot["WAR"][0] > spot["BER"][0]
    assert spot["NAF"][1] > spot["SPA"][1]                  # Africa south of Spain
    assert spot["STP"][1] < spot["MOS"][1] < spot["SEV"][1]
    assert spot["POR"][0] < spot["SPA"][0] < spot["MAR"][0] < spot["VEN"][0]
    assert layout.coast and layout.islands                  # a coastline, impassable land
    coasts = {m: s.coasts for m, s in layout.provinces.items() if s.coasts}
    assert set(coasts) == {"SPA", "STP", "BUL"}
    assert coasts["SPA"]["NCS"][1] < coasts["SPA"]["SCS"][1]
    assert coasts["STP"]["NCS"][1] < coasts["STP"]["SCS"][1]
    assert coasts["BUL"]["ECS"][0] > coasts["BUL"]["SCS"][0]


def adjacencies(map_) -> set[tuple[str, str]]:
    pairs = set()
    for p in map_.provinces:
        near = set(map_.army_adj[p.id])
        for loc in map_.fleet_locs[p.id]:
            near |= map_.fleet_reach[loc]
        for q in near - {p.id}:      # (a coast to another coast of the same province)
            a, b = p.mnemonic, map_.provinces[q].mnemonic
            pairs.add((min(a, b), max(a, b)))
    return pairs


def test_standard_map_borders_are_its_adjacencies() -> None:
    """Every border, coast and sea border drawn joins adjacent provinces and every
    adjacency is drawn - except across the straits, where the water itself is drawn:
    Denmark-Sweden (the Sound), the Danish belts and the Marmara."""
    map_ = variant_map("standard")
    drawn = set(layout_for(map_).touching)
    adjacent = adjacencies(map_)
    assert adjacent - drawn == {("DEN", "SWE")}
    assert drawn - adjacent == {("AEG", "BLA"), ("BAL", "HEL"), ("BAL", "SKA")}
    assert layout_for(map_).links == [("DEN", "SWE")]        # a link across the Sound


@pytest.mark.parametrize("name", [n for n in PLAYABLE if n not in
                                  ("standard", "1898", "1900", "balkans", "fleet_rome",
                                   "shift_around")])
def test_automatic_layouts_draw_every_adjacency_and_no_other(name: str) -> None:
    """A border joins two provinces only when they are adjacent; every other
    adjacency (an edge that would have crossed another) is drawn as a link."""
    map_ = variant_map(name)
    layout = layout_for(map_)
    drawn, links = set(layout.touching), set(layout.links)
    assert drawn | links == adjacencies(map_)
    assert not drawn & links
    root = parse(render_svg(map_))
    path = next(e for e in root.iter() if e.get("class") == "links") if links else None
    assert path is None or path.get("d").count("M") == len(links)


def test_maps_with_the_standard_provinces_use_the_drawn_europe() -> None:
    for name in ("1898", "1900", "fleet_rome", "shift_around", "balkans"):
        assert uses_standard_geography(variant_map(name))
        assert layout_for(variant_map(name)).coast


@pytest.mark.parametrize("name", ["pure", "hundred3"])
def test_precomputed_layouts_are_what_the_layout_code_computes(name: str) -> None:
    """The committed files are current (else: python -m render.precompute)."""
    stored = json.loads((LAYOUT_DIR / f"{name}.json").read_text(encoding="utf-8"))
    fresh = json.loads(json.dumps(auto_layout(variant_map(name)).to_json()))
    assert stored == fresh


def test_every_precomputed_layout_matches_its_map() -> None:
    """A stale file (changed MDF) would be ignored and recomputed: none is stale."""
    from render.layout import fingerprint

    for name in PLAYABLE:
        if uses_standard_geography(variant_map(name)):
            continue
        path = LAYOUT_DIR / f"{name}.json"
        assert path.exists(), f"no layout for {name}: run python -m render.precompute"
        stored = json.loads(path.read_text(encoding="utf-8"))
        assert stored["fingerprint"] == fingerprint(variant_map(name)), \
            f"{name} changed: run python -m render.precompute"


# -- boards from DAIDE text -------------------------------------------------

def test_board_from_daide_reads_now_sco_and_orders() -> None:
    map_ = variant_map("standard")
    board = board_from_daide(
        map_,
        now="NOW ( FAL 1901 ) ( RUS FLT ( STP SCS ) ) ( FRA AMY PAR ) "
            "( GER AMY MUN MRT ( BOH TYR ) )",
        sco="SCO ( FRA PAR BRE ) ( UNO MUN )",
        orders=["ORD ( FAL 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( BNC )",
                "ORD ( FAL 1901 ) ( ( RUS FLT ( STP SCS ) ) MTO BOT ) ( SUC )",
                "( ENG FLT LON ) SUP ( ENG AMY YOR ) MTO NTH"])
    assert board.turn == "FAL 1901"
    assert board.units[0] == DrawnUnit("RUS", "FLT", "STP", "SCS")
    assert board.units[2].retreats == ("BOH", "TYR")
    assert dict(board.owners) == {"PAR": "FRA", "BRE": "FRA", "MUN": "UNO"}
    assert board.orders[0].results == ("BNC",)
    assert board.orders[1].unit.coast == "SCS"
    assert board.orders[2].other == DrawnUnit("ENG", "AMY", "YOR")
    assert board.orders[2].target == "NTH" and board.orders[2].results == ()


@pytest.mark.parametrize(("text", "message"), [
    ("NOW ( SPR 1901 ) ( FRA AMY PAR", "unbalanced '('"),
    ("SCO ( FRA PAR ) )", "unbalanced ')'"),
    ("HLO ( FRA )", "not a NOW message"),
])
def test_unreadable_now_is_a_one_line_error(text: str, message: str) -> None:
    map_ = variant_map("standard")
    with pytest.raises(RenderError, match=message.replace("(", r"\(").replace(")", r"\)")):
        if text.startswith("SCO"):
            board_from_daide(map_, sco=text)
        else:
            board_from_daide(map_, now=text)


def test_unknown_province_is_refused() -> None:
    with pytest.raises(RenderError, match="no province XYZ"):
        board_from_daide(variant_map("standard"), now="NOW ( SPR 1901 ) ( FRA AMY XYZ )")
    with pytest.raises(RenderError, match="unknown order"):
        parse_order("( FRA AMY PAR ) FLY BUR")


# -- orders and results drawn --------------------------------------------------

def test_orders_are_drawn_with_their_results() -> None:
    map_ = variant_map("standard")
    par, mar = DrawnUnit("FRA", "AMY", "PAR"), DrawnUnit("FRA", "AMY", "MAR")
    mun, ber = DrawnUnit("GER", "AMY", "MUN"), DrawnUnit("GER", "AMY", "BER")
    lon, nth = DrawnUnit("ENG", "AMY", "LON"), DrawnUnit("ENG", "FLT", "NTH")
    kie = DrawnUnit("GER", "FLT", "KIE", retreats=("BAL",))
    orders = (
        Order(par, "MTO", "BUR", results=("BNC",)),
        Order(mar, "SUP", "BUR", other=par, results=("CUT",)),
        Order(mun, "MTO", "BUR", results=("BNC",)),
        Order(ber, "HLD", results=("SUC", "RET")),
        Order(lon, "CTO", "NWY", via=("NTH",), results=("SUC",)),
        Order(nth, "CVY", "NWY", other=lon, results=("SUC",)),
        Order(DrawnUnit("RUS", "AMY", "WAR"), "SUP", other=ber, results=("NSO",)),
    )
    board = Board("SPR 1901", (par, mar, mun, ber, lon, nth, kie),
                  {"PAR": "FRA", "MUN": "GER"}, orders)
    root = parse(render_svg(map_, board))
    drawn = {e.get("data-order"): e for e in root.iter() if e.get("data-order")}
    assert set(drawn) == {o.text() for o in orders}
    assert drawn["FRA AMY PAR MTO BUR"].get("data-result") == "BNC"
    assert drawn["FRA AMY MAR SUP FRA AMY PAR MTO BUR"].get("data-result") == "CUT"
    assert drawn["ENG AMY LON CTO NWY VIA (NTH)"].get("data-result") == "SUC"
    marks = [e.get("class") for e in root.iter() if (e.get("class") or "").startswith("mark")]
    assert marks.count("mark bounce") == 2
    assert marks.count("mark cut") == 1
    assert marks.count("mark dislodged") == 1
    assert marks.count("mark void") == 1
    dislodged = [e for e in root.iter() if e.get("data-dislodged") == "true"]
    assert [e.get("data-unit") for e in dislodged] == ["GER FLT KIE"]
    assert dislodged[0].get("data-retreats") == "BAL"
    assert by_attr(root, "data-sc")["MUN"].get("data-owner") == "GER"


def test_builds_removals_and_retreats() -> None:
    map_ = variant_map("standard")
    orders = [
        "ORD ( WIN 1901 ) ( ( FRA AMY PAR ) BLD ) ( SUC )",
        "ORD ( WIN 1901 ) ( ( RUS FLT ( STP NCS ) ) BLD ) ( SUC )",
        "ORD ( WIN 1901 ) ( ( GER AMY MUN ) REM ) ( SUC )",
        "ORD ( WIN 1901 ) ( TUR WVE ) ( SUC )",
    ]
    board = board_from_daide(map_, now="NOW ( WIN 1901 ) ( GER AMY MUN )", orders=orders)
    root = parse(render_svg(map_, board))
    drawn = {e.get("data-order"): e.get("data-action") for e in root.iter()
             if e.get("data-order")}
    assert drawn == {"FRA AMY PAR BLD": "BLD", "RUS FLT (STP NCS) BLD": "BLD",
                     "GER AMY MUN REM": "REM", "TUR WVE": "WVE"}
    assert [e.get("class") for e in root.iter()].count("mark removed") == 1
    retreat = board_from_daide(
        map_, now="NOW ( SUM 1901 ) ( GER AMY MUN MRT ( BOH ) )",
        orders=["ORD ( SUM 1901 ) ( ( GER AMY MUN ) RTO BOH ) ( SUC )"])
    root = parse(render_svg(map_, retreat))
    assert [e.get("data-order") for e in root.iter() if e.get("data-order")] == \
        ["GER AMY MUN RTO BOH"]


def test_titles_name_the_turn_in_players_words() -> None:
    """Each season as a person reads it, the phase named where it is not moves."""
    map_ = variant_map("standard")
    for turn, words in (("SPR 1901", "Spring 1901"), ("SUM 1901", "Summer retreats 1901"),
                        ("FAL 1902", "Fall 1902"), ("AUT 1902", "Fall retreats 1902"),
                        ("WIN 1903", "Winter adjustments 1903")):
        root = parse(render_svg(map_, Board(turn, ())))
        assert root.get("data-turn") == turn
        titles = [e.text for e in root.iter() if e.get("class") == "turn"]
        assert titles == [f"standard - {words}"], titles


def test_turns_typed_in_words_or_daide_read_as_daide() -> None:
    for text, turn in (("Spring 1901", "SPR 1901"), ("spr 1901", "SPR 1901"),
                       ("Summer retreats 1902", "SUM 1902"), ("summer 1902", "SUM 1902"),
                       ("FALL 1903", "FAL 1903"), ("Fall  retreats 1903", "AUT 1903"),
                       ("winter 1901", "WIN 1901"), ("Winter adjustments 1901", "WIN 1901")):
        assert turn_from_text(text) == turn, text
        assert turn_from_text(turn_words(turn)) == turn
    for text in ("spring", "1901", "Autumn 1901", "Spring 19O1", "", "Fall retreat 1901"):
        assert turn_from_text(text) is None, text


def test_a_power_the_map_does_not_list_is_drawn_in_grey() -> None:
    """A unit and an order of a power without a colour (read from a foreign NOW) are
    drawn - the grey stand-in colour was once ``#555``, which the arrow's shading
    could not read (a ValueError instead of a picture)."""
    map_ = variant_map("standard")
    board = board_from_daide(map_, "NOW ( SPR 1901 ) ( XYZ AMY PAR ) ( FRA AMY MAR )", None,
                             ["ORD ( SPR 1901 ) ( ( XYZ AMY PAR ) MTO BUR ) ( SUC )",
                              "ORD ( SPR 1901 ) ( ( FRA AMY MAR ) SUP ( XYZ AMY PAR ) MTO BUR )"
                              " ( SUC )"])
    root = parse(render_svg(map_, board))
    drawn = by_attr(root, "data-order")
    assert set(drawn) == {"XYZ AMY PAR MTO BUR", "FRA AMY MAR SUP XYZ AMY PAR MTO BUR"}
    unit = by_attr(root, "data-unit")["XYZ AMY PAR"]
    assert any(e.get("fill") == "#555555" for e in unit.iter())
    assert any(e.get("stroke") == "#404040" for e in drawn["XYZ AMY PAR MTO BUR"].iter())


def test_orders_results_and_units_read_in_players_notation() -> None:
    """The replay's lines and the units' tooltips: the usual notation, a failed order in
    lower case with what happened (the French adjudicator's reports)."""
    from render.notation import ending_words, result_words, unit_tooltip

    names = variant_map("standard").power_names
    par, mar = DrawnUnit("FRA", "AMY", "PAR"), DrawnUnit("FRA", "AMY", "MAR")
    lon, nth = DrawnUnit("ENG", "AMY", "LON"), DrawnUnit("ENG", "FLT", "NTH")
    mao, bur = DrawnUnit("FRA", "FLT", "MAO"), DrawnUnit("GER", "AMY", "BUR")
    for order, destroyed, words in (
        (Order(par, "MTO", "BUR", results=("BNC",)), False, "A par - bur (bounce)"),
        (Order(mar, "SUP", "BUR", other=par, results=("CUT",)), False, "A mar s a par - bur (cut)"),
        (Order(mar, "SUP", other=par, results=("SUC",)), False, "A Mar S A Par"),
        (Order(lon, "CTO", "NWY", via=("NTH",), results=("SUC",)), False, "A Lon - Nwy via Nth"),
        (Order(nth, "CVY", "NWY", other=lon, results=("DSR",)), False, "F nth c a lon - nwy (failed)"),
        (Order(mao, "MTO", "SPA", "NCS", results=("SUC",)), False, "F Mao - Spa/nc"),
        (Order(bur, "HLD", results=("RET",)), False, "A bur h (dislodged)"),
        (Order(bur, "HLD", results=("RET",)), True, "A bur h (destroyed)"),
        (Order(mar, "SUP", other=bur, results=("NSO",)), False, "A mar s a bur (invalid)"),
        (Order(bur, "RTO", "MUN", results=("BNC",)), False, "A bur r mun (failed)"),
        (Order(par, "BLD", results=("SUC",)), False, "build A Par"),
        (Order(par, "REM"), False, "remove A Par"),
        (Order(DrawnUnit("TUR", "", ""), "WVE", results=("SUC",)), False, "Turkey waives"),
    ):
        assert result_words(order, names, destroyed) == words
    assert unit_tooltip(DrawnUnit("RUS", "FLT", "STP", "SCS"), names) == "Russia: F Stp/sc"
    assert unit_tooltip(DrawnUnit("GER", "AMY", "MUN", retreats=("BOH", "TYR")), names) == \
        "Germany: A Mun, dislodged, may retreat to Boh, Tyr"
    assert ending_words("SLO ( FRA )", names) == "France won alone"
    assert ending_words("DRW ( AUS ENG FRA )", names) == "a draw between Austria, England and France"
    assert ending_words("DRW", names) == "a draw between the powers left"
    # The picture's units say who and what they are in words.
    root = parse(render_svg(variant_map("standard")))
    unit = by_attr(root, "data-unit")["FRA AMY PAR"]
    assert [e.text for e in unit.iter(f"{SVG}title")] == ["France: A Par"]


def test_map_geometry_is_json_for_a_page() -> None:
    data = map_geometry(variant_map("hundred3"))
    text = json.dumps(data)
    again = json.loads(text)
    assert again["provinces"]["LON"]["path"].startswith("M")
    assert set(again["colours"]) == set(variant_map("hundred3").powers)
    assert again["width"] > 0 and again["height"] > 0
    assert again["links"] == [list(pair) for pair in layout_for(variant_map("hundred3")).links]


def test_crowded_labels_are_moved_apart() -> None:
    from render.layout import label_box, separate_labels

    names = ["PAR", "BUR", "PIC", "GAS", "BRE", "MAR", "BEL", "RUH", "HOL", "KIE"]
    spots = {m: (100.0 + i * 0.5, 100.0) for i, m in enumerate(names)}   # all on top of each other
    moved = separate_labels(spots, 10.0)
    boxes = [label_box(x, y, m, 10.0) for m, (x, y) in moved.items()]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])


def test_replay_of_a_game_that_has_not_started() -> None:
    from render.replay import replay_html

    page = replay_html(variant_map("standard"), [], title="Game 3")
    assert "has not started" in page and "<script>" not in page
