"""Facts derived from one game state, computed once and shared by every question.

A :class:`~adjudicator.values.GameState` is a frozen value.  The rules code
asks one state the same questions many times - the server checks every
order of a phase against it (:class:`~adjudicator.validate.MovementChecks`,
the fleet groups), and the legal-order listing asks for the convoy routes of
every army.  The answers are kept in one :class:`Derived` per state, found
by the state's identity in a table of the most recent states; nothing is
stored on the state itself.  Nothing here changes a result: a state that
has fallen out of the table is simply asked again from scratch.

This module only keeps the answers; the askers work them out (a state
its own unit index and adjustments, ``GameState.by_province`` and
``GameState.adjustment``), so it needs nothing of the state but its identity
and imports none of the modules that use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

if TYPE_CHECKING:
    from orders import Unit

#: states kept.  Few: an entry keeps its state alive, and every object kept
#: alive is work for the garbage collector.  The usual question comes right
#: after the state was made (a phase's orders, then its adjudication); a
#: state asked again after it fell out is just asked from scratch.
RECENT_STATES: Final = 16


@final
class Derived:
    """What has been worked out about one state so far.

    ``checks`` is the movement-phase order checks of the state
    (:func:`adjudicator.validate.movement_checks`); ``by_province`` (province
    -> the unit there) and ``adjustments`` (power -> centres minus units) are
    filled by the state itself on first use (``GameState.by_province``,
    ``GameState.adjustment``); ``memo`` holds any other fact under a key
    naming it and the map it was computed for.
    """

    def __init__(self, state: object) -> None:
        self.state = state
        self.checks: object = None
        self.memo: dict[object, object] = {}
        self.by_province: dict[str, Unit] | None = None
        self.adjustments: dict[str, int] | None = None


# id(state) -> its facts; the entry keeps its state alive, so an id is not
# reused while it is in the table.  Insertion order = age.
_table: Final[dict[int, Derived]] = {}


def derived(state: object) -> Derived:
    """The :class:`Derived` facts of ``state`` (new and empty on first use)."""
    key = id(state)
    got = _table.get(key)
    if got is not None and got.state is state:
        return got
    if len(_table) >= RECENT_STATES:
        del _table[next(iter(_table))]  # the oldest
    got = Derived(state)
    _table[key] = got
    return got


__all__ = ["RECENT_STATES", "Derived", "derived"]
