"""The one order model: :class:`Location`, :class:`Unit` and the orders.

Every layer uses these values - the protocol reads and renders them, the
adjudicator judges them, the engine, server and bots pass them along - and
this package imports nothing of ours but the loader of the compiled build
(:mod:`native`: it is compiled with mypyc together with the adjudicator,
whose hot loops use these classes).  See :mod:`orders.values`, and
:mod:`orders.kinds` for the table of order kinds (each order's word,
parts, phase and the units and provinces it names).
"""

from native import activate as _activate

#: True when the mypyc-compiled modules run (see native/), False for pure Python
COMPILED: bool = _activate(__name__, __path__)

# The module below is imported after that choice.

from orders.kinds import Kind, find_kind, kind_of  # noqa: E402
from orders.values import (  # noqa: E402
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
    order_power,
)

__all__ = [
    "AMY",
    "COMPILED",
    "FLT",
    "Build",
    "Convoy",
    "ConvoyMove",
    "Disband",
    "Hold",
    "Kind",
    "Location",
    "Move",
    "Order",
    "Remove",
    "Retreat",
    "SupportHold",
    "SupportMove",
    "Unit",
    "UnitOrder",
    "Waive",
    "find_kind",
    "kind_of",
    "order_power",
]
