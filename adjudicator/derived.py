"""Facts derived from one game state, computed once and shared by every question.

A :class:`~adjudicator.values.GameState` is a frozen value.  The rules code
asks one state the same questions many times - the server checks every
order of a phase against it (:class:`~adjudicator.validate.MovementChecks`,
the fleet groups), and the legal-order listing asks for the convoy routes of
every army.  The answers are kept in one :class:`Derived` that the state
itself holds (``GameState.facts``, made on first use; not part of the
state's value: it is neither compared, hashed nor shown), so they live
exactly as long as the state and an equal state made anew asks again from
scratch.  Nothing here changes a result.

This module only keeps the answers; the askers work them out (a state
its own unit index and adjustments, ``GameState.by_province`` and
``GameState.adjustment``), so it imports none of the modules that use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, final

if TYPE_CHECKING:
    from orders import Unit


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

    def __init__(self) -> None:
        self.checks: object = None
        self.memo: dict[object, object] = {}
        self.by_province: dict[str, Unit] | None = None
        self.adjustments: dict[str, int] | None = None


__all__ = ["Derived"]
