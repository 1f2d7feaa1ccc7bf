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

Then, round after round (the order drawn from the seed), the server is
killed with SIGKILL either at a random moment of the games' phases, or a
random few milliseconds after an admin request was sent - pause, resume,
extend, eject, a new game, a bot to fill a seat - so that the kill lands
before the request, while the action is carried out and stored, or after
it; then it is restarted on the same database and everything is checked:

* every game is there with the settings it was created with, its port
  (a game's own door answers with its variant's MAP), its status;
* its pause state is what its admin log says (the last pause or resume
  done);
* each admin action attempted is wholly there or wholly absent: an
  ``eject`` line done <=> the power's passcode changed (and the passcode
  the API answered, if the answer came, is the stored one); a ``new`` line
  <=> the game exists; a ``fill`` line done <=> its bot's invitation or seat;
  no admin line of a game that does not exist;
* after an eject that is there, the new passcode takes the power over with
  IAM and the old one is refused.

At the end the games are resumed, play on, and the host ends them.  ``make crash``
runs it after the seeded games of `tests.crash_harness` (its
``--hosted-rounds``); ``tests/test_crash.py`` runs a short one.
"""

from __future__ import annotations

import http.client
import json
import random
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
    """One admin request with a kill behind it: what was asked, and what came back."""

    round: int
    action: str                  # pause, resume, extend, eject, new, fill
    game: int | None
    body: dict[str, Any]
    answer: dict[str, Any] | None = None
    old_passcode: int | None = None
    present: bool | None = None  # found done after the restart


@dataclass
class HostedResult:
    kills: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    finished: int = 0
    refused: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        by: dict[str, list[int]] = {}
        for a in self.attempts:
            counts = by.setdefault(a.action, [0, 0])
            counts[0 if a.present else 1] += 1
        return {"kills": self.kills, "finished_games": self.finished, "refused": self.refused,
                "admin_actions_killed_done_or_absent": {k: f"{v[0]} done / {v[1]} absent"
                                                         for k, v in sorted(by.items())},
                "seconds": round(self.seconds, 1)}


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status} {message}")
        self.status = status


class Api:
    """``/api/admin`` with the admin token (blocking: run it in a thread)."""

    def __init__(self, url: str, token: str) -> None:
        self.base = url.rstrip("/") + "/api/admin"
        self.token = token

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"authorization": f"Bearer {self.token}", "user-agent": "crash-harness/1"}
        data = None
        if body is not None:
            headers |= {"content-type": "application/json", "x-daide-client": "web"}
            data = json.dumps(body).encode()
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


def stored(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows read beside the server (read-only; the admin tables are written at once)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as conn:
        return conn.execute(sql, args).fetchall()


def passcode(db: Path, game: int, power: str) -> int | None:
    rows = stored(db, "SELECT passcode FROM seats WHERE game_id = ? AND power = ?", game, power)
    return int(rows[0][0]) if rows else None


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
        # The end: the games play on (a few phases more), then the host ends those
        # still running - a draw, SMR - and every game is finished.
        for n in self.playing:
            if (await api.get(f"/games/{n}"))["paused"]:
                await api.post(f"/games/{n}/resume", {})
        target = self.server.phases() + 3
        with trio.fail_after(60):
            while self.server.phases() < target:  # noqa: ASYNC110 - another process's log
                await trio.sleep(0.01)
        for n in self.playing:
            if (await api.get(f"/games/{n}"))["status"] == "running":
                await api.post(f"/games/{n}/end", {})
        with trio.fail_after(60):
            while [(await api.get(f"/games/{n}"))["status"] for n in self.playing] \
                    != ["finished"] * len(self.playing):  # noqa: ASYNC110 - another process
                await trio.sleep(0.1)
        self.result.finished = len(self.playing)
        await self.server.stop()
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
        """Kill the server in the middle of a phase, or of the admin action ``kind``."""
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
        game = rng.choice(live)
        body: dict[str, Any] = {}
        path = f"/games/{game}/{kind}"
        attempt = Attempt(number, kind, game, body)
        if kind in ("pause", "resume"):
            paused = (await api.get(f"/games/{game}"))["paused"]
            path = f"/games/{game}/{'resume' if paused else 'pause'}"
            attempt.action = "resume" if paused else "pause"
        elif kind == "extend":
            body["seconds"] = rng.randint(10, 300)
        elif kind == "eject":
            powers = sorted(p for (g, p), s in self.bots.items() if g == game
                            and not s.cancel_called)
            power = rng.choice(powers)
            self.bots[(game, power)].cancel()     # its bot would come back with the old code
            await trio.sleep(0.05)
            body["power"] = power
            attempt.old_passcode = passcode(self.db, game, power)
        elif kind == "new":
            settings = rng.choice([
                {"variant": "modern", "level": 8000, "mtl": 300},
                {"variant": "standard", "level": 30, "mtl": 200, "port": free_port(),
                 "aoa": True},
                {"variant": "chromatic", "max_year": 1910, "dsd": True}])
            body.update(settings, name=f"crash new {number}", seats={"FRA": "ann"}
                        if settings["variant"] == "standard" else {})
            path, attempt.game = "/games", None
        elif kind == "fill":
            game = attempt.game = self.forming
            path = f"/games/{game}/fill"
            body["bot"] = "holdbot"
        attempt.body = body
        self.result.attempts.append(attempt)

        # How long a request takes now (a read of the game, through the same road): the
        # kill falls within about twice that, so that it lands before, in or after the
        # action about as often, however busy the machine.
        began = time.monotonic()
        await api.get(f"/games/{attempt.game}" if attempt.game is not None else "/games")
        window = min(self.plan.kill_window, 2.5 * (time.monotonic() - began))
        answer: list[Any] = []

        def send() -> None:
            try:
                answer.append(self.server.api().call("POST", path, body))
            except (ApiError, OSError, http.client.HTTPException) as exc:
                answer.append(exc)      # the kill cut the answer

        async with trio.open_nursery() as inner:
            inner.start_soon(trio.to_thread.run_sync, send)
            await trio.sleep(rng.uniform(0, window))
            await self.server.kill()
            self.result.kills += 1
        if answer and isinstance(answer[0], dict):
            attempt.answer = answer[0]
        elif answer and isinstance(answer[0], ApiError):
            self.result.refused += 1      # answered before the kill; the log must agree
        return attempt

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
        where = f"round {attempt.round} ({attempt.action})"
        if attempt.action == "new":
            named = [g for g in views.values() if g["name"] == attempt.body["name"]]
            present = len(named) == 1
            if len(named) > 1:
                self.problems.append(f"{where}: {len(named)} games made of one request")
            if attempt.answer is not None and not present:
                self.problems.append(f"{where}: answered, yet the game is not there")
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
            return
        assert attempt.game is not None
        log = (await api.get(f"/games/{attempt.game}/log"))["log"]
        action = {"eject": f"eject {attempt.body.get('power')}",
                  "extend": f"extend {attempt.body.get('seconds')}",
                  "fill": "fill holdbot"}.get(attempt.action, attempt.action)
        done = [line for line in log if line["action"] == action and line["outcome"] == "done"]
        mine = done[-1:] if attempt.action in ("pause", "resume") else done
        attempt.present = bool(mine) and (attempt.action not in ("pause", "resume")
                                          or log.index(mine[0]) == len(log) - 1)
        if attempt.answer is not None and not attempt.present:
            self.problems.append(f"{where}: answered, yet not in the admin log")
        if attempt.action == "eject":
            await self.check_eject(attempt, where)
        elif attempt.action == "fill":
            view = await api.get(f"/games/{attempt.game}")
            invited = sum(1 for i in view.get("invited", ()) if i["bot"] is not None)
            if invited != len(done):
                self.problems.append(f"{where}: {invited} bots invited, {len(done)} fills done")

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
