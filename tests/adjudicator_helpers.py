"""Small builders for adjudicator tests: units and states from short strings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import adjudicator as A
from engine.variants import standard_map
from maps import Map

STD: Map = standard_map()


def loc(text: str) -> A.Location:
    """``'STP/NCS'`` -> Location('STP', 'NCS')."""
    prov, _, coast = text.partition("/")
    return A.Location(prov, coast or None)


def unit(text: str) -> A.Unit:
    """``'RUS FLT STP/SCS'`` -> a Unit."""
    power, kind, where = text.split()
    return A.Unit(power, kind, loc(where))


def state(
    *units: str,
    phase: str = "SPR 1901",
    ownership: Mapping[str, str] | None = None,
    dislodged: Iterable[A.Dislodged] = (),
) -> A.GameState:
    season, year = phase.split()
    built = sorted((unit(u) for u in units), key=lambda u: u.location.province)
    own = dict(STD.start_ownership) if ownership is None else dict(ownership)
    return A.GameState(A.Phase(season, int(year)), tuple(built), own, tuple(dislodged))


def by_power(*orders: A.Order) -> dict[str, list[A.Order]]:
    """Group orders by the power of their unit (the submitter)."""
    out: dict[str, list[A.Order]] = {}
    for o in orders:
        power = o.power if isinstance(o, A.Waive) else o.unit.power
        out.setdefault(power, []).append(o)
    return out


def run(s: A.GameState, *orders: A.Order, rules: A.Rulebook = A.DEFAULT) -> A.PhaseResult:
    return A.advance(STD, s, by_power(*orders), rules)


def result_of(r: A.PhaseResult, province: str) -> A.OrderResult:
    """The result of the unit (or dislodged unit) that stood in ``province``."""
    for res in r.results:
        o = res.order
        if not isinstance(o, A.Waive) and o.unit.location.province == province:
            return res
    raise KeyError(province)


def positions(s: A.GameState) -> set[str]:
    return {f"{u.power} {u.kind} {u.location}" for u in s.units}
