"""Variant maps: the registry, the corrected data, consistency, tokens, the CLI.

Every variant of ``maps/data/`` loads, its map is consistent
(symmetric adjacency, centres, starting units where units can stand), its
representation agrees with the map (docs/protocol.md §4.2, §6.5), and its data is
the reference archive with ``maps/data/CORRECTIONS.diff`` applied.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from daide.cli import main
from engine.mapfiles import DATA_DIR, bundled_corrections, load_archive, map_from_mdf
from engine.tokens import (
    category_of,
    derived_representation,
    language_shadows,
    representation_faults,
)
from engine.variants import (
    UnknownVariant,
    VariantError,
    standard_map,
    variant_files,
    variant_map,
    variant_names,
)
from engine.variants import load_variant as server_variant
from maps import MapError
from maps.corrections import CorrectionError, parse_diff
from protocol.frames import RepresentationMessage, build_frame, parse_frames
from protocol.text import render_text, tree_from_text
from protocol.tokens import STANDARD, Representation, is_province, is_supply_centre
from protocol.tree import to_tree

ROOT = Path(__file__).resolve().parent.parent
# The reference server's variant archive as shipped (provenance: tests/data/README.md).
ARCHIVE = ROOT / "tests" / "data" / "variant-archive"

# name -> (powers, provinces, supply centres, first phase, RM entries or 0 for an empty RM)
EXPECTED = {
    "1898": (7, 75, 34, ("SPR", 1899), 0),
    "1900": (7, 75, 34, ("WIN", 1900), 0),
    "abstraction2": (7, 118, 46, ("SPR", 1901), 125),
    "african2": (6, 77, 36, ("SPR", 1901), 83),
    "americas4": (10, 172, 61, ("SPR", 1845), 182),
    "balkans": (7, 75, 34, ("WIN", 1900), 82),
    "chromatic": (5, 56, 21, ("SPR", 1901), 61),
    "classical": (5, 117, 35, ("SPR", 1050), 122),
    "fleet_rome": (7, 75, 34, ("SPR", 1901), 0),
    "greece": (7, 68, 34, ("SPR", 1901), 75),
    "hundred3": (3, 41, 17, ("SPR", 1901), 44),
    "hundred31": (3, 41, 17, ("SPR", 1901), 44),
    "hundred32": (3, 41, 17, ("SPR", 1901), 44),
    "iberian2": (5, 59, 27, ("SPR", 1901), 64),
    "modern": (10, 141, 64, ("SPR", 1995), 151),
    "pure": (7, 7, 7, ("SPR", 1901), 14),
    "rise_and_fall2": (12, 83, 41, ("SPR", 1001), 95),
    "sailho": (4, 60, 16, ("SPR", 1901), 64),
    "sam53": (5, 59, 28, ("SPR", 1901), 64),
    "shift_around": (7, 75, 34, ("SPR", 1901), 0),
    "south_america32": (4, 48, 24, ("SPR", 1901), 52),
    "south_america51": (5, 54, 24, ("SPR", 1901), 59),
    "south_east_asia3": (7, 78, 33, ("SPR", 1901), 85),
    "standard": (7, 75, 34, ("SPR", 1901), 0),
    "versailles3": (7, 97, 43, ("SPR", 1901), 104),
    "world3": (17, 195, 86, ("SPR", 1901), 212),
}


def test_the_registry_holds_the_26_variants_of_the_archive() -> None:
    assert variant_names() == tuple(sorted(EXPECTED))
    archive_stems = {p.stem.lower() for p in ARCHIVE.iterdir() if p.suffix.lower() == ".mdf"}
    assert set(variant_names()) == archive_stems


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_variant_loads_with_its_sizes(name: str) -> None:
    m = variant_map(name)
    powers, provinces, centres, start, rm_entries = EXPECTED[name]
    assert (len(m.powers), len(m.provinces), len(m.supply_centres), m.start_phase) == (
        powers, provinces, centres, start)
    assert m.name == name
    rep = variant_files(name).rep
    assert rep.is_standard == (rm_entries == 0)
    if rm_entries:
        assert len(rep.entries) == rm_entries == len(m.powers) + len(m.provinces)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_variant_map_is_consistent(name: str) -> None:
    m = variant_map(name)
    # Every MDF of the archive is symmetric once corrected (americas4's ARC was not).
    assert m.asymmetries() == []
    # Centres: home centres and neutral ones partition the supply centres.
    homes = {c for cs in m.home_centres.values() for c in cs}
    assert homes | set(m.neutral_centres) == set(m.supply_centres)
    assert not homes & set(m.neutral_centres)
    assert m.victory_centres == len(m.supply_centres) // 2 + 1
    assert all(m.provinces[c].supply_centre for c in m.supply_centres)
    for centre, owner in m.start_ownership.items():
        assert m.province(centre).supply_centre and owner in m.powers
    # Starting units stand where their kind may stand, one per province.
    assert len({u.province for u in m.start_units}) == len(m.start_units)
    for u in m.start_units:
        assert u.power in m.powers
        pid = m.ids[u.province]
        if u.kind == "AMY":
            assert m.provinces[pid].is_land and u.coast is None
        else:
            assert m.location(u.province, u.coast) in m.fleet_locs[pid]
    # A variant that starts with moves has units for every power.
    if m.start_phase[0] == "SPR":
        assert {u.power for u in m.start_units} == set(m.powers)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_representation_agrees_with_its_map(name: str) -> None:
    m = variant_map(name)
    rep = variant_files(name).rep
    assert representation_faults(m, rep) == ()
    assert rep.powers() == m.powers or rep.is_standard
    for p in m.provinces:
        token = rep.value(p.mnemonic)
        assert is_province(token) and token >> 8 == category_of(m, p.mnemonic)
        assert is_supply_centre(token) == p.supply_centre
    # Only sailho keeps a language mnemonic (NAR, see maps/data/CORRECTIONS.md).
    assert language_shadows(rep) == (("NAR",) if name == "sailho" else ())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_server_variant_sends_the_maps_own_mdf_and_rm(name: str) -> None:
    variant = server_variant(name.upper())
    assert variant is server_variant(name.upper()) and variant.name == name.upper()
    assert variant.map is variant_map(name) and variant.rep is variant_files(name).rep
    # The MDF the server sends, read back as a client would, is the same map.
    tree = to_tree(variant.mdf.to_tokens(variant.rep), variant.rep)
    again = map_from_mdf(tree, name=name, rep=variant.rep)
    assert again.army_adj == variant.map.army_adj and again.fleet_adj == variant.map.fleet_adj
    assert again.home_centres == variant.map.home_centres
    # The RM round-trips through its bytes.
    rm = RepresentationMessage.for_representation(variant.rep)
    (frame,), rest = parse_frames(build_frame(rm))
    assert rest == b""
    assert isinstance(frame, RepresentationMessage) and frame.representation() == variant.rep


def test_the_standard_variant_is_the_reference_map_with_an_empty_rm() -> None:
    variant = server_variant("Standard")
    assert variant.name == "STANDARD" and variant.rep is STANDARD
    assert build_frame(RepresentationMessage.for_representation(variant.rep)) == bytes.fromhex(
        "01000000")
    reference = (ROOT / "tests" / "data" / "protocol" / "standard.mdf.txt").read_text().splitlines()
    mdf_line = next(line for line in reference if line.startswith("MDF"))
    assert render_text(variant.mdf.to_tokens()) == mdf_line


def test_the_archive_standard_files_describe_the_standard_map() -> None:
    archive = load_archive(ARCHIVE, "STANDARD", strict=True).map
    ours = variant_map("standard")
    assert archive.army_adj == ours.army_adj and archive.fleet_adj == ours.fleet_adj
    assert archive.start_units == ours.start_units
    assert dict(archive.start_ownership) == dict(ours.start_ownership)
    assert archive.home_centres == ours.home_centres


def test_the_unfinished_archive_variant_is_completed_from_its_own_structure() -> None:
    """rise_and_fall2 (maps/data/CORRECTIONS.md, correction 7): the three centres the
    archive left without neighbours get them, and every link goes both ways."""
    m = variant_map("Rise_and_Fall2")
    army = {m.provinces[p].mnemonic: {m.provinces[q].mnemonic for q in qs}
            for p, qs in enumerate(m.army_adj)}
    assert army["SIE"] == {"ASE"} and army["SPS"] == {"SPA", "POR"} and army["SAR"] == set()
    assert army["ASC"] == {"ASW", "ASE"} and "ASW" in army["SEV"] and "ASW" in army["MOS"]
    assert m.fleet_can_move("SAR", "TYS") and m.fleet_can_move("WES", "SPS")
    assert [(u.power, u.kind, u.province, u.coast) for u in m.start_units
            if u.power == "VIK"] == [("VIK", "FLT", "STP", "SCS")]
    # As the archive has it (POR and SWE, correction 6, left out): not a map at all.
    with pytest.raises(MapError, match="unknown province SWE in the adjacencies of BAL"):
        load_archive(ARCHIVE, "Rise_and_Fall2")


def test_an_unknown_variant_is_a_one_line_error() -> None:
    with pytest.raises(UnknownVariant) as info:
        variant_map("nosuch")
    text = str(info.value)
    assert "\n" not in text and text.startswith("unknown variant 'nosuch' (known: 1898, 1900, ")
    with pytest.raises(VariantError, match="^unknown variant 'nosuch'"):
        server_variant("nosuch")


def test_variant_names_are_case_insensitive() -> None:
    assert variant_map("AFRICAN2") is variant_map("african2") is variant_map(" African2 ")
    assert variant_map("STANDARD") is standard_map()


# --- the data is the archive with the corrections applied ---------------------------------

NAMES_SOURCE = {"hundred31": "hundred3", "hundred32": "hundred3"}
STANDARD_BOARD_NAMES = {"1898", "1900", "balkans", "fleet_rome", "pure", "shift_around"}


def _archive_files(name: str) -> dict[str, Path]:
    return {p.suffix.lower(): p for p in ARCHIVE.iterdir() if p.stem.lower() == name}


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n != "standard"))
def test_data_files_are_the_archive_with_the_corrections(name: str) -> None:
    patches = bundled_corrections()
    for suffix, path in _archive_files(name).items():
        text = path.read_text(encoding="latin-1")
        patch = patches.get(path.name.lower())
        expected = (patch.apply(text) if patch is not None
                    else "\n".join(line.rstrip() for line in text.splitlines()) + "\n")
        assert (DATA_DIR / name / f"{name}{suffix}").read_text(encoding="utf-8") == expected
    nam = ARCHIVE / "names" / f"{NAMES_SOURCE.get(name, name)}.nam"
    ours = DATA_DIR / name / "names.nam"
    if nam.exists():
        lines = [line.rstrip() for line in nam.read_text(encoding="utf-8").splitlines()]
        assert ours.read_text(encoding="utf-8") == "\n".join(lines) + "\n"
    elif name in STANDARD_BOARD_NAMES:
        standard = (ARCHIVE / "names" / "standard.nam").read_text(encoding="utf-8").splitlines()
        assert set(ours.read_text(encoding="utf-8").splitlines()) <= {s.rstrip() for s in standard}
    else:
        assert not ours.exists()


def test_every_correction_is_used_and_named_after_an_archive_file() -> None:
    archive = {p.name.lower() for p in ARCHIVE.iterdir()}
    assert set(bundled_corrections()) <= archive
    assert {"african2.mdf", "americas4.mdf", "greece.rem", "pure.rem", "sam53.rem",
            "rise_and_fall2.mdf"} <= set(bundled_corrections())


def test_the_archive_as_it_is_has_the_faults_the_corrections_cure() -> None:
    with pytest.raises(MapError) as info:
        load_archive(ARCHIVE, "AFRICAN2", strict=True)
    assert str(info.value).endswith("AFRICAN2.REM: category byte contradicts the map for "
                                    "ITA 0x5219, MAD 0x5324, SPA 0x5325")
    with pytest.raises(MapError, match=r"americas4\.mdf: army adjacency ARC->BEA leads to sea$"):
        load_archive(ARCHIVE, "americas4")
    fixed = load_archive(ARCHIVE, "AFRICAN2", corrections=bundled_corrections(), strict=True)
    ours = variant_files("african2")
    assert fixed.map.army_adj == ours.map.army_adj and fixed.map.fleet_adj == ours.map.fleet_adj
    assert fixed.rep == ours.rep and ours.rep is not None and ours.rep.value("EGY") == 0x553B
    assert ours.rep.value("ITA") == 0x5419  # was 0x5219: a sea token for a coastal province


def test_names_come_from_the_names_files() -> None:
    assert variant_map("african2").province("EGY").name == "Egypt"
    assert variant_map("iberian2").province("GAS").name == "Gascuña"
    assert variant_map("hundred32").power_names["BUR"] == "Burgundy"
    assert variant_map("balkans").province("STP").name == "St. Petersburg"
    assert variant_map("greece").province("CYP").name == "CYP"


# --- tokens of a map that came without a representation --------------------------------------


def test_a_map_without_tokens_derives_them() -> None:
    assert derived_representation(variant_map("fleet_rome")) is STANDARD
    hundred = variant_map("hundred3")
    derived = derived_representation(hundred)
    assert not derived.is_standard and representation_faults(hundred, derived) == ()
    assert set(derived.entries) != set(variant_files("hundred3").rep.entries)  # another numbering


def test_representation_faults_name_what_disagrees() -> None:
    m = variant_map("hundred3")
    rep = variant_files("hundred3").rep
    wrong = Representation.from_entries(
        [(v if m_ != "PAL" else 0x5200 | (v & 0xFF), m_) for v, m_ in rep.entries])
    assert representation_faults(m, wrong) == (
        f"category byte contradicts the map for PAL 0x52{rep.value('PAL') & 0xFF:02X}",)
    assert representation_faults(m, STANDARD)[0].startswith("powers BUR are not standard tokens")


# --- the corrections format --------------------------------------------------------------


def test_corrections_apply_change_add_and_delete_hunks() -> None:
    patches = parse_diff(
        "diff old/x.mdf new/x.mdf\n2c2\n< two\n---\n> TWO\n3a4,5\n> new a\n> new b\n"
        "5,6d6\n< five\n< six\n"
    )
    assert patches["x.mdf"].apply("one\ntwo\nthree\nfour\nfive\nsix\nseven\n") == (
        "one\nTWO\nthree\nnew a\nnew b\nfour\nseven\n")


def test_a_correction_that_does_not_fit_is_an_error() -> None:
    patch = parse_diff("diff a/y.rem b/y.rem\n1c1\n< 5219:Ita\n---\n> 5419:Ita\n")["y.rem"]
    with pytest.raises(CorrectionError, match="^y.rem: line 1 is '5319:Ita', the correction "
                                              "expects '5219:Ita'$"):
        patch.apply("5319:Ita\n")
    # A line already corrected (mnemonics are case-insensitive) is accepted.
    assert patch.apply("5419:ITA\r\n") == "5419:Ita\n"
    with pytest.raises(CorrectionError, match="expected a diff command"):
        parse_diff("diff a b\nnonsense\n")


# --- the command line ----------------------------------------------------------------------


def test_daide_variants_lists_every_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(variant_names())
    assert ("hundred3           3 powers   41 provinces  17 centres (solo  9)  SPR 1901  "
            "RM full 44") in lines
    assert "standard           7 powers   75 provinces  34 centres (solo 18)  SPR 1901  RM empty" \
        in lines
    assert ("rise_and_fall2    12 powers   83 provinces  41 centres (solo 21)  SPR 1001  "
            "RM full 95") in lines


def test_daide_variants_shows_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants", "Hundred3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "variant hundred3: MAP ( 'HUNDRED3' ), RM full 44"
    # Every centre of Hundred is a home centre of all three powers (one shared group).
    assert out[2] == ("  BUR  Burgundy         homes BRT CAL CAN CAS DAU DEV DIJ FLA GUY HOL "
                      "LON LUX NMD ORL PAR SCT TOU; 4 units")
    assert main(["variants", "sailho"]) == 0
    assert "NAR is a language token too" in capsys.readouterr().out


def test_daide_variants_check_reports_the_archive_faults(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variants", "--check", str(ARCHIVE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 26
    assert "STANDARD: ok" in lines
    assert any(line.startswith("greece: ") and line.endswith("ZYK 0x531F; corrected: ok")
               for line in lines)
    broken = next(line for line in lines if line.startswith("Rise_and_Fall2: "))
    assert "unknown province SWE in the adjacencies of BAL; corrected: ok" in broken


@pytest.mark.parametrize("command", [["variants", "nosuch"],
                                     ["variants", "--check", "/nonexistent/nosuch"],
                                     ["serve", "--variant", "nosuch", "--port", "0"],
                                     ["adjudicate", "--variant", "nosuch", os.devnull]])
def test_unknown_or_broken_variants_are_one_line_errors(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if command[0] == "serve":
        command = [*command, "--db", str(tmp_path / "x.db")]
    assert main(command) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"daide {command[0]}: error: ")
    assert "nosuch" in err[0]
    assert not (tmp_path / "x.db").exists()


def test_daide_adjudicate_plays_a_variant(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    block = tmp_path / "block.txt"
    block.write_text("SCO ( BUR DIJ ) ( FRA PAR )\n"
                     "NOW ( SPR 1901 ) ( BUR AMY DIJ ) ( FRA AMY PAR )\n"
                     "SUB ( ( BUR AMY DIJ ) MTO CHA ) ( ( FRA AMY PAR ) MTO CHA )\n")
    assert main(["adjudicate", "--variant", "HUNDRED3", str(block)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["ORD ( SPR 1901 ) ( ( BUR AMY DIJ ) MTO CHA ) ( BNC )",
                       "ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO CHA ) ( BNC )"]
    assert out[2].startswith("SCO ( BUR DIJ ) ( FRA PAR ) ( UNO ")
    assert out[3] == "NOW ( FAL 1901 ) ( BUR AMY DIJ ) ( FRA AMY PAR )"


def test_every_map_text_parses_with_its_own_tokens() -> None:
    for name in EXPECTED:
        rep = variant_files(name).rep
        for suffix in (".mdf", ".now", ".sco"):
            text = (DATA_DIR / name / f"{name}{suffix}").read_text(encoding="utf-8")
            tree_from_text(" ".join(text.split()), rep)  # raises on an unknown mnemonic
