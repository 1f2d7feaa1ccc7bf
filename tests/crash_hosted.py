"""Crash safety of hosted games: SIGKILL in the middle of phases and of admin actions.

`hosted_trial` runs ``daide serve`` (a subprocess, fixed DAIDE and HTTP
ports, ``--log-json``) and, through its HTTP API (``/api/admin``, the
admin token of ``<db>.admin-token``), creates games with their own
settings: a modern game at press level 8000 with deadlines on its own port,
a standard game with PDA, ``max_year`` and deadlines on a port the host
chose, and a standard game that keeps forming (one seat reserved for a
player who never comes).  RandBots of the sample client library take the
seats of the first two with their invitations and play, paced, coming back
with IAM after each kill (`bots.client`).

Then, round after round (an equal share of the rounds for each of
`ACTIONS`, in an order drawn from the seed), the server is killed with
SIGKILL either at a random moment of the games' phases, or around an admin
request - pause (of a game not paused), resume (of a paused one), extend
(of the game with a deadline in every phase), eject, a new game, a bot to
fill a seat of the forming game - at one of three moments (`MOMENTS`):

* ``within``: a random moment within twice and a half what a read of the
  game takes just then (at most ``kill_window``), counted from the start of
  the request - before it, while the action is carried out and stored, or
  after it;
* ``as sent``: the server is held still (SIGSTOP), the whole request goes
  out, and the SIGKILL follows: the request lies unread in the server's
  socket, as when a kill comes just as it arrives;
* ``answered``: just after the server answered.

An action kind's first round is always ``within``; a later one is
``within`` too once the kind has been seen both done and absent after a
restart, else it is the moment that gives the side not yet seen (``as
sent`` for absent, ``answered`` for done).  A request the server refused
(its log line says so) counts on neither side; the harness asks only what
may be done (an extension of the game with a deadline in every phase, a
pause of a game that runs, a resume of a paused one, a fill while a seat
is free), so refusals are rare.  The rule: in a run with at least
`ROUNDS_FOR_BOTH` rounds of each kind (``--hosted-rounds 21`` or more), an
admin action kind never seen done after a kill, or never seen absent, is
a problem and the run fails; a shorter run (``make test``'s, one round of
each kind) only reports what it saw.

After each kill the server is restarted on the same database and
everything is checked:

* every game is there with the settings it was created with, its port
  (a game's own door answers with its variant's MAP), its status;
* its pause state is what its admin log says (the last pause or resume
  done);
* the admin log of the game acted on has, since the request, one line for
  it (done, or refused if the server refused it) or none, and nothing
  else; an answer that came back is there as answered;
* each admin action attempted is wholly there or wholly absent: an
  ``eject`` line done <=> the power's passcode changed (and the passcode
  the API answered, if the answer came, is the stored one); a ``new`` line
  <=> the game exists, once; a ``fill`` line done <=> one more bot
  invitation stored and one seat fewer free, absent <=> the same
  invitations and free seats as before; no admin line of a game that does
  not exist;
* the server's bot processes are as stored: every ``daide bot`` process on
  the run's ports is a child of the running server (none left over by the
  killed one), and the forming game's bots run once each with the codes of
  its bot invitations, no other (waited for, up to `BOTS_SETTLE` seconds:
  the killed server's children get their SIGTERM and the new server starts
  its own);
* after an eject that is there, the new passcode takes the power over with
  IAM and the old one is refused.

At the end the games are resumed, play on, and the host ends them; once
the server stopped no bot process of the run is left.  ``make crash`` runs
it after the seeded games of `tests.crash_harness` (its
``--hosted-rounds``); ``tests/test_crash.py`` runs a short one.
"""

from __future__ import annotations

import http.client
import json
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import trio

from bots.client import BotClient, ClientSettings
from bots.link import ConnectionLost
from bots.randbot import RandBot
from bots.transport import open_transport
from engine.variants import load_variant
from tests.crash_harness import ROOT, free_port
from tests.server_helpers import Closed, ScriptClient

#: Modern's game starts in 1995, standard's in 1901.
MODERN_YEARS = 1995 - 1901
#: What a round does before the kill (drawn in turn from a seeded shuffle).
ACTIONS = ("phase", "pause", "resume", "extend", "eject", "new", "fill")
#: When the kill falls, around an admin request (see the module doc): name -> as reported.
MOMENTS = {"within": "within", "sent": "as sent", "answered": "answered"}
#: Rounds of each kind from which every admin action kind must be seen done and absent.
ROUNDS_FOR_BOTH = 3
#: Seconds the bot processes have to be as stored after a restart (or a stop).
BOTS_SETTLE = 30.0


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status} {message}")
        self.status = status


@dataclass(frozen=True)
class HostedPlan:
    """How many kill rounds, how long the games, and the seed of everything."""

    rounds: int = 7
    max_year: int = 1910         # long enough not to end during the rounds
    seed: int = 1
    pace: float = 0.1            # seconds a bot waits before it orders
    kill_window: float = 0.08    # the kill falls at most this long after a request is sent


@dataclass
class Attempt:
    """One admin request with a kill around it: what was asked, and what came back."""

    round: int
    action: str                  # pause, resume, extend, eject, new, fill
    game: int | None
    path: str
    body: dict[str, Any]
    moment: str = "within"       # a key of MOMENTS
    answer: dict[str, Any] | None = None
    refusal: ApiError | None = None   # the server's answer was an error
    old_passcode: int | None = None
    log_before: int = 0          # the game's admin log lines before the request
    invited_before: frozenset[str] = frozenset()   # fill: the bot invitations' codes
    free_before: int | None = None                  # fill: the free seats
    present: bool | None = None  # found done after the restart
    refused: bool = False        # found refused (not a kill's doing: no side of it)


@dataclass
class HostedResult:
    kills: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    finished: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        by: dict[str, list[int]] = {}
        moments = dict.fromkeys(MOMENTS.values(), 0)
        for a in self.attempts:
            counts = by.setdefault(a.action, [0, 0, 0])
            counts[2 if a.refused else 0 if a.present else 1] += 1
            moments[MOMENTS[a.moment]] += 1
        return {"kills": self.kills, "finished_games": self.finished,
                "admin_actions_killed_done_or_absent": {
                    k: f"{v[0]} done / {v[1]} absent" + (f" / {v[2]} refused" if v[2] else "")
                    for k, v in sorted(by.items())},
                "admin_kill_moments": moments, "seconds": round(self.seconds, 1)}


class Api:
    """``/api/admin`` with the admin token (blocking: run it in a thread)."""

    def __init__(self, url: str, token: str) -> None:
        self.base = url.rstrip("/") + "/api/admin"
        self.token = token

    def headers(self, body: dict[str, Any] | None) -> dict[str, str]:
        headers = {"authorization": f"Bearer {self.token}", "user-agent": "crash-harness/1"}
        if body is not None:
            headers |= {"content-type": "application/json", "x-daide-client": "web"}
        return headers

    def raw(self, path: str, body: dict[str, Any]) -> bytes:
        """The POST ``call`` makes, as the bytes it sends (HTTP/1.1)."""
        data = json.dumps(body).encode()
        url = urlsplit(self.base + path)
        lines = [f"POST {url.path} HTTP/1.1", f"host: {url.netloc}", "connection: close",
                 f"content-length: {len(data)}",
                 *(f"{k}: {v}" for k, v in self.headers(body).items())]
        return "\r\n".join([*lines, "", ""]).encode() + data

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = self.headers(body)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, error.read().decode(errors="replace")) from None

    async def get(self, path: str) -> Any:
        return await trio.to_thread.run_sync(self.call, "GET", path)

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        return await trio.to_thread.run_sync(self.call, "POST", path, body)


class HostedServer:
    """``daide serve`` with its web side on fixed ports; its log goes to a file per start."""

    def __init__(self, db: Path, logs: Path) -> None:
        self.db, self.logs = db, logs
        self.port, self.http_port = free_port(), free_port()
        self.process: trio.Process | None = None
        self.starts = 0

    @property
    def log(self) -> Path:
        return self.logs / f"hosted-server.{self.starts}.log"

    async def start(self) -> None:
        self.starts += 1
        with self.log.open("wb") as out:
            self.process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "daide", "serve", "--port", str(self.port),
                 "--http-port", str(self.http_port), "--db", str(self.db), "--log-json",
                 "--linger", "0"],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=out)
        with trio.fail_after(60):
            while b'"http_listening"' not in self.log.read_bytes():
                assert self.process.poll() is None, self.log.read_text()
                await trio.sleep(0.02)

    def phases(self) -> int:
        return self.log.read_bytes().count(b'"phase_processed"')

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        await self.process.wait()

    async def freeze(self) -> None:
        """SIGSTOP, and wait until every thread of the server stands still."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        threads = Path(f"/proc/{self.process.pid}/task")
        with trio.fail_after(10):
            while not all(state in "tT" for state in _thread_states(threads)):  # noqa: ASYNC110
                await trio.sleep(0.001)

    async def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with trio.move_on_after(15):
                await self.process.wait()
            if self.process.poll() is None:
                await self.kill()

    def api(self) -> Api:
        token = Path(f"{self.db}.admin-token").read_text().strip()
        return Api(f"http://127.0.0.1:{self.http_port}", token)


def _thread_states(threads: Path) -> list[str]:
    """The state letter of each thread in ``/proc/PID/task`` (R, S, T, ...)."""
    states = []
    for thread in threads.iterdir():
        try:
            states.append((thread / "stat").read_text().rsplit(")", 1)[1].split()[0])
        except (OSError, IndexError):
            pass                          # a thread that ended in between
    return states


def stored(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows read beside the server (read-only; the admin tables are written at once)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as conn:
        return conn.execute(sql, args).fetchall()


def passcode(db: Path, game: int, power: str) -> int | None:
    rows = stored(db, "SELECT passcode FROM seats WHERE game_id = ? AND power = ?", game, power)
    return int(rows[0][0]) if rows else None


def bot_invitations(db: Path, game: int) -> frozenset[str]:
    """The codes of a game's stored invitations for server-started bots."""
    rows = stored(db, "SELECT state FROM hosted WHERE game_id = ?", game)
    state = json.loads(rows[0][0]) if rows else {}
    return frozenset(i["code"] for i in state.get("invitations", ()) if i.get("bot"))


@dataclass(frozen=True)
class BotProcess:
    pid: int
    parent: int
    port: int
    name: str           # its NME name: ``holdbot [invite CODE]``, or the kind with --rejoin


def bot_processes(ports: set[int]) -> list[BotProcess]:
    """The live ``daide bot`` processes joining one of ``ports`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = [a.decode(errors="replace")
                    for a in (entry / "cmdline").read_bytes().split(b"\0")]
            state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue                    # gone in between
        if state == "Z" or "-m" not in argv or argv[argv.index("-m") + 1:][:2] != ["daide", "bot"]:
            continue
        options = dict(zip(argv, argv[1:], strict=False))
        port = int(options.get("--port", "0"))
        if port in ports:
            found.append(BotProcess(int(entry.name), int(parent), port, options.get("--name", "")))
    return found


class Trial:
    """The run (see the module doc): the server, the games, the bots, the checks."""

    def __init__(self, workdir: Path, plan: HostedPlan) -> None:
        self.plan = plan
        self.db = workdir / "hosted.db"
        self.server = HostedServer(self.db, workdir)
        self.rng = random.Random(f"hosted/{plan.seed}")
        self.result = HostedResult()
        #: game -> the settings asked for (and the port it got), to check after each restart
        self.asked: dict[int, dict[str, Any]] = {}
        self.ports: dict[int, int] = {}
        self.playing: list[int] = []
        self.forming = 0
        self.bots: dict[tuple[int, str], trio.CancelScope] = {}
        self.clients: list[BotClient] = []

    @property
    def problems(self) -> list[str]:
        return self.result.problems

    async def run(self, nursery: trio.Nursery) -> None:
        started = time.monotonic()
        await self.server.start()
        api = self.server.api()
        y = self.plan.max_year
        modern = await self.create(api, {"variant": "modern", "level": 8000, "mtl": 600,
                                         "rtl": 300, "btl": 300,
                                         "max_year": y + MODERN_YEARS,
                                         "name": "crash modern", "access": "invitation"},
                                   seats=load_variant("modern").powers)
        pda = await self.create(api, {"variant": "standard", "pda": True, "mtl": 600,
                                      "max_year": y, "port": free_port(), "name": "crash pda"},
                                seats=load_variant("standard").powers)
        forming = await self.create(api, {"name": "crash forming", "mtl": 120}, seats=("FRA",))
        self.playing, self.forming = [modern["id"], pda["id"]], forming["id"]
        for made in (modern, pda):
            for power, code in made["invitations"].items():
                nursery.start_soon(self.bot, made["id"], made["port"], power, code)
        with trio.fail_after(120):
            while [(await api.get(f"/games/{n}"))["status"] for n in self.playing] \
                    != ["running"] * len(self.playing):  # noqa: ASYNC110 - another process
                await trio.sleep(0.1)
        rounds = [ACTIONS[i % len(ACTIONS)] for i in range(self.plan.rounds)]
        self.rng.shuffle(rounds)
        for number, kind in enumerate(rounds, 1):
            live = [n for n in self.playing if (await api.get(f"/games/{n}"))["status"] == "running"]
            if not live:
                self.problems.append(f"round {number}: no game is running any more "
                                     "(raise --max-year or slow the bots)")
                break
            attempt = await self.kill_round(api, number, kind, live)
            await self.server.start()
            api = self.server.api()
            await self.check(api, attempt)
        self.coverage()
        # The end: the games play on (a few phases more), then the host ends those
        # still running - a draw, SMR - and every game is finished.
        for n in self.playing:
            if (await api.get(f"/games/{n}"))["paused"]:
                await api.post(f"/games/{n}/resume", {})
        target = self.server.phases() + 3
        with trio.move_on_after(60) as waiting:
            while self.server.phases() < target:  # noqa: ASYNC110 - another process's log
                await trio.sleep(0.01)
        if waiting.cancelled_caught:
            # Say where the games stood, so that a run that stalls here can be read.
            views = [await api.get(f"/games/{n}") for n in self.playing]
            self.problems.append(
                "the games played fewer than 3 phases in 60 s after the last round: "
                + "; ".join(f"game {v['id']} {v['status']}, paused {v['paused']}, "
                            f"turn {v.get('turn')}" for v in views)
                + f"; server log {self.server.log}")
        for n in self.playing:
            if (await api.get(f"/games/{n}"))["status"] == "running":
                await api.post(f"/games/{n}/end", {})
        with trio.fail_after(60):
            while [(await api.get(f"/games/{n}"))["status"] for n in self.playing] \
                    != ["finished"] * len(self.playing):  # noqa: ASYNC110 - another process
                await trio.sleep(0.1)
        self.result.finished = len(self.playing)
        await self.server.stop()
        await self.bots_settled("after the server stopped")
        self.result.seconds = time.monotonic() - started

    async def create(self, api: Api, settings: dict[str, Any],
                     seats: tuple[str, ...]) -> dict[str, Any]:
        made: dict[str, Any] = await api.post("/games", {**settings, "seats": {
            p: f"{p.lower()}-{settings['name'].split()[-1]}" for p in seats}})
        self.asked[made["id"]] = settings
        self.ports[made["id"]] = made["port"]
        return made

    async def bot(self, game: int, port: int, power: str, code: str) -> None:
        """A paced RandBot in one seat, until the end or until its power is ejected."""
        settings = ClientSettings(port=port, name=f"{power.lower()} [invite {code}]",
                                  seed=self.plan.seed * 100 + game, pace=self.plan.pace,
                                  reconnect_attempts=60)
        client = BotClient(RandBot(), settings)
        self.clients.append(client)
        with trio.CancelScope() as scope:
            self.bots[(game, power)] = scope
            try:
                await client.run()
            except Exception as exc:       # a bot's failure is a finding, not the end
                self.problems.append(f"game {game}: the bot of {power} failed: "
                                     f"{type(exc).__name__}: {exc}")

    async def kill_round(self, api: Api, number: int, kind: str, live: list[int]) -> Attempt | None:
        """Kill the server in the middle of a phase, or around the admin action ``kind``."""
        rng = self.rng
        if kind == "phase":
            for n in live:                # a paused game plays no phase
                if (await api.get(f"/games/{n}"))["paused"]:
                    await api.post(f"/games/{n}/resume", {})
            target = self.server.phases() + rng.randint(1, 3)
            with trio.fail_after(60):
                while self.server.phases() < target:  # noqa: ASYNC110 - another process's log
                    await trio.sleep(0.005)
            await trio.sleep(rng.uniform(0, 0.2))
            await self.server.kill()
            self.result.kills += 1
            return None
        attempt = await self.prepare(api, number, kind, live)
        attempt.moment = self.moment(attempt.action)
        await self.kill_around(api, attempt)
        return attempt

    async def kill_around(self, api: Api, attempt: Attempt) -> None:
        """Send the request and kill the server at the attempt's moment."""
        self.result.attempts.append(attempt)
        if attempt.moment == "sent":
            await self.kill_as_sent(attempt)
        elif attempt.moment == "answered":
            try:
                attempt.answer = await api.post(attempt.path, attempt.body)
            except ApiError as exc:
                attempt.refusal = exc
            await self.server.kill()
        else:
            await self.kill_within(api, attempt)
        self.result.kills += 1

    async def prepare(self, api: Api, number: int, kind: str, live: list[int]) -> Attempt:
        """The request of a round: its game, path and body, and the game before it."""
        rng = self.rng
        body: dict[str, Any] = {}
        if kind in ("pause", "resume"):
            # A pause to a game that runs, a resume to a paused one (made so if none is).
            views = {n: await api.get(f"/games/{n}") for n in live}
            fit = [n for n in live if views[n]["paused"] == (kind == "resume")]
            if not fit:
                fit = [rng.choice(live)]
                await api.post(f"/games/{fit[0]}/{'pause' if kind == 'resume' else 'resume'}", {})
            game: int | None = rng.choice(fit)
        elif kind == "extend":
            # The game with a deadline in every phase: elsewhere a retreat or a build
            # without one refuses the extension.
            game = rng.choice([n for n in live if all(self.asked[n].get(limit) for limit in
                                                      ("mtl", "rtl", "btl"))] or live)
            body["seconds"] = rng.randint(10, 300)
        elif kind == "eject":
            game = rng.choice(live)
            powers = sorted(p for (g, p), s in self.bots.items() if g == game
                            and not s.cancel_called)
            power = rng.choice(powers)
            self.bots[(game, power)].cancel()     # its bot would come back with the old code
            await trio.sleep(0.05)
            body["power"] = power
        elif kind == "new":
            game = None
            settings = rng.choice([
                {"variant": "modern", "level": 8000, "mtl": 300},
                {"variant": "standard", "level": 30, "mtl": 200, "port": free_port(),
                 "aoa": True},
                {"variant": "chromatic", "max_year": 1910, "dsd": True}])
            body.update(settings, name=f"crash new {number}", seats={"FRA": "ann"}
                        if settings["variant"] == "standard" else {})
        else:
            assert kind == "fill"
            game = self.forming
            body["bot"] = "holdbot"
        path = "/games" if game is None else f"/games/{game}/{kind}"
        attempt = Attempt(number, kind, game, path, body)
        if game is not None:
            view = await api.get(f"/games/{game}")
            attempt.log_before = len(view["log"])
            if kind == "eject":
                attempt.old_passcode = passcode(self.db, game, body["power"])
            elif kind == "fill":
                attempt.invited_before = bot_invitations(self.db, game)
                attempt.free_before = view["free_seats"]
        return attempt

    def moment(self, action: str) -> str:
        """``within``, unless a kind seen on one side only needs the other (module doc)."""
        seen = {a.present for a in self.result.attempts
                if a.action == action and not a.refused and a.present is not None}
        if len(seen) != 1:
            return "within"
        return "sent" if True in seen else "answered"

    async def kill_as_sent(self, attempt: Attempt) -> None:
        """The whole request goes out to a server held still (SIGSTOP), which is then
        killed: the request lies unread in its socket.  (Sending and killing at once is not
        enough: the kernel may run the woken server before the sender's next line, and a
        fill was seen done that way.)"""
        request = self.server.api().raw(attempt.path, attempt.body)
        address = ("127.0.0.1", self.server.http_port)
        connection = await trio.to_thread.run_sync(socket.create_connection, address, 10)
        with connection:
            await self.server.freeze()
            connection.sendall(request)   # a few hundred bytes: into the socket's buffer
            await self.server.kill()

    async def kill_within(self, api: Api, attempt: Attempt) -> None:
        """The kill falls at a random moment from the start of the request to about twice
        what a request takes now (a read of the game, through the same road), so that it
        lands before, in or after the action about as often, however busy the machine."""
        began = time.monotonic()
        await api.get(f"/games/{attempt.game}" if attempt.game is not None else "/games")
        window = min(self.plan.kill_window, 2.5 * (time.monotonic() - began))
        answer: list[Any] = []

        def send() -> None:
            try:
                answer.append(self.server.api().call("POST", attempt.path, attempt.body))
            except (ApiError, OSError, http.client.HTTPException) as exc:
                answer.append(exc)      # the kill cut the answer

        async with trio.open_nursery() as inner:
            inner.start_soon(trio.to_thread.run_sync, send)
            await trio.sleep(self.rng.uniform(0, window))
            await self.server.kill()
        if answer and isinstance(answer[0], dict):
            attempt.answer = answer[0]
        elif answer and isinstance(answer[0], ApiError):
            attempt.refusal = answer[0]

    # --- the checks after a restart ----------------------------------------------

    async def check(self, api: Api, attempt: Attempt | None) -> None:
        views = {g["id"]: g for g in (await api.get("/games"))["games"]}
        for game, asked in self.asked.items():
            view = views.get(game)
            if view is None:
                self.problems.append(f"game {game} ({asked['name']}) is gone after a restart")
                continue
            settings = view["settings"]
            for key, value in asked.items():
                if settings.get(key) != value:
                    self.problems.append(f"game {game}: {key} {settings.get(key)!r} after a "
                                         f"restart, created with {value!r}")
            if view["port"] != self.ports[game]:
                self.problems.append(f"game {game}: port {view['port']}, was {self.ports[game]}")
            if view["status"] != "finished" and view["own_port"]:
                await self.door_answers(game, view)
            full = await api.get(f"/games/{game}")
            log = full["log"]
            for line in log:
                if line["outcome"] != "done" and not line["outcome"].startswith("refused: "):
                    self.problems.append(f"game {game}: admin log outcome {line['outcome']!r}")
            paused = False
            for line in log:
                if line["outcome"] == "done" and line["action"] in ("pause", "resume"):
                    paused = line["action"] == "pause"
            if full["paused"] != paused:
                self.problems.append(f"game {game}: paused is {full['paused']}, its admin log "
                                     f"says {paused}")
        orphans = stored(self.db, "SELECT DISTINCT game_id FROM admin_log WHERE game_id NOT IN "
                                  "(SELECT id FROM games)")
        if orphans:
            self.problems.append(f"admin log lines of games that do not exist: {orphans}")
        if attempt is not None:
            await self.check_attempt(api, attempt, views)
        where = f"after the restart of round {attempt.round}" if attempt else "after a restart"
        await self.bots_settled(where)

    async def door_answers(self, game: int, view: dict[str, Any]) -> None:
        try:
            client = await ScriptClient.connect(view["port"], "door")
            await client.send("MAP")
            got = await client.receive()
            await client.close()
        except (OSError, Closed, trio.TooSlowError) as exc:
            self.problems.append(f"game {game}: its door {view['port']} does not answer: {exc}")
            return
        if got != f"MAP ( '{view['variant'].upper()}' )":
            self.problems.append(f"game {game}: its door answers {got!r}")

    async def check_attempt(self, api: Api, attempt: Attempt,
                            views: dict[int, dict[str, Any]]) -> None:
        where = f"round {attempt.round} ({attempt.action}, killed {MOMENTS[attempt.moment]})"
        if attempt.action == "new":
            named = [g for g in views.values() if g["name"] == attempt.body["name"]]
            present = len(named) == 1
            if len(named) > 1:
                self.problems.append(f"{where}: {len(named)} games made of one request")
            if attempt.answer is not None and not present:
                self.problems.append(f"{where}: answered, yet the game is not there")
            if attempt.refusal is not None and named:
                self.problems.append(f"{where}: refused ({attempt.refusal}), yet the game is there")
            if present:
                game = named[0]["id"]
                log = (await api.get(f"/games/{game}/log"))["log"]
                if not log or not log[0]["action"].startswith("new "):
                    self.problems.append(f"{where}: game {game} without its 'new' log line")
                asked = {k: v for k, v in attempt.body.items() if k != "seats"}
                self.asked[game], self.ports[game] = asked, named[0]["port"]
                if attempt.answer is not None and attempt.answer["port"] != named[0]["port"]:
                    self.problems.append(f"{where}: port {named[0]['port']}, answered "
                                         f"{attempt.answer['port']}")
            attempt.present = present
            attempt.refused = attempt.refusal is not None
            return
        assert attempt.game is not None
        log = (await api.get(f"/games/{attempt.game}/log"))["log"]
        action = {"eject": f"eject {attempt.body.get('power')}",
                  "extend": f"extend {attempt.body.get('seconds')}",
                  "fill": "fill holdbot"}.get(attempt.action, attempt.action)
        # Since the request: one line for it (done, or refused) or none, and no other.
        since = log[attempt.log_before:]
        mine = [line for line in since if line["action"] == action]
        if len(mine) != len(since):
            self.problems.append(f"{where}: admin log lines nobody asked for: "
                                 f"{[line for line in since if line not in mine]}")
        if len(mine) > 1:
            self.problems.append(f"{where}: {len(mine)} admin log lines for one request")
        outcome = mine[0]["outcome"] if mine else None
        attempt.present = outcome == "done"
        attempt.refused = outcome is not None and outcome.startswith("refused: ")
        if attempt.answer is not None and not attempt.present:
            self.problems.append(f"{where}: answered, yet not in the admin log")
        if attempt.refusal is not None and attempt.refusal.status < 500 and not attempt.refused:
            self.problems.append(f"{where}: refused ({attempt.refusal}), yet the admin log "
                                 f"says {outcome or 'nothing'}")
        if attempt.action == "eject":
            await self.check_eject(attempt, where)
        elif attempt.action == "fill":
            await self.check_fill(api, attempt, where, log)

    async def check_fill(self, api: Api, attempt: Attempt, where: str,
                         log: list[dict[str, Any]]) -> None:
        """Done: one bot invitation more, one free seat fewer; absent: as before.  (Its bot
        process is checked with every game's, `bot_problems`.)"""
        assert attempt.game is not None and attempt.free_before is not None
        view = await api.get(f"/games/{attempt.game}")
        done = [line for line in log if line["action"] == "fill holdbot"
                and line["outcome"] == "done"]
        invited = sum(1 for i in view.get("invited", ()) if i["bot"] is not None)
        if invited != len(done):
            self.problems.append(f"{where}: {invited} bots invited, {len(done)} fills done")
        now = bot_invitations(self.db, attempt.game)
        added, lost = now - attempt.invited_before, attempt.invited_before - now
        if lost:
            self.problems.append(f"{where}: bot invitations lost: {sorted(lost)}")
        if len(added) != (1 if attempt.present else 0):
            self.problems.append(f"{where}: {len(added)} bot invitations stored, the fill is "
                                 f"{'done' if attempt.present else 'absent'}")
        free = attempt.free_before - (1 if attempt.present else 0)
        if view.get("free_seats") != free:
            self.problems.append(f"{where}: {view.get('free_seats')} free seats, "
                                 f"{attempt.free_before} before and the fill "
                                 f"{'done' if attempt.present else 'absent'}")

    def bot_problems(self) -> list[str]:
        """How the server's bot processes differ from what is stored (module doc)."""
        server = self.server.process.pid if self.server.process is not None and \
            self.server.process.poll() is None else None
        ports = {self.server.port, *self.ports.values()}
        running = bot_processes(ports)
        problems = [f"bot process {b.pid} ({b.name!r}) is left over by a killed or stopped "
                    "server" for b in running if b.parent != server]
        if server is not None and self.forming:
            stored_codes = sorted(bot_invitations(self.db, self.forming))
            codes = sorted(m.group(1) for b in running if b.parent == server
                           and b.port == self.server.port
                           and (m := re.search(r"\[invite (\S+)\]$", b.name)))
            if codes != stored_codes:
                problems.append(f"game {self.forming}: bot invitations {stored_codes}, its bot "
                                f"processes joining with {codes}")
        return problems

    async def bots_settled(self, when: str) -> None:
        """Wait until the bot processes are as stored (`BOTS_SETTLE` at most)."""
        problems = self.bot_problems()
        with trio.move_on_after(BOTS_SETTLE):
            while problems:
                await trio.sleep(0.1)
                problems = self.bot_problems()
        self.problems.extend(f"{when}: {line}" for line in problems)

    def coverage(self) -> None:
        """In a run of `ROUNDS_FOR_BOTH` rounds of each kind, each admin action kind must
        have been seen done and absent after a kill (the module doc)."""
        if self.plan.rounds < ROUNDS_FOR_BOTH * len(ACTIONS):
            return
        for action in ACTIONS[1:]:
            sides = {a.present for a in self.result.attempts
                     if a.action == action and not a.refused}
            for side, word in ((True, "done"), (False, "absent")):
                if side not in sides:
                    self.problems.append(f"{action}: never seen {word} after a kill in "
                                         f"{self.plan.rounds} rounds")

    async def check_eject(self, attempt: Attempt, where: str) -> None:
        game, power = attempt.game, attempt.body["power"]
        assert game is not None
        now = passcode(self.db, game, power)
        if not attempt.present:
            if now != attempt.old_passcode:
                self.problems.append(f"{where}: no eject in the log, yet {power}'s passcode "
                                     "changed")
        else:
            if now == attempt.old_passcode:
                self.problems.append(f"{where}: eject logged, yet {power}'s passcode is the old one")
            if attempt.answer is not None and attempt.answer["passcode"] != now:
                self.problems.append(f"{where}: the answered passcode is not the stored one")
            # The replacement's IAM works with the new passcode, not with the old one.
            port = self.ports[game]
            if await self.iam(port, power, attempt.old_passcode) != "REJ":
                self.problems.append(f"{where}: the old passcode still takes {power}")
            if await self.iam(port, power, now) != "YES":
                self.problems.append(f"{where}: the new passcode does not take {power}")
        # The power goes on with a bot the server starts (it is in civil disorder either way).
        api = self.server.api()
        with trio.fail_after(30):
            while True:
                try:
                    await api.post(f"/games/{game}/fill", {"bot": "randbot", "power": power})
                    return
                except ApiError as exc:      # our replacement's leaving is not seen yet
                    if exc.status != 409:
                        raise
                    await trio.sleep(0.1)

    async def iam(self, port: int, power: str, code: int | None) -> str:
        """A replacement's IAM: YES, REJ (or what else came first).  The client library's
        transport, which waits for the door's RM: a power's token is its map's."""
        transport = await open_transport("127.0.0.1", port)
        try:
            await transport.send(("IAM", (power,), (code,)))
            with trio.fail_after(10):
                received = await transport.receive()
            return "closed" if received is None else str(received.tree[0])
        except (ConnectionLost, trio.TooSlowError) as exc:
            return f"failed: {exc}"
        finally:
            await transport.aclose()


async def hosted_trial(workdir: Path, plan: HostedPlan) -> HostedResult:
    """One run of ``plan`` in ``workdir``; ``problems`` empty when all held."""
    trial = Trial(workdir, plan)
    try:
        async with trio.open_nursery() as nursery:
            await trial.run(nursery)
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await trial.server.stop()
    return trial.result
