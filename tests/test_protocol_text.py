"""Tokens, the tree and the text form: golden vectors and round trips."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import BracketError, EncodeError, TextSyntaxError, UnknownTokenError
from protocol.text import parse_text, render_text, tree_from_text, tree_to_text
from protocol.tokens import (
    STANDARD,
    ProvinceCategory,
    Representation,
    decode_int,
    encode_int,
    is_supply_centre,
    province_kind,
    text_to_tokens,
    tokens_to_text,
)
from protocol.tree import Text, bytes_to_tokens, from_tree, to_tree, tokens_to_bytes

DATA = Path(__file__).parent / "data" / "protocol" / "standard.mdf.txt"


def _golden() -> list[tuple[str, int | None, str | None]]:
    """(line, body length, sha256) for every message line of standard.mdf.txt.

    The length/digest come from the nearest preceding comment that states them.
    """
    out: list[tuple[str, int | None, str | None]] = []
    length: int | None = None
    digest: str | None = None
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("# ----") or not line.strip():
            continue
        if line.startswith("#"):
            m = re.search(r"body\s*=?\s*(\d+) bytes", line)
            if m:
                length, digest = int(m.group(1)), None
            m = re.search(r"sha256 ([0-9a-f]{64})", line)
            if m:
                digest = m.group(1)
            continue
        out.append((line, length, digest))
        length = digest = None
    return out


GOLDEN = _golden()


def test_golden_file_has_the_expected_vectors() -> None:
    with_digest = [g for g in GOLDEN if g[2]]
    kinds = {line.split()[0] for line, _, _ in with_digest}
    assert kinds == {"MAP", "MDF", "HLO", "SCO", "NOW"}
    assert len(GOLDEN) == 10


@pytest.mark.parametrize("line,length,digest", GOLDEN, ids=[g[0][:12] for g in GOLDEN])
def test_golden_lines_encode_and_render_back(
    line: str, length: int | None, digest: str | None
) -> None:
    tokens = parse_text(line)
    body = tokens_to_bytes(tokens)
    if length is not None:
        assert len(body) == length
    if digest is not None:
        assert hashlib.sha256(body).hexdigest() == digest
    assert bytes_to_tokens(body) == tokens
    assert render_text(tokens) == line
    assert tree_to_text(tree_from_text(line)) == line


def test_hlo_worked_example_bytes() -> None:
    # docs/protocol.md §12a, the captured HLO body.
    body = bytes.fromhex("4804400041064001400000844001400040004903000040014001")
    assert tokens_to_bytes(parse_text("HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )")) == body
    assert to_tree(bytes_to_tokens(body)) == ("HLO", ("TUR",), (132,), (("LVL", 0),))


@pytest.mark.parametrize(
    "n,token",
    [
        (0, 0x0000),
        (1, 0x0001),
        (132, 0x0084),
        (1901, 0x076D),
        (8191, 0x1FFF),
        (-1, 0x3FFF),
        (-8192, 0x2000),
    ],
)
def test_integer_examples(n: int, token: int) -> None:
    assert encode_int(n) == token
    assert decode_int(token) == n


@pytest.mark.parametrize("n", [8192, -8193, 100000])
def test_integer_out_of_range(n: int) -> None:
    with pytest.raises(EncodeError):
        encode_int(n)
    with pytest.raises(EncodeError):
        from_tree(("TME", (n,)))


def test_text_example() -> None:
    assert text_to_tokens("STANDARD") == tuple(
        int(h, 16) for h in "4B53 4B54 4B41 4B4E 4B44 4B41 4B52 4B44".split()
    )


def test_province_categories() -> None:
    stp = STANDARD.value("STP")
    assert stp == 0x574A
    assert province_kind(stp) is ProvinceCategory.BICOASTAL and is_supply_centre(stp)
    assert province_kind(STANDARD.value("NTH")) is ProvinceCategory.SEA
    assert not is_supply_centre(STANDARD.value("BOH"))
    assert province_kind(STANDARD.value("BOH")) is ProvinceCategory.INLAND
    assert len(STANDARD.provinces()) == 75
    assert STANDARD.powers() == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


def test_variant_representation_from_standard_lists_reproduces_standard() -> None:
    provinces = [
        (m, province_kind(v), is_supply_centre(v)) for v, m in STANDARD.entries if v >> 8 >= 0x50
    ]
    rep = Representation.for_variant(list(STANDARD.powers()), list(reversed(provinces)))
    assert rep.entries == STANDARD.entries
    assert rep.is_standard


def test_variant_representation_replaces_standard_tokens() -> None:
    rep = Representation.for_variant(
        ["BRA", "Arg"],
        [("Ams", ProvinceCategory.COASTAL, True), ("ATL", ProvinceCategory.SEA, False)],
    )
    assert rep.entries == ((0x4100, "BRA"), (0x4101, "ARG"), (0x5200, "ATL"), (0x5501, "AMS"))
    # BRA names Brazil here; the standard powers are gone.
    assert tree_from_text("SCO ( bra ams )", rep) == ("SCO", ("BRA", "AMS"))
    with pytest.raises(TextSyntaxError):
        parse_text("SCO ( AUS BUD )", rep)
    with pytest.raises(UnknownTokenError) as info:
        to_tree(parse_text("SCO ( AUS BUD )"), rep)
    # 0x4100 (AUS) is this map's first power, BRA; 0x5107 (BUD) is unknown.
    assert info.value.position == 3


def test_unbalanced_brackets() -> None:
    with pytest.raises(BracketError) as info:
        to_tree(parse_text("IAM ( NOT"))
    assert info.value.position == 3
    with pytest.raises(BracketError) as info:
        to_tree(parse_text("IAM ) NOT ("))
    assert info.value.position == 1


def test_text_parsing_is_lenient_and_rendering_canonical() -> None:
    assert render_text(parse_text("hlo(tur)(132)((lvl 0))")) == "HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )"
    assert render_text(parse_text("ADM('it''s')('x y')")) == "ADM ( 'it''s' ) ( 'x y' )"
    assert tree_from_text("ADM('it''s')('x y')") == ("ADM", (Text("it's"),), (Text("x y"),))


@pytest.mark.parametrize(
    "text,position",
    [
        ("NOW ( SPX 1901 )", 6),
        ("TME ( 9000 )", 6),
        ("ADM ( 'abc )", 6),
        ("NOW 12x", 4),
        ("NOW 0x12", 4),
    ],
)
def test_text_errors_carry_position(text: str, position: int) -> None:
    with pytest.raises(TextSyntaxError) as info:
        parse_text(text)
    assert info.value.position == position
    assert f"column {position + 1}" in str(info.value)


def test_unknown_tokens_render_raw_and_parse_back() -> None:
    tokens = (0x4806, 0x4000, 0x4C05, 0x5800, 0x4001)
    assert render_text(tokens) == "HUH ( 0x4C05 0x5800 )"
    assert parse_text("HUH ( 0x4C05 0x5800 )") == tokens


_token = st.one_of(
    st.integers(0, 0x3FFF),
    st.sampled_from(sorted(STANDARD.names)),
    st.integers(0x4B00, 0x4BFF),
    st.integers(0, 0xFFFF),
)


@given(st.lists(_token, max_size=40).map(tuple))
def test_render_then_parse_is_identity_on_tokens(tokens: tuple[int, ...]) -> None:
    assert parse_text(render_text(tokens)) == tokens


@given(st.lists(st.integers(0x4B00, 0x4BFF), max_size=30).map(tuple))
def test_text_tokens_round_trip_exactly(tokens: tuple[int, ...]) -> None:
    assert text_to_tokens(tokens_to_text(tokens)) == tokens


_leaf = st.one_of(
    st.sampled_from(sorted(STANDARD.values)),
    st.integers(-8192, 8191),
    st.text(min_size=1, max_size=8).map(Text),
)
_node = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=5).map(tuple), max_leaves=30)


@given(st.lists(_node, max_size=6).map(tuple))
def test_tree_round_trip(tree: tuple[object, ...]) -> None:
    # Adjacent Text nodes merge into one run of text tokens, as on the wire.
    tokens = from_tree(tree)  # type: ignore[arg-type]
    again = to_tree(tokens)
    assert from_tree(again) == tokens
    assert to_tree(parse_text(tree_to_text(again))) == again
