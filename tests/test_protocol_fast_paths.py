"""The protocol's fast paths give exactly what the general readers and writers give.

``parse_text``, ``render_text``, ``tree_to_text``, ``parse_message_text`` (the
text straight to a tree for the grammar) and the grammar's ``plain_order`` /
``plain_unit`` / ``plain_turn`` take the common shapes of messages by a
shorter road and hand everything else to the general code
(docs/performance.md).  These tests feed both roads the same seeded mix of
well-formed and broken input - lower case, signs, raw tokens, strings,
unknown words, unbalanced brackets, wrong categories, nodes of other types -
and compare results and errors exactly.  The cache in front of the grammar
(`protocol.reader.MessageReader`) has its own tests, test_protocol_reader.py.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import native
import protocol
from protocol import orders
from protocol.errors import ProtocolError
from protocol.grammar import Fail, Parser
from protocol.parse import Sender, parse_message, parse_message_text
from protocol.text import (
    _WORDS,
    _parse_text,
    _render_text,
    parse_text,
    plain_words,
    render_text,
    tree_to_text,
)
from protocol.tokens import STANDARD, ProvinceCategory, Representation
from protocol.tree import Text, from_tree, to_tree
from tests.protocol_helpers import outcome

MESSAGES = [
    "SUB ( ( AUS AMY VIE ) MTO BUD ) ( ( AUS FLT TRI ) HLD ) ( ( AUS AMY BUD ) SUP ( AUS AMY VIE ) MTO GAL )",
    "SUB ( SPR 1901 ) ( ( RUS FLT ( STP SCS ) ) MTO GOB ) ( ( RUS AMY MOS ) SUP ( RUS AMY WAR ) )",
    "SUB ( ( ENG FLT NTH ) CVY ( ENG AMY YOR ) CTO NWY ) ( ( ENG AMY YOR ) CTO NWY VIA ( NTH ) )",
    "SUB ( ( FRA FLT BRE ) RTO ( SPA NCS ) ) ( ( FRA AMY PAR ) DSB ) ( FRA WVE )",
    "SUB ( ( GER AMY BER ) BLD ) ( ( GER FLT KIE ) REM )",
    "NOW ( FAL 1905 ) ( AUS AMY VIE ) ( RUS FLT ( STP NCS ) ) ( TUR FLT BLA MRT ( ANK ( BUL ECS ) ) )",
    "SCO ( AUS BUD TRI VIE ) ( UNO BEL HOL )",
    "SCO ( AUS ) ( ENG LON ) ( UNO )",
    "ORD ( SPR 1901 ) ( ( AUS AMY VIE ) MTO BUD ) ( BNC RET )",
    "THX ( ( AUS AMY VIE ) MTO BUD ) ( MBV )",
    "MIS ( -2 )",
    "NME ( 'bot''s' ) ( '1.0' )",
    "PRN ( SUB ( ( AUS AMY VIE ) HLD )",
    "HUH ( SUB ERR ( AUS AMY VIE ) )",
    "NOT ( SUB ( ( AUS AMY VIE ) HLD ) )",
    "TME ( 60 )",
    "SUB ((AUS AMY VIE) MTO BUD) ( ( AUS FLT TRI ) HLD)",
    "NOW ( SPR 1901 )( AUS AMY VIE ) (AUS FLT TRI)",
    "SCO (AUS BUD) ( UNO BEL )",
    "SUB ( ( AUS AMY ( STP NCS ) ) HLD ) ( ( RUS FLT ( STP AUS ) ) MTO ( BUL SPR ) )",
    "SUB ( ( AUS AMY VIE ) SUP ( AUS FLT ( STP NCS ) ) MTO ( BUL ECS ) ) ( ( AUS AMY VIE ) MTO )",
    "SUB ( ( AUS FLT ( STP NCS ) ) SUP ( AUS FLT ( BUL ECS ) ) MTO RUM ) ( ( AUS AMY VIE ) SUP ( AUS AMY BUD ) )",
]
EXTRA_WORDS = ["(", ")", "MTO", "AUS", "1901", "-1", "8192", "0x4100", "spr", "XYZ", "'a b'",
               "SUP", "NCS", "FLT", "AMY", "0", "\u00b2", "0123"]


def _mutations(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = list(MESSAGES)
    for _ in range(count):
        words = rng.choice(MESSAGES).replace("(", " ( ").replace(")", " ) ").split()
        for _ in range(rng.randint(0, 3)):
            k = rng.randrange(len(words))
            roll = rng.random()
            if roll < 0.3:
                del words[k]
            elif roll < 0.55:
                words.insert(k, rng.choice(EXTRA_WORDS))
            elif roll < 0.7:
                words[k] = words[k].lower()
            else:
                words[k], words[-1] = words[-1], words[k]
        out.append(rng.choice([" ", "  ", "\t"]).join(words))
    return out




def test_parse_text_equals_the_general_reader(rep: Representation) -> None:
    for text in _mutations(1, 600) + ["BRA VIE ( 8191 )", "( 8192 )", "1\u00b2", ""]:
        assert outcome(parse_text, text, rep) == outcome(_parse_text, text, rep), text


def test_words_are_split_at_the_separators_of_the_text_form(rep: Representation) -> None:
    """Only space, tab, CR, LF, FF and VT separate words (docs/protocol.md §6.8);
    other characters ``str.split`` would split at (0x1C-0x1F, NEL, NBSP, the
    Unicode spaces) are part of a word, which is then unknown."""
    odd = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u3000"]
    for sep in [" ", "\t", "\r", "\n", "\f", "\v", *odd]:
        for text in MESSAGES[:6]:
            joined = text.replace(" ", sep)
            assert plain_words(joined) == _WORDS.findall(joined)
            assert outcome(parse_text, joined, rep) == outcome(_parse_text, joined, rep)
    assert outcome(parse_text, "SPR\x1c1901", rep)[0] == "TextSyntaxError"  # one unknown word


def test_render_text_equals_the_general_writer(rep: Representation) -> None:
    rng = random.Random(2)
    pool = [*rep.names, 0x4000, 0x4001, 0, 1, 8191, 0x2000, 0x3FFF, 0x4B41, 0x4B27, 0x4B20,
            0x5FFF, 0x4999, 0xFFFF]
    for _ in range(3000):
        tokens = tuple(rng.choice(pool) for _ in range(rng.randint(0, 9)))
        assert render_text(tokens, rep) == _render_text(tokens, rep), tokens


def test_tree_to_text_equals_rendering_the_tokens(rep: Representation) -> None:
    rng = random.Random(3)
    nodes = ["SPR", "AUS", "VIE", 1901, -3, 8191, 9000, "xx", Text("a'b"), Text(""), (), ("MTO",),
             True]

    def tree(depth: int = 0) -> tuple[object, ...]:
        return tuple(rng.choice(nodes) if rng.random() < 0.7 or depth > 2 else tree(depth + 1)
                     for _ in range(rng.randint(0, 4)))

    for _ in range(3000):
        t = tree()
        fast = outcome(tree_to_text, t, rep)
        slow = outcome(lambda tree: render_text(from_tree(tree, rep), rep), t)
        assert fast == slow, t


@pytest.mark.parametrize("sender", [Sender.CLIENT, Sender.SERVER])
def test_parse_message_text_equals_the_token_path(rep: Representation, sender: Sender) -> None:
    for text in _mutations(4, 600):
        fast = outcome(parse_message_text, text, rep, sender=sender)
        slow = outcome(lambda t: parse_message(parse_text(t, rep), rep, sender=sender), text)
        assert fast == slow, text


def test_a_map_that_names_a_province_amy_is_read_by_the_grammar() -> None:
    """A variant's province may take a language mnemonic (docs/protocol.md §11
    forbids it, variant files do it): with a province named AMY, ``AUS AMY
    VIE`` is no unit, whichever road the text takes."""
    rep = Representation.for_variant(
        ["AUS"], [("VIE", ProvinceCategory.COASTAL, True), ("AMY", ProvinceCategory.INLAND, True)]
    )
    for text in ["NOW ( SPR 1901 ) ( AUS AMY VIE )", "NOW ( SPR 1901 ) ( AUS FLT VIE )",
                 "SUB ( ( AUS AMY VIE ) HLD )", "SUB ( ( AUS FLT VIE ) MTO AMY )"]:
        for sender in (Sender.CLIENT, Sender.SERVER):
            fast = outcome(parse_message_text, text, rep, sender=sender)
            slow = outcome(parse_message, parse_text(text, rep), rep, sender=sender)
            assert fast == slow, text


def test_plain_readers_equal_the_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each message of the mix read with the plain readers, and again with them
    switched off (the general readers alone): same value or same error."""
    texts = _mutations(5, 1500)
    trees = []
    for text in texts:
        try:
            trees.append(to_tree(parse_text(text, STANDARD), STANDARD))
        except ProtocolError:
            continue
    # Strings where mnemonics belong: a Text equals the str it spells.
    trees.append(("SUB", ((Text("AUS"), "AMY", "VIE"), "HLD")))
    trees.append(("SUB", (("AUS", "AMY", Text("VIE")), "MTO", "BUD")))

    def read_all() -> list[object]:
        results: list[object] = []
        for tree in trees:
            for sender in (Sender.CLIENT, Sender.SERVER):
                tokens = from_tree(tree, STANDARD)
                results.append(outcome(parse_message, tokens, STANDARD, sender=sender))
                text = render_text(tokens, STANDARD)
                results.append(outcome(parse_message_text, text, STANDARD, sender=sender))
            for read in (orders.parse_order, orders.parse_unit_position, orders.parse_turn):
                for i in range(len(tree)):
                    p = Parser(STANDARD)
                    try:
                        results.append(read(p, tree, i, ()))
                    except Fail:
                        results.append(("fail", p.far, p.reason))
        return results

    if protocol.COMPILED:
        # Compiled modules call each other directly, so replacing the module
        # attributes below would switch nothing off: run this test on the
        # interpreted modules (the same source) in a subprocess.
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"{__file__}::test_plain_readers_equal_the_grammar"],
            env={**os.environ, native.PURE_ENV: "1"}, capture_output=True, text=True,
            check=False, cwd=Path(__file__).resolve().parent.parent,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "1 passed" in done.stdout
        return
    fast = read_all()
    for name in ("plain_order", "plain_unit", "plain_turn"):
        monkeypatch.setattr(orders, name, lambda *args: None)
    slow = read_all()
    assert len(fast) > 1000
    assert fast == slow
    assert [type(x) for x in fast] == [type(x) for x in slow]


def test_order_text_is_the_text_of_the_order_node() -> None:
    """The ORD and NOW lines write orders and units with order_text and
    unit_text: the text tree_to_text writes for their nodes, for every order
    kind, with coasts."""
    from orders import (
        Build,
        Convoy,
        ConvoyMove,
        Disband,
        Hold,
        Location,
        Move,
        Remove,
        Retreat,
        SupportHold,
        SupportMove,
        Unit,
        Waive,
    )
    from protocol.orders import order_node, order_text, unit_node, unit_text

    fleet = Unit("RUS", "FLT", Location("STP", "NCS"))
    army = Unit("AUS", "AMY", Location("VIE"))
    for order in [Hold(fleet), Move(army, Location("BUD")), Move(fleet, Location("BUL", "ECS")),
                  SupportHold(army, fleet), SupportMove(army, fleet, "BUD"),
                  Convoy(fleet, army, "TUN"), ConvoyMove(army, "TUN", ("ION", "TYS")),
                  Retreat(fleet, Location("SPA", "SCS")), Disband(army), Build(fleet),
                  Remove(army), Waive("AUS")]:
        assert order_text(order) == tree_to_text((order_node(order),), STANDARD)
    for unit in (fleet, army):
        assert unit_text(unit) == tree_to_text((unit_node(unit),), STANDARD)
