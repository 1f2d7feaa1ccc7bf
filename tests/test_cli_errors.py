"""Errors a person can read: each case once printed a Python traceback.

Every test runs the real `daide` in a subprocess and checks the exit status,
that no traceback was printed, and the one line that says what is wrong
(docs/cli.md "Exit status and errors").
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from protocol.frame_text import FrameTextCodec
from protocol.frames import DiplomacyMessage, build_frame, parse_frames
from protocol.tokens import STANDARD
from server.settings import GameSettings
from server.store import Seat, Store
from tests.cli_helpers import (
    daide,
    one_error_line,
    read_only_dir,
    serving,
    start,
    wait_for_line,
)

# --- the command line itself -------------------------------------------------------


def test_version_names_the_program_and_its_version() -> None:
    done = daide("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("daide ") and done.stdout.split()[1][0].isdigit()


def test_bare_daide_prints_its_help_as_a_usage_error() -> None:
    done = daide()
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.startswith("usage: daide ")
    for command in ("serve", "demo", "games", "export", "tournament"):
        assert f"    {command}" in done.stderr


def test_an_unknown_option_shows_the_usage_of_the_subcommand() -> None:
    done = daide("serve", "--prot", "1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("usage: daide serve ")
    assert done.stderr.rstrip().endswith("daide serve: error: unrecognized arguments: --prot 1")


def test_make_serve_passes_args_to_daide_serve(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("environment: no `make` program")
    repo = Path(__file__).resolve().parents[1]
    # -o: take the compiled adjudicator as it is (never build it from a test);
    # an unknown variant makes the real server stop at once, naming what it got.
    done = subprocess.run([make, "-s", "-o", ".venv/.native", "serve",
                           f"ARGS=--variant atlantis --db {tmp_path / 'x.db'}"],
                          cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "daide serve: error: unknown variant 'atlantis'" in done.stderr


# --- input that is not what a command reads -----------------------------------------


def test_adjudicate_names_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("SCO ( FRA PAR ) ( UNO )\nNOW ( SPR 1901 ) ( FRA AMY PAR ) \xe9\n"
                    .encode("latin-1"))
    done = daide("adjudicate", str(bad))
    assert done.returncode == 1
    assert one_error_line(done, "adjudicate") == (
        f"daide adjudicate: error: {bad} is not UTF-8 text: invalid continuation byte")
    # the same through standard input
    done = daide("adjudicate", input=bad.read_bytes())
    assert done.returncode == 1
    assert "input is not UTF-8 text" in one_error_line(done, "adjudicate")


def test_decode_says_plain_text_is_neither_hex_nor_a_frame() -> None:
    done = daide("decode", input=b"hello world\n")
    assert done.returncode == 1
    line = one_error_line(done, "decode")
    assert "the input is neither hex nor a DAIDE frame" in line
    assert "message type" not in line
    # raw frames are still told from text (an IM: type 0, length 4, version 1, magic DA10)
    done = daide("decode", input=bytes.fromhex("00000004 0001 DA10"))
    assert done.returncode == 0 and done.stdout == "IM version=1\n", done.stderr


# --- output directories, checked before the work ----------------------------------------


def _bad_out_dirs(tmp_path: Path) -> list[tuple[Path, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory\n")
    return [
        (a_file / "records", f"cannot create {a_file / 'records'}: a part of the path is a file"),
        (a_file, f"cannot use {a_file}: it is a file, not a directory"),
    ]


def test_demo_checks_its_output_directory_before_playing(tmp_path: Path) -> None:
    for out, message in _bad_out_dirs(tmp_path):
        done = daide("demo", "--seed", "1", "--max-years", "1", "--out", str(out))
        assert done.returncode == 1
        assert message in one_error_line(done, "demo")
        assert "server listening" not in done.stdout          # no game was started
    with read_only_dir(tmp_path / "locked") as locked:
        done = daide("demo", "--seed", "1", "--max-years", "1", "--out", str(locked))
        assert done.returncode == 1
        assert f"cannot write in {locked}: read-only" in one_error_line(done, "demo")
        assert done.stdout == ""
    # (a missing directory is created: the Ctrl-C test below writes into one)


def _stored_game(db: Path) -> int:
    store = Store.open(db)
    try:
        game = store.create_game(GameSettings())
        store.start_game(game, [Seat("FRA", 1234, "HoldBot", "1.0")], "SPR 1901",
                         "SCO ( FRA BRE MAR PAR ) ( UNO )", "NOW ( SPR 1901 ) ( FRA AMY PAR )")
    finally:
        store.close()
    return game


def test_export_checks_its_output_directory_first(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    game = _stored_game(db)
    [_, (a_file, message)] = _bad_out_dirs(tmp_path)
    done = daide("export", str(game), "--db", str(db), "--out", str(a_file))
    assert done.returncode == 1
    assert message in one_error_line(done, "export")
    with read_only_dir(tmp_path / "locked") as locked:
        done = daide("export", str(game), "--db", str(db), "--out", str(locked))
        assert done.returncode == 1
        assert f"cannot write in {locked}: read-only" in one_error_line(done, "export")
    # (a writable directory: tests/test_games_cli.py exports a game played there)


# --- Ctrl-C --------------------------------------------------------------------------------


def test_ctrl_c_stops_the_demo_and_keeps_the_record_of_what_was_played(tmp_path: Path) -> None:
    out = tmp_path / "records"
    # Hold bots for up to 100 years: seconds of play, so the signal lands mid-game.
    demo = start("demo", "--seed", "5", "--bots", "holdbot", "--max-years", "100",
                 "--out", str(out))
    assert demo.stdout is not None
    wait_for_line(demo, demo.stdout, r"^\s+1901\s+SPR")
    demo.send_signal(signal.SIGINT)
    stdout, stderr = demo.communicate(timeout=30)
    assert demo.returncode == 130, stderr
    assert "Traceback" not in stdout + stderr
    assert "daide demo: interrupted; the game so far is in" in stderr
    [record] = out.glob("*.daide")
    lines = record.read_text().splitlines()
    assert "MAP ( 'STANDARD' )" in lines
    assert any(line.startswith("NOW ( SPR 1901 )") for line in lines)
    summary = json.loads(record.with_suffix(".json").read_text())
    assert summary["interrupted"] is True
    assert summary["result"]["text"] == "unfinished"
    assert summary["history"], "the phases played are in the summary"


def test_ctrl_c_stops_daide_bot(tmp_path: Path) -> None:
    with serving(tmp_path / "x.db") as (server, port):
        bots = start("bot", "holdbot", "--count", "7", "--port", str(port))
        assert server.stderr is not None
        wait_for_line(server, server.stderr, '"event": "phase_processed"')
        bots.send_signal(signal.SIGINT)
        stdout, stderr = bots.communicate(timeout=30)
    assert bots.returncode == 130, stderr
    assert "Traceback" not in stdout + stderr
    assert stderr.rstrip().endswith("daide bot: interrupted")
    assert len([line for line in stdout.splitlines() if line.endswith(", interrupted")]) == 7


def test_bots_name_a_server_nobody_listens_on() -> None:
    with socket.socket() as bound:          # bound, never listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        done = daide("bot", "holdbot", "--port", str(port))
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"daide bot: error: no server answers at 127.0.0.1:{port} "
        "(start one with `daide serve`, or give --host/--port)")


# --- a tournament on a server that cannot be used ----------------------------------------


def test_tournament_names_a_server_nobody_listens_on(tmp_path: Path) -> None:
    with socket.socket() as bound:          # bound, never listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        started = time.monotonic()
        done = daide("tournament", "--bots", "randbot", "--games", "1", "--no-progress",
                     "--server", f"127.0.0.1:{port}", "--out", str(tmp_path / "t"))
    assert done.returncode == 1
    assert one_error_line(done, "tournament") == (
        f"daide tournament: error: cannot reach server 127.0.0.1:{port}: connection refused")
    assert time.monotonic() - started < 30


class RejectingServer:
    """A DAIDE server that answers IM with RM and every message with REJ of it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.codec = FrameTextCodec(STANDARD)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    self._talk(conn)
                except OSError:         # the client reset the connection: next one
                    pass

    def _talk(self, conn: socket.socket) -> None:
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
            frames, data = parse_frames(data)
            for frame in frames:
                if isinstance(frame, DiplomacyMessage):
                    text = self.codec.to_line(frame).removeprefix("DM ")
                    reply = self.codec.from_line(f"DM REJ ( {text} )")
                else:
                    reply = self.codec.from_line("RM empty")
                conn.sendall(build_frame(reply))

    def close(self) -> None:
        self.sock.close()


def test_tournament_names_a_server_that_answers_rej(tmp_path: Path) -> None:
    server = RejectingServer()
    try:
        done = daide("tournament", "--bots", "randbot", "--games", "1", "--no-progress",
                     "--server", f"127.0.0.1:{server.port}", "--out", str(tmp_path / "t"))
    finally:
        server.close()
    assert done.returncode == 1
    assert one_error_line(done, "tournament") == (
        f"daide tournament: error: server 127.0.0.1:{server.port} answered REJ: "
        "server refused the observer")


@pytest.mark.parametrize("how", ["missing", "read-only"])
def test_serve_names_a_database_directory_it_cannot_write(tmp_path: Path, how: str) -> None:
    if how == "missing":
        db = tmp_path / "no-such-dir" / "x.db"
        done = daide("serve", "--port", "0", "--db", str(db))
        assert done.returncode == 1
        assert one_error_line(done, "serve") == (
            f"daide serve: error: cannot create {db}: there is no directory {db.parent}")
        return
    with read_only_dir(tmp_path / "locked") as locked:
        db = locked / "x.db"
        done = daide("serve", "--port", "0", "--db", str(db))
    assert done.returncode == 1
    assert one_error_line(done, "serve").startswith(
        f"daide serve: error: cannot create {db}: the directory {locked} is read-only")
