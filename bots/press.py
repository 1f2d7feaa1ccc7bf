"""How a no-press bot answers press (PROTOCOL.md 16.5).

Every ``FRM (power) (recipients) (press_message)`` is answered with
``SND (power) (HUH (ERR press_message))`` then ``SND (power) (TRY ())``,
except that HUH and TRY are never answered (that would let two bots loop).
"""

from __future__ import annotations

from typing import Any

from protocol.tree import Text

Tree = tuple[Any, ...]

NEVER_ANSWERED = frozenset({"HUH", "TRY"})


def no_press_replies(frm: Tree) -> list[Tree]:
    """The SND messages a no-press bot sends in answer to one FRM message."""
    if len(frm) < 4 or frm[0] != "FRM" or not isinstance(frm[1], tuple) or not frm[1]:
        return []
    sender = frm[1][0]
    press = frm[3]
    if not isinstance(press, tuple) or not press:
        return []
    head = press[0]
    if isinstance(head, str) and not isinstance(head, Text) and head in NEVER_ANSWERED:
        return []
    return [
        ("SND", (sender,), ("HUH", ("ERR", *press))),
        ("SND", (sender,), ("TRY", ())),
    ]
