"""The standard map loaded from its MDF matches the reference counts (docs/protocol.md §11)."""

from __future__ import annotations

from pathlib import Path

import pytest

import maps
from engine.mapfiles import DATA_DIR, map_from_mdf, map_from_text
from engine.variants import standard_map
from maps import Map, MapError, ProvinceKind, build_map
from protocol.tokens import ProvinceCategory, Representation

# The reference server's standard MDF/NOW/SCO (provenance: tests/data/README.md).
REFERENCE = Path(__file__).resolve().parent / "data" / "protocol" / "standard.mdf.txt"


@pytest.fixture(scope="module")
def std() -> Map:
    return standard_map()


def test_counts(std: Map) -> None:
    assert std.powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
    assert len(std.provinces) == 75
    assert len(std.supply_centres) == 34
    assert sum(len(h) for h in std.home_centres.values()) == 22
    assert len(std.neutral_centres) == 12
    assert len(std.provinces) - len(std.supply_centres) == 41
    assert std.adjacency_list_count() == 120
    assert std.victory_centres == 18


def test_adjacency_symmetric_and_connection_counts(std: Map) -> None:
    assert std.asymmetries() == []
    assert sum(len(a) for a in std.army_adj) // 2 == 111
    assert sum(len(a) for a in std.fleet_adj) // 2 == 141


def test_home_centres(std: Map) -> None:
    def names(ids: tuple[int, ...]) -> list[str]:
        return [std.provinces[i].mnemonic for i in ids]

    assert names(std.home_centres["RUS"]) == ["MOS", "SEV", "STP", "WAR"]
    assert names(std.home_centres["ENG"]) == ["EDI", "LON", "LVP"]
    assert names(std.neutral_centres) == [
        "BEL",
        "BUL",
        "DEN",
        "GRE",
        "HOL",
        "NWY",
        "POR",
        "RUM",
        "SER",
        "SPA",
        "SWE",
        "TUN",
    ]
    assert std.province("STP").homes == ("RUS",)
    assert std.province("BEL").homes == ()


def test_kinds_and_names(std: Map) -> None:
    kinds = {k: sum(1 for p in std.provinces if p.kind is k) for k in ProvinceKind}
    assert kinds == {
        ProvinceKind.INLAND: 14,
        ProvinceKind.SEA: 19,
        ProvinceKind.COASTAL: 39,
        ProvinceKind.BICOASTAL: 3,
    }
    assert std.province("STP").coasts == ("NCS", "SCS")
    assert std.province("BUL").coasts == ("ECS", "SCS")
    assert std.province("MAO").name == "Mid-Atlantic Ocean"
    assert std.province("STP").name == "St Petersburg"
    assert std.power_names["TUR"] == "Turkey"
    assert [p.id for p in std.provinces] == list(range(75))
    assert [p.mnemonic for p in std.provinces] == sorted(p.mnemonic for p in std.provinces)


def test_adjacency_queries(std: Map) -> None:
    assert std.army_can_move("MUN", "BER")
    assert not std.army_can_move("MUN", "NTH")
    assert std.fleet_can_move("MAO", "SPA", dst_coast="NCS")
    assert std.fleet_can_move("MAO", "SPA", dst_coast="SCS")
    assert not std.fleet_can_move("GOL", "SPA", dst_coast="NCS")
    assert std.fleet_can_move("STP", "BAR", src_coast="NCS")
    assert not std.fleet_can_move("STP", "GOB", src_coast="NCS")
    assert std.fleet_can_move("CON", "BUL", dst_coast="ECS")
    gre = std.location("GRE")
    assert std.ids["BUL"] in std.fleet_reach[gre]
    assert std.location("BUL", "ECS") not in std.fleet_adj[gre]
    # Norway - St Petersburg is adjacent for armies and (north coast) fleets (DATC 4).
    assert std.army_can_move("NWY", "STP")
    assert std.fleet_can_move("NWY", "STP", dst_coast="NCS")
    # Liverpool touches the North Atlantic, Clyde does not touch the Irish Sea.
    assert std.fleet_can_move("LVP", "NAO")
    assert not std.fleet_can_move("CLY", "IRI")
    with pytest.raises(KeyError):
        std.location("STP", "WCS")


def test_starting_position(std: Map) -> None:
    assert std.start_phase == ("SPR", 1901)
    assert len(std.start_units) == 22
    stp = [u for u in std.start_units if u.province == "STP"]
    assert stp == [maps.StartUnit("RUS", "FLT", "STP", "SCS")]
    assert len(std.start_ownership) == 22
    assert std.start_ownership["WAR"] == "RUS"
    assert "SER" not in std.start_ownership


def test_data_files_match_reference() -> None:
    reference = REFERENCE.read_text().splitlines()
    for kind in ("mdf", "now", "sco"):
        line = (DATA_DIR / "standard" / f"standard.{kind}").read_text().strip()
        assert line in reference


def test_map_from_tree_matches_text_loader(std: Map) -> None:
    from protocol.text import tree_from_text

    text = (DATA_DIR / "standard" / "standard.mdf").read_text()
    built = map_from_mdf(tree_from_text(text))
    assert built.army_adj == std.army_adj
    assert built.fleet_adj == std.fleet_adj
    assert built.start_units == ()  # no NOW given


def _places(*names: str | tuple[str, str]) -> list[tuple[str, str | None]]:
    return [(n, None) if isinstance(n, str) else n for n in names]


TINY = dict(
    powers=("AAA", "BBB"),
    centres=[(("AAA",), ("ONE",)), (("BBB",), ("TWO",)), ((), ("THR",))],
    non_centres=("SEA", "INL"),
    adjacencies=[
        ("ONE", [("AMY", None, _places("TWO", "INL")),
                 ("FLT", None, _places("SEA", ("TWO", "NCS")))]),
        ("TWO", [("AMY", None, _places("ONE", "THR", "INL")),
                 ("FLT", "NCS", _places("SEA", "ONE")),
                 ("FLT", "SCS", _places("THR"))]),
        ("THR", [("AMY", None, _places("TWO")), ("FLT", None, _places(("TWO", "SCS"), "SEA"))]),
        ("SEA", [("FLT", None, _places("ONE", ("TWO", "NCS"), "THR"))]),
        ("INL", [("AMY", None, _places("ONE", "TWO"))]),
    ],
)


def test_tiny_map_from_plain_geography() -> None:
    m = build_map(**TINY, name="tiny")  # type: ignore[arg-type]
    assert m.province("TWO").kind is ProvinceKind.BICOASTAL
    assert m.province("INL").kind is ProvinceKind.INLAND
    assert m.province("SEA").kind is ProvinceKind.SEA
    assert m.province("ONE").homes == ("AAA",)
    assert m.victory_centres == 2
    assert m.fleet_can_move("TWO", "THR", src_coast="SCS")
    assert not m.fleet_can_move("TWO", "THR", src_coast="NCS")
    assert m.asymmetries() == []
    assert m.location_count == 7


def test_bad_mdf_is_rejected() -> None:
    with pytest.raises(MapError):
        map_from_mdf(("MDF", ("AAA",), ((("AAA", "ONE"),), ()), ()))
    with pytest.raises(MapError):
        map_from_mdf(("NOW",))
    with pytest.raises(MapError, match="^provinces LON have no adjacency entry$"):
        map_from_mdf(("MDF", ("ENG",), ((("ENG", "LON"),), ("YOR",)), (("YOR", ("AMY", "LON")),)))


def test_inconsistent_geography_is_rejected() -> None:
    def without(province: str) -> dict[str, object]:
        return dict(TINY, adjacencies=[a for a in TINY["adjacencies"] if a[0] != province])

    with pytest.raises(MapError, match="^provinces INL have no adjacency entry$"):
        build_map(**without("INL"))  # type: ignore[arg-type]
    sea_army = dict(TINY, adjacencies=[*without("INL")["adjacencies"],  # type: ignore[misc]
                                       ("INL", [("AMY", None, _places("SEA"))])])
    with pytest.raises(MapError, match="^army adjacency INL->SEA leads to sea$"):
        build_map(**sea_army)  # type: ignore[arg-type]


def test_map_from_text_reads_lowercase_variant_style() -> None:
    m = map_from_text(
        "MDF (AUS) (((AUS one)(UNO two)) (sea)) "
        "((one(AMY two)(FLT sea two))(two(AMY one)(FLT one sea))(sea(FLT one two)))",
        "NOW (SPR 1901) (AUS AMY ONE)",
        "SCO (AUS ONE) (UNO TWO)",
        name="mini",
        rep=Representation.for_variant(
            ["AUS"],
            [
                ("ONE", ProvinceCategory.COASTAL, True),
                ("TWO", ProvinceCategory.COASTAL, True),
                ("SEA", ProvinceCategory.SEA, False),
            ],
        ),
    )
    assert m.start_ownership == {"ONE": "AUS"}
    assert m.start_units[0].province == "ONE"
