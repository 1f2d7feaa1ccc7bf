"""Whole games on variant maps: the real server over loopback TCP, RandBots, an observer.

Each game is served with ``--variant`` (the server's `GameSettings.variant`)
and ends by the max-year house rule.  The bots know nothing of the map
beforehand: their client reads the RM (recorded here byte for byte and
compared with the variant's ``.rem`` file, docs/protocol.md §4.2) and builds the
map from the MDF.  Two variants of different sizes: Hundred (3 powers) and
Modern (10 powers); and 1900, which uses the standard tokens (an empty RM)
and starts with a build phase.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from bots.client import BotClient, ClientSettings
from bots.randbot import RandBot
from bots.runner import run_clients
from bots.transport import TcpTransport
from engine.mapfiles import DATA_DIR
from engine.variants import variant_files, variant_map
from protocol.text import tree_to_text
from server.app import serve
from server.settings import GameSettings, ServerSettings
from tests.wire_recording import RecordingStream

Tree = tuple[Any, ...]


def rm_frame_from_rem(name: str) -> bytes:
    """The RM a client must get for a variant, built straight from its ``.rem`` file:
    type 0x01, a pad byte, the length, then 6 bytes per token in value order (4.2)."""
    lines = (DATA_DIR / name / f"{name}.rem").read_text().split()
    if lines == ["0"]:
        return bytes.fromhex("01000000")
    entries = sorted((int(value, 16), mnemonic.upper())
                     for value, mnemonic in (line.split(":") for line in lines[1:]))
    assert len(entries) == int(lines[0])
    body = b"".join(v.to_bytes(2, "big") + m.encode("ascii") + b"\x00" for v, m in entries)
    return bytes([0x01, 0x00]) + len(body).to_bytes(2, "big") + body


async def play(tmp_path: Path, variant: str, max_year: int) -> dict[str, Any]:
    """Serve one game of RandBots on ``variant`` and return what everyone saw."""
    the_map = variant_map(variant)
    streams: list[RecordingStream] = []
    transports: list[TcpTransport] = []

    async def connect(host: str, port: int) -> TcpTransport:
        stream = RecordingStream(await trio.open_tcp_stream(host, port))
        transport = TcpTransport(stream)
        await transport.start()
        streams.append(stream)
        transports.append(transport)
        return transport

    watched: list[Tree] = []
    settings = ServerSettings(host="127.0.0.1", port=0, db_path=tmp_path / f"{variant}.db",
                              game=GameSettings(variant=variant.upper(), max_year=max_year))
    with trio.fail_after(40):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(serve, settings)
            port = int(listeners[0].socket.getsockname()[1])
            observer = BotClient(None, ClientSettings(port=port, name="watcher", observer=True),
                                 on_message=lambda received: watched.append(received.tree))
            bots = [BotClient(RandBot(), ClientSettings(port=port, name=f"{power}:RandBot",
                                                        seed=index), connect=connect)
                    for index, power in enumerate(the_map.powers)]
            outcomes = await run_clients([observer, *bots])
            nursery.cancel_scope.cancel()
    assert [o.error for o in outcomes] == [None] * len(outcomes)
    return {"map": the_map, "bots": bots, "streams": streams, "transports": transports,
            "watched": [tree_to_text(m, variant_files(variant).rep) for m in watched]}


def check_game(game: dict[str, Any], variant: str, max_year: int) -> None:
    the_map = game["map"]
    rep = variant_files(variant).rep
    powers = the_map.powers
    # Every bot got exactly the variant's RM first, and switched to its tokens.
    expected_rm = rm_frame_from_rem(variant)
    for stream, transport in zip(game["streams"], game["transports"], strict=True):
        raw = bytes(stream.received)
        assert raw[0] == 0x01 and raw[2:4] == expected_rm[2:4]
        assert raw[4:len(expected_rm)] == expected_rm[4:]
        assert transport.connection.representation == rep
    # Every bot played its power, the one it asked for, with no order refused.
    for bot, power in zip(game["bots"], powers, strict=True):
        assert bot.tracker.power == power
        assert bot.problems == []
        assert bot.tracker.end is not None and bot.tracker.end.winner is None
    # The observer saw the variant: its MAP name, the HLO, then SCO and NOW of its powers.
    seen = game["watched"]
    assert seen[:2] == ["YES ( OBS )", f"MAP ( '{variant.upper()}' )"]
    assert "HLO ( UNO ) ( 0 ) ( ( LVL 0 ) )" in seen
    first_sco = next(m for m in seen if m.startswith("SCO"))
    owners = {g.split()[0] for g in first_sco[len("SCO ( "):-len(" )")].split(" ) ( ")}
    assert owners == set(the_map.start_ownership.values()) | {"UNO"}
    first_now = next(m for m in seen if m.startswith("NOW"))
    season, year = the_map.start_phase
    assert first_now.startswith(f"NOW ( {season} {year} )")
    assert first_now.count(" ( ") - 1 == len(the_map.start_units)
    # The game ran to its last year and ended in a draw of the survivors, then SMR and OFF.
    assert seen[-3:-1][0] == "DRW"
    smr = seen[-2]
    # The SMR names the turn the game reached: that of the final NOW (docs/protocol.md §8.10).
    final_now = next(m for m in reversed(seen) if m.startswith("NOW"))
    assert final_now.startswith((f"NOW ( WIN {max_year} )", f"NOW ( SPR {max_year + 1} )"))
    assert smr.startswith(f"SMR {final_now[len('NOW '):final_now.index(')') + 1]}")
    assert all(f"( {p} (" in smr for p in powers)
    assert seen[-1] == "OFF"
    assert sum(1 for m in seen if m.startswith("ORD")) > 3 * len(powers)


async def test_hundred_three_powers_plays_to_the_end(tmp_path: Path) -> None:
    game = await play(tmp_path, "hundred3", 1906)
    check_game(game, "hundred3", 1906)
    assert len(game["bots"]) == 3


async def test_modern_ten_powers_plays_to_the_end(tmp_path: Path) -> None:
    game = await play(tmp_path, "modern", 1997)
    check_game(game, "modern", 1997)
    assert len(game["bots"]) == 10
    # The full RM of Modern: 10 powers and 141 provinces, 151 tokens of 6 bytes.
    assert len(game["streams"][0].received) >= 4 + 151 * 6
    assert game["streams"][0].received[:4] == bytes.fromhex("0100") + (151 * 6).to_bytes(2, "big")


async def test_a_variant_on_the_standard_tokens_gets_the_empty_rm(tmp_path: Path) -> None:
    game = await play(tmp_path, "1900", 1901)
    check_game(game, "1900", 1901)
    assert all(s.received[:4] == bytes.fromhex("01000000") for s in game["streams"])
    # 1900 starts with builds: the first NOW is the winter of 1900, with no units.
    assert next(m for m in game["watched"] if m.startswith("NOW")) == "NOW ( WIN 1900 )"
