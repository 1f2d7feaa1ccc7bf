"""DAIDE tokens: the token table, integers, text, provinces and representations.

A token is a 16-bit unsigned int: high byte = category, low byte = index
(docs/protocol.md §6.1).  This module owns

* the fixed token table, loaded from ``protocol/data/tokens.tsv`` (a copy of
  the project's reference table: every category and value, the disputed
  press values resolved as docs/protocol.md §6.7 decides);
* the 14-bit signed integers (6.3), the text tokens (6.4) and the province
  categories (6.5);
* :class:`Representation`: which power and province tokens exist and what
  their mnemonics are.  :data:`STANDARD` is the standard map (an empty RM);
  a non-empty RM replaces *all* power and province tokens (4.2), which is how
  variant maps work.

Token values are plain ints everywhere (speed, and they are what the wire
carries); mnemonics are upper-case ``str``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Final

from protocol.errors import EncodeError, RepresentationError

# --- categories (docs/protocol.md §6.2) -----------------------------------------
# Final: compiled code (mypyc) uses the values as constants - a plain module
# global is looked up in the module's dict at every use (per token, in the readers).

CAT_BRACKET: Final = 0x40
CAT_POWER: Final = 0x41
CAT_UNIT_TYPE: Final = 0x42
CAT_ORDER: Final = 0x43
CAT_ORDER_NOTE: Final = 0x44
CAT_RESULT: Final = 0x45
CAT_COAST: Final = 0x46
CAT_PHASE: Final = 0x47
CAT_COMMAND: Final = 0x48
CAT_PARAMETER: Final = 0x49
CAT_PRESS: Final = 0x4A
CAT_TEXT: Final = 0x4B
CAT_PROVINCE_FIRST: Final = 0x50
CAT_PROVINCE_LAST: Final = 0x57
CAT_PRIVATE_FIRST: Final = 0x58
CAT_PRIVATE_LAST: Final = 0x5F

BRA: Final = 0x4000
KET: Final = 0x4001
ERR: Final = 0x4902
TEXT_BASE: Final = CAT_TEXT << 8

INT_MIN: Final = -8192
INT_MAX: Final = 8191


def category(token: int) -> int:
    """The category (high byte) of a token."""
    return token >> 8


def encode_int(n: int) -> int:
    """The token of the integer ``n`` (14-bit two's complement, docs/protocol.md §6.3)."""
    if not INT_MIN <= n <= INT_MAX or isinstance(n, bool):
        raise EncodeError(f"integer {n!r} outside the DAIDE range {INT_MIN}..{INT_MAX}")
    return n & 0x3FFF


def decode_int(token: int) -> int:
    """The value of an integer token: bit 13 is the sign bit."""
    v = token & 0x3FFF
    return v - 0x4000 if v & 0x2000 else v


def text_to_tokens(s: str) -> tuple[int, ...]:
    """Encode a string as text tokens, one byte each.

    Characters are encoded as UTF-8 (docs/protocol.md §6.4: ASCII is one byte;
    Parlance sends non-ASCII as UTF-8 bytes).  The ``surrogateescape`` error
    handler makes :func:`tokens_to_text` / :func:`text_to_tokens` an exact
    round trip for *any* received bytes, so a YES/REJ echo is byte-exact.
    """
    try:
        data = s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise EncodeError(f"string {s!r} cannot be encoded as text tokens") from exc
    return tuple(TEXT_BASE | b for b in data)


def tokens_to_text(tokens: Iterable[int]) -> str:
    """Decode text tokens to a string (UTF-8, undecodable bytes escaped)."""
    return bytes(t & 0xFF for t in tokens).decode("utf-8", "surrogateescape")


# --- provinces (docs/protocol.md §6.5) -------------------------------------------


class ProvinceCategory(enum.IntEnum):
    """Province type, bits 1-2 of the province category."""

    INLAND = 0
    SEA = 1
    COASTAL = 2
    BICOASTAL = 3


def is_province(token: int) -> bool:
    """Province tokens: categories 0x50-0x57."""
    return CAT_PROVINCE_FIRST <= token >> 8 <= CAT_PROVINCE_LAST


def province_category(kind: ProvinceCategory, supply_centre: bool) -> int:
    """The category byte of a province of this kind (bit 0 = supply centre)."""
    return CAT_PROVINCE_FIRST | (int(kind) << 1) | int(supply_centre)


def province_kind(token: int) -> ProvinceCategory:
    """The kind of a province token."""
    if not is_province(token):
        raise ValueError(f"0x{token:04X} is not a province token")
    return ProvinceCategory((token >> 9) & 0b11)


def is_supply_centre(token: int) -> bool:
    """Whether a province token is a supply centre (bit 0 of its category)."""
    if not is_province(token):
        raise ValueError(f"0x{token:04X} is not a province token")
    return bool((token >> 8) & 1)


# --- the fixed token table --------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """One row of ``tokens.tsv``: a named token."""

    value: int
    mnemonic: str
    category: str
    meaning: str


def _load_table() -> tuple[TokenInfo, ...]:
    # Found through the package, not this module's __file__: compiled, the
    # module lives in the build directory, away from the data.
    text = resources.files("protocol").joinpath("data", "tokens.tsv").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines()[1:]:
        if not line.strip():
            continue
        cat, hexval, mnemonic, meaning = line.split("\t", 3)
        if "-" in hexval:  # the Integer and Text ranges: no mnemonics
            continue
        rows.append(TokenInfo(int(hexval, 16), mnemonic, cat, meaning))
    return tuple(rows)


#: Every named token of the reference table (powers and provinces included).
TOKEN_TABLE: tuple[TokenInfo, ...] = _load_table()

#: Value -> info for every named token.
TOKEN_INFO: Mapping[int, TokenInfo] = MappingProxyType({t.value: t for t in TOKEN_TABLE})


def _is_map_token(value: int) -> bool:
    return value >> 8 == CAT_POWER or is_province(value)


# The language tokens: everything named except powers and provinces, which a
# representation supplies.  BRA/KET are kept out: they are written "(" ")".
_FIXED_NAMES: dict[int, str] = {
    t.value: t.mnemonic
    for t in TOKEN_TABLE
    if not _is_map_token(t.value) and t.value not in (BRA, KET)
}


class _LookupTables:
    """The private lookup tables of a :class:`Representation`, built on first use.

    A separate mutable holder rather than ``functools.cached_property`` on
    the frozen representation: compiled with mypyc, a cached property is a
    plain property and would rebuild its table on every access."""

    __slots__ = ("decode", "encode", "words", "nodes", "token_words", "categories")

    def __init__(self) -> None:
        self.decode: dict[int, str] | None = None
        self.encode: dict[str, int] | None = None
        self.words: dict[str, int] | None = None
        self.nodes: dict[str, str | int] | None = None
        self.token_words: dict[int, str] | None = None
        self.categories: dict[str, int] | None = None


@dataclass(frozen=True, eq=False)
class Representation:
    """Power and province tokens <-> mnemonics, plus the fixed language tokens.

    Build one with :meth:`from_entries` (an RM body's ``(value, mnemonic)``
    list), :meth:`for_variant` (from powers and provinces) or
    :meth:`from_rem` (a ``.REM`` file); :data:`STANDARD` is the standard map.

    ``names`` maps every known token value to its mnemonic and ``values`` the
    other way; both are complete dicts so that the hot paths of
    :mod:`protocol.tree` do one lookup per token.  Variant files reuse a few
    language mnemonics for provinces or powers (``BRA`` Brazil, ``NEC``,
    ``SEC``, ``NAR`` in americas4, SAILHO...); docs/protocol.md §11 forbids it, but to
    play those maps the map's name wins: the shadowed language token has no
    mnemonic in that representation (received, it is an unknown token).
    """

    entries: tuple[tuple[int, str], ...]
    names: Mapping[int, str] = field(repr=False)
    values: Mapping[str, int] = field(repr=False)
    #: the lookup tables derived from ``names``, each built when first used
    _tables: _LookupTables = field(default_factory=_LookupTables, init=False, repr=False)

    @classmethod
    def from_entries(cls, entries: Iterable[tuple[int, str]]) -> Representation:
        """A representation from ``(value, mnemonic)`` pairs (an RM body).

        Checks docs/protocol.md §4.2: powers (0x41xx) and provinces (0x50xx-0x57xx)
        only, each value and mnemonic once, mnemonics three characters A-Z/0-9
        (upper-cased: variant files use mixed case), power low bytes 0..P-1
        and province low bytes 0..N-1.
        """
        ordered = sorted((v, m.upper()) for v, m in entries)
        names: dict[int, str] = {}
        values: dict[str, int] = {}
        powers: list[int] = []
        provinces: list[int] = []
        for value, mnemonic in ordered:
            if value >> 8 == CAT_POWER:
                powers.append(value & 0xFF)
            elif is_province(value):
                provinces.append(value & 0xFF)
            else:
                raise RepresentationError(
                    f"0x{value:04X} ({mnemonic}) is neither a power nor a province token"
                )
            if len(mnemonic) != 3 or not mnemonic.isascii() or not mnemonic.isalnum():
                raise RepresentationError(f"invalid mnemonic {mnemonic!r} for 0x{value:04X}")
            if value in names:
                raise RepresentationError(f"token 0x{value:04X} defined twice")
            if mnemonic in values:
                raise RepresentationError(f"mnemonic {mnemonic} defined twice")
            names[value] = mnemonic
            values[mnemonic] = value
        if sorted(powers) != list(range(len(powers))):
            raise RepresentationError("power indices must be 0..P-1")
        if sorted(provinces) != list(range(len(provinces))):
            raise RepresentationError("province indices must be 0..N-1, unique across categories")
        all_names = {v: m for v, m in _FIXED_NAMES.items() if m not in values}
        all_names.update(names)
        return cls(
            entries=tuple(ordered),
            names=MappingProxyType(all_names),
            values=MappingProxyType({m: v for v, m in all_names.items()}),
        )

    @classmethod
    def for_variant(
        cls,
        powers: Sequence[str],
        provinces: Sequence[tuple[str, ProvinceCategory, bool]],
    ) -> Representation:
        """Assign token values to a variant's powers and provinces.

        ``provinces`` holds ``(mnemonic, kind, supply_centre)``.  Powers are
        numbered in the given order; provinces are indexed 0..N-1 sorted by
        category, then mnemonic - the scheme of the standard map, so the
        standard powers and provinces get exactly their standard values.
        """
        entries = [(CAT_POWER << 8 | i, p.upper()) for i, p in enumerate(powers)]
        keyed = sorted((province_category(k, sc), m.upper()) for m, k, sc in provinces)
        entries += [(cat << 8 | i, m) for i, (cat, m) in enumerate(keyed)]
        return cls.from_entries(entries)

    @classmethod
    def from_rem(cls, text: str) -> Representation:
        """Read a ``.REM`` file: ``0`` (standard), or a count then ``HEX:Name`` lines."""
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if not lines:
            raise RepresentationError("empty representation file")
        try:
            count = int(lines[0])
        except ValueError:
            raise RepresentationError(f"first line must be a count, got {lines[0]!r}") from None
        if count == 0:
            return STANDARD
        entries = []
        for ln in lines[1:]:
            hexval, sep, name = ln.partition(":")
            try:
                entries.append((int(hexval, 16), name.strip()))
            except ValueError:
                raise RepresentationError(f"bad representation line {ln!r}") from None
            if not sep:
                raise RepresentationError(f"bad representation line {ln!r}")
        if len(entries) != count:
            raise RepresentationError(f"count says {count} entries, file has {len(entries)}")
        return cls.from_entries(entries)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Representation):
            return NotImplemented
        return self is other or (self.entries == other.entries and self.names == other.names)

    def __hash__(self) -> int:
        return hash(self.entries)

    def __repr__(self) -> str:
        kind = "standard" if self.is_standard else "variant"
        return f"<Representation {kind}: {len(self.powers())} powers, {len(self.provinces())} provinces>"

    @property
    def decode_table(self) -> dict[int, str]:
        """Private plain-dict copy of ``names`` for the decoder's hot loop (do not mutate)."""
        tables = self._tables
        if tables.decode is None:
            tables.decode = dict(self.names)
        return tables.decode

    @property
    def encode_table(self) -> dict[str, int]:
        """Private plain-dict copy of ``values`` for the encoder's hot loop (do not mutate)."""
        tables = self._tables
        if tables.encode is None:
            tables.encode = dict(self.values)
        return tables.encode

    @property
    def word_table(self) -> dict[str, int]:
        """Private: word -> token for the common case of the text form
        (:func:`protocol.text.parse_text`): the mnemonics, both brackets and
        the integers 0..8191 in plain decimal (a number wins over a mnemonic
        made of digits, as in the general reader).  Do not mutate."""
        tables = self._tables
        if tables.words is None:
            table = dict(self.values)
            table.update((str(n), n) for n in range(8192))
            table["("] = BRA
            table[")"] = KET
            tables.words = table
        return tables.words

    @property
    def word_nodes(self) -> dict[str, str | int]:
        """Private: the words of :attr:`word_table` -> their tree node
        (:func:`protocol.text.plain_tree`): a mnemonic is itself, a number
        its int, a bracket its token (BRA / KET, outside the numbers' range).
        Do not mutate."""
        tables = self._tables
        if tables.nodes is None:
            tables.nodes = {word: (word if value >= BRA and word not in "()" else value)
                            for word, value in self.word_table.items()}
        return tables.nodes

    @property
    def token_words(self) -> dict[int, str]:
        """Private: token -> its word in the text form for brackets, named
        tokens and numbers (:func:`protocol.text.render_text`; text tokens
        are left out, as a run of them is one string).  Do not mutate."""
        tables = self._tables
        if tables.token_words is None:
            table = {n: str(n - 0x4000 if n & 0x2000 else n) for n in range(0x4000)}
            table.update(self.names)
            table[BRA] = "("
            table[KET] = ")"
            tables.token_words = table
        return tables.token_words

    @property
    def categories(self) -> dict[str, int]:
        """Mnemonic -> category byte (0x41 power, 0x50-0x57 province, ...).

        A plain dict for speed (the grammar looks up every mnemonic; typed as
        one, compiled code reads it directly instead of calling its ``get``);
        read only.
        """
        tables = self._tables
        if tables.categories is None:
            tables.categories = {m: v >> 8 for v, m in self.names.items()}
        return tables.categories

    @property
    def is_standard(self) -> bool:
        """True when this is the standard map's representation (send an empty RM)."""
        return self.entries == STANDARD.entries

    def mnemonic(self, value: int) -> str:
        """The mnemonic of a named token; KeyError if it has none here."""
        return self.names[value]

    def value(self, mnemonic: str) -> int:
        """The token value of a mnemonic (case-insensitive); KeyError if unknown."""
        return self.values[mnemonic.upper()]

    def powers(self) -> tuple[str, ...]:
        """The power mnemonics, in token order."""
        return tuple(m for v, m in self.entries if v >> 8 == CAT_POWER)

    def provinces(self) -> tuple[str, ...]:
        """The province mnemonics, in token order."""
        return tuple(m for v, m in self.entries if is_province(v))


#: The standard map: what an empty RM means (docs/protocol.md §4.2).
STANDARD: Representation = Representation.from_entries(
    (t.value, t.mnemonic) for t in TOKEN_TABLE if _is_map_token(t.value)
)
