"""The press-token table: which level introduces each press word, and its value.

This is the one place that knows, for press (docs/protocol.md §16),

* the **press levels** (:data:`PRESS_LEVELS`: 10, 20, ... 130 and 8000 for
  free text) and the level at which every press word becomes legal
  (:data:`TOKEN_LEVELS`, from the table of docs/protocol.md §16.3);
* the **TRY vocabulary**: the words a ``TRY (...)`` list may name
  (docs/protocol.md §16.5) and :func:`trim_try_tokens`, which drops the ones above a
  game's level, as the server must before delivering a TRY (16.1);
* the **numbering** of the five disputed press tokens (docs/protocol.md §6.7).
  The project's table (``tokens.tsv``) has FCT 0x4A06, FOR 0x4A07, FWD
  0x4A08, CCL 0x4A25, NAR 0x4A26.  Parlance-based bots (and Bylund's Java
  library) put FCT/FOR/FWD at 0x4A07/0x4A08/0x4A06; MILA
  (``diplomacy/diplomacy``) swaps CCL and NAR.  :class:`PressNumbering`
  names the three schemes, :func:`press_token_overrides` gives the
  value -> mnemonic pairs that differ from the table, and
  :func:`press_representation` applies them to a
  :class:`~protocol.tokens.Representation`, so that decoding a DM with
  :func:`protocol.tree.to_tree` and encoding with
  :func:`protocol.tree.from_tree` speak the other camp's numbering.  The
  server tells each connection's scheme from its press
  (:func:`detect_numbering`, :func:`numbering_hint`) unless an option fixes
  one; the grammar in :mod:`protocol.press_parse` works on mnemonics and
  never sees values.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from protocol.tokens import CAT_PRESS, Representation

#: Free-text press (docs/protocol.md §16.3, last row).
FREE_TEXT_LEVEL = 8000

#: The official press levels, lowest first (docs/protocol.md §16.3; 140-160 are
#: an unofficial text-only extension without token values, 16.4).
PRESS_LEVELS: tuple[int, ...] = (0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 8000)

#: The level at which AND/ORR may nest and repeat (docs/protocol.md §16.3: at 30
#: and 40 they may appear only once per message, not both, not nested).
NESTED_MULTIPART_LEVEL = 50

# The level that introduces each press word (docs/protocol.md §16.3 and 16.5).
# SND and FRM are level-10 *commands*; the entry here is their use inside
# press (an arrangement / a forwarded message, level 120), which is also the
# level at which a TRY list may name them.  HUH and TRY are level-10 words
# that a TRY list need not (but may) name.  UNT (any unit type, inside OCC)
# is not in the documents' TRY lists but is a level-40 press token; it is
# accepted there so that no bot is answered HUH for listing it.
_LEVEL_WORDS: tuple[tuple[int, str], ...] = (
    (10, "PRP CCL FCT TRY YES REJ BWX HUH PCE ALY VSS DRW SLO NOT NAR"),
    (20, "XDO DMZ"),
    (30, "AND ORR"),
    (40, "SCD OCC UNT"),
    (50, "CHO"),
    (60, "INS QRY THK IDK SUG"),
    (70, "WHT HOW"),
    (80, "EXP SRY"),
    (90, "FOR"),
    (100, "IFF THN ELS"),
    (110, "XOY YDO"),
    (120, "SND FWD BCC FRM"),
    (130, "WHY POB"),
)

#: Press word -> the level that introduces it.
TOKEN_LEVELS: Mapping[str, int] = MappingProxyType(
    {word: level for level, words in _LEVEL_WORDS for word in words.split()}
)

#: The words a TRY list may contain (docs/protocol.md §16.5).
TRY_VOCABULARY: frozenset[str] = frozenset(TOKEN_LEVELS)

#: Press tokens withdrawn in revision 14 (docs/protocol.md §6.7): never sent,
#: but old software may name them in a TRY list, which is accepted; they
#: belong to no level, so TRY trimming always drops them.
WITHDRAWN_PRESS: frozenset[str] = frozenset({"IOU", "PPT", "UOM"})


def token_level(word: str) -> int:
    """The level that introduces press word ``word`` (KeyError if not a press word)."""
    return TOKEN_LEVELS[word]


def trim_try_tokens(words: Iterable[str], level: int) -> tuple[str, ...]:
    """The words of a TRY list that are legal at ``level``, in their order.

    docs/protocol.md §16.1/16.5: the server removes every token above the game's
    level from a TRY list before delivering it (it may also reorder; this
    keeps the sender's order).
    """
    return tuple(w for w in words if w in TOKEN_LEVELS and TOKEN_LEVELS[w] <= level)


# --- numbering of the disputed tokens (docs/protocol.md §6.7) ---------------------


class PressNumbering(enum.Enum):
    """Which values the five disputed press tokens have on the wire.

    * ``DAIDE`` - the project's table (DN client, Rose DLL, Polarsoft, MILA
      for FCT/FOR/FWD; Parlance for CCL/NAR): FCT 0x4A06, FOR 0x4A07,
      FWD 0x4A08, CCL 0x4A25, NAR 0x4A26.  The default.
    * ``PARLANCE`` - Parlance-based bots (and Bylund's Java library):
      FCT 0x4A07, FOR 0x4A08, FWD 0x4A06; CCL/NAR as DAIDE.
    * ``MILA`` - ``diplomacy/diplomacy`` bots: FCT/FOR/FWD as DAIDE;
      CCL 0x4A26, NAR 0x4A25.
    """

    DAIDE = "daide"
    PARLANCE = "parlance"
    MILA = "mila"


_OVERRIDES: Mapping[PressNumbering, Mapping[str, int]] = MappingProxyType(
    {
        PressNumbering.DAIDE: MappingProxyType({}),
        PressNumbering.PARLANCE: MappingProxyType({"FCT": 0x4A07, "FOR": 0x4A08, "FWD": 0x4A06}),
        PressNumbering.MILA: MappingProxyType({"CCL": 0x4A26, "NAR": 0x4A25}),
    }
)


#: The values FCT, FOR and FWD take in one camp or the other (0x4A06-0x4A08):
#: a message holding none of them reads the same under both numberings.
DISPUTED_VALUES: frozenset[int] = frozenset({0x4A06, 0x4A07, 0x4A08})

#: The numberings a server can tell apart from a client's press: they differ
#: in FCT/FOR/FWD, whose grammars differ (``FCT (arrangement)``, ``FOR (turn)
#: (arrangement)``, ``FWD (powers) (power) (power)``), so a press message using
#: one of them nearly always parses under one numbering only.  MILA differs in
#: CCL/NAR, which take the same argument: no message tells it apart.
DETECTABLE: tuple[PressNumbering, ...] = (PressNumbering.DAIDE, PressNumbering.PARLANCE)

#: Words in a client's NME/OBS name or version that hint at Parlance numbering
#: (Parlance's own bots and the Parang bots built on it).
_PARLANCE_HINTS = ("parlance", "parang")


def mentions_disputed(tokens: Iterable[int]) -> bool:
    """Whether a message holds a value that FCT, FOR or FWD has in some numbering."""
    return not DISPUTED_VALUES.isdisjoint(tokens)


def numbering_hint(name: str, version: str) -> PressNumbering | None:
    """The numbering a client's name and version suggest, if any - a hint only:
    the client's press decides (`detect_numbering`)."""
    text = f"{name} {version}".lower()
    if any(word in text for word in _PARLANCE_HINTS):
        return PressNumbering.PARLANCE
    return None


def detect_numbering(parses: Mapping[PressNumbering, bool]) -> PressNumbering | None:
    """The numbering a message proves: the only one of `DETECTABLE` under which it
    parses (``parses`` says, per numbering); None when it parses under both or
    neither (it proves nothing)."""
    fits = [n for n in DETECTABLE if parses.get(n)]
    return fits[0] if len(fits) == 1 else None


def press_token_overrides(numbering: PressNumbering) -> dict[int, str]:
    """The ``value -> mnemonic`` pairs in which ``numbering`` differs from ``tokens.tsv``.

    Each scheme permutes values among the disputed tokens, so applying the
    pairs to a complete table keeps it complete and one-to-one.
    """
    return {value: word for word, value in _OVERRIDES[numbering].items()}


def press_representation(
    rep: Representation, numbering: PressNumbering = PressNumbering.DAIDE
) -> Representation:
    """``rep`` with the disputed press tokens renumbered as ``numbering`` says.

    Powers and provinces are untouched.  A variant map that reuses one of the
    five mnemonics for a province or power keeps its map meaning (the
    representation already shadows the language token, see
    :class:`~protocol.tokens.Representation`); only words that are press
    tokens in ``rep`` are moved.
    """
    overrides = press_token_overrides(numbering)
    if not overrides:
        return rep
    names = dict(rep.names)
    movable = {w for w in overrides.values() if rep.values.get(w, -1) >> 8 == CAT_PRESS}
    for word in movable:
        del names[rep.values[word]]
    for value, word in overrides.items():
        if word in movable:
            names[value] = word
    return Representation(
        entries=rep.entries,
        names=MappingProxyType(names),
        values=MappingProxyType({m: v for v, m in names.items()}),
    )


__all__ = [
    "DETECTABLE",
    "DISPUTED_VALUES",
    "FREE_TEXT_LEVEL",
    "NESTED_MULTIPART_LEVEL",
    "PRESS_LEVELS",
    "TOKEN_LEVELS",
    "TRY_VOCABULARY",
    "WITHDRAWN_PRESS",
    "PressNumbering",
    "detect_numbering",
    "mentions_disputed",
    "numbering_hint",
    "press_representation",
    "press_token_overrides",
    "token_level",
    "trim_try_tokens",
]
