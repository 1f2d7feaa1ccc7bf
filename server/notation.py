"""The usual English order notation, read into DAIDE orders.

People write orders as ``A Par - Bur``, ``F NTH C A LON - NWY``,
``A Ber S A Mun``, ``F Bre R Pic``, ``build A Par`` or ``waive``; the web
page sends such a line here (``POST /api/notation``) and submits the DAIDE
order it gets back.  This is notation only: whether the order is legal is
the server's THX note once it is submitted (docs/protocol.md §9.3), never
decided here.

A province may be named by its DAIDE mnemonic, its name in the map file, or
a synonym of ``maps/data/synonyms.tsv`` (``Lpl``, ``St Petersburg``,
``Nwg``...); case, dots and extra spaces do not matter.  A coast follows the
province as ``/nc``, ``(nc)``, `` nc`` or ``north coast``.  The unit type
may be left out when the position has a unit there; the power of a unit
named in a support or convoy is the power of the unit standing there (the
player's own power otherwise), as the DAIDE order needs it (§9.1).

What the phase is matters for three words only, so the caller passes the
season: ``-`` is a retreat (RTO) in a retreat phase, ``D``/``disband`` is
DSB in a retreat phase and REM in an adjustment phase.

People also write ``A Par moves to Bur`` and type an en-dash, an em-dash or
an arrow for the move; all of them read as ``-``.  In French
(``Context.lang == "fr"``, standard map) the provinces are those of the
French Descartes map (`server.french`: ``A Par - Bou``, ``F Man S A Lon -
Bel``), French abbreviations winning over international ones where they
collide (``MAR`` is Maroc-et-Algérie there).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import maps
from engine.variants import variant_map
from maps.model import Map
from server.french import FRENCH, FRENCH_WORDS

SYNONYMS = Path(maps.__file__).resolve().parent / "data" / "synonyms.tsv"

#: Coast words -> DAIDE coast tokens (§6.2, coast category).
COASTS = {
    "nc": "NCS", "north": "NCS", "ncs": "NCS", "n": "NCS",
    "sc": "SCS", "south": "SCS", "scs": "SCS", "s": "SCS",
    "ec": "ECS", "east": "ECS", "ecs": "ECS", "e": "ECS",
    "wc": "WCS", "west": "WCS", "wcs": "WCS", "w": "WCS",
    "nec": "NEC", "northeast": "NEC", "ne": "NEC",
    "nwc": "NWC", "northwest": "NWC", "nw": "NWC",
    "sec": "SEC", "southeast": "SEC", "se": "SEC",
    "swc": "SWC", "southwest": "SWC", "sw": "SWC",
}
#: Coasts that may follow a province without a slash ("Spa nc", "StP south coast").
BARE_COASTS = frozenset(["nc", "sc", "ec", "wc", "ncs", "scs", "ecs", "wcs"])
UNIT_WORDS = {"a": "AMY", "army": "AMY", "amy": "AMY", "f": "FLT", "fleet": "FLT", "flt": "FLT"}
MOVE_WORDS = {"-", "->", "to", "m", "move", "moves", "mto", "=>", ">", "attacks"}
HOLD_WORDS = {"h", "hold", "holds", "hld", "stand", "stands"}
SUPPORT_WORDS = {"s", "support", "supports", "sup"}
CONVOY_WORDS = {"c", "convoy", "convoys", "cvy"}
RETREAT_WORDS = {"r", "retreat", "retreats", "rto"}
DISBAND_WORDS = {"d", "disband", "disbands", "dsb"}
BUILD_WORDS = {"b", "build", "builds", "bld"}
REMOVE_WORDS = {"remove", "removes", "rem"}
WAIVE_WORDS = {"waive", "waives", "wve", "waived"}
VIA_WORDS = {"via", "by"}


class NotationError(ValueError):
    """A line that is not an order in the notation; the message says where."""


@dataclass(frozen=True)
class UnitAt:
    """A unit of the position: its power, type and coast."""

    power: str
    kind: str            # AMY / FLT
    coast: str | None = None


@dataclass(frozen=True)
class Context:
    """What reading needs besides the text: the map, the player, the phase, the units."""

    map: Map
    power: str
    season: str = "SPR"                     # SPR SUM FAL AUT WIN
    units: Mapping[str, UnitAt] | None = None   # province -> unit
    lang: str = "en"                        # en / fr: the province names read


@cache
def province_names(the_map: Map, lang: str = "en") -> dict[str, str]:
    """Normalised name -> province mnemonic: mnemonics, map names, synonyms
    (in French on the standard map: the Descartes map's names first)."""
    names: dict[str, str] = {}
    if lang == "fr" and the_map.name.lower() == "standard":
        for mnemonic, (abbreviation, name) in FRENCH.items():
            names[abbreviation.lower()] = mnemonic
            names.setdefault(_norm(name), mnemonic)
            names.setdefault(_norm(_plain(name)), mnemonic)
        for key, mnemonic in list(names.items()):
            for article in ("royaume de ", "royaume du ", "royaume d "):
                if key.startswith(article):
                    names.setdefault(key[len(article):], mnemonic)
        for province in the_map.provinces:
            names.setdefault(province.mnemonic.lower(), province.mnemonic)
        return names
    for province in the_map.provinces:
        names[_norm(province.name)] = province.mnemonic
    standard = variant_map("standard") if the_map.name.lower() != "standard" else the_map
    standard_names = {p.mnemonic: p.name for p in standard.provinces}
    ours = {p.mnemonic: p.name for p in the_map.provinces}
    for line in SYNONYMS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        variant, mnemonic, synonym = line.split("\t")
        # A standard synonym holds on every map that has the same province.
        if variant == the_map.name.lower() or (
                variant == "standard" and mnemonic in ours
                and ours[mnemonic] == standard_names.get(mnemonic)):
            names.setdefault(_norm(synonym), mnemonic)
    for province in the_map.provinces:       # the mnemonics win over everything
        names[province.mnemonic.lower()] = province.mnemonic
    return names


def _plain(text: str) -> str:
    """Without accents: ``Bohème`` -> ``Boheme`` (French typed on any keyboard)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[.'`]", "", text.lower()).replace("-", " ").split())


_TOKEN = re.compile(r"->|=>|[()/,\-]|[^\s()/,\-]+")


#: Dashes and arrows people type for a move.
DASHES = re.compile("[\u2010-\u2015\u2212\u2192\u27f6]")


def _words(text: str, names: Mapping[str, str]) -> list[str]:
    lowered = re.sub(r"[.'`]", "", DASHES.sub("-", text.lower()))
    # Hyphenated names ("mid-atlantic") before '-' becomes the move word.
    for name in sorted((n for n in names if " " in n), key=len, reverse=True):
        hyphenated = name.replace(" ", "-")
        if hyphenated in lowered:
            lowered = lowered.replace(hyphenated, name)
    return _TOKEN.findall(lowered)


class _NotationReader:
    def __init__(self, text: str, ctx: Context) -> None:
        self.ctx = ctx
        self.names = province_names(ctx.map, ctx.lang)
        words = [w for w in _words(text, self.names) if w != ","]
        if ctx.lang == "fr":
            words = [FRENCH_WORDS.get(w, FRENCH_WORDS.get(_plain(w), w))
                     if w not in self.names else w for w in words]
        self.words = words
        self.pos = 0
        self.text = text

    def peek(self, ahead: int = 0) -> str | None:
        i = self.pos + ahead
        return self.words[i] if i < len(self.words) else None

    def take(self) -> str:
        word = self.peek()
        if word is None:
            raise NotationError(f"{self.text!r}: the order stops too early")
        self.pos += 1
        return word

    def done(self) -> bool:
        return self.pos >= len(self.words)

    def province(self) -> str:
        """The longest run of words that names a province."""
        best = None
        for length in range(min(5, len(self.words) - self.pos), 0, -1):
            phrase = " ".join(self.words[self.pos:self.pos + length])
            if phrase in self.names:
                best = (length, self.names[phrase])
                break
        if best is None:
            word = self.peek()
            raise NotationError(f"{self.text!r}: {word!r} is not a province of "
                                f"{self.ctx.map.name}" if word else
                                f"{self.text!r}: a province is missing")
        self.pos += best[0]
        return best[1]

    def coast(self) -> str | None:
        word = self.peek()
        if word in ("/", "("):
            self.pos += 1
            coast = self.take()
            if self.peek() == ")":
                self.pos += 1
        elif word in BARE_COASTS or (word in COASTS and len(word) > 2
                                     and self.peek(1) == "coast"):
            coast = self.take()
        elif word == "coast" and self.peek(1) in COASTS:     # French: "côte nord"
            self.pos += 1
            coast = self.take()
        else:
            return None
        if self.peek() in ("coast", "cs"):
            self.pos += 1
        if coast not in COASTS:
            raise NotationError(f"{self.text!r}: {coast!r} is not a coast")
        return COASTS[coast]

    def location(self) -> tuple[str, str | None]:
        return self.province(), self.coast()

    def unit(self, own: bool) -> tuple[str, str, str, str | None]:
        """(power, type, province, coast) of a unit named here."""
        kind = UNIT_WORDS.get(self.peek() or "")
        if kind is not None:
            self.pos += 1
        province, coast = self.location()
        present = (self.ctx.units or {}).get(province)
        if kind is None:
            if present is None:
                raise NotationError(f"{self.text!r}: say A or F - no unit stands in {province}")
            kind = present.kind
        power = self.ctx.power
        if not own and present is not None:
            power = present.power
        if coast is None and present is not None and present.kind == kind == "FLT":
            coast = present.coast
        return power, kind, province, coast


def _loc(province: str, coast: str | None) -> str:
    return f"( {province} {coast} )" if coast else province


def _unit(unit: tuple[str, str, str, str | None]) -> str:
    power, kind, province, coast = unit
    return f"( {power} {kind} {_loc(province, coast)} )"


def parse_order(text: str, ctx: Context) -> str:
    """The DAIDE text of one order written in English notation (NotationError if it is not one)."""
    r = _NotationReader(text, ctx)
    if not r.words:
        raise NotationError("an empty order")
    first = r.peek()
    retreat = ctx.season in ("SUM", "AUT")
    adjust = ctx.season == "WIN"
    if first in WAIVE_WORDS and len(r.words) == 1:
        return f"( {ctx.power} WVE )"
    if first in BUILD_WORDS | REMOVE_WORDS | DISBAND_WORDS and len(r.words) > 1:
        r.pos += 1
        named = _unit(r.unit(own=True)) if first not in BUILD_WORDS \
            else _unit(_build_unit(r, ctx))
        _end(r)
        if first in BUILD_WORDS:
            return f"( {named} BLD )"
        if first in REMOVE_WORDS or adjust:
            return f"( {named} REM )"
        return f"( {named} DSB )"
    subject = _unit(r.unit(own=True))
    verb = r.take() if not r.done() else "h"
    if verb in HOLD_WORDS:
        order = f"( {subject} HLD )"
    elif verb in BUILD_WORDS:
        order = f"( {subject} BLD )"
    elif verb in REMOVE_WORDS:
        order = f"( {subject} REM )"
    elif verb in DISBAND_WORDS:
        order = f"( {subject} {'REM' if adjust else 'DSB'} )"
    elif verb in RETREAT_WORDS or (verb in MOVE_WORDS and retreat):
        if r.peek() == "to":                      # "retreats to"
            r.pos += 1
        order = f"( {subject} RTO {_loc(*r.location())} )"
    elif verb in MOVE_WORDS:
        if verb != "to" and r.peek() == "to":     # "moves to"
            r.pos += 1
        target = _loc(*r.location())
        if r.peek() in VIA_WORDS:
            r.pos += 1
            path = [r.province()]
            while not r.done():
                if r.peek() in MOVE_WORDS:
                    r.pos += 1
                path.append(r.province())
            order = f"( {subject} CTO {target} VIA ( {' '.join(path)} ) )"
        else:
            order = f"( {subject} MTO {target} )"
    elif verb in SUPPORT_WORDS:
        helped = _unit(r.unit(own=False))
        if r.peek() in MOVE_WORDS:
            r.pos += 1
            target = r.province()
            r.coast()              # a supported move names the province only (§9.1)
            order = f"( {subject} SUP {helped} MTO {target} )"
        else:
            if r.peek() in HOLD_WORDS:
                r.pos += 1
            order = f"( {subject} SUP {helped} )"
    elif verb in CONVOY_WORDS:
        carried = _unit(r.unit(own=False))
        if r.take() not in MOVE_WORDS:
            raise NotationError(f"{text!r}: a convoy reads 'F Nth C A Lon - Nwy'")
        order = f"( {subject} CVY {carried} CTO {r.province()} )"
    else:
        raise NotationError(f"{text!r}: {verb!r} is not an order word "
                            "(- S C H R D build remove waive)")
    _end(r)
    return order


def _build_unit(r: _NotationReader, ctx: Context) -> tuple[str, str, str, str | None]:
    kind = UNIT_WORDS.get(r.peek() or "")
    if kind is None:
        raise NotationError(f"{r.text!r}: build A or F, e.g. 'build A Par'")
    r.pos += 1
    province, coast = r.location()
    return ctx.power, kind, province, coast


def _end(r: _NotationReader) -> None:
    if not r.done():
        raise NotationError(f"{r.text!r}: unexpected {' '.join(r.words[r.pos:])!r} at the end")


def units_of_now(now_text: str) -> dict[str, UnitAt]:
    """Province -> unit from the text of a NOW message (``( FRA FLT ( STP SCS ) )``...)."""
    units: dict[str, UnitAt] = {}
    pattern = r"\(\s*(\w{3})\s+(AMY|FLT)\s+(\(\s*\w{3}\s+\w{3}\s*\)|\w{3})\s*(MRT)?"
    for power, kind, where, retreating in re.findall(pattern, now_text):
        parts = where.strip("() ").split()
        unit = UnitAt(power, kind, parts[1] if len(parts) > 1 else None)
        # A dislodged unit shares its province with the winner: it is the one to order.
        if retreating or parts[0] not in units:
            units[parts[0]] = unit
    return units
