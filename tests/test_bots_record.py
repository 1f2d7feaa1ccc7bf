"""The demo's game watcher: progress lines, final table, result and record files."""

from __future__ import annotations

import json
from pathlib import Path

from bots.link import Received
from bots.record import GameWatcher
from protocol.text import tree_from_text

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")

GAME = [
    "HLO ( UNO ) ( 0 ) ( ( LVL 0 ) )",
    "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN )"
    " ( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY )"
    " ( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )",
    "NOW ( SPR 1901 ) ( FRA AMY PAR ) ( GER AMY MUN )",
    "ORD ( SPR 1901 ) ( ( FRA AMY PAR ) HLD ) ( SUC )",
    "SCO ( FRA BRE MAR PAR BEL BER KIE MUN HOL DEN SWE NWY SPA POR TUN NAP ROM VEN GRE )"
    " ( RUS MOS SEV STP WAR ) ( UNO ANK BUD BUL CON EDI LON LVP RUM SER SMY TRI VIE )",
    "SLO ( FRA )",
    "NOW ( WIN 1905 ) ( FRA AMY PAR ) ( FRA FLT BRE ) ( RUS AMY MOS )",
    "SMR ( FAL 1905 ) ( AUS ( 'DumbBot' ) ( '1.0' ) 0 1904 ) ( ENG ( 'RandBot' ) ( '1.0' ) 0 1903 )"
    " ( FRA ( 'DumbBot' ) ( '1.0' ) 18 ) ( GER ( 'HoldBot' ) ( '1.0' ) 0 1905 )"
    " ( ITA ( 'DumbBot' ) ( '1.0' ) 0 1905 ) ( RUS ( 'DumbBot' ) ( '1.0' ) 4 )"
    " ( TUR ( 'RandBot' ) ( '1.0' ) 0 1902 )",
]


def test_watcher_progress_table_result_and_record(tmp_path: Path) -> None:
    shown: list[str] = []
    watcher = GameWatcher(powers=POWERS, players={"FRA": "DumbBot", "RUS": "DumbBot"},
                          echo=shown.append)
    for line in GAME:
        watcher.on_message(Received.read(tree_from_text(line)))
    assert shown[0] == ("  1901  SPR   AUS  3  ENG  3  FRA  3  GER  3  ITA  3  RUS  4  TUR  3")
    assert shown[1] == ("  1905  WIN   AUS  0  ENG  0  FRA 18  GER  0  ITA  0  RUS  4  TUR  0")
    assert watcher.finished and watcher.winner == "FRA"
    assert watcher.result_text() == "solo victory for FRA in 1905"
    rows = watcher.table()
    assert [(r.power, r.player, r.centres, r.units, r.eliminated) for r in rows[:3]] == [
        ("FRA", "DumbBot", 18, 2, None), ("RUS", "DumbBot", 4, 1, None),
        ("GER", "HoldBot", 0, 0, 1905)]
    # The SMR's years of elimination win over what the watcher inferred from NOW.
    assert [(r.power, r.eliminated) for r in rows[3:]] == [
        ("ITA", 1905), ("AUS", 1904), ("ENG", 1903), ("TUR", 1902)]
    assert watcher.table_lines()[-1] == "  result: solo victory for FRA in 1905"
    daide, summary = watcher.write(tmp_path, "g1", seed=4)
    assert daide.read_text(encoding="utf-8").splitlines() == GAME
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["id"] == "g1" and data["seed"] == 4
    assert data["result"] == {"winner": "FRA", "draw": False, "turn": "FAL 1905",
                              "text": "solo victory for FRA in 1905"}
    assert data["history"][0] == {"turn": "SPR 1901", "centres": {
        "AUS": 3, "ENG": 3, "FRA": 3, "GER": 3, "ITA": 3, "RUS": 4, "TUR": 3}}
