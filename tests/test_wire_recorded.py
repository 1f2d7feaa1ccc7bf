"""The DAIDE bytes on the wire, frame for frame, for one whole recorded game.

`tests.wire_recording` plays a deterministic game (seven seeded RandBots, one
of them sending refused orders, and an observer) on the real server over
loopback TCP, and keeps what each connection received.  Every frame must be
the one recorded in tests/data/wire/recorded-game.txt.gz: a change to the
encoders, the outbound road or the order of messages that alters a single
byte fails here, with the first frame that differs shown as text.
"""

from __future__ import annotations

from pathlib import Path

from protocol.frames import DiplomacyMessage, parse_frames
from protocol.text import render_text
from protocol.tokens import STANDARD
from tests.wire_recording import GOLDEN, MAX_YEAR, POWERS, load, record


def _text(frame: bytes) -> str:
    parsed, _rest = parse_frames(frame)
    message = parsed[0]
    if isinstance(message, DiplomacyMessage):
        return render_text(message.tokens, STANDARD)
    return f"{type(message).__name__} {frame.hex()}"


async def test_every_frame_is_the_recorded_one(tmp_path: Path) -> None:
    expected = load(GOLDEN.read_bytes())
    got = await record(tmp_path / "game.db")
    assert sorted(got) == sorted((*POWERS, "UNO"))
    for name in sorted(expected):
        mine, theirs = got[name], expected[name]
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            assert a == b, (f"{name}, frame {index}: got {_text(a)!r}, "
                            f"recorded {_text(b)!r}")
        assert len(mine) == len(theirs), f"{name}: {len(mine)} frames, recorded {len(theirs)}"


def test_the_recording_covers_the_game() -> None:
    """The recording holds what it claims: every phase kind, refused orders, the end."""
    recording = load(GOLDEN.read_bytes())
    texts = [_text(f) for f in recording["ENG"]]
    heads = {t.split(" ")[0] for t in texts}
    assert {"HLO", "MAP", "MDF", "NOW", "SCO", "ORD", "THX", "SMR"} <= heads
    assert any(t.endswith("( FAR )") for t in texts)
    assert any(t.endswith("( NYU )") for t in texts)
    seasons = {t.split(" ")[2] for t in texts if t.startswith("NOW")}
    assert seasons >= {"SPR", "SUM", "FAL", "AUT", "WIN"}
    assert texts[-1].startswith(f"SMR ( WIN {MAX_YEAR} )")
