"""`daide decode` / `daide encode` and the frame line format behind them."""

from __future__ import annotations

from pathlib import Path

import pytest

from daide.cli import main
from protocol.errors import ProtocolError
from protocol.frame_text import FrameTextCodec, frame_to_line, line_to_frame
from protocol.frames import ErrorMessage, InitialMessage, RepresentationMessage

DATA = Path(__file__).parent / "data" / "protocol"

SESSION = """\
IM version=1
RM empty
DM NME ( 'Bot' ) ( '1.0' )
DM HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )
DM TME ( -1 )
EM 0x01 IM_TIMER
FM
"""
SESSION_HEX = """\
00 00 00 04 00 01 DA 10
01 00 00 00
02 00 00 16 48 0C 40 00 4B 42 4B 6F 4B 74 40 01 40 00 4B 31 4B 2E 4B 30 40 01
02 00 00 1A 48 04 40 00 41 06 40 01 40 00 00 84 40 01 40 00 40 00 49 03 00 00 40 01 40 01
02 00 00 08 48 1B 40 00 3F FF 40 01
04 00 00 02 00 01
03 00 00 00
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_encode_then_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.txt").write_text("# a session\n\n" + SESSION.replace("DM NME", "NME"))
    status, out, _ = run(capsys, "encode", str(tmp_path / "s.txt"))
    assert status == 0 and out == SESSION_HEX
    (tmp_path / "s.hex").write_text(out)
    assert run(capsys, "decode", str(tmp_path / "s.hex")) == (0, SESSION, "")
    # hex without spaces, and raw binary (auto-detected or forced)
    (tmp_path / "s.compact").write_text(out.replace(" ", "").replace("\n", ""))
    assert run(capsys, "decode", "--hex", str(tmp_path / "s.compact"))[1] == SESSION
    (tmp_path / "s.bin").write_bytes(bytes.fromhex(out))
    assert run(capsys, "decode", str(tmp_path / "s.bin"))[1] == SESSION
    assert run(capsys, "decode", "--binary", str(tmp_path / "s.bin"))[1] == SESSION


def test_encode_binary_and_body(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    (tmp_path / "m.txt").write_text("MDF\nSUB ( ( ENG AMY LVP ) HLD )\n")
    assert main(["encode", "--binary", str(tmp_path / "m.txt")]) == 0
    assert capsysbinary.readouterr().out == bytes.fromhex(
        "02000002480A 02000012 4818 4000 4000 4101 4200 553B 4001 4322 4001"
    )
    assert main(["encode", "--body", "--binary", str(tmp_path / "m.txt")]) == 0
    assert capsysbinary.readouterr().out == bytes.fromhex(
        "480A 4818 4000 4000 4101 4200 553B 4001 4322 4001"
    )


def test_decode_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "b.hex").write_text("48 0D 40 00 48 00 40 00 41 06 40 01 40 01\n")
    assert run(capsys, "decode", "--body", str(tmp_path / "b.hex")) == (
        0,
        "NOT ( CCD ( TUR ) )\n",
        "",
    )


def test_variant_representation_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rem = DATA / "variants" / "SAILHO.REM"
    now = " ".join((DATA / "variants" / "SAILHO.NOW").read_text().split())
    (tmp_path / "n.txt").write_text(now + "\n")
    status, out, err = run(capsys, "encode", "--rep", str(rem), str(tmp_path / "n.txt"))
    assert status == 0, err
    (tmp_path / "n.hex").write_text(out)
    status, text, _ = run(capsys, "decode", "--rep", str(rem), str(tmp_path / "n.hex"))
    assert text.startswith("DM NOW ( SPR 1901 ) ( EST AMY CEN )")
    # Without the representation the province tokens have no names.
    assert "0x" in run(capsys, "decode", str(tmp_path / "n.hex"))[1]


def test_rm_line_switches_the_representation(capsys: pytest.CaptureFixture[str]) -> None:
    codec = FrameTextCodec()
    rm = codec.from_line("RM 4100:ONE 5200:SEA 5401:CST")
    assert rm == RepresentationMessage(((0x4100, "ONE"), (0x5200, "SEA"), (0x5401, "CST")))
    dm = codec.from_line("NOW ( SPR 1901 ) ( ONE FLT SEA )")
    assert FrameTextCodec().to_line(rm) == "RM 4100:ONE 5200:SEA 5401:CST"
    decoder = FrameTextCodec()
    assert [decoder.to_line(rm), decoder.to_line(dm)] == [
        "RM 4100:ONE 5200:SEA 5401:CST",
        "DM NOW ( SPR 1901 ) ( ONE FLT SEA )",
    ]


def test_frame_lines() -> None:
    assert line_to_frame("IM version=1 magic=0x10DA") == InitialMessage(1, 0x10DA)
    assert frame_to_line(InitialMessage(1, 0x10DA)) == "IM version=1 magic=0x10DA"
    assert line_to_frame("em 9") == ErrorMessage(9)
    assert frame_to_line(ErrorMessage(0x20)) == "EM 0x20"
    for bad in ("IM version=x", "EM", "EM 0x01 WRONG", "FM 1", "RM 4100", "RM 4300:AAA", "DM"):
        with pytest.raises(ProtocolError):
            line_to_frame(bad)
    with pytest.raises(ProtocolError):
        line_to_frame("DM 9000")


@pytest.mark.parametrize(
    "argv,content,message",
    [
        (["decode"], b"02 00 00 03 4", "odd number of hex digits"),
        (["decode"], b"02 00 00 03 48", "EM 0x09"),
        (["decode"], b"02 00 00 04 48 0A", "incomplete frame at the end: 6 bytes"),
        (["decode"], b"07 00 00 00", "EM 0x08"),
        (["decode", "--hex"], b"zz", "not hex"),
        (["decode", "--body"], b"48", "non-zero even length"),
        (["encode"], b"NOW\nXYZ ( 1 )\n", "line 2: unknown token 'XYZ'"),
        (["encode", "--body"], b"FM\n", "--body needs messages"),
    ],
)
def test_bad_input_is_one_error_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    content: bytes,
    message: str,
) -> None:
    (tmp_path / "in").write_bytes(content)
    status, out, err = run(capsys, *argv, str(tmp_path / "in"))
    assert status == 1
    assert err.count("\n") == 1 and message in err
    assert err.startswith(f"daide {argv[0]}: error: ")


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "decode", str(tmp_path / "nope"))
    assert status == 1 and "cannot read" in err
