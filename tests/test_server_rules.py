"""Server-side rules without sockets: house rules, draw votes, order replacement, powers, logs."""

from __future__ import annotations

import datetime
import io
import json
import time

import pytest
import structlog

from orders import Hold, Location, Move, Unit, Waive
from server.endings import Ending, HouseRules, elimination_years, idle_years
from server.logconfig import UtcTimestamp, configure_logging
from server.settings import GameSettings, SettingsError
from server.turn import TurnState

START = {"BUD": "AUS", "VIE": "AUS", "BEL": "UNO"}
ALL = frozenset({"AUS", "ENG", "FRA"})


def test_idle_years_counts_unchanged_year_ends() -> None:
    changed = dict(START, BEL="AUS")
    tables = [(1900, START), (1901, changed), (1902, changed), (1903, changed)]
    assert idle_years(tables) == 2
    assert idle_years(tables[:2]) == 0
    assert idle_years([(1900, START)]) == 0


def test_house_rules_dptg_seed_004_and_max_year() -> None:
    tables = [(1900, START)] + [(y, START) for y in range(1901, 1908)]
    dptg = HouseRules.from_settings(GameSettings(idle_years_draw=7))
    assert dptg.check(tables, ALL, ("FAL", 1907)) == Ending("idle-years", ALL, ("FAL", 1907))
    assert dptg.check(tables[:-1], ALL, ("FAL", 1906)) is None
    seed004 = HouseRules.from_settings(GameSettings(stop_unchanged=True))
    assert seed004.check(tables[:4], ALL, ("FAL", 1903)) is not None
    assert seed004.check(tables[:3], ALL, ("FAL", 1902)) is None
    both = HouseRules.from_settings(GameSettings(idle_years_draw=7, stop_unchanged=True))
    assert both.idle_years == 3
    cap = HouseRules.from_settings(GameSettings(max_year=1935))
    assert cap.check(tables, ALL, ("AUT", 1935)) == Ending("max-year", ALL, ("AUT", 1935))
    assert cap.check(tables, ALL, ("FAL", 1934)) is None
    assert HouseRules.from_settings(GameSettings()).check(tables, ALL, ("FAL", 1999)) is None


def test_elimination_year_is_when_the_last_centre_went() -> None:
    tables = [(1900, {"VIE": "AUS", "PAR": "FRA"}), (1901, {"VIE": "AUS", "PAR": "FRA"}),
              (1902, {"VIE": "FRA", "PAR": "FRA"}), (1903, {"VIE": "FRA", "PAR": "FRA"})]
    assert elimination_years(["AUS", "FRA"], tables, {"FRA": 2}) == {"AUS": 1902}


def test_draw_messages() -> None:
    assert str(Ending.agreed(ALL, ALL, ("SPR", 1902)).draw_message()) == "DRW"
    partial = Ending.agreed(frozenset({"FRA", "AUS"}), ALL, ("SPR", 1902))
    assert str(partial.draw_message()) == "DRW ( AUS FRA )"


def test_draw_votes_need_every_survivor() -> None:
    turn = TurnState("SPR")
    turn.vote_draw("AUS")
    turn.vote_draw("ENG")
    assert turn.agreed_draw(ALL) is None
    turn.vote_draw("FRA")
    assert turn.agreed_draw(ALL) == ALL
    turn.withdraw_draw("FRA")
    assert turn.agreed_draw(ALL) is None
    # PDA: the same set from every survivor; a bare DRW counts as all survivors.
    pair = frozenset({"AUS", "ENG"})
    for power in ALL:
        turn.vote_draw(power, pair)
    assert turn.agreed_draw(ALL) == pair


def test_orders_replace_per_unit_except_adjustments() -> None:
    lvp = Unit("ENG", "AMY", Location("LVP"))
    turn = TurnState("SPR")
    turn.accept("ENG", Hold(lvp))
    turn.accept("ENG", Move(lvp, Location("YOR")))
    assert turn.of("ENG") == [Move(lvp, Location("YOR"))]
    assert not turn.cancel("ENG", Hold(lvp))
    winter = TurnState("WIN")
    winter.accept("ENG", Waive("ENG"))
    winter.accept("ENG", Waive("ENG"))
    assert winter.of("ENG") == [Waive("ENG"), Waive("ENG")]


def test_settings_are_checked() -> None:
    for bad in ({"level": 5}, {"mtl": 0}, {"mtl": 9000}, {"variant": "../x"}, {"idle_years_draw": 0}):
        try:
            GameSettings(**bad)  # type: ignore[arg-type]
        except SettingsError:
            continue
        raise AssertionError(f"{bad} accepted")
    options = GameSettings(level=10, mtl=600, btl=120, dsd=True, pda=True, ptl=60).hlo_variant()
    assert str(options.to_node()) == str((("LVL", 10), ("MTL", 600), ("BTL", 120), ("DSD",),
                                          ("PDA",), ("PTL", 60)))
    assert GameSettings.from_json(GameSettings(mtl=5).to_json()) == GameSettings(mtl=5)


def test_logs_are_json_lines_without_passcodes() -> None:
    out = io.StringIO()
    configure_logging(out)       # not a terminal: JSON
    try:
        structlog.get_logger("t").info("iam", power="ENG", passcode=1234)
    finally:
        structlog.reset_defaults()
    line = json.loads(out.getvalue())
    assert line["event"] == "iam" and line["power"] == "ENG" and line["passcode"] == "***"
    assert "1234" not in out.getvalue()
    assert list(line) == ["power", "passcode", "event", "level", "timestamp"]


@pytest.mark.parametrize("ns", [1_764_108_000_000_000_000, 1_764_108_000_123_456_789,
                                1_764_108_059_999_999_999, 1_764_108_060_000_001_000])
def test_log_timestamps_read_as_structlog_writes_them(
        ns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`UtcTimestamp` writes what ``TimeStamper(fmt="iso", utc=True)`` writes."""
    monkeypatch.setattr(time, "time_ns", lambda: ns)
    stamp = UtcTimestamp()
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    expected = epoch + datetime.timedelta(microseconds=ns // 1000)
    written = stamp(None, "info", {})["timestamp"]
    assert written == expected.isoformat().replace("+00:00", "Z")
    assert stamp(None, "info", {})["timestamp"] == written          # the cached second
