"""HLO variant options (docs/protocol.md §10) as one typed value.

``variant = (option) (option) ...``; each option is bracketed on its own,
with or without an integer argument.  On output the options follow the
documented order (LVL, MTL, RTL, BTL, DSD, AOA, PDA, NPR, NPB, PTL); on input
any order is accepted ("clients should not depend on it"), each option once.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.grammar import Loc, Parser
from protocol.tree import Node

# option token -> (field name, takes an integer argument), in document order
_OPTIONS: dict[str, tuple[str, bool]] = {
    "LVL": ("level", True),
    "MTL": ("move_limit", True),
    "RTL": ("retreat_limit", True),
    "BTL": ("build_limit", True),
    "DSD": ("dsd", False),
    "AOA": ("aoa", False),
    "PDA": ("pda", False),
    "NPR": ("npr", False),
    "NPB": ("npb", False),
    "PTL": ("press_limit", True),
}
_OPTION_NAMES = frozenset(_OPTIONS)


@dataclass(frozen=True, slots=True)
class VariantOptions:
    """The game's variant options as sent in HLO.

    Time limits are seconds (0..8191); None = no limit for that phase.
    ``level`` is the press level (LVL, always present); ``dsd`` stops the
    deadline while a player who owes orders is disconnected; ``aoa`` = any
    orders accepted; ``pda`` = partial draws allowed; ``npr``/``npb`` = no
    press in retreat/adjustment phases; ``press_limit`` (PTL) = press stops
    that many seconds before a movement deadline.
    """

    level: int = 0
    move_limit: int | None = None
    retreat_limit: int | None = None
    build_limit: int | None = None
    dsd: bool = False
    aoa: bool = False
    pda: bool = False
    npr: bool = False
    npb: bool = False
    press_limit: int | None = None

    def to_node(self) -> tuple[Node, ...]:
        """``( ( LVL n ) ( MTL s ) ... )`` in the documented order."""
        options: list[Node] = []
        for token, (name, has_arg) in _OPTIONS.items():
            value = getattr(self, name)
            if has_arg:
                if value is not None:
                    options.append((token, value))
            elif value:
                options.append((token,))
        return tuple(options)


def parse_variant(p: Parser, seq: tuple[Node, ...], i: int, loc: Loc) -> VariantOptions:
    """Element ``i`` must be the variant group ``( (option) (option) ... )``."""
    g = p.group(seq, i, loc, "variant options")
    here = loc + (i,)
    values: dict[str, int | bool] = {}
    for k in range(len(g)):
        opt = p.group(g, k, here, "option")
        at = here + (k,)
        token = p.one_of(opt, 0, at, _OPTION_NAMES)
        name, has_arg = _OPTIONS[token]
        if name in values:
            p.fail(at + (0,), f"option {token} given twice")
        if has_arg:
            values[name] = p.integer(opt, 1, at, 0)
            p.end(opt, 2, at)
        else:
            values[name] = True
            p.end(opt, 1, at)
    if "level" not in values:
        p.fail(here + (len(g),), "LVL is always present")
    return VariantOptions(**values)  # type: ignore[arg-type]
