"""Who gets which power at the start of a game: requests, preference lists, chance.

Pure: no I/O, no clock, no logging; every random choice is drawn from the
``random.Random`` the caller passes (the server passes a
``secrets.SystemRandom()``, the tests a seeded one), so the same wishes and
the same seed always give the same powers.

What a player may ask for (a `Wish`)
------------------------------------
The Diplomacy Player's Technical Guide, chapter I (docs/references.md, DPTG),
lets each player hand the gamemaster a secret *preference list*: the powers
ranked best first, with equally liked powers grouped; fewer than all of them,
or none; or, instead of a list, a request for a random power.  "To write
nothing is as to write a list of zero Powers", which is not a request for a
random power.  This module's wishes:

* `NoPreference` - nothing listed (a name without a suffix, or ``[]``);
* `RandomPower` - the Guide's "Random Power" (``[random]`` or ``[*]``);
* `Preferences` - a ranked list of groups of equal powers;
* `Requested` - one power asked for with the MILA convention ``'FRA:name'``
  (docs/protocol.md §8.1), as the server has always honoured it;
* `Invited` - ``[invite CODE]``: the seat of an invitation (the code in
  upper case, as `server.hosted` issues codes).  It is not a
  wish about powers: the caller resolves it to its seat and passes that
  power to `assign` as *taken*; `assign` refuses one.

How a DAIDE name carries one (`parse_name`)
-------------------------------------------
The name of an ``NME ('name') ('version')`` may end with a bracketed suffix,
after a space (or as the whole name)::

    alice [FRA ENG=GER ITA]     France first; then England or Germany, equally; then Italy
    bob [random]                a random power (``[*]`` too)
    carol []                    no list: the same as plain ``carol``
    dave [invite 7f3k2q]        the seat of an invitation

Ranks are separated by spaces, ``=`` joins equal powers (spaces around it
are allowed).  A power is written as the variant's mnemonic (``FRA``) or,
where the map gives them, its full English name (``France``, ``Ivory
Coast``), in any case.  The display name - what the game records and shows -
is the name without the suffix: nobody learns a list from a player's name
(the Guide: the GM "does not reveal preference lists, not even after he has
assigned the countries").  A ``FRA:`` request stays in the name, as it
always has: it was never secret (MILA's convention shows it), the names in
SMR stay what such clients have always seen, and the tournament runner finds
its games again by the seat names ``'FRA:DumbBot#T1.G3.1'`` it chose
(`tournament.store`).
A name with no complete suffix (``DumbBot[2]``, ``alice [FRA``) is just a
name.  A suffix that is malformed - an unknown power, a power listed twice,
an empty group (``[FRA =]``, ``[= GER]``, ``[FRA == GER]``), ``random`` with
powers, ``invite`` without exactly one code of 1 to 40 letters, digits and
``-``, or a suffix together with a ``FRA:`` prefix - is an `AssignmentError`
with a one-line message naming the problem (the server refuses such an NME
with REJ).

The rule (`assign`)
-------------------
Seats fixed in advance (a host's reservation, an invitation) are *taken*
and never given to anyone else; only the free powers are dealt:

1. ``FRA:`` requests first, in joining order: each gets its power if it is
   still free (this is how programs, the tournament runner among them, put
   a player on a given power, and it behaves exactly as before lists
   existed); one whose power is gone is treated as having no list.
2. The Guide's procedure for everyone else:
   a. to each player who asked for a random power, at once a random power
      from those still free;
   b. then the remaining lists one by one, in a random order of players:
      each player gets the best of their choices still free - a random one
      among the equally best;  a list whose powers are all gone gives
      nothing and is discarded;
   c. the powers left over go at random to the players left over (those
      with no list, with a discarded list, or with a ``FRA:`` request that
      could not be met).
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass


class AssignmentError(ValueError):
    """A malformed preference suffix, or wishes that cannot be served; one line."""


@dataclass(frozen=True, slots=True)
class NoPreference:
    """Nothing listed: the player takes what is left (rule 2c)."""


@dataclass(frozen=True, slots=True)
class RandomPower:
    """The Guide's request for a random power, served before every list (rule 2a)."""


@dataclass(frozen=True, slots=True)
class Requested:
    """One power asked for with the MILA ``'FRA:name'`` convention (rule 1)."""

    power: str


@dataclass(frozen=True, slots=True)
class Preferences:
    """A preference list: groups of equally liked powers, best group first (rule 2b)."""

    groups: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Invited:
    """``[invite CODE]``: the seat of an invitation, resolved by the caller."""

    code: str


Wish = NoPreference | RandomPower | Requested | Preferences | Invited

NO_PREFERENCE = NoPreference()
RANDOM_POWER = RandomPower()

#: What asks for a random power inside the brackets (case-insensitive).
_RANDOM_WORDS = frozenset({"random", "*"})
#: The first word of an invitation suffix (case-insensitive).
_INVITE_WORD = "invite"
#: An invitation's code (as `server.hosted` issues them), compared in upper case.
_INVITE_CODE = re.compile(r"[A-Za-z0-9-]{1,40}")
#: A list's tokens: ``=`` on its own, or a run of anything else but spaces.
_TOKEN = re.compile(r"=|[^\s=]+")


def parse_name(name: str, powers: Sequence[str],
               power_names: Mapping[str, str] | None = None) -> tuple[str, Wish]:
    """Split an NME name into the name to show and the wish it carries.

    ``powers`` are the variant's mnemonics; ``power_names`` (mnemonic -> full
    name, `maps.Map.power_names`) adds the full names as spellings.  Raises
    `AssignmentError` for a malformed suffix (see the module docstring).
    """
    shown, body = _split_suffix(name)
    prefix, colon, rest = shown.partition(":")
    requested = _mila_power(prefix, powers) if colon else None
    if requested is not None:
        if body is not None:
            raise AssignmentError(
                f"the name asks for a power twice: with '{prefix}:' and with a [...] suffix")
        return shown, Requested(requested)
    if body is None:
        return shown, NO_PREFERENCE
    return shown, _parse_body(body, powers, power_names or {})


def assign(powers: Sequence[str], wishes: Sequence[Wish], taken: Collection[str],
           rng: random.Random) -> list[str]:
    """The power of each wish (same order), by the rule of the module docstring.

    ``powers`` are the game's powers, ``wishes`` the players' in joining order,
    ``taken`` the powers already seated (reservations, invitations).  There
    may be fewer players than free powers (the rest stay free), never more.
    """
    known = set(powers)
    for power in taken:
        if power not in known:
            raise AssignmentError(f"{power} is not a power of this game")
    seated = set(taken)
    free = [p for p in powers if p not in seated]
    if len(wishes) > len(free):
        raise AssignmentError(f"{len(wishes)} players for {len(free)} free powers")
    got: list[str | None] = [None] * len(wishes)

    def award(index: int, power: str) -> None:
        got[index] = power
        free.remove(power)

    lists: list[tuple[int, Preferences]] = []
    chance: list[int] = []
    left_over: list[int] = []
    for index, wish in enumerate(wishes):       # rule 1, in joining order
        match wish:
            case Requested(power):
                if power not in known:
                    raise AssignmentError(f"{power} is not a power of this game")
                if power in free:
                    award(index, power)
                else:
                    left_over.append(index)
            case RandomPower():
                chance.append(index)
            case Preferences(groups):
                for group in groups:
                    for power in group:
                        if power not in known:
                            raise AssignmentError(f"{power} is not a power of this game")
                lists.append((index, wish))
            case NoPreference():
                left_over.append(index)
            case Invited():
                raise AssignmentError("an invitation is seated by its code, not dealt a power")
    for index in chance:                        # rule 2a
        award(index, rng.choice(free))
    rng.shuffle(lists)                          # rule 2b: a random order of players
    for index, wishes_of in lists:
        best = _best_available(wishes_of, free)
        if best:
            award(index, rng.choice(best))
        else:
            left_over.append(index)             # discarded
    left_over.sort()                            # joining order; the deal below is random
    rng.shuffle(free)                           # rule 2c
    for index, power in zip(left_over, free, strict=False):
        got[index] = power
    dealt = [p for p in got if p is not None]
    assert len(dealt) == len(wishes)            # no more players than free powers (checked)
    return dealt


def _best_available(wish: Preferences, free: Sequence[str]) -> list[str]:
    """The free powers of the best group that still has one ([] when none has)."""
    for group in wish.groups:
        available = [p for p in group if p in free]
        if available:
            return available
    return []


def _split_suffix(name: str) -> tuple[str, str | None]:
    """(the name before a ``[...]`` suffix, the text inside it) - or (name, None)."""
    stripped = name.rstrip()
    if not stripped.endswith("]"):
        return name, None
    start = stripped.rfind("[")
    if start < 0 or (start > 0 and not stripped[start - 1].isspace()):
        return name, None                       # 'DumbBot[2]' is a name, not a list
    return stripped[:start].rstrip(), stripped[start + 1:-1]


def _mila_power(prefix: str, powers: Sequence[str]) -> str | None:
    """The power a ``'PREFIX:name'`` asks for: the first whose mnemonic starts with PREFIX."""
    if not prefix:
        return None
    wanted = prefix.upper()
    return next((p for p in powers if p.startswith(wanted)), None)


def _parse_body(body: str, powers: Sequence[str], power_names: Mapping[str, str]) -> Wish:
    words = body.split()
    if not words:
        return NO_PREFERENCE
    if words[0].casefold() == _INVITE_WORD:
        if len(words) != 2 or not _INVITE_CODE.fullmatch(words[1]):
            raise AssignmentError("an invitation suffix is [invite CODE], with one code of "
                                  "1 to 40 letters, digits and '-'")
        return Invited(words[1].upper())
    tokens = _TOKEN.findall(body)
    if any(t.casefold() in _RANDOM_WORDS for t in tokens):
        if len(tokens) != 1:
            raise AssignmentError("'random' stands alone in the brackets, without powers")
        return RANDOM_POWER
    spellings = _spellings(powers, power_names)
    groups: list[list[str]] = []
    seen: set[str] = set()
    joining = False                             # the last token was '='
    i = 0
    while i < len(tokens):
        if tokens[i] == "=":
            if not groups or joining:
                raise AssignmentError("an empty group in the preference list ('=' without a "
                                      "power on each side)")
            joining = True
            i += 1
            continue
        power, i = _power_at(tokens, i, spellings, powers)
        if power in seen:
            raise AssignmentError(f"{power} is listed twice in the preference list")
        seen.add(power)
        if joining:
            groups[-1].append(power)
        else:
            groups.append([power])
        joining = False
    if joining:
        raise AssignmentError("an empty group in the preference list ('=' without a power "
                              "on each side)")
    return Preferences(tuple(tuple(g) for g in groups))


def _spellings(powers: Sequence[str], power_names: Mapping[str, str]) -> dict[str, str]:
    """Case-folded spelling -> mnemonic: every mnemonic, and every full name that
    is neither another power's mnemonic nor shared by two powers (it names neither)."""
    mnemonics = {p.casefold(): p for p in powers}
    named: dict[str, set[str]] = {}
    for power in powers:
        key = " ".join(power_names.get(power, "").split()).casefold()
        if key:
            named.setdefault(key, set()).add(power)
    spellings = {key: next(iter(owners)) for key, owners in named.items() if len(owners) == 1}
    spellings.update(mnemonics)
    return spellings


def _power_at(tokens: Sequence[str], i: int, spellings: Mapping[str, str],
              powers: Sequence[str]) -> tuple[str, int]:
    """The power written at ``tokens[i]`` (a full name may span words) and the next index."""
    longest = max(len(key.split()) for key in spellings)
    for width in range(min(longest, len(tokens) - i), 0, -1):
        words = tokens[i:i + width]
        if "=" in words:
            continue
        power = spellings.get(" ".join(words).casefold())
        if power is not None:
            return power, i + width
    raise AssignmentError(f"unknown power {_show(tokens[i])} in the preference list "
                          f"(this game's powers: {' '.join(powers)})")


def _show(text: str) -> str:
    """A peer's text quoted for a one-line message: escaped and at most 20 characters."""
    return repr(text if len(text) <= 20 else text[:20] + "...")


__all__ = ["NO_PREFERENCE", "RANDOM_POWER", "AssignmentError", "Invited", "NoPreference",
           "Preferences", "RandomPower", "Requested", "Wish", "assign", "parse_name"]
