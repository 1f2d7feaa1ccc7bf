"""The HUH, PRN and REJ the server sends a player are stored for its author (`server.refusals`).

A real game over TCP with seven scripted clients and SQLite on disk.
England's client sends a SUB after accepting the map, before the game
started (REJ: it has no power yet), then in SPR 1901 a SUB that breaks the
grammar (HUH) and a SUB for another turn (REJ), and in FAL 1901 a message
with unbalanced brackets (PRN).  The store holds each, as the client
received it, with the turn and the power, in the order sent; `daide export
--bot-log` shows them in their phases in words.  A refusals table the
server cannot write costs those lines, never the game.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import trio
from structlog.testing import capture_logs

from protocol.frames import DiplomacyMessage, build_frame
from protocol.messages import Huh, MisRequest, Prn, Rej
from protocol.text import parse_text
from protocol.tokens import STANDARD
from server.refusals import BEFORE_ERR, KEPT_TOKENS, explain, sent_text
from server.store import Store
from tests.broken_bots import broken_sub, past_sub
from tests.cli_helpers import daide
from tests.server_helpers import POWERS, ScriptClient, holds, join_game, start_server

HOLD_LVP = "SUB ( ( ENG AMY LVP ) HLD )"
BROKEN = broken_sub("ENG")
OTHER_TURN = past_sub("ENG")


async def _play_spring(port: int) -> tuple[dict[str, ScriptClient], list[str]]:
    """Seven players, England's answers to its three faults before and in SPR 1901, and
    every power's holds (England's last): returns the clients, in FAL 1901, and
    England's answers."""
    england = await ScriptClient.connect(port, "ENG:bot")
    await england.join()
    await england.send(HOLD_LVP)
    answers = [await england.receive()]
    clients = {"ENG": england}
    for power in POWERS:
        if power != "ENG":
            clients[power] = await ScriptClient.connect(port, f"{power}:bot")
            await clients[power].join()
    nows = {p: (await c.receive_until("NOW"))[-1] for p, c in clients.items()}
    assert england.power == "ENG"
    await england.send(BROKEN)
    answers.append(await england.receive())
    for power, client in clients.items():
        if power != "ENG":
            await client.send(holds(nows[power], power))
            await client.receive_until("THX")
    # The REJ and the orders that complete the phase in one write: the phase is
    # processed in the game's next step, maybe before England's REJ is written -
    # it is kept in SPR 1901 all the same.
    await england.send_raw(_frame(OTHER_TURN) + _frame(holds(nows["ENG"], "ENG")))
    answers.append(await england.receive())
    for client in clients.values():
        await client.receive_until("NOW ( FAL 1901 )")
    return clients, answers


def _frame(text: str) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(text)))


async def test_huh_prn_and_rej_are_stored_and_explained_in_the_bot_log(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, db)
        clients, answers = await _play_spring(port)
        await clients["ENG"].send_raw(_frame("NOW ("))
        answers.append(await clients["ENG"].receive())
        # Another power's ordinary play and an observer's REJ are not England's faults.
        watcher = await ScriptClient.connect(port, "watcher")
        await watcher.send("OBS")
        await watcher.receive_until("MAP")
        await watcher.send(HOLD_LVP)
        assert (await watcher.receive()).startswith("HUH (")
        for client in (*clients.values(), watcher):
            await client.close()
        server.stop()

    assert answers[0] == f"REJ ( {HOLD_LVP} )"
    assert answers[1].startswith("HUH ( SUB ( ( ENG AMY LVP ) HLD ") and " ERR " in answers[1]
    assert answers[2] == f"REJ ( {OTHER_TURN} )"
    assert answers[3] == "PRN ( NOW ( )"
    store = Store.open_readonly(db)
    try:
        refusals = store.refusals(1)
    finally:
        store.close()
    kept = [(r.turn, r.power, r.answer, r.sent) for r in refusals]
    assert kept == [("", "ENG", "REJ", HOLD_LVP),
                    ("SPR 1901", "ENG", "HUH", answers[1][len("HUH ( "):-len(" )")]),
                    ("SPR 1901", "ENG", "REJ", OTHER_TURN),
                    ("FAL 1901", "ENG", "PRN", "NOW (")]

    log = daide("export", "1", "--db", str(db), "--bot-log", "ENG")
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()
    start = lines.index("before the game started:")
    assert lines[start + 1] == (f"  sent     {HOLD_LVP}  (refused: REJ (orders for a turn that "
                                "was not being played, or sent while the power could not order "
                                "(the game had not started or was over)))")
    assert lines[start + 2].startswith("received HLO ( ENG ) ( passcode )")
    spring = lines.index("SPR 1901:")
    assert lines[spring + 1].startswith(f"  sent     {kept[1][3]}  (not understood: HUH (")
    assert "at the marked token ERR" in lines[spring + 1]
    assert lines[spring + 2].startswith(f"  sent     {OTHER_TURN}  (refused: REJ (orders for "
                                        "a turn that was not being played")
    fall = lines.index("FAL 1901: the phase being played (orders accepted so far: none)")
    assert lines[fall + 1] == ("  sent     NOW (  (not understood: PRN (its brackets do not "
                               "balance))")
    assert "REJ" not in daide("export", "1", "--db", str(db), "--bot-log", "FRA").stdout


async def test_a_refusals_table_that_cannot_be_written_costs_the_log_not_the_game(
        tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, db)
        england = await ScriptClient.connect(port, "ENG:bot")
        await england.join()
        others = {}
        for power in POWERS[:1] + POWERS[2:]:
            others[power] = await ScriptClient.connect(port, f"{power}:bot")
            await others[power].join()
        now = (await england.receive_until("NOW"))[-1]
        # Another program breaks the table under the running server.
        with sqlite3.connect(db) as other:
            other.execute("DROP TABLE refusals")
        other.close()
        with capture_logs() as logs:
            await england.send(BROKEN)
            assert (await england.receive()).startswith("HUH ( SUB")
        assert [e["event"] for e in logs if e["log_level"] == "warning"] == [
            "refusals_not_stored"]
        # A refused order (France's army is not England's) is answered all the same.
        with capture_logs() as logs:
            await england.send("SUB ( ( FRA AMY PAR ) HLD )")
            assert (await england.receive()) == "THX ( ( FRA AMY PAR ) HLD ) ( NYU )"
            assert (await england.receive()).startswith("MIS ( ENG ")
        assert [e["event"] for e in logs if e["log_level"] in ("warning", "error")] == [
            "refusals_not_stored"]
        await england.send(holds(now, "ENG"))
        assert (await england.receive()).startswith("THX ( ( ENG ")
        for client in (england, *others.values()):
            await client.close()
        server.stop()


async def test_a_refusal_in_the_last_phase_is_stored_though_the_game_is_over(
        tmp_path: Path) -> None:
    # The game is drawn once FAL 1901 is processed (max_year).  England sends a SUB for
    # another turn and its orders, which complete that phase, in one write: the game can
    # end, and leave the server's list of running games, before England's writer sends
    # the REJ - the REJ is kept in FAL 1901 all the same.
    db = tmp_path / "games.db"
    async with trio.open_nursery() as nursery:
        server, port = await start_server(nursery, db, max_year=1901)
        clients = await join_game(port)
        for turn in ("SPR 1901", "FAL 1901"):
            nows = {p: (await c.receive_until("NOW"))[-1] for p, c in clients.items()}
            assert all(f"NOW ( {turn} )" in n for n in nows.values())
            for power, client in clients.items():
                if power != "ENG":
                    await client.send(holds(nows[power], power))
                    await client.receive_until("THX")
            if turn == "SPR 1901":
                await clients["ENG"].send(holds(nows["ENG"], "ENG"))
            else:
                await clients["ENG"].send_raw(_frame(OTHER_TURN) + _frame(holds(nows["ENG"], "ENG")))
                assert await clients["ENG"].receive() == f"REJ ( {OTHER_TURN} )"
        for client in clients.values():
            await client.receive_until("SMR")
            await client.close()
        server.stop()
    store = Store.open_readonly(db)
    try:
        kept = [(r.turn, r.power, r.answer, r.sent) for r in store.refusals(1)]
    finally:
        store.close()
    assert kept == [("FAL 1901", "ENG", "REJ", OTHER_TURN)]


def test_a_long_message_is_kept_around_its_err() -> None:
    orders = " ".join(f"( ( ENG AMY LVP ) MTO {p} )" for p in ("YOR", "WAL", "EDI") * 8)
    tokens = parse_text(f"SUB {orders}")
    assert len(tokens) > KEPT_TOKENS
    kept = sent_text(Huh.at(tokens, len(tokens) - 2), STANDARD)
    assert kept is not None
    sent, answer = kept
    assert answer == "HUH"
    assert sent.startswith("... ") and sent.endswith(" MTO ERR EDI )"), sent
    assert len(sent.split()) == 1 + BEFORE_ERR + 1 + 2
    prn = sent_text(Prn(tokens), STANDARD)
    assert prn is not None and prn[1] == "PRN"
    assert prn[0].startswith("SUB ( ( ENG AMY LVP ) MTO YOR )")
    assert prn[0].endswith(f" ... ({len(tokens)} tokens)")
    assert sent_text(Rej(MisRequest()), STANDARD) == ("MIS", "REJ")
    assert sent_text(MisRequest(), STANDARD) is None
    assert explain("( ENG AMY BOH ) HLD", "NYU").startswith("refused: NYU (")
    assert "ERR marks it whole" in explain("ERR SUB ( ( ENG AMY LVP ) HLD )", "HUH")
    assert explain("HST ( SPR 1950 )", "REJ") == "refused: REJ (no such turn has been played)"
