"""Issue 27's evening: one server, three hosted games at once, a kill -9 in the middle.

`daide serve` runs as a subprocess; the host creates the games through the
HTTP API with the admin token from the file beside the database, as
``daide game`` does:

* **A** - standard at level 0 on its own port, played by seven programs
  that know nothing of hosting: ``daide bot dumbbot`` pointed at that port
  (or David Norman's C++ DumbBot when ``DAIDE_DUMBBOT`` gives its command,
  e.g. ``DAIDE_DUMBBOT='/path/dumbbot -i{host} -p{port}'``; after the kill
  it is started again with ``-rPOW:passcode``, as it does not come back by
  itself);
* **B** - modern at level 8000 with deadlines: two seats by invitation,
  the other eight filled by server-started bots;
* **C** - standard with PDA and a last year, filled by players' preference
  lists (``'name [FRA ENG=GER]'``) on its own port.

The games are paused while they form and resumed together once all three
have started; then the server is killed (SIGKILL) in the middle of their
play and started again on the same ports: all three resume with their settings,
their passcodes and their bots, and play to their ends.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.cli_helpers import DAIDE, start, wait_for_line

ROOT = Path(__file__).resolve().parent.parent
TOKEN_FILE = "daide-server.db.admin-token"
#: Powers of game C and the preference list each of its players sends.
WISHES = ["a [FRA ENG=GER]", "b [FRA]", "c [random]", "d [TUR RUS]", "e", "f [ITA=AUS]", "g []"]


class Server:
    """`daide serve` in a folder, its log drained to a list; HTTP API calls with the token."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.process = start("serve", "--log-json", "--linger", "0", *args, cwd=cwd)
        assert self.process.stderr is not None
        _line, seen = wait_for_line(self.process, self.process.stderr,
                                    '"event": "http_listening"')
        events = [json.loads(line) for line in seen if line.startswith("{")]
        self.port = int(next(e["port"] for e in events if e["event"] == "listening"))
        self.url = next(e["url"] for e in events if e["event"] == "http_listening").rstrip("/")
        self.log = list(seen)
        self.token = (cwd / TOKEN_FILE).read_text().strip()
        stderr = self.process.stderr

        def drain() -> None:
            for line in stderr:
                self.log.append(line)

        self.reader = threading.Thread(target=drain, daemon=True)
        self.reader.start()

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            f"{self.url}/api/admin{path}", method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                     "X-Daide-Client": "web"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()!r}") from None

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close()

    def _close(self) -> None:
        """The pipes, once the log has been read to its end."""
        self.reader.join(timeout=10)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


@contextmanager
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Client processes started by the test, all stopped at the end."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
            process.wait()


def _bot(kind: str, port: int, name: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*DAIDE, "bot", kind, "--port", str(port), "--name", name],
                            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _unmodified_client(port: int, n: int, rejoin: str | None = None) -> subprocess.Popen[bytes]:
    """A DAIDE program that knows nothing of hosting: the C++ DumbBot if given (``rejoin``,
    ``POWER:PASSCODE``, becomes its ``-r`` option), else ours."""
    binary = os.environ.get("DAIDE_DUMBBOT")
    if binary:
        argv = [p.replace("{host}", "127.0.0.1").replace("{port}", str(port))
                for p in shlex.split(binary)] + ([f"-r{rejoin}"] if rejoin else [])
        return subprocess.Popen(argv, cwd=_scratch(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return _bot("dumbbot", port, f"DumbBot-{n}")


def _scratch() -> str:
    """A folder for the C++ bots' own log files."""
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / "daide-dumbbot-logs"
    folder.mkdir(exist_ok=True)
    return str(folder)


def _wait(server: Server, ids: list[int], test: Any, seconds: float) -> dict[int, Any]:
    deadline = time.monotonic() + seconds
    while True:
        games = {g["id"]: g for g in server.api("GET", "/games")["games"]}
        if all(test(games[i]) for i in ids):
            return games
        assert time.monotonic() < deadline, {i: (games[i]["status"], games[i]["turn"])
                                             for i in ids}
        time.sleep(0.3)


def _seats(db: Path) -> dict[tuple[int, str], int]:
    with sqlite3.connect(db) as conn:
        return {(g, p): c for g, p, c in conn.execute("SELECT game_id, power, passcode FROM seats")}


def test_three_hosted_games_play_through_a_kill(tmp_path: Path) -> None:
    server = Server(tmp_path, "--port", "0", "--http-port", "0")
    try:
        with processes() as clients:
            a = server.api("POST", "/games", {"name": "dumbbots", "port": 0, "max_year": 1905})
            b = server.api("POST", "/games", {
                "name": "club", "variant": "modern", "level": 8000, "mtl": 120, "rtl": 60,
                "btl": 60, "max_year": 1998, "seats": {"FRN": "alice", "GER": "bob"},
                "fill": "holdbot"})
            c = server.api("POST", "/games", {"name": "lists", "pda": True, "max_year": 1903,
                                              "port": 0})
            assert a["own_port"] and b["own_port"] and c["own_port"]
            assert len({a["port"], b["port"], c["port"], server.port}) == 4
            unmodified = [_unmodified_client(a["port"], n) for n in range(1, 8)]
            clients += unmodified
            clients += [_bot("randbot", b["port"], f"{name} [invite {b['invitations'][power]}]")
                        for power, name in (("FRN", "alice"), ("GER", "bob"))]
            clients += [_bot("dumbbot", c["port"], wish) for wish in WISHES]
            ids = [a["id"], b["id"], c["id"]]
            # Paused while they form, the games start with their clocks standing;
            # resumed together, they are killed in the middle of their first phases.
            for game in ids:
                server.api("POST", f"/games/{game}/pause", {})
            _wait(server, ids, lambda g: g["status"] == "running", 300)
            for game in ids:
                server.api("POST", f"/games/{game}/resume", {})
            before = _seats(tmp_path / "daide-server.db")
            names = {s["power"]: s["name"] for s in server.api("GET", f"/games/{c['id']}")["seats"]}
            # The lists' suffixes never show.  Random requests are served first (the
            # Player's Technical Guide), so c may draw France; otherwise a or b, who
            # both rank it first, has it.
            assert not any("[" in n for n in names.values()) and names["FRA"] in ("a", "b", "c")
            server.kill()
            server = Server(tmp_path, "--port", str(server.port), "--http-port",
                            server.url.rsplit(":", 1)[1])
            games = {g["id"]: g for g in server.api("GET", "/games")["games"]}
            assert games[b["id"]]["settings"]["level"] == 8000
            assert games[b["id"]]["variant"] == "modern" and games[c["id"]]["settings"]["pda"]
            assert {g: games[g]["port"] for g in ids} == \
                {a["id"]: a["port"], b["id"]: b["port"], c["id"]: c["port"]}
            assert _seats(tmp_path / "daide-server.db") == before
            if os.environ.get("DAIDE_DUMBBOT"):
                # The C++ DumbBot does not reconnect by itself: it is started again
                # with its power and passcode (-rPOW:passcode), as a director would.
                for process in unmodified:
                    process.kill()
                clients += [_unmodified_client(a["port"], 0, f"{power}:{code}")
                            for (game, power), code in before.items() if game == a["id"]]
            assert all(games[g]["status"] == "running" and not games[g]["paused"] for g in ids), \
                {g: (games[g]["status"], games[g]["turn"], games[g]["paused"]) for g in ids}
            finished = _wait(server, ids, lambda g: g["status"] == "finished", 600)
            assert len(finished[b["id"]]["bots"]) == 8
            restarted = [line for line in server.log if '"bot_started"' in line
                         and '"power"' in line]
            assert len(restarted) == 8, restarted     # B's bots, back into their seats by IAM
            for game in ids:
                log = server.api("GET", f"/games/{game}/log")["log"]
                assert [e["action"].split()[0] for e in log] == ["new", "pause", "resume"]
    finally:
        server.stop()
