"""`daide games`: one line per game of a server database (server.catalog)."""

from __future__ import annotations

import json
from pathlib import Path

from server.catalog import list_games
from server.settings import GameSettings
from server.store import Seat, Store
from tests.cli_helpers import daide, one_error_line, serving

SCO = ("SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN )"
       " ( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY )"
       " ( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )")
NOW = "NOW ( SPR 1901 ) ( ENG FLT LON )"
POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


def _stored_games(db: Path) -> tuple[int, int]:
    """Two games as the server stores them: one that ended in a solo for FRA in
    FAL 1910, one running (its players away; a server resumes it and waits)."""
    store = Store.open(db)
    seats = [Seat(p, 1000 + i, f"{p}:DumbBot", "7") for i, p in enumerate(POWERS)]
    try:
        solo = store.create_game(GameSettings(variant="standard"))
        store.start_game(solo, seats, "SPR 1901", SCO, NOW)
        store.record_phase(solo, "FAL 1910", {}, ["SLO ( FRA )"],
                           "SCO ( FRA PAR ) ( GER BER ) ( UNO )", "NOW ( WIN 1910 )", "WIN 1910",
                           ending=["SLO ( FRA )", "SMR ( FAL 1910 ) ( FRA ( 'x' ) ( '7' ) 18 )"])
        waiting = store.create_game(GameSettings(variant="standard"))
        store.start_game(waiting, seats, "SPR 1901", SCO, NOW)
    finally:
        store.close()
    return solo, waiting


def test_games_lists_each_game_with_status_players_and_result(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    solo, waiting = _stored_games(db)
    with serving(db, "--max-year", "1901") as (_server, port):
        # Seven real bots play a new game to the end of 1901 (the server's draw year).
        played = daide("bot", "holdbot", "--count", "7", "--port", str(port))
        assert played.returncode == 0, played.stderr
        done = daide("games", "--db", str(db))        # read-only, beside the running server
        assert done.returncode == 0, done.stderr
        header, *lines = done.stdout.splitlines()
        assert header.split() == ["game", "variant", "status", "turn", "result", "players"]
        by_id = {int(line.split()[0]): line for line in lines}
        assert len(by_id) == 3
        assert by_id[solo].split()[1:7] == ["standard", "finished", "FAL", "1910", "solo", "FRA"]
        assert by_id[solo].endswith("AUS AUS:DumbBot, ENG ENG:DumbBot, FRA FRA:DumbBot, "
                                    "GER GER:DumbBot, ITA ITA:DumbBot, RUS RUS:DumbBot, "
                                    "TUR TUR:DumbBot")
        assert by_id[waiting].split()[1:5] == ["standard", "running", "SPR", "1901"]
        [new] = set(by_id) - {solo, waiting}
        assert by_id[new].split()[1:3] == ["standard", "finished"]
        assert " draw " in by_id[new]
        assert all(f"{p} HoldBot-" in by_id[new] for p in POWERS)
        # the JSON form (what a web API serves) has the same facts
        rows = {r["id"]: r for r in map(json.loads, daide("games", "--db", str(db), "--json")
                                        .stdout.splitlines())}
        assert rows[solo]["result"] == "solo FRA"
        assert rows[solo]["centres"] == {"FRA": 1, "GER": 1}
        assert sum(rows[new]["centres"].values()) >= 22      # every home centre, at least
        assert rows[new]["result"] == "draw " + " ".join(
            p for p in POWERS if rows[new]["centres"].get(p, 0) > 0)
    # No server holds the database now: the running game waits to be resumed.
    statuses = {g.id: g.status for g in list_games(db)}
    assert statuses == {solo: "finished", waiting: "suspended", new: "finished"}
    done = daide("export", str(new), "--db", str(db), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    record = (tmp_path / "out" / f"game-{new}.daide").read_text()
    assert "NOW ( SPR 1901 )" in record
    # the turn listed is the one the game ended in, as its summary (SMR) says
    [smr] = [line for line in record.splitlines() if line.startswith("SMR")]
    assert smr.split()[2:4] == by_id[new].split()[3:5]


def test_games_names_a_missing_or_foreign_database(tmp_path: Path) -> None:
    done = daide("games", "--db", str(tmp_path / "none.db"))
    assert done.returncode == 1
    assert one_error_line(done, "games") == (
        f"daide games: error: no database at {tmp_path / 'none.db'}")
    other = tmp_path / "notes.txt"
    other.write_text("not a database at all, just some text\n" * 100)
    done = daide("games", "--db", str(other))
    assert done.returncode == 1
    assert f"{other} is not a server database" in one_error_line(done, "games")
    empty = tmp_path / "empty.db"
    Store.open(empty).close()
    assert list_games(empty) == []
