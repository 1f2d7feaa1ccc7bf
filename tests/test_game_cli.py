"""`daide game` against a real `daide serve` (subprocesses, real sockets, real bots).

The server runs in a temporary directory on its default database
(``./daide-server.db``) with ``--http-port 0``; `daide game` runs in the same
directory, so it finds the token file by default, as a host's would.  What is
checked is what the host sees: the sentences and tables, one-line errors and
exit status 1, and that the token never reaches the server's log.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.cli_helpers import DAIDE, daide, one_error_line, start, wait_for_line

TOKEN_FILE = "daide-server.db.admin-token"


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    port: int
    log: list[str] = field(default_factory=list)

    def game(self, *args: str, token_file: str | None = None,
             cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``daide game ARGS --server URL`` (in ``cwd``: the token file by default)."""
        extra = ["--token-file", token_file] if token_file is not None else []
        return daide("game", *args, "--server", self.url, *extra, cwd=cwd)


@contextmanager
def serving(cwd: Path, *extra: str) -> Iterator[Served]:
    """`daide serve` on ports 0 with its web side, in ``cwd``; its log read on, kept."""
    server = start("serve", "--port", "0", "--http-port", "0", "--log-json", *extra, cwd=cwd)
    reader: threading.Thread | None = None
    try:
        assert server.stderr is not None
        _line, seen = wait_for_line(server, server.stderr, '"event": "http_listening"')
        events = [json.loads(line) for line in seen]
        port = next(e["port"] for e in events if e["event"] == "listening")
        url = next(e["url"] for e in events if e["event"] == "http_listening")
        served = Served(server, url.rstrip("/"), int(port), list(seen))
        stderr = server.stderr

        def drain() -> None:             # the server must never block on a full pipe
            for line in stderr:
                served.log.append(line)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        yield served
    finally:
        if server.poll() is None:
            server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if reader is not None:
            reader.join(timeout=30)
        for pipe in (server.stdout, server.stderr):
            if pipe is not None:
                pipe.close()


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "Traceback" not in done.stdout
    return done.stdout


def refused(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done
    assert done.stdout == ""
    return one_error_line(done, "game")


def test_a_hosts_evening_with_every_action(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        token_file = tmp_path / TOKEN_FILE
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()

        variants = ok(served.game("variants", cwd=tmp_path)).split()
        assert "standard" in variants and "modern" in variants
        bots = ok(served.game("bots", cwd=tmp_path)).split()
        assert "holdbot" in bots
        assert ok(served.game("list", cwd=tmp_path)) == \
            "No games on this server yet: `daide game new` creates one.\n"

        # A club's game: its own settings, France reserved for alice; nobody else comes.
        out = ok(served.game("new", "--name", "Friday", "--level", "8000", "--mtl", "300",
                             "--pda", "--max-year", "1903", "--seat", "FRA=alice",
                             "--access", "invitation", cwd=tmp_path))
        first, *rest = out.splitlines()
        assert first == (f'Game 1 "Friday" created: standard, press level 8000, '
                         f"on the shared port {served.port}.")
        assert rest[0].startswith("Invitations, shown this once")
        assert re.fullmatch(r"\s+FRA\s+alice\s+[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}", rest[2])
        shown = ok(served.game("show", "1", cwd=tmp_path))
        assert shown.startswith(f'Game 1 "Friday": standard, forming, on the shared '
                                f"port {served.port}.\n")
        assert "Settings: press level 8000; movement deadline (s) 300; partial draws allowed " \
               "yes; draw after year 1903; by invitation only.\n" in shown
        assert re.search(r"FRA\s+alice\s+invited player", shown)
        line = refused(served.game("extend", "1", "60", cwd=tmp_path))
        assert line == "daide game: error: game 1 has not started: it cannot have its " \
                       "deadline moved"

        # A game of bots the server starts, with deadlines: paused, extended, a player
        # ejected and replaced, then ended.
        out = ok(served.game("new", "--name", "Bots", "--fill", "holdbot", "--mtl", "600",
                             "--rtl", "600", "--btl", "600", cwd=tmp_path))
        assert out == f'Game 2 "Bots" created: standard, press level 0, on the shared port ' \
                      f"{served.port}.\n"
        _wait(served, lambda: "running" in ok(served.game("show", "2", cwd=tmp_path)))
        assert ok(served.game("pause", "2", cwd=tmp_path)) == \
            "Game 2 is paused: its clock stands and no phase is processed.\n"
        listed = ok(served.game("list", cwd=tmp_path)).splitlines()
        assert listed[0].split() == ["game", "name", "variant", "press", "status", "turn",
                                     "port", "players"]
        assert re.match(r"2\s+Bots\s+standard\s+0\s+running \(paused\)\s+(Spring|Summer|Fall|Autumn|"
                        r"Winter) \d{4}\s+\d+\s+AUS holdbot\*, ENG holdbot\*", listed[2])
        assert listed[-1] == "* a bot the server started"
        assert re.match(r"1\s+Friday\s+standard\s+8000\s+forming\s+-\s+\d+\s+1 reserved",
                        listed[1])
        out = ok(served.game("extend", "2", "90", cwd=tmp_path))
        assert re.fullmatch(r"Game 2's deadline is 90 seconds later: (\d+) seconds left.\n", out)
        assert 600 < int(re.findall(r"\d+", out)[-1]) <= 690
        out = ok(served.game("eject", "2", "ENG", cwd=tmp_path))
        passcode = re.fullmatch(r"ENG is in civil disorder in game 2\. A replacement player "
                                r"takes it over by rejoining as ENG with passcode (\d+)\.\n", out)
        assert passcode is not None
        assert ok(served.game("fill", "2", "holdbot", "--power", "ENG", cwd=tmp_path)) == \
            "The server starts holdbot on ENG in game 2.\n"
        paused_at = _turn(served, tmp_path, 2)
        assert ok(served.game("resume", "2", cwd=tmp_path)) == "Game 2 runs again.\n"
        # The server's bots play on (ENG's new one too): the turn moves.
        _wait(served, lambda: _turn(served, tmp_path, 2) != paused_at)
        assert ok(served.game("end", "2", cwd=tmp_path)) == \
            "Game 2 is ended: a draw between AUS, ENG, FRA, GER, ITA, RUS, TUR.\n"
        line = refused(served.game("end", "2", cwd=tmp_path))
        assert line == "daide game: error: game 2 is over"
        log = ok(served.game("log", "2", cwd=tmp_path)).splitlines()
        assert log[0].split() == ["time", "(UTC)", "by", "action", "outcome"]
        assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  ", log[1])
        actions = [re.split(r"\s{2,}", row) for row in log[1:]]
        assert [a[2] for a in actions] == ["new standard game, level 0, mtl 600, rtl 600, "
                                           "btl 600, fill holdbot", "pause", "extend 90",
                                           "eject ENG", "fill holdbot as ENG", "resume", "end",
                                           "end"]
        assert all(a[1] == "cli 127.0.0.1" for a in actions)
        assert [a[3] for a in actions[:-1]] == ["done"] * 7
        assert actions[-1][3].startswith("refused")
        assert "Admin log:" in ok(served.game("show", "2", cwd=tmp_path))
        log = ok(served.game("log", "1", cwd=tmp_path)).splitlines()
        assert [re.split(r"\s{2,}", row)[2:] for row in log[1:]] == [
            ["new standard game, level 8000, mtl 300, seats FRA=alice", "done"],
            ["extend 60", "refused: game 1 has not started: it cannot have its deadline moved"]]

        # A wrong token: one line, nothing done; the token is never in the server's log.
        wrong = tmp_path / "wrong-token"
        wrong.write_text("z" * 43 + "\n")
        line = refused(served.game("pause", "1", token_file=str(wrong)))
        assert line == ("daide game: error: wrong admin token - is --token-file the token of "
                        "this server?")
    text = "".join(served.log)
    assert token not in text
    events = [json.loads(line) for line in served.log if line.startswith("{")]
    assert [e["path"] for e in events if e["event"] == "admin_token"] == [TOKEN_FILE]
    assert any(e["event"] == "admin_token_refused" for e in events)


def _turn(served: Served, cwd: Path, game: int) -> str:
    """The turn `daide game show` gives (its first line)."""
    first = ok(served.game("show", str(game), cwd=cwd)).splitlines()[0]
    found = re.search(r"(Spring|Summer|Fall|Autumn|Winter) \d+", first)
    assert found is not None, first
    return found.group(0)


def _wait(served: Served, ready: Callable[[], bool], budget: float = 120) -> None:
    """Poll the server (through the CLI) until ``ready()``: the bots start and join at
    their pace (a second or more each on a loaded machine)."""
    give_up = time.monotonic() + budget
    while time.monotonic() < give_up:
        if ready():
            return
        time.sleep(0.2)
    raise AssertionError("the server's bots did not start the game:\n" + "".join(served.log))


def test_the_hosts_errors_are_one_line(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        assert refused(served.game("show", "99", cwd=tmp_path)) == \
            "daide game: error: there is no game 99"
        line = refused(served.game("new", "--level", "7", cwd=tmp_path))
        assert "press level" in line
        line = refused(served.game("new", "--variant", "atlantis", cwd=tmp_path))
        assert "atlantis" in line
        line = refused(served.game("new", "--bot", "XYZ=holdbot", cwd=tmp_path))
        assert "'XYZ' is not a power of standard" in line
        line = refused(served.game("fill", "99", "holdbot", cwd=tmp_path))
        assert line == "daide game: error: there is no game 99"
        assert ok(served.game("new", cwd=tmp_path)).startswith("Game 1 created: standard")
        line = refused(served.game("extend", "1", "-5", cwd=tmp_path))
        assert "1..8191 seconds" in line
        line = refused(served.game("fill", "1", "nobot", cwd=tmp_path))
        assert line.startswith("daide game: error: no bot called 'nobot' (this server starts: ")
        # The example: a modern game (another map than the shared port's) gets a
        # port of its own, which a DAIDE program reaches directly.
        out = ok(served.game("new", "--variant", "modern", "--level", "8000", "--mtl", "300",
                             "--name", "Friday", cwd=tmp_path))
        found = re.fullmatch(r'Game 2 "Friday" created: modern, press level 8000, on its own '
                             r"port (\d+)\.\n", out)
        assert found is not None and int(found.group(1)) != served.port
        with socket.create_connection(("127.0.0.1", int(found.group(1))), timeout=20):
            pass
        # Run elsewhere, the default token file is not there: the line says where to look.
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        line = refused(served.game("list", cwd=elsewhere))
        assert line.startswith(f"daide game: error: no admin token file {TOKEN_FILE} (the "
                               "server creates it beside its database")
        assert "Traceback" not in "".join(served.log)


def test_bad_options_and_an_unreachable_server_are_one_line(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("t" * 43)
    line = refused(daide("game", "list", "--server", "http://127.0.0.1:1",
                         "--token-file", str(token)))
    assert line.startswith("daide game: error: cannot reach the server at http://127.0.0.1:1")
    line = refused(daide("game", "list", "--server", "ftp://example", "--token-file", str(token)))
    assert "is not a web address" in line
    line = refused(daide("game", "new", "--seat", "FRA", "--token-file", str(token)))
    assert line == "daide game: error: --seat 'FRA': write POWER=NAME, e.g. --seat FRA=alice"
    line = refused(daide("game", "new", "--fill-after", "30", "--token-file", str(token)))
    assert line == "daide game: error: --fill-after needs --fill BOT"
    empty = tmp_path / "empty"
    empty.write_text("\n")
    line = refused(daide("game", "list", "--token-file", str(empty)))
    assert line == f"daide game: error: the admin token file {empty} holds no token"
    # The token is never taken on the command line (nor `--token` for `--token-file`).
    done = daide("game", "list", "--token", "t" * 43)
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr


def test_serve_admin_token_file_flag_and_a_bad_file(tmp_path: Path) -> None:
    own = tmp_path / "host.token"
    own.write_text("club-token-0123456789\n")
    with serving(tmp_path, "--db", "club.db", "--admin-token-file", str(own)) as served:
        assert ok(served.game("list", token_file=str(own))).startswith("No games")
        assert not (tmp_path / "club.db.admin-token").exists()
    bad = tmp_path / "bad.token"
    bad.write_text("short\n")
    done = daide("serve", "--port", "0", "--db", str(tmp_path / "x.db"),
                 "--admin-token-file", str(bad), cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"daide serve: error: admin token file {bad} holds no token: one line of 16 to 512 "
        "visible ASCII characters")


def test_a_redirect_is_not_followed_with_the_token(tmp_path: Path) -> None:
    """An address that redirects elsewhere gets one line; the token goes nowhere else."""
    import http.server

    seen: list[str | None] = []

    class Elsewhere(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.headers.get("authorization"))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    elsewhere = http.server.HTTPServer(("127.0.0.1", 0), Elsewhere)
    target = f"http://127.0.0.1:{elsewhere.server_address[1]}/steal"

    class Redirecting(Elsewhere):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", target)
            self.end_headers()

    redirecting = http.server.HTTPServer(("127.0.0.1", 0), Redirecting)
    threads = [threading.Thread(target=s.serve_forever, daemon=True)
               for s in (elsewhere, redirecting)]
    for thread in threads:
        thread.start()
    try:
        token = tmp_path / "token"
        token.write_text("r" * 43)
        url = f"http://127.0.0.1:{redirecting.server_address[1]}"
        line = refused(daide("game", "list", "--server", url, "--token-file", str(token)))
        assert line == (f"daide game: error: {url}/api/admin/games answered 302 Found, a "
                        "redirect, which would take the token elsewhere: give --server the "
                        "server's own address")
        assert seen == []
        # Nor through a proxy named in the environment: to --server and nowhere else.
        proxy = f"http://127.0.0.1:{elsewhere.server_address[1]}"
        env = {**os.environ, "http_proxy": proxy, "HTTP_PROXY": proxy, "no_proxy": ""}
        done = subprocess.run([*DAIDE, "game", "list", "--server", "http://127.0.0.1:1",
                               "--token-file", str(token)], env=env, capture_output=True,
                              text=True, timeout=60)
        assert refused(done).startswith("daide game: error: cannot reach the server at "
                                        "http://127.0.0.1:1")
        assert seen == []
    finally:
        for server in (elsewhere, redirecting):
            server.shutdown()
            server.server_close()
