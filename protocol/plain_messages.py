"""SUB, NOW and SCO of the common shapes, read straight from their text form.

A server reads a SUB from every player every phase, and ``daide adjudicate``
reads a NOW, an SCO and the SUBs of every block.  Nearly all of them are
the plain shapes: upper-case mnemonics, plain numbers, brackets spaced
off (as every DAIDE text writer writes them), orders (hold, move,
support, convoy, move by convoy, retreat, disband, build, remove, waive),
units without MRT lists.  :func:`read_plain_message` reads exactly those
from the words of the text, one table lookup per word (the word's token,
:attr:`protocol.tokens.Representation.word_table`), with no tree in
between, and returns None for anything else - lower case, signs, strings,
brackets next to a word, MRT lists, any fault - which
:func:`protocol.parse.parse_message_text` then reads by the general road
(the tree and the grammar, which report faults exactly).  On the text it
accepts it returns what the general road returns
(``tests/test_protocol_fast_paths.py``).
"""

from __future__ import annotations

from typing import Final

from orders import (
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
    Waive,
)
from protocol.mapdef import CentreGroup
from protocol.messages import Message, Now, Sco, Sub
from protocol.orders import Turn, UnitPosition
from protocol.tokens import Representation

# Token values and categories (docs/protocol.md §6.2), as constants the
# compiled code folds in.
_BRA: Final = 0x4000
_KET: Final = 0x4001
_POWER: Final = 0x41
_UNIT_TYPE: Final = 0x42
_COAST: Final = 0x46
_PHASE: Final = 0x47
_PROVINCE_FIRST: Final = 0x50
_PROVINCE_LAST: Final = 0x57
#: any value no word has: a word missing from the table
_NONE: Final = -1


def read_plain_message(text: str, rep: Representation, client: bool) -> Message | None:
    """The SUB (sent by a client) or NOW / SCO (sent by the server) of
    ``text`` when it has one of the plain shapes; None otherwise."""
    words = _words(text)
    if not words:
        return None
    head = words[0]
    if client:
        if head == "SUB":
            sub = plain_sub(text, rep, words)
            return None if sub is None else Sub(tuple(sub[0]), sub[1])
        return None
    if head == "NOW":
        now = plain_now(text, rep, words)
        return None if now is None else Now(now[0], tuple(UnitPosition(u) for u in now[1]))
    if head == "SCO":
        sco = plain_sco(text, rep, words)
        return None if sco is None else Sco(tuple(CentreGroup(o, tuple(c)) for o, c in sco))
    return None


# The three readers below give the contents of the message without the
# message - what a caller that takes them apart at once (engine.phase_text)
# would read out of it.  ``words`` is the text's words if already split.


def plain_sub(text: str, rep: Representation,
              words: list[str] | None = None) -> tuple[list[Order], Turn | None] | None:
    """The orders and turn of ``SUB ( turn )? (order) ...``, or None."""
    words = _words(text) if words is None else words
    table = rep.word_table
    if not words or words[0] != "SUB" or table.get("SUB", _NONE) == _NONE \
            or not _names_unit_types(table):
        return None
    return _sub(words, table)


def plain_now(text: str, rep: Representation,
              words: list[str] | None = None) -> tuple[Turn, list[Unit]] | None:
    """The turn and units of ``NOW ( turn ) (unit) ...`` without MRT lists, or None."""
    words = _words(text) if words is None else words
    table = rep.word_table
    if not words or words[0] != "NOW" or table.get("NOW", _NONE) == _NONE \
            or not _names_unit_types(table):
        return None
    return _now(words, table)


def plain_sco(text: str, rep: Representation,
              words: list[str] | None = None) -> list[tuple[str, list[str]]] | None:
    """The ``(owner, centres)`` groups of ``SCO ( owner centre ... ) ...``, or None."""
    words = _words(text) if words is None else words
    table = rep.word_table
    if not words or words[0] != "SCO" or table.get("SCO", _NONE) == _NONE:
        return None
    return _sco(words, table)


def _words(text: str) -> list[str] | None:
    """The words between ASCII whitespace - exactly the separators of the
    text form once 0x1C-0x1F are ruled out (:func:`protocol.text.plain_words`)
    - or None for text with strings or other characters.  A bracket not
    spaced off sticks to a word, which then matches nothing below: the text
    takes the general road."""
    if "'" in text or not text.isascii() or "\x1c" in text or "\x1d" in text \
            or "\x1e" in text or "\x1f" in text:
        return None
    return text.split()


# Each reader below takes the words and the index where its element starts,
# and returns the value and the index after it - or None and -1.


def _category(word: str, table: dict[str, int]) -> int:
    """The category byte of a mnemonic, a number's value >> 8 (< 0x40), or -1."""
    value = table.get(word, _NONE)
    return value >> 8 if value >= 0 else _NONE


def _is_province(word: str, table: dict[str, int]) -> bool:
    cat = _category(word, table)
    return _PROVINCE_FIRST <= cat <= _PROVINCE_LAST


def _turn(words: list[str], i: int, table: dict[str, int]) -> tuple[Turn | None, int]:
    """``( season year )``."""
    if i + 3 >= len(words) or words[i] != "(" or words[i + 3] != ")":
        return None, -1
    season = words[i + 1]
    year = table.get(words[i + 2], _NONE)
    if _category(season, table) != _PHASE or not 0 <= year < _BRA:
        return None, -1
    return Turn(season, year), i + 4


def _location(words: list[str], i: int, table: dict[str, int]) -> tuple[Location | None, int]:
    """``province`` or ``( province coast )``."""
    if i >= len(words):
        return None, -1
    word = words[i]
    if word != "(":
        return (Location(word), i + 1) if _is_province(word, table) else (None, -1)
    if i + 3 >= len(words) or words[i + 3] != ")":
        return None, -1
    province = words[i + 1]
    coast = words[i + 2]
    if not _is_province(province, table) or _category(coast, table) != _COAST:
        return None, -1
    return Location(province, coast), i + 4


def _unit(words: list[str], i: int, table: dict[str, int]) -> tuple[Unit | None, int]:
    """``( power AMY province )`` or ``( power FLT location )``."""
    n = len(words)
    if i + 4 >= n or words[i] != "(":
        return None, -1
    power = words[i + 1]
    if _category(power, table) != _POWER:
        return None, -1
    # The unit types by name: the readers below run only for a table that
    # has AMY and FLT as unit types (_names_unit_types), the two there are.
    kind = words[i + 2]
    if kind == FLT:
        where, j = _location(words, i + 3, table)
    elif kind == AMY:
        province = words[i + 3]
        where, j = (Location(province), i + 4) if _is_province(province, table) else (None, -1)
    else:
        return None, -1
    if where is None or j >= n or words[j] != ")":
        return None, -1
    return Unit(power, FLT if kind == FLT else AMY, where), j + 1


def _names_unit_types(table: dict[str, int]) -> bool:
    """Whether AMY and FLT are the unit types (not a variant's provinces)."""
    return (table.get(AMY, _NONE) >> 8 == _UNIT_TYPE
            and table.get(FLT, _NONE) >> 8 == _UNIT_TYPE)


def _order(words: list[str], i: int, table: dict[str, int]) -> tuple[Order | None, int]:
    """``( (unit) HLD )``, ``MTO``, ``SUP``, ``CVY``, ``CTO ... VIA``, ``RTO``,
    ``DSB``, ``BLD``, ``REM``, or ``( power WVE )``."""
    n = len(words)
    if i + 1 >= n or words[i] != "(":
        return None, -1
    if words[i + 1] != "(":  # power WVE
        if (i + 3 < n and words[i + 2] == "WVE" and words[i + 3] == ")"
                and _category(words[i + 1], table) == _POWER):
            return Waive(words[i + 1]), i + 4
        return None, -1
    unit, j = _unit(words, i + 1, table)
    if unit is None or j >= n:
        return None, -1
    kind = words[j]
    j += 1
    order: Order
    if kind == "HLD":
        order = Hold(unit)
    elif kind == "MTO" or kind == "RTO":
        dest, j = _location(words, j, table)
        if dest is None:
            return None, -1
        order = Move(unit, dest) if kind == "MTO" else Retreat(unit, dest)
    elif kind == "SUP":
        supported, j = _unit(words, j, table)
        if supported is None:
            return None, -1
        if j < n and words[j] == "MTO":
            if j + 1 >= n or not _is_province(words[j + 1], table):
                return None, -1
            order = SupportMove(unit, supported, words[j + 1])
            j += 2
        else:
            order = SupportHold(unit, supported)
    elif kind == "CVY":
        army, j = _unit(words, j, table)
        if army is None or j + 1 >= n or words[j] != "CTO" or not _is_province(words[j + 1], table):
            return None, -1
        order = Convoy(unit, army, words[j + 1])
        j += 2
    elif kind == "CTO":
        # CTO province VIA ( sea sea ... ): at least one province in the group
        if (j + 3 >= n or not _is_province(words[j], table) or words[j + 1] != "VIA"
                or words[j + 2] != "("):
            return None, -1
        target = words[j]
        j += 3
        seas: list[str] = []
        while j < n and words[j] != ")":
            if not _is_province(words[j], table):
                return None, -1
            seas.append(words[j])
            j += 1
        if not seas or j >= n:
            return None, -1
        order = ConvoyMove(unit, target, tuple(seas))
        j += 1
    elif kind == "DSB":
        order = Disband(unit)
    elif kind == "BLD":
        order = Build(unit)
    elif kind == "REM":
        order = Remove(unit)
    else:
        return None, -1
    if j >= n or words[j] != ")":
        return None, -1
    return order, j + 1


def _sub(words: list[str], table: dict[str, int]) -> tuple[list[Order], Turn | None] | None:
    """``SUB ( turn )? (order) (order) ...``"""
    n = len(words)
    turn, i = _turn(words, 1, table)
    if turn is None:
        i = 1
    found: list[Order] = []
    while i < n:
        order, i = _order(words, i, table)
        if order is None:
            return None
        found.append(order)
    return (found, turn) if found else None


def _now(words: list[str], table: dict[str, int]) -> tuple[Turn, list[Unit]] | None:
    """``NOW ( turn ) (unit) (unit) ...`` without MRT lists."""
    n = len(words)
    turn, i = _turn(words, 1, table)
    if turn is None:
        return None
    units: list[Unit] = []
    while i < n:
        unit, i = _unit(words, i, table)
        if unit is None:
            return None
        units.append(unit)
    return turn, units


def _sco(words: list[str], table: dict[str, int]) -> list[tuple[str, list[str]]] | None:
    """``SCO ( owner centre ... ) ...``, the owner a power or UNO."""
    n = len(words)
    i = 1
    groups: list[tuple[str, list[str]]] = []
    while i < n:
        if words[i] != "(" or i + 1 >= n:
            return None
        owner = words[i + 1]
        if owner != "UNO" and _category(owner, table) != _POWER:
            return None
        if owner == "UNO" and table.get("UNO", _NONE) == _NONE:
            return None
        i += 2
        centres: list[str] = []
        while i < n and words[i] != ")":
            if not _is_province(words[i], table):
                return None
            centres.append(words[i])
            i += 1
        if i >= n:
            return None
        i += 1
        groups.append((owner, centres))
    return groups if groups else None


__all__ = ["plain_now", "plain_sco", "plain_sub", "read_plain_message"]
