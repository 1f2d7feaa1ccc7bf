"""One power's side of a stored game, explained (``daide export GAME --bot-log POWER``).

What a bot author wants after a game: what the bot was sent, what it sent,
and why anything it did went wrong.  It is rebuilt from what the server
stores (`server.store`):

* the game's settings and the power's seat (name and version, never the
  passcode) give the ``MAP`` and ``HLO`` it received;
* each processed phase gives the position it started from (the SCO and NOW
  the power received), the orders the server had accepted from the power
  when it processed the phase, and the results announced (ORD, SCO, NOW,
  SLO), the power's own ORDs with their result in words;
* the refusals table gives every order of the power the server refused,
  with its THX note in words (`adjudicator.notes`), and every message of the
  power it answered HUH, PRN or REJ as a whole (a grammar error, a SUB for
  another turn...), as the answer echoed it, in words (`server.refusals`) -
  each in the phase it was sent in, in the order sent;
* the press table gives every press message the power sent or received;
* the game's end (DRW or SLO, SMR).

What the store does not hold, the log cannot show: the exact SUB messages
(only the order set they left and the orders refused), the other messages
a power sent that were answered without a refusal, and a message so long
that its refusal keeps only part of it (`server.refusals.sent_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adjudicator.notes import explain_result
from engine.convert import order_from_node
from engine.variants import Variant, VariantError, load_variant
from orders import order_power
from protocol.errors import ProtocolError
from protocol.messages import Hlo, MapMessage, Message, Mis, Now, Ord, Sco
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text, tree_from_text
from server.gamelog import RefusalRecord
from server.refusals import BEFORE_START, explain
from server.store import GameRecord, PhaseRecord, Store, StoreError


class BotLogError(ValueError):
    """No such power in the game, or a game that cannot be read."""


def bot_log(store: Store, game_id: int, power: str) -> str:
    """The log of ``power`` in game ``game_id`` (module docstring); StoreError, BotLogError."""
    record = store.game(game_id)
    power = power.upper()
    try:
        variant = load_variant(record.settings.variant)
    except VariantError as exc:
        raise BotLogError(str(exc)) from None
    if power not in variant.powers:
        raise BotLogError(f"{power} is not a power of game {game_id} "
                          f"({', '.join(variant.powers)})")
    phases = store.phases(game_id)
    press = store.press(game_id)
    refused = [r for r in store.refusals(game_id) if r.power == power]
    out = _header(record, power, variant)
    early = _refused(refused, BEFORE_START)
    if early:
        # Sent after the MAP, before the game started and gave the power its HLO.
        out[-1:-1] = ["before the game started:", *early]
    if not phases:
        out.append("(the game has not started: nothing was sent to the power yet)")
        return "\n".join(out) + "\n"
    start = phases[0]
    out += [f"received {start.sco}", f"received {start.now}"]
    for before, after in zip(phases, phases[1:], strict=False):
        out.append("")
        out += _phase(variant, power, before, after, refused)
        out += [f"  press {_direction(p.sender, power)} {p.message}" for p in press
                if p.turn == after.turn and (p.sender == power or power in p.recipients)]
    later = [p for p in press if p.turn == phases[-1].now.split(" ) ")[0][len("NOW ( "):]
             and (p.sender == power or power in p.recipients)]
    if record.status != "finished":
        out += ["", f"{record.turn}: the phase being played (orders accepted so far: "
                    f"{', '.join(record.pending.get(power, ())) or 'none'})"]
        out += _refused(refused, record.turn or "")
    out += [f"  press {_direction(p.sender, power)} {p.message}" for p in later]
    if record.ending:
        out.append("")
        out += [f"received {line}" for line in record.ending]
    return "\n".join(out) + "\n"


def _direction(sender: str, power: str) -> str:
    return "sent    " if sender == power else "received"


def _header(record: GameRecord, power: str, variant: Variant) -> list[str]:
    seat = next((s for s in record.seats if s.power == power), None)
    who = (f"'{seat.client_name}' version '{seat.client_version}'" if seat is not None
           else "no player took this seat")
    hlo = render_text(Hlo(power, 0, record.settings.hlo_variant()).to_tokens(variant.rep),
                      variant.rep).replace(f"( {power} ) ( 0 )", f"( {power} ) ( passcode )")
    return [f"# game {record.id} ({record.settings.variant}), {power}: {who}; {record.status}",
            "# from the store: what the server sent this power, the orders and messages it "
            "refused or did not understand (in words, in the order sent) and the orders it "
            "had accepted from it when each phase was processed, its press.",
            f"received {render_text(MapMessage(variant.name).to_tokens(variant.rep), variant.rep)}",
            f"received {hlo}"]


def _parse(text: str, variant: Variant) -> Message | None:
    try:
        return parse_message(parse_text(text, variant.rep), variant.rep, sender=Sender.SERVER)
    except (ProtocolError, ValueError):
        return None


@dataclass(frozen=True)
class Owed:
    """What a power owed in one processed phase, and what was missing when it was processed."""

    turn: str
    kind: str                   # movement, retreat, adjustment
    accepted: tuple[str, ...]   # the orders the server held (text)
    missing: Mis | None         # None: complete


def owed_in(variant: Variant, power: str, before: PhaseRecord, after: PhaseRecord) -> Owed | None:
    """What ``power`` owed in the phase processed as ``after`` (starting from ``before``'s
    position), or None when it owed nothing (or the position cannot be read)."""
    sco, now = _parse(before.sco, variant), _parse(before.now, variant)
    if not isinstance(sco, Sco) or not isinstance(now, Now):
        return None
    engine = variant.position(sco, now)
    if power not in engine.owing():
        return None
    texts = tuple(after.orders.get(power, ()))
    accepted = []
    for text in texts:
        try:
            accepted.append(order_from_node(tree_from_text(text, variant.rep), variant.rep))
        except (ProtocolError, ValueError):
            continue
    return Owed(after.turn, engine.state.phase.kind, texts, engine.missing(power, accepted))


def owed_phases(variant: Variant, power: str, phases: Sequence[PhaseRecord]) -> list[Owed]:
    """Every processed phase of a stored game in which ``power`` owed orders."""
    out = []
    for before, after in zip(phases, phases[1:], strict=False):
        owed = owed_in(variant, power, before, after)
        if owed is not None:
            out.append(owed)
    return out


def _phase(variant: Variant, power: str, before: PhaseRecord, after: PhaseRecord,
           refused: Sequence[RefusalRecord] = ()) -> list[str]:
    """One processed phase: refused, owed, accepted, missing, results - then the new position."""
    out = [f"{after.turn}:"]
    out += _refused(refused, after.turn)
    owed = owed_in(variant, power, before, after)
    if owed is None:
        out.append("  owed no orders")
    else:
        out += [f"  sent     {text}  (accepted)" for text in owed.accepted]
        if owed.missing is not None:
            rendered = render_text(owed.missing.to_tokens(variant.rep), variant.rep)
            out.append(f"  missing  {rendered} when the phase was processed: "
                       f"{_default(owed.kind, owed.missing.count)}")
    for text in after.messages:
        message = _parse(text, variant)
        if isinstance(message, Ord):
            if order_power(message.order) != power:
                continue
            outcome = message.result
            out.append(f"  received {text}: "
                       f"{explain_result(outcome.outcome, outcome.retreat)}")
        else:
            out.append(f"  received {text}")
    return out


def _refused(refused: Sequence[RefusalRecord], turn: str) -> list[str]:
    """What the server refused from the power in ``turn`` (orders by their THX note, whole
    messages by HUH, PRN or REJ), in the order sent, each in words."""
    return [f"  sent     {r.sent}  ({explain(r.sent, r.answer)})"
            for r in refused if r.turn == turn]


def _default(kind: str, count: int | None) -> str:
    """What the rules do with what was not ordered (docs/protocol.md §13)."""
    if kind == "movement":
        return "no order was accepted for these units; they held"
    if kind == "retreat":
        return "no order was accepted for these units; they were disbanded"
    if count is not None and count < 0:
        return f"{-count} build(s) not ordered; waived"
    return "removal(s) not ordered; the server chose them by the civil-disorder rule"


__all__ = ["BotLogError", "Owed", "StoreError", "bot_log", "owed_in", "owed_phases"]
