"""A press flood over real TCP: it cannot delay a phase or other clients' answers.

One player sends SNDs as fast as the server answers them (a window of
unanswered SNDs, as a pipelining client has; a client that never reads its
answers is the outbound queue's business, `server.session`).  Every SND gets
exactly one answer (YES within the rate, REJ beyond - never silence); the
phase that the last SUB completes is processed while the flood is still
being answered, and another client's request is answered at once.

The connection's own message rate (`server.limits`, which reads a flooding
peer more slowly) is lifted here, so the press relay's limit alone has to
keep the game going.
"""

from __future__ import annotations

import time
from pathlib import Path

import trio

from server.press import PressLimits
from tests.press_relay_helpers import close_all, nothing_more
from tests.server_helpers import ScriptClient, holds, start_game, start_server

FLOOD = 1500
WINDOW = 64
PRESS = "SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )"


async def _order_holds(client: ScriptClient, now: str, power: str) -> None:
    sub = holds(now, power)
    await client.send(sub)
    for _ in range(sub.count("HLD")):
        assert (await client.receive()).startswith("THX")


async def test_a_press_flood_does_not_delay_the_phase(nursery: trio.Nursery,
                                                      tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db",
                                       {"message_rate": 1e6, "message_burst": 10**6}, level=10)
    clients = await start_game(port)
    eng, fra, ita = clients["ENG"], clients["FRA"], clients["ITA"]
    now = next(m for m in reversed(eng.log) if m.startswith("NOW"))
    for power, client in clients.items():
        if power != "ITA":
            await _order_holds(client, now, power)

    answers = {"YES": 0, "REJ": 0}
    frms = 0
    flood_started = flood_answered = 0.0
    phase: dict[str, float] = {}
    enough = trio.Event()
    window = trio.Semaphore(WINDOW)

    async def flood() -> None:
        nonlocal flood_started
        flood_started = time.perf_counter()
        for _ in range(FLOOD):
            await window.acquire()
            await eng.send(PRESS)

    async def count_answers() -> None:
        nonlocal flood_answered
        while sum(answers.values()) < FLOOD:
            message = await eng.receive()
            if message.startswith("NOW"):
                phase["ENG"] = time.perf_counter()
                continue
            if message.startswith("ORD"):
                continue
            assert message in (f"YES ( {PRESS} )", f"REJ ( {PRESS} )"), message
            answers[message[:3]] += 1
            window.release()
            if sum(answers.values()) == 200:
                enough.set()
        flood_answered = time.perf_counter()

    async def count_frms() -> None:
        nonlocal frms
        while "FRA" not in phase:
            message = await fra.receive()
            if message.startswith("FRM"):
                assert message == "FRM ( ENG ) ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )"
                frms += 1
            elif message.startswith("NOW"):
                phase["FRA"] = time.perf_counter()

    async with trio.open_nursery() as tasks:
        tasks.start_soon(count_answers)
        tasks.start_soon(count_frms)
        tasks.start_soon(flood)
        await enough.wait()                  # the flood is in full swing
        # Another client's request is answered at once ...
        asked = time.perf_counter()
        await ita.send("HLO")
        assert (await ita.receive()).startswith("HLO ( ITA )")
        answered = time.perf_counter() - asked
        # ... and the SUB that completes the orders gets its phase processed.
        submitted = time.perf_counter()
        await _order_holds(ita, now, "ITA")
        seen = await ita.receive_until("NOW")
        phase["ITA"] = time.perf_counter()
        assert seen[-1].startswith("NOW ( FAL 1901 )")

    # The FRMs delivered after FRA saw the phase: everything before the
    # answer to a request FRA makes now.
    await fra.send("SCO")
    while not (message := await fra.receive()).startswith("SCO ( "):
        frms += message.startswith("FRM")
    delay = phase["ITA"] - submitted
    flood_time = flood_answered - flood_started
    print(f"request answered in {answered * 1000:.1f} ms; phase {delay * 1000:.1f} ms after "
          f"the last SUB; {FLOOD} SNDs answered in {flood_time * 1000:.0f} ms; "
          f"{answers['YES']} YES, {answers['REJ']} REJ")
    # Exactly one answer per SND, and as many deliveries as YES answers.
    assert answers["YES"] + answers["REJ"] == FLOOD
    assert frms == answers["YES"]
    limits = PressLimits()
    assert limits.burst <= answers["YES"] <= limits.burst + limits.per_second * flood_time + 1
    # The phase did not wait for the flood: every player saw it while the
    # flood was still being answered.
    assert max(phase.values()) < flood_answered
    assert delay < 1.0 and answered < 0.5
    for power in ("AUS", "GER", "RUS", "TUR"):
        assert (await clients[power].receive_until("NOW"))[-1].startswith("NOW ( FAL 1901 )")
    await nothing_more(*clients.values())
    await close_all(clients)
