"""What happened to each order, in DAIDE terms and with the reason why.

An :class:`OrderResult` carries the ORD result of docs/protocol.md §9.4 (``SUC``,
``BNC``, ``CUT``, ``DSR``, ``NSO``, with or without ``RET``; see
``docs/adjudication-conventions.md``) plus a structured :data:`Reason`
saying *why*: which units bounced a move, which unit cut a support, who
dislodged a unit and from where, why a convoy had no route.

All are frozen dataclasses.  The ones made for (nearly) every unit or every
movement phase - :class:`OrderResult`, :class:`NotMatched`,
:class:`Bounced`, :class:`OwnUnit`, :class:`PhaseResult` - write their
``__init__`` out: see ``adjudicator/values.py`` for why that matters once
compiled.  The others use the generated ``__init__``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from adjudicator.values import GameState, Phase
from orders import Order, Unit

SUC: Final = "SUC"
BNC: Final = "BNC"
CUT: Final = "CUT"
DSR: Final = "DSR"
NSO: Final = "NSO"
RET: Final = "RET"


# -- reasons -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bounced:
    """A move failed at ``province``: ``against`` are the units whose strength
    was at least the mover's (the defender or holder there, and/or the other
    units that tried to enter).  ``standoff`` is True when several units tried
    to enter and none did."""

    province: str
    against: tuple[Unit, ...]
    standoff: bool

    def __init__(self, province: str, against: tuple[Unit, ...], standoff: bool) -> None:
        object.__setattr__(self, "province", province)
        object.__setattr__(self, "against", against)
        object.__setattr__(self, "standoff", standoff)


@dataclass(frozen=True, slots=True)
class OwnUnit:
    """A move failed because it would have dislodged a unit of its own power."""

    province: str
    unit: Unit

    def __init__(self, province: str, unit: Unit) -> None:
        object.__setattr__(self, "province", province)
        object.__setattr__(self, "unit", unit)


@dataclass(frozen=True, slots=True)
class CutBy:
    """A support was cut by ``attacker`` (coming from ``origin``).  ``dislodged``
    is True when the supporter was dislodged (dislodge rule)."""

    attacker: Unit
    origin: str
    dislodged: bool


@dataclass(frozen=True, slots=True)
class NotMatched:
    """A support or convoy whose supported / convoyed unit ordered something else."""

    unit: Unit

    def __init__(self, unit: Unit) -> None:
        object.__setattr__(self, "unit", unit)


@dataclass(frozen=True, slots=True)
class NoRoute:
    """A convoyed move for which no complete route of matching CVY orders was given."""

    dest: str


@dataclass(frozen=True, slots=True)
class Disrupted:
    """Every convoy route was broken: these convoying fleets were dislodged."""

    fleets: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class Paradox:
    """The convoy was part of a convoy paradox and is void (Szykman rule, DATC 4.A.2 d)."""

    fleets: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class DislodgedBy:
    """The unit was dislodged by ``attacker`` coming from ``origin``."""

    attacker: Unit
    origin: str


@dataclass(frozen=True, slots=True)
class RetreatClash:
    """Several units retreated to ``province``: all were destroyed."""

    province: str
    others: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class Rejected:
    """The order failed the THX checks (AOA games): ``note`` is its THX note."""

    note: str


@dataclass(frozen=True, slots=True)
class Default:
    """The power gave no (valid) order: this one was applied for it
    (hold, disband, waive, or a civil-disorder removal, DATC 4.D.8)."""

    why: str


@dataclass(frozen=True, slots=True)
class Expedited:
    """The expedited removal of players (a house rule, :mod:`adjudicator.expedite`):
    the power's orders could not matter, so the server gave this order for it -
    ``why`` says which part of the rule applied."""

    why: str


Reason = (
    Bounced
    | OwnUnit
    | CutBy
    | NotMatched
    | NoRoute
    | Disrupted
    | Paradox
    | DislodgedBy
    | RetreatClash
    | Rejected
    | Default
    | Expedited
)


@dataclass(frozen=True, slots=True)
class OrderResult:
    """The result of one order (one ORD message).

    ``outcome`` is SUC/BNC/CUT/DSR/NSO, or None for a unit that was only
    dislodged (a holding or convoying unit: ORD result ``( RET )``), or the
    THX note of a rejected order in an AOA game.  ``dislodged`` adds RET.
    ``reason`` explains a failure (None for plain success); ``dislodged_by``
    tells who dislodged the unit.
    """

    order: Order
    outcome: str | None
    dislodged: bool = False
    reason: Reason | None = None
    dislodged_by: DislodgedBy | None = None

    def __init__(
        self,
        order: Order,
        outcome: str | None,
        dislodged: bool = False,
        reason: Reason | None = None,
        dislodged_by: DislodgedBy | None = None,
    ) -> None:
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "dislodged", dislodged)
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "dislodged_by", dislodged_by)

    @property
    def tokens(self) -> tuple[str, ...]:
        """The result as DAIDE tokens: ``('BNC', 'RET')``, ``('RET',)``, ``('SUC',)``."""
        if self.outcome is None:
            return (RET,)
        if self.dislodged:
            return (self.outcome, RET)
        return (self.outcome,)


@dataclass(frozen=True, slots=True)
class PhaseResult:
    """The outcome of :func:`adjudicator.advance`.

    ``results`` has one entry per ORD message of the processed ``phase``, in
    a fixed order (movement / retreat: by unit province; adjustment: by power,
    then builds, removals, waives).  ``state`` is the position at the start of
    the next phase in which somebody has to act (phases without anything to
    do are skipped, docs/protocol.md §8.4).  ``ownership_updated`` says whether
    centre ownership was recalculated (an SCO is due), ``winner`` is the
    power with a solo, ``eliminated`` the powers that lost their last unit
    and centre in this step.
    """

    phase: Phase
    results: tuple[OrderResult, ...]
    state: GameState
    ownership_updated: bool
    winner: str | None
    eliminated: tuple[str, ...]

    def __init__(
        self,
        phase: Phase,
        results: tuple[OrderResult, ...],
        state: GameState,
        ownership_updated: bool,
        winner: str | None,
        eliminated: tuple[str, ...],
    ) -> None:
        object.__setattr__(self, "phase", phase)
        object.__setattr__(self, "results", results)
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "ownership_updated", ownership_updated)
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "eliminated", eliminated)

    @property
    def next_phase(self) -> Phase:
        return self.state.phase


__all__ = [
    "BNC",
    "Bounced",
    "CUT",
    "CutBy",
    "DSR",
    "Default",
    "DislodgedBy",
    "Disrupted",
    "Expedited",
    "NSO",
    "NoRoute",
    "NotMatched",
    "OrderResult",
    "OwnUnit",
    "Paradox",
    "PhaseResult",
    "RET",
    "Reason",
    "Rejected",
    "RetreatClash",
    "SUC",
]
