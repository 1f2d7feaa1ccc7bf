"""`daide serve` argument errors and `daide export` on a stored game."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from daide.cli import main
from server.settings import GameSettings
from server.store import Seat, Store

SCO = ("SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN )"
       " ( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY )"
       " ( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )")
NOW = "NOW ( SPR 1901 ) ( ENG FLT LON )"


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`daide serve` configures structlog for the process: undo it for the next tests."""
    yield
    structlog.reset_defaults()


@pytest.mark.parametrize(("args", "message"), [
    (["--level", "5"], "level 5 is not a DAIDE press level"),
    (["--mtl", "9000"], "mtl must be 1..8191 seconds"),
    (["--variant", "atlantis"], "unknown variant 'atlantis'"),
    # the limit flags reach ServerSettings and its checks
    (["--max-frame-body", "10"], "max_frame_body must be 64..65535 bytes, not 10"),
    (["--message-rate", "0"], "message_rate must be positive"),
    (["--connections-per-address", "0"], "connections_per_address must be at least 1"),
    (["--linger", "-1"], "linger must be 0..3600 seconds, not -1.0"),
])
def test_serve_refuses_bad_settings(args: list[str], message: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", str(tmp_path / "x.db"), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("daide serve: error: ") and message in err
    assert err.count("\n") == 1


def test_serve_reports_a_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "x.db"),
                     "--log-json"]) == 1
    assert f"daide serve: error: cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def stored_game(db: Path) -> int:
    store = Store.open(db)
    game = store.create_game(GameSettings(mtl=300))
    store.start_game(game, [Seat("ENG", 4321, "bot", "1.0")], "SPR 1901", SCO, NOW)
    store.save_orders(game, "ENG", "SPR 1901", ["( ENG FLT LON ) MTO NTH"])
    store.close()
    return game


def test_export_writes_the_text_log_and_json(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "g.db"
    game = stored_game(db)
    out = tmp_path / "out"
    assert main(["export", str(game), "--db", str(db), "--out", str(out)]) == 0
    text = (out / f"game-{game}.daide").read_text()
    assert text.splitlines() == ["MAP ( 'STANDARD' )",
                                 "HLO ( UNO ) ( 0 ) ( ( LVL 0 ) ( MTL 300 ) )", SCO, NOW]
    data = json.loads((out / f"game-{game}.json").read_text())
    assert data["status"] == "running"
    assert data["players"] == [{"power": "ENG", "name": "bot", "version": "1.0"}]
    assert data["current"]["accepted_orders"] == {"ENG": ["( ENG FLT LON ) MTO NTH"]}
    assert "4321" not in (out / f"game-{game}.json").read_text()    # never a passcode
    capsys.readouterr()
    assert main(["export", str(game), "--db", str(db), "--stdout", "text"]) == 0
    assert capsys.readouterr().out == text


def test_export_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "1", "--db", str(tmp_path / "none.db")]) == 1
    assert "no database at" in capsys.readouterr().err
    db = tmp_path / "g.db"
    stored_game(db)
    assert main(["export", "7", "--db", str(db)]) == 1
    assert capsys.readouterr().err.startswith("daide export: error: no game 7")
