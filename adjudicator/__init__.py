"""A DATC-compliant Diplomacy adjudicator: pure functions over frozen values.

Public API (stdlib only; uses :mod:`maps` and :mod:`orders`, never ``protocol``):

* values - :class:`Phase`, :class:`GameState`, :class:`Dislodged`,
  :func:`initial_state`; the orders it judges are the one order model of
  :mod:`orders` (:class:`Location`, :class:`Unit`, :class:`Hold`,
  :class:`Move`... :class:`Waive`), exported here too as the inputs of
  this API;
* rules - :class:`Rulebook` with the presets :data:`DATC_2_4` (default) and
  :data:`DATC_3_0`;
* checks - :func:`validate` (the THX note), :func:`check_order`;
* processing - :func:`advance` -> :class:`PhaseResult` of
  :class:`OrderResult` (DAIDE result tokens plus a reason);
* move generation for bots - :func:`legal_orders`, :func:`unit_orders`,
  :func:`retreat_orders`, :func:`adjustment_orders`.

When ``make install`` could compile the package with mypyc, the compiled
modules are used - but only while they match the source files exactly
(:mod:`native`); :data:`COMPILED` tells which one runs.
"""

from native import activate as _activate

#: True when the mypyc-compiled modules run (see native/), False for pure Python
COMPILED: bool = _activate(__name__, __path__)

# The modules below are imported after that choice.

from adjudicator.adjustments import civil_disorder_removals  # noqa: E402
from adjudicator.engine import advance  # noqa: E402
from adjudicator.legal import adjustment_orders, legal_orders, retreat_orders, unit_orders  # noqa: E402
from adjudicator.results import (  # noqa: E402
    BNC,
    CUT,
    DSR,
    NSO,
    RET,
    SUC,
    Bounced,
    CutBy,
    Default,
    DislodgedBy,
    Disrupted,
    Expedited,
    NoRoute,
    NotMatched,
    OrderResult,
    OwnUnit,
    Paradox,
    PhaseResult,
    Reason,
    Rejected,
    RetreatClash,
)
from adjudicator.rulebook import DATC_2_4, DATC_3_0, DEFAULT, Rulebook  # noqa: E402
from adjudicator.validate import check_order, validate  # noqa: E402
from adjudicator.values import Dislodged, GameState, Phase, initial_state  # noqa: E402
from orders import (  # noqa: E402
    AMY,
    FLT,
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    UnitOrder,
    Waive,
)

__all__ = [
    "AMY",
    "COMPILED",
    "BNC",
    "Bounced",
    "Build",
    "CUT",
    "Convoy",
    "ConvoyMove",
    "CutBy",
    "DATC_2_4",
    "DATC_3_0",
    "DEFAULT",
    "DSR",
    "Default",
    "Disband",
    "Dislodged",
    "DislodgedBy",
    "Disrupted",
    "Expedited",
    "FLT",
    "GameState",
    "Hold",
    "Location",
    "Move",
    "NSO",
    "NoRoute",
    "NotMatched",
    "Order",
    "OrderResult",
    "OwnUnit",
    "Paradox",
    "Phase",
    "PhaseResult",
    "RET",
    "Reason",
    "Rejected",
    "Remove",
    "Retreat",
    "RetreatClash",
    "Rulebook",
    "SUC",
    "SupportHold",
    "SupportMove",
    "Unit",
    "UnitOrder",
    "Waive",
    "adjustment_orders",
    "advance",
    "check_order",
    "civil_disorder_removals",
    "initial_state",
    "legal_orders",
    "retreat_orders",
    "unit_orders",
    "validate",
]
