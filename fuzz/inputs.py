"""Fuzz inputs: byte chunks built from frames, tokens and messages, by any source of choices.

A `Chooser` answers "an integer in lo..hi" and "some bytes"; Hypothesis
(`st.data()`) and atheris (`FuzzedDataProvider`) both make one, so the
property tests and the coverage-guided target generate the same kinds of
input from the same code:

* raw bytes (anything at all, framing included);
* frames of every type with consistent or lying length fields;
* DMs of tokens drawn from the whole token table (brackets, commands,
  powers, provinces, press tokens, integers, text, unknown and private-use
  values), balanced or not;
* messages in the DAIDE text form (docs/protocol.md §6.8) from a grammar of every
  client message of level 0 and the press of levels 10-130, with random
  powers, provinces, coasts, turns, integers and strings - mostly valid,
  often subtly wrong.
"""

from __future__ import annotations

import random
from typing import Protocol

from protocol.frames import DiplomacyMessage, InitialMessage, build_frame
from protocol.text import parse_text
from protocol.tokens import BRA, KET, STANDARD, encode_int, text_to_tokens
from protocol.tree import tokens_to_bytes

IM = build_frame(InitialMessage())


class Chooser(Protocol):
    """A source of fuzz decisions."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``lo..hi`` (inclusive)."""
        ...

    def raw(self, most: int) -> bytes:
        """Up to ``most`` arbitrary bytes."""
        ...


class RandomChooser:
    """A `Chooser` from a seeded generator (atheris's fallback, and the web cases)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def raw(self, most: int) -> bytes:
        return self.rng.randbytes(self.rng.randint(0, most))


POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR", "UNO")
PROVINCES = ("PAR", "BUR", "MAR", "SPA", "STP", "BUL", "LON", "NTH", "ENG", "KIE", "BER",
             "MUN", "TRI", "VEN", "ROM", "CON", "ANK", "BLA", "MAO", "NAO", "WAR", "SEV")
COASTS = ("NCS", "SCS", "ECS", "WCS")
SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")
UNITS = ("AMY", "FLT")
#: Every mnemonic the standard representation knows, for random token soups.
MNEMONICS = tuple(sorted(STANDARD.values))
INTEGERS = (-8192, -1, 0, 1, 2, 59, 1901, 1935, 8191)


def pick(c: Chooser, options: tuple[str, ...]) -> str:
    return options[c.integer(0, len(options) - 1)]


def integer(c: Chooser) -> str:
    return str(INTEGERS[c.integer(0, len(INTEGERS) - 1)] if c.integer(0, 1)
               else c.integer(-8192, 8191))


def string(c: Chooser) -> str:
    alphabet = "abcXYZ019 :.-_()"
    return "".join(alphabet[c.integer(0, len(alphabet) - 1)] for _ in range(c.integer(0, 12)))


def location(c: Chooser) -> str:
    province = pick(c, PROVINCES)
    return f"( {province} {pick(c, COASTS)} )" if c.integer(0, 4) == 0 else province


def unit(c: Chooser) -> str:
    return f"( {pick(c, POWERS)} {pick(c, UNITS)} {location(c)} )"


def turn(c: Chooser) -> str:
    return f"( {pick(c, SEASONS)} {integer(c)} )"


def powers(c: Chooser) -> str:
    return " ".join(pick(c, POWERS) for _ in range(c.integer(0, 4)))


def order(c: Chooser) -> str:
    kind = c.integer(0, 10)
    u = unit(c)
    if kind == 0:
        return f"( {u} HLD )"
    if kind == 1:
        return f"( {u} MTO {location(c)} )"
    if kind == 2:
        return f"( {u} SUP {unit(c)} )"
    if kind == 3:
        return f"( {u} SUP {unit(c)} MTO {pick(c, PROVINCES)} )"
    if kind == 4:
        return f"( {u} CVY {unit(c)} CTO {pick(c, PROVINCES)} )"
    if kind == 5:
        via = " ".join(pick(c, PROVINCES) for _ in range(c.integer(0, 3)))
        return f"( {u} CTO {pick(c, PROVINCES)} VIA ( {via} ) )"
    if kind == 6:
        return f"( {u} RTO {location(c)} )"
    if kind == 7:
        return f"( {u} DSB )"
    if kind == 8:
        return f"( {u} {pick(c, ('BLD', 'REM'))} )"
    if kind == 9:
        return f"( {pick(c, POWERS)} WVE )"
    return f"( {u} {pick(c, MNEMONICS)} {pick(c, MNEMONICS)} )"


def press(c: Chooser, depth: int = 0) -> str:
    """A press message of levels 10-130 (docs/protocol.md §16), or nearly one."""
    arrangements = (
        lambda: f"PCE ( {powers(c)} )",
        lambda: f"ALY ( {powers(c)} ) VSS ( {powers(c)} )",
        lambda: "DRW",
        lambda: f"SLO ( {pick(c, POWERS)} )",
        lambda: f"NOT ( {arrangement()} )" if depth < 3 else "DRW",
        lambda: f"NAR ( {arrangement()} )" if depth < 3 else "DRW",
        lambda: f"XDO ( {order(c)} )",
        lambda: f"DMZ ( {powers(c)} ) ( {pick(c, PROVINCES)} )",
        lambda: f"AND ( {arrangement()} ) ( {arrangement()} )" if depth < 2 else "DRW",
        lambda: f"ORR ( {arrangement()} ) ( {arrangement()} )" if depth < 2 else "DRW",
        lambda: f"SCD ( {pick(c, POWERS)} {pick(c, PROVINCES)} )",
        lambda: f"OCC ( {unit(c)} )",
        lambda: f"CHO ( {integer(c)} {integer(c)} ) ( {arrangement()} )" if depth < 2 else "DRW",
        lambda: f"INS ( {arrangement()} )" if depth < 2 else "DRW",
        lambda: f"QRY ( {arrangement()} )" if depth < 2 else "DRW",
        lambda: f"YDO ( {pick(c, POWERS)} {unit(c)} )",
        lambda: f"SND ( {pick(c, POWERS)} ) ( {pick(c, POWERS)} )",
        lambda: f"FWD ( {powers(c)} ) {pick(c, POWERS)} {pick(c, POWERS)}",
        lambda: f"BWX ( {powers(c)} )",
        lambda: f"SUG ( {arrangement()} )" if depth < 2 else "DRW",
    )

    def arrangement() -> str:
        return press(c, depth + 1)

    forms = (
        lambda: f"PRP ( {arrangements[c.integer(0, len(arrangements) - 1)]()} )",
        lambda: f"YES ( PRP ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"REJ ( PRP ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"BWX ( PRP ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"HUH ( PRP ( ERR {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"CCL ( PRP ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"FCT ( {arrangements[c.integer(0, len(arrangements) - 1)]()} )",
        lambda: f"TRY ( {' '.join(pick(c, MNEMONICS) for _ in range(c.integer(0, 5)))} )",
        lambda: f"WHY ( {arrangements[c.integer(0, 3)]()} )",
        lambda: f"IDK ( PRP ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"THK ( {arrangements[c.integer(0, 3)]()} )",
        lambda: f"POB ( WHY ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"EXP ( {turn(c)} ( {arrangements[c.integer(0, 3)]()} ) )",
        lambda: f"IFF ( {arrangements[c.integer(0, 3)]()} ) THN ( PRP ( DRW ) )",
        lambda: f"FRM ( {pick(c, POWERS)} ) ( {powers(c)} ) ( PRP ( DRW ) )",
        lambda: f"'{string(c)}'",
    )
    return forms[c.integer(0, len(forms) - 1)]()


def message(c: Chooser) -> str:
    """One client message in the text form (docs/protocol.md §8, 16)."""
    forms = (
        lambda: f"NME ( '{string(c)}' ) ( '{string(c)}' )",
        lambda: "OBS",
        lambda: f"IAM ( {pick(c, POWERS)} ) ( {integer(c)} )",
        lambda: "MAP",
        lambda: "MDF",
        lambda: f"YES ( MAP ( '{pick(c, ('STANDARD', 'standard', 'other'))}' ) )",
        lambda: "REJ ( MAP ( 'STANDARD' ) )",
        lambda: pick(c, ("HLO", "SCO", "NOW", "MIS", "GOF", "ORD", "TME", "DRW", "SMR", "HST")),
        lambda: f"HST {turn(c)}",
        lambda: "SUB " + " ".join(order(c) for _ in range(c.integer(0, 4))),
        lambda: f"SUB {turn(c)} " + " ".join(order(c) for _ in range(c.integer(1, 3))),
        lambda: f"NOT ( SUB {order(c) if c.integer(0, 1) else ''} )",
        lambda: f"NOT ( {pick(c, ('GOF', 'DRW', 'TME', 'CCD ( ENG )'))} )",
        lambda: f"TME ( {integer(c)} )",
        lambda: f"NOT ( TME ( {integer(c)} ) )",
        lambda: f"DRW ( {powers(c)} )",
        lambda: f"NOT ( DRW ( {powers(c)} ) )",
        lambda: f"ADM ( '{string(c)}' ) ( '{string(c)}' )",
        lambda: f"SND ( {powers(c)} ) ( {press(c)} )",
        lambda: f"SND {turn(c)} ( {powers(c)} ) ( {press(c)} )",
        lambda: f"{pick(c, ('HUH', 'PRN', 'YES', 'REJ'))} ( {message(c)} )",
        lambda: f"{pick(c, ('YES', 'REJ'))} ( {pick(c, ('SVE', 'LOD'))} ( '{string(c)}' ) )",
        lambda: f"{pick(c, ('SVE', 'LOD', 'OFF', 'CCD', 'OUT', 'SLO', 'FRM', 'THX'))} ( {powers(c)} )",
    )
    return forms[c.integer(0, len(forms) - 1)]()


def token_soup(c: Chooser) -> bytes:
    """A DM of tokens from the whole table, brackets balanced or not."""
    tokens: list[int] = []
    if c.integer(0, 3) == 0:
        tokens.append(STANDARD.values["SUB"])        # the reader's kept SUB groups
    for _ in range(c.integer(1, 24)):
        kind = c.integer(0, 9)
        if kind <= 5:
            tokens.append(STANDARD.values[pick(c, MNEMONICS)])
        elif kind == 6:
            tokens.append(encode_int(c.integer(-8192, 8191)))
        elif kind == 7:
            tokens.extend(text_to_tokens(string(c)))
        elif kind == 8:
            tokens.append(pick_bracket(c))
        else:
            tokens.append(c.integer(0, 0xFFFF))          # unknown and private-use values
    return b"\x02\x00" + (2 * len(tokens)).to_bytes(2, "big") + tokens_to_bytes(tokens)


def pick_bracket(c: Chooser) -> int:
    return BRA if c.integer(0, 1) else KET


def frame(c: Chooser) -> bytes:
    """A frame of any type, its length field right or wrong."""
    body = c.raw(40)
    frame_type = c.integer(0, 6)
    length = len(body) if c.integer(0, 3) else c.integer(0, 0xFFFF)
    return bytes([frame_type, c.integer(0, 255)]) + length.to_bytes(2, "big") + body


def text_dm(c: Chooser) -> bytes:
    return build_frame(DiplomacyMessage(parse_text(message(c))))


def chunks(c: Chooser, *, with_im: bool) -> list[bytes]:
    """A fuzz case: byte chunks, delivered one after the other."""
    out: list[bytes] = [IM] if with_im and c.integer(0, 7) else []
    for _ in range(c.integer(1, 8)):
        kind = c.integer(0, 9)
        if kind <= 4:
            data = text_dm(c)
        elif kind <= 6:
            data = token_soup(c)
        elif kind == 7:
            data = frame(c)
        else:
            data = c.raw(64)
        if out and c.integer(0, 2) == 0:
            out[-1] += data                     # several frames in one read
        elif len(data) > 1 and c.integer(0, 4) == 0:
            cut = c.integer(1, len(data) - 1)   # a frame split across reads
            out += [data[:cut], data[cut:]]
        else:
            out.append(data)
    return out
