"""`daide tournament --ray` on a real two-node Ray cluster on this machine.

One Ray cluster (`ray.cluster_utils.Cluster`: a head node and a worker node
of one CPU each, real raylets and worker processes) serves the module; it
is shut down at the end whatever happens.  It lives on the loopback
(`tournament.cluster.LOOPBACK_ENV`): both nodes are 127.0.0.1, and while
the tournament plays on it every socket of every process the tests started
(the cluster's, the driver's, the bots') is on 127.0.0.1 at both ends.
The same 20-game tournament is played

* locally (``--parallel 2``): the reference;
* on the cluster, whole: every game stored once, on both nodes, the same
  games (same seeds give the same games: games.csv equal to the
  reference's) and a report of the same form;
* on the cluster while the worker processes of the worker node that are
  playing a game are killed (SIGKILL by pid): Ray runs those games again
  and the tournament still ends with each game counted exactly once;
* on the cluster with the driver killed (SIGKILL) mid-run, then the same
  command again: only the games not yet stored are played.

A game with external bots that crash and hang is recorded on the cluster
exactly as locally, their output shipped back to the driver's ``logs/``.

Every run is a real ``python -m daide tournament`` subprocess.
"""

from __future__ import annotations

import csv
import io
import ipaddress
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, SERVER_FAILURES
from tournament.cluster import LOOPBACK_ENV, environment, node_label

# The cluster extra (pip install -e '.[cluster]', which `make install` installs),
# imported as `tournament.cluster.require_ray` imports it for a Ray on the loopback.
with environment(LOOPBACK_ENV):
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[cluster]'")

BOTS = "dumbbot,randbot,holdbot"
GAMES = 20
#: Long enough (about half a second a game) to find a game running on a node.
YEARS = 4
#: Workers the test kills at most in `test_a_node_losing_its_workers_mid_run`.
KILLS = 3
SEED = 11
NODE_STORE = 100 * 1024 * 1024


@dataclass(frozen=True)
class TwoNodes:
    address: str
    head: str
    """The head node's label (`tournament.cluster.node_label`)."""
    worker: str
    worker_raylet: int
    """Pid of the worker node's raylet (its worker processes are its children)."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[TwoNodes]:
    from ray.cluster_utils import Cluster

    # The cluster's processes and the drivers the tests start inherit LOOPBACK_ENV.
    with environment(LOOPBACK_ENV):
        nodes = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "include_dashboard": False, "object_store_memory": NODE_STORE,
            "node_ip_address": "127.0.0.1", "dashboard_host": "127.0.0.1"})
        try:
            worker = nodes.add_node(num_cpus=1, object_store_memory=NODE_STORE,
                                    node_ip_address="127.0.0.1")
            nodes.wait_for_nodes()
            head = nodes.head_node
            assert nodes.address.startswith("127.0.0.1:")
            assert head.node_ip_address == worker.node_ip_address == "127.0.0.1"
            yield TwoNodes(nodes.address, node_label(head.node_ip_address, head.node_id),
                           node_label(worker.node_ip_address, worker.node_id),
                           worker.all_processes["raylet"][0].process.pid)
        finally:
            nodes.shutdown()


def command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "daide", "tournament", "--bots", BOTS, "--games", str(GAMES),
            "--year-limit", str(YEARS), "--seed", str(SEED), "--out", str(out),
            "--disorder-grace", "1", "--time-limit", "120", *extra]


def run(args: list[str], timeout: float = 150) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]
    return done


def _children() -> dict[int, list[int]]:
    """parent pid -> child pids, of every process."""
    out: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            out.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    return out


def _descendants(root: int) -> set[int]:
    children = _children()
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _ip(field: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """An address of /proc/net/tcp{,6}, udp{,6}: hex words in host (little-endian) order."""
    host, port = field.split(":")
    raw = bytes.fromhex(host)
    ip = ipaddress.ip_address(b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)))
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip, int(port, 16)


@dataclass
class Sockets:
    """The IP sockets of some processes, seen in snapshots (`look`)."""

    listening: set[str]
    connected: set[str]
    off_loopback: set[str]

    def look(self, pids: set[int]) -> None:
        owner: dict[int, int] = {}
        for pid in pids:
            try:
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    link = os.readlink(fd)
                    if link.startswith("socket:["):
                        owner[int(link[8:-1])] = pid
            except OSError:  # the process ended meanwhile
                continue
        for table in ("tcp", "tcp6", "udp", "udp6"):
            for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
                fields = line.split()
                who = owner.get(int(fields[9]))
                if who is None:
                    continue
                (local, lport), (remote, rport) = _ip(fields[1]), _ip(fields[2])
                name = f"{table} {local}:{lport} -> {remote}:{rport} of pid {who}"
                if not local.is_loopback or not (remote.is_loopback
                                                 or remote.is_unspecified and rport == 0):
                    self.off_loopback.add(f"{name} {_title(who)}")
                elif fields[3] == "0A":
                    self.listening.add(name)
                elif fields[3] == "01":
                    self.connected.add(name)


def _title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return "?"


@dataclass(frozen=True)
class Row:
    number: int
    status: str
    attempts: int
    node: str | None
    finished_at: str | None


def rows(out: Path) -> dict[int, Row]:
    db = sqlite3.connect(out / "tournament.db", timeout=10)
    try:
        return {r[0]: Row(*r) for r in db.execute(
            "SELECT number, status, attempts, node, finished_at FROM tournament_games")}
    finally:
        db.close()


def finished(out: Path) -> dict[int, Row]:
    if not (out / "tournament.db").exists():
        return {}
    try:
        return {n: r for n, r in rows(out).items() if r.status == "finished"}
    except sqlite3.OperationalError:  # the tables are not there yet
        return {}


def form(report: str) -> list[str]:
    """The shape of a report: its headings, table header rows and bullet names."""
    lines = report.splitlines()
    shape = []
    for i, line in enumerate(lines):
        if line.startswith("#"):
            shape.append(line)
        elif line.startswith("- "):
            shape.append(line.split(":")[0].split(" ")[1])
        elif line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|-") \
                or line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|:"):
            shape.append(line)
    return shape


def frames(page: str) -> list[str]:
    """The turns and captions of a replay page's frames."""
    return re.findall(r'<div class="frame" (data-turn="[^"]*" data-caption="[^"]*")', page)


def log_events(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "tournament.log").read_text().splitlines()
            if line.startswith("{")]


def assert_whole(out: Path, reference: Path) -> dict[int, Row]:
    """Every game stored once, finished, its replay linked; the same games as the local run;
    a clean log."""
    stored = rows(out)
    assert sorted(stored) == list(range(1, GAMES + 1))
    assert {r.status for r in stored.values()} == {"finished"}
    assert (out / "games.csv").read_text() == (reference / "games.csv").read_text()
    assert form((out / "report.md").read_text()) == form((reference / "report.md").read_text())
    assert sorted(replays(out)) == list(range(1, GAMES + 1))
    events = log_events(out)
    assert not [e for e in events if e.get("event") in SERVER_FAILURES]
    assert not [e for e in events if e.get("event") == "game_failed"]
    return stored


def replays(out: Path) -> dict[int, Path]:
    """Game -> its replay page, as the report's table of games links it; every page checked."""
    report = (out / "report.md").read_text()
    table = report.split("## Games", 1)[1].split("\n## ", 1)[0]
    links = {int(m[1]): out / m[2] for m in
             re.finditer(r"^\| (\d+) \|.*\[replay\]\(([^)]+)\)", table, re.M)}
    for page in links.values():
        text = page.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>"), page
        assert text.count('<div class="frame"') > 4, page
        assert not re.search(r'(src|href)="(https?:)?//', text), page
    return links


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tournament played locally, two games at a time."""
    out = tmp_path_factory.mktemp("local")
    done = run(command(out, "--parallel", "2", "--no-progress"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"played {GAMES} game(s)" in done.stdout
    seats = list(csv.DictReader(io.StringIO((out / "games.csv").read_text())))
    assert {int(s["game"]) for s in seats} == set(range(1, GAMES + 1))
    assert {r.node for r in rows(out).values()} == {"local"}
    assert sorted(replays(out)) == list(range(1, GAMES + 1))
    return out


@pytest.mark.slow
def test_twenty_games_on_two_nodes(cluster: TwoNodes, reference: Path, tmp_path: Path) -> None:
    # Every socket of the cluster, the driver and the bots, looked at while the games play.
    sockets = Sockets(set(), set(), set())
    driver = subprocess.Popen(command(tmp_path, "--ray", cluster.address), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while True:
            sockets.look(_descendants(os.getpid()))
            try:
                out, err = driver.communicate(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                pass
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    done = subprocess.CompletedProcess(driver.args, driver.returncode, out, err)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-3000:]
    assert not sockets.off_loopback, sorted(sockets.off_loopback)
    assert sockets.listening and sockets.connected
    assert f"played {GAMES} game(s)" in done.stdout
    stored = assert_whole(tmp_path, reference)
    assert {r.attempts for r in stored.values()} == {1}
    # Both nodes played, and every game says where.
    on = [r.node for r in stored.values()]
    assert set(on) == {cluster.head, cluster.worker}
    report = (tmp_path / "report.md").read_text()
    pace = next(line for line in report.splitlines() if line.startswith("- pace:"))
    assert "games per minute" in pace
    assert f"{cluster.head} {on.count(cluster.head)}" in pace
    assert f"{cluster.worker} {on.count(cluster.worker)}" in pace
    games_table = report.split("## Games", 1)[1]
    assert games_table.count(cluster.worker) == on.count(cluster.worker)
    # Every game links the replay its worker made, as every game of the local run does;
    # the same game, so the same phases (frames) as the local replay.
    pages = replays(tmp_path)
    assert sorted(pages) == list(range(1, GAMES + 1))
    assert {p.name for p in pages.values()} == {f"tournament-game-{n}.html"
                                                 for n in range(1, GAMES + 1)}
    local = replays(reference)
    for n, page in pages.items():
        text = page.read_text(encoding="utf-8")
        assert f"<h1>Tournament game {n}</h1>" in text
        assert frames(text) == frames(local[n].read_text(encoding="utf-8"))
    # The progress (not a terminal: a line per game done) names the nodes and the ETA.
    progress = [line for line in done.stderr.splitlines() if " done " in line]
    assert len(progress) >= GAMES - 1
    assert any(cluster.worker in line for line in progress)
    assert any("ETA" in line for line in progress)
    # The workers' log lines came back into the driver's log, tagged with their node.
    events = log_events(tmp_path)
    assert {e.get("node") for e in events if "tournament_game" in e} == set(on)


def _workers_of(raylet: int) -> dict[int, str]:
    """pid -> title of the worker processes a raylet started."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == raylet and title.startswith("ray::"):
            out[int(entry.name)] = title
    return out


def _still_playing(pid: int) -> bool:
    try:
        return b"play_on_node" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.slow
def test_a_node_losing_its_workers_mid_run(cluster: TwoNodes, reference: Path,
                                           tmp_path: Path) -> None:
    # With the progress bar: its board counts the tries of each game.
    driver = subprocess.Popen(command(tmp_path, "--ray", cluster.address),
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    killed: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 90
        # Once the worker node has finished a game (it is warm), kill its worker
        # processes that have been playing a game (Ray titles a worker by its
        # task) for a twentieth of a second: the game is under way.  A game lasts a
        # few tenths of a second, so the title is read again right before the
        # kill: a worker that has just finished its game is not a lost game.
        # Still, a worker goes from one game to the next faster than the title
        # is polled, so a kill can land as a game ends (its result already
        # sent: nothing to retry); hence up to KILLS kills, a third of a second
        # apart, at least one of which must cost a game.
        playing: dict[int, float] = {}
        last_kill = 0.0
        while len(killed) < KILLS and time.monotonic() < deadline and driver.poll() is None:
            done = finished(tmp_path)
            if any(r.node == cluster.worker for r in done.values()) \
                    and time.monotonic() - last_kill >= 0.3:
                now = time.monotonic()
                titles = _workers_of(cluster.worker_raylet)
                playing = {pid: playing.get(pid, now) for pid, title in titles.items()
                           if "play_on_node" in title}
                for pid, since in playing.items():
                    if now - since >= 0.05 and _still_playing(pid) and pid not in killed:
                        try:
                            os.kill(pid, signal.SIGKILL)
                            killed[pid] = titles[pid]
                            last_kill = time.monotonic()
                        except ProcessLookupError:
                            pass
                        break
            time.sleep(0.05)
        out, err = driver.communicate(timeout=150)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert killed, "no game was running on the worker node"
    assert "Traceback" not in err, err[-3000:]
    assert driver.returncode == 0, err[-3000:]
    assert f"played {GAMES} game(s)" in out
    stored = assert_whole(tmp_path, reference)
    # Ray ran the killed games again; the tournament counted each game once.
    assert {r.attempts for r in stored.values()} == {1}
    events = log_events(tmp_path)
    assert len([e for e in events if e.get("event") == "game_done"]) == GAMES
    retried = [e for e in events if e.get("event") == "game_retried"]
    # Only the test kills workers: every retry is one of its kills, and at least
    # one kill hit a game under way.
    assert 1 <= len(retried) <= len(killed), (retried, killed)
    assert all(e["tries"] >= 2 for e in retried)


@pytest.mark.slow
def test_resume_after_the_driver_died(cluster: TwoNodes, reference: Path,
                                      tmp_path: Path) -> None:
    args = command(tmp_path, "--ray", cluster.address, "--no-progress")
    driver = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while len(finished(tmp_path)) < 6 and time.monotonic() < deadline:
            assert driver.poll() is None, "the driver ended before it was killed"
            time.sleep(0.05)
    finally:
        driver.kill()  # SIGKILL: no chance to tidy up
        driver.wait()
    before = rows(tmp_path)
    kept = {n: r for n, r in before.items() if r.status == "finished"}
    assert 6 <= len(kept) < GAMES
    cut_off = {n for n, r in before.items() if r.status == "running"}
    assert cut_off, "no game was running when the driver died"

    done = run(args)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (f"played {GAMES - len(kept)} game(s), continuing an interrupted tournament"
            in done.stdout)
    after = assert_whole(tmp_path, reference)
    for number, row in kept.items():  # not played again
        assert after[number] == row
    for number in cut_off:  # handed to Ray by the dead driver: a second attempt
        assert after[number].attempts == 2
    # The second run's log (from its "tournament" line on) has the missing games only.
    events = log_events(tmp_path)
    second = max(i for i, e in enumerate(events) if e.get("event") == "tournament")
    assert events[second]["resumed"] is True and events[second]["to_play"] == GAMES - len(kept)
    played_now = [e["game"] for e in events[second:] if e.get("event") == "game_done"]
    assert sorted(played_now) == sorted(set(range(1, GAMES + 1)) - set(kept))


def test_without_ray_one_line_says_how_to_install_it(tmp_path: Path) -> None:
    # A ``ray`` package that cannot be imported, in front of the installed one.
    shadow = tmp_path / "shadow" / "ray"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('no module named ray')\n")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    done = subprocess.run(command(tmp_path / "out", "--ray"), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == ["daide tournament: error: --ray needs Ray, which is not installed: "
                     "pip install -e '.[cluster]'"]


def test_ray_and_server_exclude_each_other(tmp_path: Path) -> None:
    done = run(command(tmp_path, "--ray", "--server", "127.0.0.1:16713"), timeout=60)
    assert done.returncode == 1
    assert "leave out --server" in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(("address", "message"), [
    ("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1: Connection refused"),
    ("nonsense", "--ray 'nonsense': expected auto, HOST:PORT or ray://HOST:PORT"),
])
def test_an_address_without_a_cluster_is_one_line(tmp_path: Path, address: str,
                                                   message: str) -> None:
    done = run(command(tmp_path, "--ray", address), timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"daide tournament: error: {message}"]


@pytest.mark.parametrize(("address", "loopback"), [
    (None, True), ("127.0.0.1:6379", True), ("localhost:6379", True), ("[::1]:6379", True),
    ("ray://127.0.0.1:10001", True), ("auto", False), ("10.0.0.5:6379", False),
    ("ray://10.0.0.5:10001", False), ("head.example:6379", False),
])
def test_which_addresses_mean_a_ray_on_the_loopback(address: str | None, loopback: bool) -> None:
    from tournament.cluster import on_loopback

    assert on_loopback(address) is loopback


def test_progress_line_of_a_ray_run() -> None:
    from tournament.progress import progress_line
    from tournament.runner import Progress

    p = Progress(20, 8, 0, {9: "SPR 1903", 10: "joining"}, 6.0, 0, done_before=2, queued=10,
                 nodes={"10.0.0.6#9a8b7c6d": (1, 1), "10.0.0.5#1f2e3d4c": (5, 1)})
    # ETA: 12 games left at 6 games (this run's) in 6 s.
    assert progress_line(p, width=10) == (
        "[####------]  8/20 done  2 running: g9 SPR 1903, g10 joining  10 queued  "
        "nodes: 10.0.0.5#1f2e3d4c 5 done 1 running, 10.0.0.6#9a8b7c6d 1 done 1 running  "
        "6 s  ETA 12 s")


def test_pace_counts_only_the_time_games_were_played() -> None:
    from tournament.report import pace_line
    from tournament.store import StoredGame

    def game(number: int, node: str, start: str, end: str) -> StoredGame:
        return StoredGame(number, 1, "finished", 1, None, 1.0, "draw", "WIN 1901", None, (),
                          None, (), node=node, started_at=f"2026-01-01T10:{start}+00:00",
                          finished_at=f"2026-01-01T10:{end}+00:00")

    # Two overlapping games (00:00-00:40, 00:20-01:00), then - after a pause of
    # half an hour, as between an interrupted run and its continuation - one
    # more (30:00-30:20): 80 s of play for 3 games.
    games = [game(1, "a#1", "00:00.000", "00:40.000"), game(2, "b#2", "00:20.000", "01:00.000"),
             game(3, "a#1", "30:00.000", "30:20.000")]
    assert pace_line(games) == ("- pace: 2.2 games per minute (3 games in 1.3 min of play); "
                                "games per node: a#1 2, b#2 1")


@pytest.mark.slow
def test_failing_external_bots_on_a_worker_are_recorded_as_locally(
        cluster: TwoNodes, tmp_path: Path) -> None:
    faulty = ROOT / "tests" / "tournament_faulty_bot.py"
    py = sys.executable
    args = ["--bots", "extdumb,crash,hang,dumbbot,randbot,holdbot",
            "--external", f"extdumb={py} -m daide bot dumbbot --host {{host}} --port {{port}}"
                          " --seed {seed}",
            "--external", f"crash={py} {faulty} crash {{host}} {{port}}",
            "--external", f"hang={py} {faulty} hang {{host}} {{port}}",
            "--games", "1", "--seed", "7", "--year-limit", "3", "--move-timeout", "1",
            "--join-timeout", "10", "--disorder-grace", "0.5", "--time-limit", "60",
            "--no-progress"]
    base = [sys.executable, "-m", "daide", "tournament", *args]
    local = run([*base, "--out", str(tmp_path / "local")])
    on_ray = run([*base, "--out", str(tmp_path / "ray"), "--ray", cluster.address])
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert "played 1 game(s)" in on_ray.stdout

    def failures(out: Path) -> list[tuple[object, ...]]:
        db = sqlite3.connect(out / "tournament.db")
        try:
            return db.execute("SELECT number, attempt, power, bot, kind, detail"
                              " FROM tournament_failures ORDER BY number, power").fetchall()
        finally:
            db.close()

    found = failures(tmp_path / "ray")
    assert {(f[3], f[4]) for f in found} == {("crash", "crash"), ("hang", "hang")}
    assert found == failures(tmp_path / "local")
    assert ((tmp_path / "ray" / "games.csv").read_text()
            == (tmp_path / "local" / "games.csv").read_text())
    ray_report = (tmp_path / "ray" / "report.md").read_text()
    local_report = (tmp_path / "local" / "report.md").read_text()
    assert (ray_report.split("## Bot failures", 1)[1].split("\n## ", 1)[0]
            == local_report.split("## Bot failures", 1)[1].split("\n## ", 1)[0])
    # The external programs ran on a worker; their output came back to the driver.
    crash_logs = sorted((tmp_path / "ray" / "logs").glob("game*-crash.log"))
    assert [p.name for p in crash_logs] == sorted(
        p.name for p in (tmp_path / "local" / "logs").glob("game*-crash.log"))
    assert all(p.read_text().startswith(f"$ {py} {faulty} crash") for p in crash_logs)
