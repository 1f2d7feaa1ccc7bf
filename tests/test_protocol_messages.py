"""Typed messages: golden bytes, grammar errors (PRN/HUH+ERR), direction, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orders import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)
from protocol.errors import BracketError, GrammarError, ProtocolError, UnknownTokenError
from protocol.frames import DiplomacyMessage, build_frame, parse_frames
from protocol.mapdef import CentreGroup
from protocol.messages import (
    Adm,
    Ccd,
    Drw,
    Frm,
    Gof,
    Hlo,
    Hst,
    Huh,
    Iam,
    MapMessage,
    MapRequest,
    Mdf,
    MdfRequest,
    Message,
    Mis,
    Nme,
    NotMessage,
    Now,
    Obs,
    Ord,
    Prn,
    Rej,
    Sco,
    Slo,
    Smr,
    SmrEntry,
    Snd,
    Sub,
    Thx,
    Tme,
    Yes,
)
from protocol.orders import (
    DaideOrderResult,
    Turn,
    UnitPosition,
)
from protocol.parse import Sender, error_reply, parse_message
from protocol.text import parse_text, render_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import bytes_to_tokens
from protocol.variant import VariantOptions

DATA = Path(__file__).parent / "data" / "protocol"
CLIENT, SERVER = Sender.CLIENT, Sender.SERVER


def parse(text: str, sender: Sender, level: int | None = 0) -> Message:
    return parse_message(parse_text(text), sender=sender, level=level)


def reply_text(text: str, sender: Sender = CLIENT, level: int | None = 0) -> str:
    """The PRN/HUH answer to a faulty message, in text form."""
    with pytest.raises((BracketError, GrammarError)) as info:
        parse(text, sender, level)
    reply = error_reply(info.value)
    assert reply is not None
    return render_text(reply.to_tokens())


# --- docs/protocol.md §12a: worked byte examples, both ways ---------------------------

# (text, sender, frame hex with pad 00); "captured" frames had other pad bytes.
BYTE_EXAMPLES = [
    ("HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )", SERVER,
     "0200001A 4804 4000 4106 4001 4000 0084 4001 4000 4000 4903 0000 4001 4001"),
    ("MDF", CLIENT, "02000002 480A"),
    ("NME ( 'Bot' ) ( '1.0' )", CLIENT,
     "02000016 480C 4000 4B42 4B6F 4B74 4001 4000 4B31 4B2E 4B30 4001"),
    ("SUB ( ( ENG AMY LVP ) HLD )", CLIENT,
     "02000012 4818 4000 4000 4101 4200 553B 4001 4322 4001"),
    ("SUB ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH )", CLIENT,
     "0200001C 4818 4000 4700 076D 4001 4000 4000 4101 4201 553A 4001 4323 521C 4001"),
    ("THX ( ( RUS FLT ( STP SCS ) ) HLD ) ( MBV )", SERVER,
     "0200001E 481A 4000 4000 4105 4201 4000 574A 4608 4001 4001 4322 4001 4000 4400 4001"),
    ("CCD ( AUS )", SERVER, "02000008 4800 4000 4100 4001"),
    ("NOT ( CCD ( TUR ) )", SERVER, "0200000E 480D 4000 4800 4000 4106 4001 4001"),
    ("HUH ( ERR DRW )", SERVER, "0200000A 4806 4000 4902 4801 4001"),
    ("TME ( -1 )", SERVER, "02000008 481B 4000 3FFF 4001"),
    ("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )", CLIENT,
     "0200001C 4817 4000 4102 4001 4000 4A13 4000 4A10 4000 4101 4102 4001 4001 4001"),
]  # fmt: skip


@pytest.mark.parametrize(
    "text,sender,hexframe", BYTE_EXAMPLES, ids=[e[0][:20] for e in BYTE_EXAMPLES]
)
def test_worked_byte_examples(text: str, sender: Sender, hexframe: str) -> None:
    frame = bytes.fromhex(hexframe)
    message = parse(text, sender, level=None)
    assert build_frame(DiplomacyMessage(message.to_tokens())) == frame
    assert message.encode() == frame[4:]
    # Receiving: any pad byte is ignored (captured frames had 0x10, 0x4D...).
    for pad in (0x00, 0x4D, 0xFC):
        frames, rest = parse_frames(frame[:1] + bytes([pad]) + frame[2:])
        assert rest == b""
        assert frames == [DiplomacyMessage(bytes_to_tokens(frame[4:]))]
    assert parse_message(bytes_to_tokens(frame[4:]), sender=sender) == message
    assert str(message) == text


def test_typed_values_of_examples() -> None:
    assert parse("HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )", SERVER) == Hlo("TUR", 132, VariantOptions(level=0))
    stp = Unit("RUS", "FLT", Location("STP", "SCS"))
    assert parse("THX ( ( RUS FLT ( STP SCS ) ) HLD ) ( MBV )", SERVER) == Thx(Hold(stp), "MBV")
    assert parse("SUB ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH )", CLIENT) == Sub(
        (Move(Unit("ENG", "FLT", Location("LON")), Location("NTH")),), Turn("SPR", 1901)
    )
    assert parse("NOT ( CCD ( TUR ) )", SERVER) == NotMessage(Ccd("TUR"))
    assert parse("TME ( -1 )", SERVER) == Tme(-1)
    assert parse("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )", CLIENT, level=10) == Snd(
        ("FRA",), ("PRP", ("PCE", ("ENG", "FRA")))
    )


# --- golden vectors: standard.mdf.txt as typed messages ----------------------------


def _golden_lines() -> list[str]:
    text = (DATA / "standard.mdf.txt").read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


@pytest.mark.parametrize("line", _golden_lines(), ids=lambda ln: ln[:12])
def test_golden_lines_as_typed_messages(line: str) -> None:
    message = parse(line, SERVER)
    assert message.to_tokens() == parse_text(line)
    assert str(message) == line


def test_standard_mdf_typed_content() -> None:
    mdf = parse(next(ln for ln in _golden_lines() if ln.startswith("MDF")), SERVER)
    assert isinstance(mdf, Mdf)
    d = mdf.definition
    assert d.powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
    assert d.centres[0] == CentreGroup("AUS", ("BUD", "TRI", "VIE"))
    assert d.centres[-1].owner == "UNO" and len(d.centres[-1].centres) == 12
    assert sum(len(g.centres) for g in d.centres) == 34
    assert len(d.non_centres) == 41
    assert len(d.adjacencies) == 75
    assert sum(len(a.lists) for a in d.adjacencies) == 120
    bul = next(a for a in d.adjacencies if a.province == "BUL")
    assert [(u.unit_type, u.coast) for u in bul.lists] == [
        ("FLT", "ECS"),
        ("AMY", None),
        ("FLT", "SCS"),
    ]
    assert bul.lists[0].dests == (Location("CON"), Location("BLA"), Location("RUM"))
    con = next(a for a in d.adjacencies if a.province == "CON")
    assert con.lists[1].dests[:2] == (Location("BUL", "SCS"), Location("BUL", "ECS"))


def test_standard_now_and_sco() -> None:
    lines = _golden_lines()
    now = parse(next(ln for ln in lines if ln.startswith("NOW")), SERVER)
    assert isinstance(now, Now)
    assert now.turn == Turn("SPR", 1901) and len(now.units) == 22
    assert UnitPosition(Unit("RUS", "FLT", Location("STP", "SCS"))) in now.units
    sco = parse(next(ln for ln in lines if ln.startswith("SCO")), SERVER)
    assert isinstance(sco, Sco)
    assert sco.ownership[5] == CentreGroup("RUS", ("MOS", "WAR", "SEV", "STP"))


def test_full_hlo_options() -> None:
    text = (
        "HLO ( FRA ) ( 4321 ) ( ( LVL 10 ) ( MTL 600 ) ( RTL 120 ) ( BTL 120 ) "
        "( DSD ) ( AOA ) ( PDA ) ( NPR ) ( NPB ) ( PTL 60 ) )"
    )
    assert parse(text, SERVER) == Hlo(
        "FRA", 4321, VariantOptions(10, 600, 120, 120, True, True, True, True, True, 60)
    )
    # Any order is accepted on input; output is in the documented order.
    shuffled = parse("HLO ( ENG ) ( 1 ) ( ( AOA ) ( MTL 5 ) ( LVL 0 ) )", SERVER)
    assert str(shuffled) == "HLO ( ENG ) ( 1 ) ( ( LVL 0 ) ( MTL 5 ) ( AOA ) )"


# --- docs/protocol.md §14: PRN and HUH with ERR ---------------------------------------------


def test_prn_examples() -> None:
    assert reply_text("IAM ( NOT") == "PRN ( IAM ( NOT )"
    assert reply_text("IAM ) NOT (") == "PRN ( IAM ) NOT ( )"


@pytest.mark.parametrize(
    "received,answer",
    [
        ("WHT ( YES )", "HUH ( ERR WHT ( YES ) )"),
        ("NME ( 'name' ) ( -3 )", "HUH ( NME ( 'name' ) ( ERR -3 ) )"),
        ("NME ( 'name' )", "HUH ( NME ( 'name' ) ERR )"),
        ("MAP ( 'standard' )", "HUH ( MAP ERR ( 'standard' ) )"),
        # level 0: SND itself is above the level (16.6), partial draws too
        ("SND ( FRA ) ( 'hi' )", "HUH ( ERR SND ( FRA ) ( 'hi' ) )"),
        ("DRW ( FRA ENG )", "HUH ( DRW ERR ( FRA ENG ) )"),
        # rule 1: the offending token; rule 2: before the closing bracket
        ("SUB ( ( ENG AMY LVP ) SPR )", "HUH ( SUB ( ( ENG AMY LVP ) ERR SPR ) )"),
        ("SUB ( ( ENG AMY LVP ) )", "HUH ( SUB ( ( ENG AMY LVP ) ERR ) )"),
        ("SUB ( SPR )", "HUH ( SUB ( SPR ERR ) )"),
        ("SUB", "HUH ( SUB ERR )"),
        ("SUB ( ( ENG FLT EDI ) SUP ( ENG FLT LON ) MTO ( NTH NCS ) )",
         "HUH ( SUB ( ( ENG FLT EDI ) SUP ( ENG FLT LON ) MTO ERR ( NTH NCS ) ) )"),
        ("SUB ( ( ENG AMY ( LVP NCS ) ) HLD )", "HUH ( SUB ( ( ENG AMY ERR ( LVP NCS ) ) HLD ) )"),
        ("IAM ( ENG ) ( 12 ) ( 1 )", "HUH ( IAM ( ENG ) ( 12 ) ERR ( 1 ) )"),
        ("NOT ( CCD ( TUR ) )", "HUH ( NOT ( ERR CCD ( TUR ) ) )"),
        ("YES ( NME ( 'a' ) ( 'b' ) )", "HUH ( YES ( ERR NME ( 'a' ) ( 'b' ) ) )"),
        ("NOT ( SUB ( ( ENG AMY LVP ) HLD ) ( ( ENG FLT LON ) HLD ) )",
         "HUH ( NOT ( SUB ( ( ENG AMY LVP ) HLD ) ERR ( ( ENG FLT LON ) HLD ) ) )"),
    ],
)  # fmt: skip
def test_huh_err_positions(received: str, answer: str) -> None:
    assert reply_text(received) == answer


def test_direction_matters() -> None:
    assert parse("MAP ( 'standard' )", SERVER) == MapMessage("standard")
    assert parse("MAP", CLIENT) == MapRequest()
    assert reply_text("MAP", SERVER) == "HUH ( MAP ERR )"
    assert reply_text("THX ( ( ENG AMY LVP ) HLD ) ( MBV )") == (
        "HUH ( ERR THX ( ( ENG AMY LVP ) HLD ) ( MBV ) )"
    )
    assert reply_text("NME ( 'a' ) ( 'b' )", SERVER) == "HUH ( ERR NME ( 'a' ) ( 'b' ) )"
    assert parse("YES ( NME ( 'a' ) ( 'b' ) )", SERVER) == Yes(Nme("a", "b"))
    assert parse("REJ ( MAP ( 'x' ) )", CLIENT) == Rej(MapMessage("x"))
    assert parse("MDF", CLIENT) == MdfRequest()


def test_level_gates_client_press_only() -> None:
    assert parse("DRW ( FRA ENG )", CLIENT, level=10) == Drw(("FRA", "ENG"))
    assert parse("NOT ( DRW ( FRA ENG ) )", CLIENT, level=10) == NotMessage(Drw(("FRA", "ENG")))
    assert reply_text("NOT ( DRW ( FRA ENG ) )") == "HUH ( NOT ( DRW ERR ( FRA ENG ) ) )"
    assert parse("FRM ( ENG ) ( FRA ) ( 'hi' )", SERVER, level=0) == Frm("ENG", ("FRA",), ("hi",))
    assert parse("SND ( SPR 1901 ) ( FRA ) ( 'hi' )", CLIENT, level=8000) == Snd(
        ("FRA",), ("hi",), Turn("SPR", 1901)
    )


def test_unknown_token_is_huh_not_em() -> None:
    tokens = parse_text("SUB ( ( ENG AMY 0x4C05 ) HLD )")
    with pytest.raises(UnknownTokenError) as info:
        parse_message(tokens, sender=CLIENT)
    reply = error_reply(info.value)
    assert reply is not None
    assert render_text(reply.to_tokens()) == "HUH ( SUB ( ( ENG AMY ERR 0x4C05 ) HLD ) )"


def test_no_reply_to_a_faulty_huh_or_prn() -> None:
    for text in ("HUH ( ERR", "HUH ERR", "PRN IAM"):
        with pytest.raises((BracketError, GrammarError)) as info:
            parse(text, SERVER)
        assert error_reply(info.value) is None
    assert parse("PRN ( IAM ( NOT )", CLIENT) == Prn(parse_text("IAM ( NOT"))
    assert parse("HUH ( ERR DRW )", CLIENT) == Huh(parse_text("ERR DRW"))
    assert Huh.at(parse_text("DRW"), 0) == Huh(parse_text("ERR DRW"))


# --- variant maps ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["americas4", "SAILHO"])
def test_variant_files_parse_with_their_representation(name: str) -> None:
    files = {p.suffix.lower(): p for p in (DATA / "variants").glob(f"{name}.*")}
    rep = Representation.from_rem(files[".rem"].read_text())
    assert not rep.is_standard
    for ext, cls in ((".mdf", Mdf), (".now", Now), (".sco", Sco)):
        tokens = parse_text(files[ext].read_text(), rep)
        message = parse_message(tokens, rep, sender=SERVER)
        assert isinstance(message, cls)
        assert message.to_tokens(rep) == tokens
        with pytest.raises(ProtocolError):  # the standard table does not know the names
            parse_message(parse_text(files[ext].read_text(), rep), sender=SERVER)


def test_variant_names_shadow_language_tokens() -> None:
    rep = Representation.from_rem((DATA / "variants" / "americas4.rem").read_text())
    assert rep.value("BRA") == 0x4103 and rep.value("NEC") == 0x5245
    assert 0x4602 not in rep.names  # the coast NEC has no name on this map


# --- round trips ------------------------------------------------------------------------

POWERS = STANDARD.powers()
PROVINCES = STANDARD.provinces()
COASTS = ("NCS", "NEC", "ECS", "SEC", "SCS", "SWC", "WCS", "NWC")

power = st.sampled_from(POWERS)
province = st.sampled_from(PROVINCES)
location = st.builds(Location, province, st.none() | st.sampled_from(COASTS))
army = st.builds(Unit, power, st.just("AMY"), st.builds(Location, province))
fleet = st.builds(Unit, power, st.just("FLT"), location)
unit = army | fleet
turn = st.builds(Turn, st.sampled_from(("SPR", "SUM", "FAL", "AUT", "WIN")), st.integers(0, 8191))
order = st.one_of(
    st.builds(Hold, unit),
    st.builds(Move, unit, location),
    st.builds(SupportHold, unit, unit),
    st.builds(SupportMove, unit, unit, province),
    st.builds(Convoy, unit, unit, province),
    st.builds(ConvoyMove, unit, province, st.lists(province, min_size=1, max_size=4).map(tuple)),
    st.builds(Retreat, unit, location),
    st.builds(Disband, unit),
    st.builds(Build, unit),
    st.builds(Remove, unit),
    st.builds(Waive, power),
)
string = st.text(min_size=1, max_size=12)
positions = st.builds(UnitPosition, unit, st.none() | st.lists(location, max_size=4).map(tuple))
press = st.recursive(
    st.sampled_from(("PRP", "PCE", "ALY", "VSS", *POWERS)) | st.integers(-8192, 8191),
    lambda inner: st.lists(inner, min_size=1, max_size=4).map(tuple),
    max_leaves=12,
).map(lambda n: n if isinstance(n, tuple) else (n,))

client_message = st.one_of(
    st.builds(Nme, string, string),
    st.just(Obs()),
    st.builds(Iam, power, st.integers(-8192, 8191)),
    st.builds(Sub, st.lists(order, min_size=1, max_size=5).map(tuple), st.none() | turn),
    st.builds(Hst, st.none() | turn),
    st.builds(Tme, st.none() | st.integers(-8192, 8191)),
    st.builds(Drw, st.lists(power, max_size=3).map(tuple)),
    st.builds(Adm, string, string),
    st.builds(Snd, st.lists(power, min_size=1, max_size=3).map(tuple), press, st.none() | turn),
    st.builds(NotMessage, st.builds(Sub, st.lists(order, max_size=1).map(tuple))),
    st.builds(NotMessage, st.just(Gof()) | st.builds(Tme, st.none() | st.integers(0, 8191))),
    st.builds(Yes, st.builds(MapMessage, string)),
)
server_message = st.one_of(
    st.builds(Yes, client_message),
    st.builds(Rej, client_message),
    st.builds(MapMessage, string),
    st.builds(Hlo, power | st.just("UNO"), st.integers(0, 8191), st.builds(
        VariantOptions, st.integers(0, 8191), st.none() | st.integers(0, 8191),
        st.none() | st.integers(0, 8191), st.none() | st.integers(0, 8191),
        st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans(),
        st.none() | st.integers(0, 8191))),
    st.builds(Sco, st.lists(st.builds(
        CentreGroup, power | st.just("UNO"), st.lists(province, max_size=4).map(tuple)),
        min_size=1, max_size=4).map(tuple)),
    st.builds(Now, turn, st.lists(positions, max_size=5).map(tuple)),
    st.builds(Thx, order, st.sampled_from(("MBV", "FAR", "NSU", "CST", "NMR"))),
    st.builds(Mis, st.lists(positions, min_size=1, max_size=4).map(tuple)),
    st.builds(Mis, st.just(()), st.integers(-8192, 8191)),
    st.just(Mis()),
    st.builds(Ord, turn, order, st.builds(
        DaideOrderResult, st.none() | st.sampled_from(("SUC", "BNC", "CUT", "DSR", "NSO")),
        st.booleans()).filter(lambda r: r.outcome is not None or r.retreat)),
    st.builds(Slo, power),
    st.builds(Smr, turn, st.lists(st.builds(
        SmrEntry, power, string, string, st.integers(0, 8191),
        st.none() | st.integers(0, 8191)), min_size=1, max_size=3).map(tuple)),
    st.builds(Frm, power, st.lists(power, min_size=1, max_size=3).map(tuple), press),
    st.builds(NotMessage, st.builds(Ccd, power) | st.builds(Tme, st.integers(-8192, 8191))),
)  # fmt: skip


@given(client_message)
def test_client_messages_round_trip(message: Message) -> None:
    tokens = message.to_tokens()
    assert parse_message(tokens, sender=CLIENT) == message
    assert parse_text(str(message)) == tokens


@given(server_message)
def test_server_messages_round_trip(message: Message) -> None:
    tokens = message.to_tokens()
    assert parse_message(tokens, sender=SERVER) == message
    assert parse_message(parse_text(str(message)), sender=SERVER) == message


@given(st.lists(st.integers(0, 0xFFFF), max_size=30), st.sampled_from(Sender))
def test_any_tokens_parse_or_raise_protocol_errors(tokens: list[int], sender: Sender) -> None:
    try:
        message = parse_message(tokens, sender=sender)
    except BracketError as exc:
        assert error_reply(exc) in (Prn(tuple(tokens)), None)
    except GrammarError as exc:
        reply = error_reply(exc)
        if reply is not None:
            assert isinstance(reply, Huh)
            k = exc.position
            assert reply.message[k] == 0x4902  # ERR
            assert reply.message[:k] + reply.message[k + 1 :] == tuple(tokens)
    else:
        # Lossless, except that HLO options are re-rendered in document order.
        assert message.to_tokens() == tuple(tokens) or isinstance(message, Hlo)
