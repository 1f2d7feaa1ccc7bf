"""A stored game as a DAIDE text log and as JSON (`daide export`).

The text log is the game as an observer saw it, one message per line in the
DAIDE text form (docs/protocol.md §6.8): ``MAP``, ``HLO ( UNO ) ( 0 ) (...)``, the
starting SCO and NOW, every processed phase's ORD/SCO/SLO/NOW, then the end
(DRW / SMR) if the game is over.  Deadline messages (TME) are not recorded.
Press, which no observer sees, is added where it happened: every delivered
message as its ``FRM (sender) (recipients) (press)``, in the global press
order, after the NOW of the turn it was sent in (docs/protocol.md §16.1).

The JSON holds the same and more: settings, players (names and versions,
never passcodes), every phase with the orders adjudicated, every press
message (sequence number, turn, sender, recipients, FRM text, time), and for
a running game the orders already accepted for the current phase.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from protocol.messages import Hlo, MapMessage
from protocol.text import render_text
from server.store import GameRecord, PhaseRecord, PressRecord, Store


def observer_header(record: GameRecord) -> list[str]:
    """``MAP`` and ``HLO (UNO) (0) (variant)``, as an observer receives them."""
    return [render_text(MapMessage(record.settings.variant.upper()).to_tokens()),
            render_text(Hlo("UNO", 0, record.settings.hlo_variant()).to_tokens())]


def text_log(record: GameRecord, phases: list[PhaseRecord],
             press: list[PressRecord] | None = None) -> str:
    """The game as DAIDE text, one message per line, press (FRM) included."""
    lines = observer_header(record)
    waiting = list(press or ())
    for phase in phases:
        if phase.seq > 0:
            # The press of this turn was sent before its results were announced.
            lines.extend(p.message for p in waiting if p.turn == phase.turn)
            waiting = [p for p in waiting if p.turn != phase.turn]
        lines.extend(phase.messages)
    lines.extend(p.message for p in waiting)      # the current turn, or the last one
    lines.extend(record.ending)
    return "\n".join(lines) + "\n"


def json_record(record: GameRecord, phases: list[PhaseRecord],
                press: list[PressRecord] | None = None) -> dict[str, Any]:
    """The game as a JSON-ready dict."""
    return {
        "game": record.id,
        "status": record.status,
        "settings": asdict(record.settings),
        "created_at": record.created_at,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "players": [{"power": s.power, "name": s.client_name, "version": s.client_version}
                    for s in record.seats],
        "phases": [
            {"seq": p.seq, "turn": p.turn, "orders": dict(p.orders), "messages": list(p.messages),
             "sco": p.sco, "now": p.now, "processed_at": p.processed_at}
            for p in phases
        ],
        "press": [
            {"seq": p.seq, "turn": p.turn, "sender": p.sender, "recipients": list(p.recipients),
             "message": p.message, "sent_at": p.sent_at}
            for p in press or ()
        ],
        "current": {"turn": record.turn, "sco": record.sco, "now": record.now,
                    "accepted_orders": dict(record.pending)} if record.status == "running" else None,
        "ending": list(record.ending),
    }


def export_game(store: Store, game_id: int) -> tuple[str, str]:
    """``(text log, JSON text)`` of one game; StoreError if there is no such game."""
    record = store.game(game_id)
    phases = store.phases(game_id)
    press = store.press(game_id)
    return (text_log(record, phases, press),
            json.dumps(json_record(record, phases, press), indent=2) + "\n")
