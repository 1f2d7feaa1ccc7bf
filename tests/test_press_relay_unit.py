"""The press relay's pieces without a network: the answer table, the rate
limit, the press-token numbering of a game's connections, the press table."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from protocol.orders import Turn
from protocol.press import parse_send
from protocol.text import tree_from_text
from protocol.tokens import STANDARD
from protocol.tree import from_tree, to_tree
from server.press import (
    Deliver,
    Eliminated,
    InDisorder,
    PressLimits,
    RateLimiter,
    Refused,
    Situation,
    judge,
    wire_representation,
)
from server.settings import GameSettings, SettingsError
from server.store import Store
from tests.server_helpers import POWERS

ALL = frozenset(POWERS)
SPRING = Situation(running=True, turn=Turn("SPR", 1901), level=20, survivors=ALL - {"ENG"},
                   connected=ALL - {"ENG", "ITA"}, powers=POWERS)


def verdict(text: str, sender: str | None = "FRA", situation: Situation = SPRING) -> object:
    return judge(sender, parse_send(tree_from_text(text)), situation, STANDARD)


@pytest.mark.parametrize("text,sender,situation,answer", [
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", SPRING, "YES"),
    # REJ: not a player, game over or not started, eliminated sender, ...
    ("SND ( GER ) ( PRP ( DRW ) )", None, SPRING, "REJ"),
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", Situation(
        running=False, turn=Turn("FAL", 1910), level=20, survivors=ALL, connected=ALL,
        powers=POWERS), "REJ"),
    ("SND ( GER ) ( PRP ( DRW ) )", "ENG", SPRING, "REJ"),
    ("SND ( GER FRA ) ( PRP ( DRW ) )", "FRA", SPRING, "REJ"),
    ("SND ( FAL 1901 ) ( GER ) ( PRP ( DRW ) )", "FRA", SPRING, "REJ"),
    ("SND ( SPR 1901 ) ( GER ) ( PRP ( DRW ) )", "FRA", SPRING, "YES"),
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", Situation(
        running=True, turn=Turn("AUT", 1901), level=20, survivors=ALL, connected=ALL,
        powers=POWERS, npr=True), "REJ"),
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", Situation(
        running=True, turn=Turn("AUT", 1901), level=20, survivors=ALL, connected=ALL,
        powers=POWERS, npb=True), "YES"),
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", Situation(
        running=True, turn=Turn("WIN", 1901), level=20, survivors=ALL, connected=ALL,
        powers=POWERS, npb=True), "REJ"),
    ("SND ( GER ) ( PRP ( DRW ) )", "FRA", Situation(
        running=True, turn=Turn("SPR", 1902), level=20, survivors=ALL, connected=ALL,
        powers=POWERS, press_closed=True), "REJ"),
    # OUT for recipients and for powers named inside; before CCD.
    ("SND ( GER ENG ) ( PRP ( DRW ) )", "FRA", SPRING, "OUT ENG"),
    ("SND ( GER ) ( PRP ( XDO ( ( ENG FLT LON ) HLD ) ) )", "FRA", SPRING, "OUT ENG"),
    ("SND ( ITA ENG ) ( PRP ( DRW ) )", "FRA", SPRING, "OUT ENG"),
    ("SND ( GER ITA ) ( PRP ( DRW ) )", "FRA", SPRING, "CCD ITA"),
])  # fmt: skip
def test_the_answer_table(text: str, sender: str | None, situation: Situation,
                          answer: str) -> None:
    got = verdict(text, sender, situation)
    match got:
        case Deliver():
            assert answer == "YES"
        case Refused():
            assert answer == "REJ"
        case Eliminated(power):
            assert answer == f"OUT {power}"
        case InDisorder(power):
            assert answer == f"CCD {power}"


def test_delivery_keeps_the_recipients_drops_the_turn_and_trims_try() -> None:
    got = verdict("SND ( SPR 1901 ) ( GER AUS ) ( TRY ( PRP XDO AND FOR ) )")
    assert isinstance(got, Deliver)
    assert got.delivery.nodes() == ("FRM", ("FRA",), ("GER", "AUS"), ("TRY", ("PRP", "XDO")))


def test_rate_limit_is_a_token_bucket_per_power() -> None:
    now = [0.0]
    limiter = RateLimiter(PressLimits(burst=3, per_second=2.0), lambda: now[0])
    assert [limiter.allow("FRA") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("GER")                     # each power has its own bucket
    now[0] = 0.4                                    # 0.8 of a token: not yet
    assert not limiter.allow("FRA")
    now[0] = 0.5                                    # one token back
    assert limiter.allow("FRA") and not limiter.allow("FRA")
    now[0] = 100.0                                  # never more than the burst
    assert [limiter.allow("FRA") for _ in range(4)] == [True, True, True, False]


def test_press_numbering_of_a_games_connections() -> None:
    # docs/protocol.md §6.7: Parlance puts FCT/FOR/FWD at 0x4A07/0x4A08/0x4A06,
    # MILA swaps CCL and NAR.
    tree = tree_from_text("SND ( FRA ) ( FCT ( NAR ( PCE ( ENG FRA ) ) ) )")
    daide = wire_representation(STANDARD, "daide")
    parlance = wire_representation(STANDARD, "parlance")
    mila = wire_representation(STANDARD, "mila")
    assert daide is STANDARD
    assert from_tree(tree, parlance)[5] == 0x4A07 and from_tree(tree, daide)[5] == 0x4A06
    assert from_tree(tree, mila)[7] == 0x4A25 and from_tree(tree, daide)[7] == 0x4A26
    assert to_tree(from_tree(tree, parlance), parlance) == tree
    assert GameSettings(press_numbering="mila").press_numbering == "mila"
    with pytest.raises(SettingsError, match="press numbering"):
        GameSettings(press_numbering="bylund")


def test_an_older_database_gains_the_press_table(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    store = Store.open(db)
    game = store.create_game(GameSettings(level=10))
    store.close()
    with sqlite3.connect(db) as raw:                 # as a server without press left it
        raw.execute("DROP TABLE press")
    store = Store.open(db)
    try:
        assert store.press(game) == []
        assert store.save_press(game, "SPR 1901", "FRA", ("ENG", "GER"),
                                "FRM ( FRA ) ( ENG GER ) ( PRP ( DRW ) )") == 1
        assert store.save_press(game, "SPR 1901", "ENG", ("FRA",),
                                "FRM ( ENG ) ( FRA ) ( 'hi' )") == 2
        assert [(p.seq, p.sender, p.recipients) for p in store.press(game)] == [
            (1, "FRA", ("ENG", "GER")), (2, "ENG", ("FRA",))]
        assert store.game(game).settings.level == 10
    finally:
        store.close()


def test_storing_press_keeps_the_stores_own_sync_setting(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "g.db")
    try:
        game = store.create_game(GameSettings(level=10))
        for setting, value in (("FULL", 2), ("NORMAL", 1)):
            store._db.execute(f"PRAGMA synchronous = {setting}")
            store.save_press(game, "SPR 1901", "FRA", ("ENG",), "FRM ( FRA ) ( ENG ) ( 'hi' )")
            assert store._db.execute("PRAGMA synchronous").fetchone()[0] == value
    finally:
        store.close()
