"""What each THX note and ORD result means, in words (docs/protocol.md §9.3, §9.4).

`adjudicator.validate` decides the note of an order; this is the one table
that says what a note means to a person - the bot checker's report
(``daide check-bot``) and a power's log (``daide export --bot-log``) explain
each refused order with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

#: note -> (what it says, when the server gives it), docs/protocol.md §9.3.
NOTE_MEANINGS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType({
    "MBV": ("accepted", "the order is fine"),
    "FAR": ("not adjacent", "a destination the unit cannot reach, with no convoy route possible"),
    "NSP": ("no such province", "the province is not on this map"),
    "NSU": ("no such unit", "there is no such unit there (or it is of the other type)"),
    "NAS": ("not at sea", "a convoying fleet that is not in a sea province"),
    "NSF": ("no such fleet", "a convoy that names a fleet that is not there"),
    "NSA": ("no such army", "a convoy of a unit that is not an army"),
    "NYU": ("not your unit", "the unit (or the waiving power) is someone else's"),
    "NRN": ("no retreat needed", "a retreat order for a unit that is not dislodged"),
    "NVR": ("not a valid retreat", "a destination that is not in the unit's retreat options (MRT)"),
    "YSC": ("not your supply centre", "a build in a centre the power does not own"),
    "ESC": ("not an empty supply centre", "the site is occupied, or already has a build"),
    "HSC": ("not a home supply centre", "a build outside the power's home centres"),
    "NSC": ("not a supply centre", "a build in a province without a centre"),
    "CST": ("no coast specified", "a fleet to a two-coast province without a coast, a fleet "
                                  "built inland or an army at sea"),
    "NMB": ("no more builds allowed", "more builds (waives included) than the power may make"),
    "NMR": ("no more removals allowed", "more removals than the power must make"),
    "NRS": ("not the right season", "an order of another phase's kind"),
})


#: ORD result token -> what it says (docs/protocol.md §9.4).
RESULT_MEANINGS: Final[Mapping[str, str]] = MappingProxyType({
    "SUC": "succeeded",
    "BNC": "bounced (a bounced retreat destroys the unit)",
    "CUT": "the support was cut",
    "DSR": "a convoying fleet was dislodged, the convoy failed",
    "NSO": "no such order: the supported or convoyed order did not match, or no convoy route",
    "RET": "the unit was dislodged and must retreat",
})


def explain_result(outcome: str | None, retreat: bool = False) -> str:
    """An ORD result in words: ``BNC, RET`` -> ``bounced ...; the unit was dislodged ...``.

    In an AOA game the outcome may be a THX note (the order was invalid): explained as one."""
    parts = []
    if outcome is not None:
        parts.append(RESULT_MEANINGS.get(outcome) or f"invalid order, {explain_note(outcome)}")
    if retreat:
        parts.append(RESULT_MEANINGS["RET"])
    return "; ".join(parts)


def explain_note(note: str) -> str:
    """``NSU (no such unit: there is no such unit there ...)``; an unknown note as it is."""
    meaning = NOTE_MEANINGS.get(note)
    if meaning is None:
        return note
    return f"{note} ({meaning[0]}: {meaning[1]})"


__all__ = ["NOTE_MEANINGS", "RESULT_MEANINGS", "explain_note", "explain_result"]
