"""Drawn orders and their results in players' notation, for the pages render/ writes.

An order reads as people write Diplomacy (``A Par - Bur``, ``F Nth C A Lon -
Nwy``, ``A Mar S A Par - Bur``, ``F Bre R Pic``, ``build A Par``); a result as
the French adjudicator's reports write it: a failed order in lower case after
its unit's letter, with what happened in brackets - ``A par - bur (bounce)``,
``A mun s a ruh - bur (cut)``, ``A bur h (dislodged)``, ``(destroyed)`` for a
dislodged unit with nowhere to go, ``(invalid)`` for a support or convoy that
matched no order, ``(failed)`` for a broken convoy or a bounced retreat.  The
web page writes the same (``web/words.js``, in English and French); this is
its English for the HTML replay (`render.replay`) and the pictures' tooltips.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from render.board import DrawnUnit, Order

#: Coast tokens as players write them after the province (``Spa/nc``).
COASTS = {"NCS": "nc", "SCS": "sc", "ECS": "ec", "WCS": "wc", "NEC": "nec", "NWC": "nwc",
          "SEC": "sec", "SWC": "swc"}

#: What happened to a failed order, by DAIDE result token (docs/protocol.md §8.4).
_WHY = {"BNC": "bounce", "CUT": "cut", "NSO": "invalid", "DSR": "failed"}


def _province(mnemonic: str) -> str:
    return mnemonic[:1] + mnemonic[1:].lower()


def _where(province: str, coast: str | None) -> str:
    if not coast:
        return _province(province)
    return f"{_province(province)}/{COASTS.get(coast, coast.lower())}"


def power_name(power: str, names: Mapping[str, str]) -> str:
    """A power by its name in the map (``France``), else its mnemonic in capitals."""
    return names.get(power) or _province(power)


def unit_words(unit: DrawnUnit) -> str:
    """``A Par``, ``F Spa/nc``: the unit as players write it (its power left out)."""
    return f"{'F' if unit.kind == 'FLT' else 'A'} {_where(unit.province, unit.coast)}"


def unit_tooltip(unit: DrawnUnit, power_names: Mapping[str, str] | None = None) -> str:
    """``France: A Par``; a dislodged unit says where it may retreat."""
    text = f"{power_name(unit.power, power_names or {})}: {unit_words(unit)}"
    if unit.retreats is None:
        return text
    if not unit.retreats:
        return f"{text}, dislodged, with nowhere to retreat"
    return f"{text}, dislodged, may retreat to {', '.join(_province(p) for p in unit.retreats)}"


def order_words(order: Order, power_names: Mapping[str, str] | None = None) -> str:
    """``A Par - Bur``: the order as players write it (the unit's power left out)."""
    if order.action == "WVE":
        return f"{power_name(order.unit.power, power_names or {})} waives"
    unit = unit_words(order.unit)
    target = _where(order.target, order.target_coast) if order.target else ""
    other = unit_words(order.other) if order.other is not None else ""
    match order.action:
        case "HLD":
            return f"{unit} H"
        case "MTO":
            return f"{unit} - {target}"
        case "CTO":
            via = f" via {', '.join(_province(p) for p in order.via)}" if order.via else ""
            return f"{unit} - {target}{via}"
        case "RTO":
            return f"{unit} R {target}"
        case "DSB":
            return f"{unit} disband"
        case "BLD":
            return f"build {unit}"
        case "REM":
            return f"remove {unit}"
        case "SUP":
            return f"{unit} S {other} - {target}" if order.target else f"{unit} S {other}"
        case "CVY":
            return f"{unit} C {other} - {target}"
    return f"{unit} {order.action}"


def result_words(order: Order, power_names: Mapping[str, str] | None = None,
                 destroyed: bool = False) -> str:
    """The order and its result: as given when it succeeded (or was not adjudicated),
    else in lower case after the unit's letter; then what happened (``A par - bur
    (bounce)``, ``A Ber H (dislodged)``); ``destroyed``: the unit was dislodged with
    nowhere to retreat."""
    text = order_words(order, power_names)
    codes: Sequence[str] = order.results
    ok = not codes or "SUC" in codes
    why: list[str] = []
    for code in codes:
        if code == "BNC" and order.action == "RTO":
            why.append("failed")
        elif code == "RET":
            why.append("destroyed" if destroyed else "dislodged")
        elif code != "SUC":
            why.append(_WHY.get(code, code.lower()))
    if not ok:
        text = text[:1] + text[1:].lower()
    return text + "".join(f" ({w})" for w in why)


def ending_words(text: str, power_names: Mapping[str, str] | None = None) -> str:
    """How a game ended, from its SLO or DRW text (docs/protocol.md §8.10): "France
    won alone", "a draw between France and Germany", "a draw between the powers
    left"; "" for any other text (the SMR summary, shown in DAIDE only)."""
    words = text.replace("(", " ").replace(")", " ").split()
    names = power_names or {}
    if words[:1] == ["SLO"] and len(words) >= 2:
        return f"{power_name(words[1], names)} won alone"
    if words[:1] == ["DRW"]:
        powers = [power_name(p, names) for p in words[1:]]
        if not powers:
            return "a draw between the powers left"
        listed = ", ".join(powers[:-1]) + " and " + powers[-1] if len(powers) > 1 else powers[0]
        return f"a draw between {listed}"
    return ""


__all__ = ["COASTS", "ending_words", "order_words", "power_name", "result_words", "unit_tooltip",
           "unit_words"]
