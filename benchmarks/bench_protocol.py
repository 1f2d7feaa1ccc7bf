"""`make bench protocol`: encode and decode throughput of the protocol layer.

Measures, with ``time.perf_counter`` over enough iterations (at least
``MIN_SECONDS`` per figure), messages per second for

* the standard MDF (1 281 tokens, the largest routine message), and
* a 7-power ORD batch: the 22 ORD messages of a realistic SPR 1901,
* a 7-power SUB batch: the 7 SUB messages that gave those orders (the
  server's side: it parses every client message),

where *encode* = typed message -> frame bytes (``Connection.send``) and
*decode* = frame bytes -> typed message (``Connection.receive_data`` +
``next_event``: framing, tree, grammar).  The reference figure is the bare
token conversion of the same bytes (``struct`` unpacking), so the ratio
shows what the typed layer costs on top of reading the tokens.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from orders import Hold, Location, Move, Order, SupportMove, Unit, order_power
from protocol.connection import NEED_DATA, Connection, MessageReceived
from protocol.frames import InitialMessage, RepresentationMessage
from protocol.messages import Message, Ord, Sub
from protocol.orders import DaideOrderResult, Turn
from protocol.parse import Sender, parse_message
from protocol.text import parse_text
from protocol.tree import bytes_to_tokens

MIN_SECONDS = 0.4
SPRING = Turn("SPR", 1901)

# A realistic SPR 1901: (power, type, province, coast, order, destination, result)
_OPENINGS = [
    ("AUS", "AMY", "BUD", None, "MTO", "SER", "SUC"),
    ("AUS", "AMY", "VIE", None, "MTO", "GAL", "BNC"),
    ("AUS", "FLT", "TRI", None, "MTO", "ALB", "SUC"),
    ("ENG", "FLT", "EDI", None, "MTO", "NWG", "SUC"),
    ("ENG", "FLT", "LON", None, "MTO", "NTH", "SUC"),
    ("ENG", "AMY", "LVP", None, "MTO", "YOR", "SUC"),
    ("FRA", "AMY", "PAR", None, "MTO", "BUR", "SUC"),
    ("FRA", "FLT", "BRE", None, "MTO", "MAO", "SUC"),
    ("FRA", "AMY", "MAR", None, "SUP", "BUR", "SUC"),
    ("GER", "AMY", "MUN", None, "MTO", "RUH", "SUC"),
    ("GER", "AMY", "BER", None, "MTO", "KIE", "SUC"),
    ("GER", "FLT", "KIE", None, "MTO", "DEN", "SUC"),
    ("ITA", "FLT", "NAP", None, "MTO", "ION", "SUC"),
    ("ITA", "AMY", "ROM", None, "MTO", "APU", "SUC"),
    ("ITA", "AMY", "VEN", None, "HLD", None, "SUC"),
    ("RUS", "AMY", "MOS", None, "MTO", "UKR", "SUC"),
    ("RUS", "AMY", "WAR", None, "MTO", "GAL", "BNC"),
    ("RUS", "FLT", "SEV", None, "MTO", "BLA", "BNC"),
    ("RUS", "FLT", "STP", "SCS", "MTO", "GOB", "SUC"),
    ("TUR", "FLT", "ANK", None, "MTO", "BLA", "BNC"),
    ("TUR", "AMY", "CON", None, "MTO", "BUL", "SUC"),
    ("TUR", "AMY", "SMY", None, "MTO", "CON", "SUC"),
]


def spring_orders() -> list[tuple[Order, DaideOrderResult]]:
    """The 22 orders of the SPR 1901 batch with their results."""
    out: list[tuple[Order, DaideOrderResult]] = []
    for power, kind, province, coast, verb, dest, result in _OPENINGS:
        unit = Unit(power, kind, Location(province, coast))
        order: Order
        if verb == "HLD":
            order = Hold(unit)
        elif verb == "SUP":
            assert dest is not None
            order = SupportMove(unit, Unit("FRA", "AMY", Location("PAR")), dest)
        else:
            assert dest is not None
            order = Move(unit, Location(dest))
        out.append((order, DaideOrderResult(result)))
    return out


def ord_batch() -> list[Message]:
    return [Ord(SPRING, order, result) for order, result in spring_orders()]


def sub_batch() -> list[Message]:
    by_power: dict[str, list[Order]] = {}
    for order, _ in spring_orders():
        by_power.setdefault(order_power(order), []).append(order)
    return [Sub(tuple(orders)) for orders in by_power.values()]


def mdf_message() -> Message:
    """The reference server's standard MDF (from the test data)."""
    path = (
        Path(__file__).resolve().parent.parent / "tests" / "data" / "protocol" / "standard.mdf.txt"
    )
    line = next(ln for ln in path.read_text().splitlines() if ln.startswith("MDF"))
    return parse_message(parse_text(line), sender=Sender.SERVER)


def _ready(role: Sender) -> Connection:
    """A connection past the IM/RM exchange."""
    conn = Connection(role)
    if role is Sender.CLIENT:
        conn.send(InitialMessage())
        conn.receive_data(bytes.fromhex("01000000"))
    else:
        conn.receive_data(bytes.fromhex("000000040001DA10"))
    conn.next_event()
    if role is Sender.SERVER:
        conn.send(RepresentationMessage())
    return conn


def rate(work: Callable[[], None], messages: int) -> float:
    """Messages per second of ``work`` (which handles ``messages`` messages)."""
    rounds = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < MIN_SECONDS:
        work()
        rounds += 1
        elapsed = time.perf_counter() - start
    return rounds * messages / elapsed


def measure(label: str, batch: list[Message], sender: Sender) -> None:
    """Print encode/decode rates of ``batch`` as sent by ``sender``."""
    sending = _ready(sender)
    frames = [sending.send(m) for m in batch]
    stream = b"".join(frames)
    receiver = _ready(Sender.CLIENT if sender is Sender.SERVER else Sender.SERVER)
    receiver.level = 0

    def encode() -> None:
        for m in batch:
            sending.send(m)

    def decode() -> None:
        receiver.receive_data(stream)
        for _ in batch:
            event = receiver.next_event()
            assert isinstance(event, MessageReceived)
        assert receiver.next_event() is NEED_DATA

    def tokens_only() -> None:
        for f in frames:
            bytes_to_tokens(f[4:])

    encode_rate = rate(encode, len(batch))
    decode_rate = rate(decode, len(batch))
    reference = rate(tokens_only, len(batch))
    print(
        f"{label:<28} encode {encode_rate:>10,.0f} msg/s   decode {decode_rate:>10,.0f} msg/s"
        f"   (bytes->tokens only {reference:>11,.0f} msg/s: decode = 1/{reference / decode_rate:.0f})"
    )


def main() -> int:
    print(f"protocol throughput, >= {MIN_SECONDS} s per figure")
    measure("standard MDF (2562 bytes)", [mdf_message()], Sender.SERVER)
    measure("SPR 1901 ORD batch (22)", ord_batch(), Sender.SERVER)
    measure("SPR 1901 SUB batch (7)", sub_batch(), Sender.CLIENT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
