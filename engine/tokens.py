"""A map's token representation: derived, and checked against the map.

docs/protocol.md §4.2 and 6.5: every power and province of a map is a token; the
RM lists them all (or is empty for the standard tokens); a province token's
category byte says what the province is (bit 0 supply centre, bits 1-2
inland / sea / coastal / bicoastal) and must agree with the MDF.  The
variant archive's ``.REM`` files break that rule in places (islands written
as sea centres, ``0x53``, where the MDF makes them coastal, ``0x55``);
:func:`representation_faults` finds such faults, so a loader reports them
instead of sending a client an RM that contradicts the MDF.
"""

from __future__ import annotations

from maps.model import Map, ProvinceKind
from protocol.tokens import (
    BRA,
    CAT_POWER,
    KET,
    STANDARD,
    TOKEN_INFO,
    ProvinceCategory,
    Representation,
    is_province,
    province_category,
)

_KIND = {
    ProvinceKind.INLAND: ProvinceCategory.INLAND,
    ProvinceKind.SEA: ProvinceCategory.SEA,
    ProvinceKind.COASTAL: ProvinceCategory.COASTAL,
    ProvinceKind.BICOASTAL: ProvinceCategory.BICOASTAL,
}

#: Mnemonics of the language tokens (orders, coasts, press...), BRA and KET included.
_LANGUAGE = frozenset(
    info.mnemonic for value, info in TOKEN_INFO.items()
    if value >> 8 != CAT_POWER and not is_province(value)
) | {TOKEN_INFO[BRA].mnemonic, TOKEN_INFO[KET].mnemonic}


def category_of(m: Map, province: str) -> int:
    """The category byte the province's token must have (docs/protocol.md §6.5)."""
    p = m.province(province)
    return province_category(_KIND[p.kind], p.supply_centre)


def derived_representation(m: Map) -> Representation:
    """A representation for a map that came without one.

    The standard tokens when they fit (every power a standard power, every
    province a standard province of the right category: the standard board
    and its variants); otherwise the variant numbering of
    :meth:`Representation.for_variant` (powers in MDF order, provinces by
    category then mnemonic, indices 0..N-1).
    """
    if not representation_faults(m, STANDARD):
        return STANDARD
    return Representation.for_variant(
        m.powers, [(p.mnemonic, _KIND[p.kind], p.supply_centre) for p in m.provinces]
    )


def representation_faults(m: Map, rep: Representation) -> tuple[str, ...]:
    """Where ``rep`` and the map disagree, one short sentence each (empty: none).

    A full representation must list exactly the map's powers (in MDF order)
    and provinces (4.2); the standard one must know each of them.  Every
    province token's category must match the province (6.5).
    """
    faults: list[str] = []
    powers = rep.powers()
    provinces = set(rep.provinces())
    on_map = {p.mnemonic for p in m.provinces}
    if rep.is_standard:
        unknown = [p for p in m.powers if p not in powers]
        if unknown:
            faults.append(f"powers {' '.join(unknown)} are not standard tokens")
        missing = sorted(on_map - provinces)
        if missing:
            faults.append(f"provinces {' '.join(missing)} are not standard tokens")
    else:
        if powers != m.powers:
            faults.append(f"powers are {' '.join(powers)}, the MDF has {' '.join(m.powers)}")
        extra = sorted(provinces - on_map)
        if extra:
            faults.append(f"provinces {' '.join(extra)} are not on the map")
        missing = sorted(on_map - provinces)
        if missing:
            faults.append(f"provinces {' '.join(missing)} have no token")
    wrong = []
    for p in m.provinces:
        value = rep.values.get(p.mnemonic)
        if value is not None and is_province(value) and value >> 8 != category_of(m, p.mnemonic):
            wrong.append(f"{p.mnemonic} 0x{value:04X}")
    if wrong:
        faults.append(f"category byte contradicts the map for {', '.join(wrong)}")
    return tuple(faults)


def language_shadows(rep: Representation) -> tuple[str, ...]:
    """Power and province mnemonics that are also language tokens (``NAR``...).

    docs/protocol.md §11 forbids them; :class:`Representation` lets the map's name
    win, which is harmless on the wire (the token values differ) but makes
    the text form ambiguous.  Reported, not fatal.
    """
    return tuple(m for _, m in rep.entries if m in _LANGUAGE)


__all__ = ["category_of", "derived_representation", "language_shadows", "representation_faults"]
