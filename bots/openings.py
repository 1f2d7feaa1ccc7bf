"""Standard-map opening knowledge, used by RegretBot only as a prior.

On the standard map, in spring 1901 and with a power's units exactly where
the game starts them, the well-known openings below are added to the
candidate order sets the search weighs (`bots.regret`) - for the bot itself
and as likely moves of the others.  They are never played blindly: each is
adjudicated against the others' candidates like any other set, and on any
other map, year or position this table gives nothing, so the bot plays
every variant with the same search.

Each opening is written ``KIND FROM - TO`` (a move) or ``KIND FROM H``
(a hold), a fleet's coast after a slash (``F STP/SC``), as players write
them.
"""

from __future__ import annotations

from bots.board import BoardView
from bots.orders import unit_of
from orders import Hold, Location, Move, Order

OPENINGS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ENG": (("F LON - NTH", "F EDI - NWG", "A LVP - YOR"),
            ("F LON - ECH", "F EDI - NTH", "A LVP - YOR")),
    "FRA": (("F BRE - MAO", "A PAR - BUR", "A MAR - SPA"),
            ("F BRE - MAO", "A PAR - PIC", "A MAR - BUR")),
    "GER": (("F KIE - DEN", "A BER - KIE", "A MUN - RUH"),
            ("F KIE - HOL", "A BER - KIE", "A MUN - RUH")),
    "ITA": (("F NAP - ION", "A ROM - APU", "A VEN H"),
            ("F NAP - ION", "A ROM - VEN", "A VEN - TYR")),
    "AUS": (("F TRI - ALB", "A VIE - GAL", "A BUD - SER"),
            ("F TRI - ALB", "A VIE - TRI", "A BUD - SER")),
    "RUS": (("F STP/SC - GOB", "A MOS - UKR", "A WAR - GAL", "F SEV - BLA"),
            ("F STP/SC - GOB", "A MOS - STP", "A WAR - UKR", "F SEV - BLA")),
    "TUR": (("F ANK - BLA", "A CON - BUL", "A SMY - CON"),
            ("F ANK - BLA", "A CON - BUL", "A SMY - ARM")),
}
"""Power -> openings, the first the most common (standard map only)."""

_COASTS = {"NC": "NCS", "SC": "SCS", "EC": "ECS", "WC": "WCS"}


def _node(text: str) -> tuple[str, str | None]:
    province, _, coast = text.partition("/")
    return province, (_COASTS.get(coast, coast) if coast else None)


def openings(view: BoardView, power: str) -> list[list[Order]]:
    """The standard openings of `power` in this position; empty unless this is
    the standard map's spring 1901 with the power's units where they start."""
    if view.geography.name.lower() != "standard" or (view.season, view.year) != ("SPR", 1901):
        return []
    units = {u.node: u for u in view.units_of(power)}
    out: list[list[Order]] = []
    for opening in OPENINGS.get(power, ()):
        orders: list[Order] = []
        for line in opening:
            kind, start, *rest = line.split()
            unit = units.get(_node(start))
            if unit is None or unit.kind != {"A": "AMY", "F": "FLT"}[kind]:
                return []               # not the standard start: no prior at all
            if rest == ["H"]:
                orders.append(Hold(unit_of(unit)))
            else:
                province, coast = _node(rest[1])
                orders.append(Move(unit_of(unit), Location(province, coast)))
        if len(orders) != len(units):
            return []
        out.append(orders)
    return out


__all__ = ["OPENINGS", "openings"]
