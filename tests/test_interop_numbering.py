"""Two numberings of FCT/FOR/FWD in one game, over real TCP (docs/protocol.md §6.7).

DN-family clients (the DN client, the Rose DLL, MILA) put FCT/FOR/FWD at
0x4A06/0x4A07/0x4A08; Parlance and Bylund's Java library at 0x4A07/0x4A08/0x4A06.
With the default ``--press-numbering auto`` the server tells each
connection's numbering from the first press message that parses under only
one of them, and every message it sends that connection - the YES echoing
its SND, the FRMs of the others' press - is in that numbering.

The byte streams below are what each kind of client writes (frames as
``type pad length tokens``, 16-bit big-endian words).  Each is checked
against the numbering tables before use, so a wrong constant cannot pass.
"""

from __future__ import annotations

from pathlib import Path

import structlog.testing
import trio

from protocol.frames import DiplomacyMessage, build_frame
from protocol.press_tokens import PressNumbering, press_representation
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD
from tests.press_relay_helpers import close_all, level_game, nothing_more
from tests.server_helpers import POWERS, ScriptClient, start_server

PARLANCE = press_representation(STANDARD, PressNumbering.PARLANCE)

#: ENG, a DN-family client: FCT 0x4A06, FOR 0x4A07, FWD 0x4A08.
DN_STREAM = {
    "SND ( FRA ) ( FCT ( PCE ( ENG FRA ) ) )":
        "0200 001c 4817 4000 4102 4001 4000 4a06 4000 4a10 4000 4101 4102 4001 4001 4001",
    "SND ( FRA ) ( PRP ( FOR ( SPR 1902 ) ( PCE ( ENG FRA ) ) ) )":
        "0200 002a 4817 4000 4102 4001 4000 4a13 4000 4a07 4000 4700 076e 4001 4000 4a10"
        " 4000 4101 4102 4001 4001 4001 4001",
    "SND ( FRA ) ( PRP ( FWD ( GER ) ( FRA ) ( ENG ) ) )":
        "0200 0026 4817 4000 4102 4001 4000 4a13 4000 4a08 4000 4103 4001 4000 4102 4001"
        " 4000 4101 4001 4001 4001",
}
#: FRA, a Parlance client: FCT 0x4A07, FOR 0x4A08, FWD 0x4A06.
PARLANCE_STREAM = {
    "SND ( ENG ) ( FCT ( PCE ( ENG FRA ) ) )":
        "0200 001c 4817 4000 4101 4001 4000 4a07 4000 4a10 4000 4101 4102 4001 4001 4001",
    "SND ( ENG ) ( PRP ( FOR ( SPR 1902 ) ( PCE ( ENG FRA ) ) ) )":
        "0200 002a 4817 4000 4101 4001 4000 4a13 4000 4a08 4000 4700 076e 4001 4000 4a10"
        " 4000 4101 4102 4001 4001 4001 4001",
    "SND ( ENG ) ( PRP ( FWD ( GER ) ( ENG ) ( FRA ) ) )":
        "0200 0026 4817 4000 4101 4001 4000 4a13 4000 4a06 4000 4103 4001 4000 4101 4001"
        " 4000 4102 4001 4001 4001",
}


def recorded(stream: dict[str, str], rep: object) -> list[tuple[str, bytes]]:
    """The stream's frames, each checked to be its text in that numbering."""
    frames = []
    for text, hex_words in stream.items():
        data = bytes.fromhex(hex_words.replace(" ", ""))
        assert data == build_frame(DiplomacyMessage(parse_text(text, rep))), text  # type: ignore[arg-type]
        frames.append((text, data))
    return frames


async def receive_as(client: ScriptClient, rep: object) -> str:
    """The next message, read in the numbering ``rep`` (the script client decodes
    with the DAIDE table; its tokens are re-read here)."""
    return render_text(parse_text(await client.receive()), rep)  # type: ignore[arg-type]


def frm_of(snd: str, sender: str) -> str:
    """The FRM a recipient gets for ``snd`` (recipients and press as sent)."""
    assert snd.startswith("SND ")
    return f"FRM ( {sender} ) " + snd[len("SND "):]


async def test_dn_and_parlance_clients_exchange_fct_for_fwd(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    _server, _port, clients = await level_game(nursery, tmp_path / "g.db", level=120)
    eng, fra = clients["ENG"], clients["FRA"]
    dn, parlance = recorded(DN_STREAM, STANDARD), recorded(PARLANCE_STREAM, PARLANCE)
    with structlog.testing.capture_logs() as logs:
        for (dn_text, dn_frame), (pa_text, pa_frame) in zip(dn, parlance, strict=True):
            # Parlance -> DN: the echo in Parlance numbering, the FRM in DN numbering.
            await fra.send_raw(pa_frame)
            assert await receive_as(fra, PARLANCE) == f"YES ( {pa_text} )"
            assert await receive_as(eng, STANDARD) == frm_of(pa_text, "FRA")
            # DN -> Parlance: the echo in DN numbering, the FRM in Parlance numbering.
            await eng.send_raw(dn_frame)
            assert await receive_as(eng, STANDARD) == f"YES ( {dn_text} )"
            assert await receive_as(fra, PARLANCE) == frm_of(dn_text, "ENG")
    # The bytes themselves: FRA's FRM of ENG's FCT carries 0x4A07, ENG's of FRA's 0x4A06.
    first = [next(m for m in c.log if m.startswith("FRM")) for c in (eng, fra)]
    assert first[0].startswith("FRM ( FRA ) ( ENG ) ( FCT ")           # read with DN's table
    assert first[1].startswith("FRM ( ENG ) ( FRA ) ( FOR ( PCE ")     # 0x4A07 = DN's FOR
    detected = {e["power"]: e["numbering"] for e in logs
                if e["event"] == "press_numbering_detected"}
    assert detected == {"FRA": "parlance", "ENG": "daide"}
    await nothing_more(*clients.values())
    await close_all(clients)


async def test_the_version_string_is_a_hint_the_press_decides(
        nursery: trio.Nursery, tmp_path: Path) -> None:
    # A TRY list parses under both numberings: it proves nothing, so the hint
    # of a client naming Parlance in its NME decides how it is read.
    clients = await level_game_with(nursery, tmp_path / "g.db",
                                    {"FRA": "Parlance 1.4.1", "GER": "Parlance 1.4.1"})
    fra, eng, ger = clients["FRA"], clients["ENG"], clients["GER"]
    try_list = "SND ( ENG ) ( TRY ( FCT PRP ) )"
    await fra.send_raw(build_frame(DiplomacyMessage(parse_text(try_list, PARLANCE))))
    assert await receive_as(fra, PARLANCE) == f"YES ( {try_list} )"
    assert await receive_as(eng, STANDARD) == "FRM ( FRA ) ( ENG ) ( TRY ( FCT PRP ) )"
    # The hint never overrules the press: GER names Parlance but writes DN's FCT.
    fact = "SND ( ENG ) ( FCT ( PCE ( ENG GER ) ) )"
    await ger.send_raw(build_frame(DiplomacyMessage(parse_text(fact, STANDARD))))
    assert await receive_as(ger, STANDARD) == f"YES ( {fact} )"
    assert await receive_as(eng, STANDARD) == "FRM ( GER ) ( ENG ) ( FCT ( PCE ( ENG GER ) ) )"
    await nothing_more(*clients.values())
    await close_all(clients)


async def level_game_with(nursery: trio.Nursery, db: Path, versions: dict[str, str]
                          ) -> dict[str, ScriptClient]:
    """A level-120 game whose clients join with these NME versions (by power asked for)."""
    _server, port = await start_server(nursery, db, level=120)
    joined = []
    for power in POWERS:
        client = await ScriptClient.connect(port, f"{power}:bot")
        await client.join(version=versions.get(power, "1.0"))
        joined.append(client)
    by_power = {}
    for client in joined:
        await client.receive_until("NOW")
        assert client.power is not None
        by_power[client.power] = client
    return by_power
