"""The press-token table: levels, TRY vocabulary and trimming, disputed numbering."""

from __future__ import annotations

import pytest

from protocol.errors import UnknownTokenError
from protocol.press import (
    Cancel,
    Draw,
    Fact,
    Forwarded,
    NotUnderstood,
    Propose,
    SendPress,
    SendRequest,
    Try,
    parse_press,
    parse_send,
    trim_try,
)
from protocol.press_tokens import (
    PRESS_LEVELS,
    TOKEN_LEVELS,
    TRY_VOCABULARY,
    PressNumbering,
    press_representation,
    press_token_overrides,
    token_level,
    trim_try_tokens,
)
from protocol.text import parse_text, render_text, tree_from_text
from protocol.tokens import STANDARD, TOKEN_INFO, ProvinceCategory, Representation
from protocol.tree import from_tree, to_tree

# docs/protocol.md §16.5: the documented TRY words of level 10 (with Parlance's
# NAR, CCL, FCT) and the higher-level words that may be listed.
LEVEL_10_TRY = "PRP PCE ALY VSS DRW SLO NOT YES REJ BWX NAR CCL FCT".split()
HIGHER_TRY = (
    "XDO DMZ AND ORR SCD OCC CHO INS QRY THK FCT IDK SUG WHT HOW EXP SRY FOR IFF THN ELS "
    "XOY YDO FRM FWD BCC SND POB WHY"
).split()


def test_every_documented_try_word_is_in_the_vocabulary() -> None:
    assert set(LEVEL_10_TRY) | set(HIGHER_TRY) | {"TRY", "HUH", "UNT"} == TRY_VOCABULARY
    assert all(TOKEN_LEVELS[w] == 10 for w in LEVEL_10_TRY)


@pytest.mark.parametrize(
    "word,level",
    [
        ("XDO", 20), ("DMZ", 20), ("AND", 30), ("ORR", 30), ("SCD", 40), ("OCC", 40),
        ("UNT", 40), ("CHO", 50), ("INS", 60), ("QRY", 60), ("THK", 60), ("IDK", 60),
        ("SUG", 60), ("WHT", 70), ("HOW", 70), ("EXP", 80), ("SRY", 80), ("FOR", 90),
        ("IFF", 100), ("THN", 100), ("ELS", 100), ("XOY", 110), ("YDO", 110), ("SND", 120),
        ("FWD", 120), ("BCC", 120), ("FRM", 120), ("WHY", 130), ("POB", 130),
    ],
)  # fmt: skip
def test_levels_follow_the_table_of_16_3(word: str, level: int) -> None:
    assert token_level(word) == level


def test_every_press_category_token_has_a_level_except_the_obsolete_ones() -> None:
    press_words = {t.mnemonic for t in TOKEN_INFO.values() if t.value >> 8 == 0x4A}
    # IOU, PPT, UOM were removed in revision 14 (docs/protocol.md §6.7).
    assert press_words - set(TOKEN_LEVELS) == {"IOU", "PPT", "UOM"}
    assert PRESS_LEVELS == (0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 8000)


def test_trim_try_tokens_drops_the_withdrawn_tokens_at_every_level() -> None:
    # IOU, PPT, UOM may be received in a TRY list, never sent (docs/protocol.md §6.7).
    words = ("PRP", "IOU", "PPT", "UOM", "FCT")
    assert trim_try_tokens(words, 8000) == ("PRP", "FCT")
    assert trim_try_tokens(words, 0) == ()


def test_trim_try_tokens_keeps_order_and_drops_higher_words() -> None:
    words = ("WHY", "PRP", "XDO", "AND", "FCT", "POB", "YES")
    assert trim_try_tokens(words, 0) == ()
    assert trim_try_tokens(words, 10) == ("PRP", "FCT", "YES")
    assert trim_try_tokens(words, 25) == ("PRP", "XDO", "FCT", "YES")
    assert trim_try_tokens(words, 130) == words


def test_trim_try_reaches_nested_lists_and_leaves_the_rest_alone() -> None:
    full = ("PRP", "XDO", "AND", "WHY")
    msg = Forwarded(
        "ENG",
        ("FRA",),
        Cancel(Propose(SendRequest("GER", ("RUS",), Try(full)))),
    )
    trimmed = trim_try(msg, 20)
    assert trimmed == Forwarded(
        "ENG", ("FRA",), Cancel(Propose(SendRequest("GER", ("RUS",), Try(("PRP", "XDO")))))
    )
    # Nothing to trim: the very same object comes back.
    assert trim_try(msg, 130) is msg
    plain = Fact(SendRequest("GER", ("RUS",), Try(("PRP",))))
    assert trim_try(plain, 10) is plain
    # A HUH quotes the received message verbatim: never edited.
    huh = NotUnderstood(("ERR", "TRY", ("WHY",)))
    assert trim_try(huh, 10) is huh


def test_delivery_trims_try_and_drops_the_turn() -> None:
    """docs/protocol.md §16.1: FRM carries the recipient list as sent, no turn, TRY trimmed."""
    snd = parse_send(tree_from_text("SND ( SPR 1901 ) ( FRA GER ) ( TRY ( PRP XDO WHY ) )"))
    assert isinstance(snd, SendPress)
    frm = snd.delivery("ENG", 20)
    assert render_text(from_tree(frm.nodes())) == "FRM ( ENG ) ( FRA GER ) ( TRY ( PRP XDO ) )"
    frm0 = SendPress(("FRA",), Try(("WHY",))).delivery("ENG", 10)
    assert render_text(from_tree(frm0.nodes())) == "FRM ( ENG ) ( FRA ) ( TRY ( ) )"


# --- numbering of the disputed tokens (docs/protocol.md §6.7) ---------------------------


def test_overrides_per_numbering() -> None:
    assert press_token_overrides(PressNumbering.DAIDE) == {}
    assert press_token_overrides(PressNumbering.PARLANCE) == {
        0x4A07: "FCT",
        0x4A08: "FOR",
        0x4A06: "FWD",
    }
    assert press_token_overrides(PressNumbering.MILA) == {0x4A26: "CCL", 0x4A25: "NAR"}


def test_daide_numbering_is_the_token_table() -> None:
    assert press_representation(STANDARD) is STANDARD
    assert parse_text("FCT FOR FWD CCL NAR") == (0x4A06, 0x4A07, 0x4A08, 0x4A25, 0x4A26)


@pytest.mark.parametrize(
    "numbering,expected",
    [
        (PressNumbering.PARLANCE, (0x4A07, 0x4A08, 0x4A06, 0x4A25, 0x4A26)),
        (PressNumbering.MILA, (0x4A06, 0x4A07, 0x4A08, 0x4A26, 0x4A25)),
    ],
)
def test_switched_numbering_moves_only_the_disputed_tokens(
    numbering: PressNumbering, expected: tuple[int, ...]
) -> None:
    rep = press_representation(STANDARD, numbering)
    assert parse_text("FCT FOR FWD CCL NAR", rep) == expected
    assert render_text(expected, rep) == "FCT FOR FWD CCL NAR"
    # Everything else is as in the standard representation.
    same = {v: m for v, m in STANDARD.names.items() if m not in {"FCT", "FOR", "FWD", "CCL", "NAR"}}
    assert {v: m for v, m in rep.names.items() if v in same} == same
    assert len(rep.names) == len(STANDARD.names)
    assert rep.is_standard


def test_parlance_bot_press_decodes_to_the_same_typed_message() -> None:
    """A Parlance bot's ``FCT (DRW)`` is 4A07 ...; read with the switched table
    it is the same value our numbering sends as 4A06."""
    parlance = press_representation(STANDARD, PressNumbering.PARLANCE)
    wire = (0x4A07, 0x4000, 0x4801, 0x4001)
    msg = parse_press(to_tree(wire, parlance), rep=parlance)
    assert msg == Fact(Draw()) == parse_press(tree_from_text("FCT ( DRW )"))
    assert from_tree(msg.nodes()) == (0x4A06, 0x4000, 0x4801, 0x4001)
    assert from_tree(msg.nodes(), parlance) == wire
    # Read with the project's numbering the same bytes are FOR ( DRW ): a HUH.
    assert to_tree(wire) == ("FOR", ("DRW",))


def test_variant_map_shadowing_a_press_word_keeps_its_province() -> None:
    """americas4 names a province NAR; MILA numbering moves CCL but not that NAR."""
    base = Representation.for_variant(["AAA", "BBB"], [("NAR", ProvinceCategory.COASTAL, True)])
    rep = press_representation(base, PressNumbering.MILA)
    assert rep.values["NAR"] == base.values["NAR"]
    assert rep.values["CCL"] == 0x4A26
    with pytest.raises(UnknownTokenError):
        to_tree((0x4A25,), rep)  # the language NAR has no mnemonic on this map
