"""The rules as the game actor sees them: a position that answers in DAIDE.

`Variant` is a playable map: its MAP name, MDF message, token
representation and starting position.  `Engine` is one position of a game
(an immutable `adjudicator.values.GameState` plus the map and rulebook)
with the questions the actor asks - the THX note of an order, the MIS of a
power, who owes orders - and `Engine.advance`, which calls the adjudicator
and returns the next position with the ORD messages.  Everything crossing
this module is a `protocol` message or order; the adjudicator's values stay
inside (converted by `protocol.convert`, the project's one seam).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import maps
from adjudicator import advance as adjudicate
from adjudicator import values as adj
from adjudicator.rulebook import DEFAULT, Rulebook
from adjudicator.validate import validate
from adjudicator.values import GameState, initial_state
from protocol import convert
from protocol import orders as po
from protocol.errors import ProtocolError
from protocol.messages import Mdf, Mis, Now, Ord, Sco
from protocol.parse import Role, parse_message
from protocol.tokens import Representation
from protocol.tree import from_tree


class VariantError(ValueError):
    """The variant is not available."""


@dataclass(frozen=True, eq=False)
class Variant:
    """A map the server can host: name, MDF, representation, start."""

    name: str                   # as sent in MAP (docs/protocol.md §8.1)
    map: maps.Map
    rep: Representation
    mdf: Mdf

    @property
    def powers(self) -> tuple[str, ...]:
        return self.map.powers

    def start(self, rulebook: Rulebook = DEFAULT) -> Engine:
        """The starting position."""
        return Engine(self, initial_state(self.map), rulebook)

    def position(self, sco: Sco, now: Now, rulebook: Rulebook = DEFAULT) -> Engine:
        """The position an SCO and a NOW describe (a stored game)."""
        return Engine(self, convert.state_from_messages(sco, now), rulebook)


def available_variants() -> tuple[str, ...]:
    """Variant names that have map data in the ``maps`` package (``daide variants``)."""
    return maps.variant_names()


@cache
def load_variant(name: str) -> Variant:
    """The variant of that name (case-insensitive, as ``daide variants`` lists them), loaded once.

    The MAP name is the registry's name in upper case (the reference server
    sent ``'STANDARD'``, docs/protocol.md §8.1); the MDF is the map's own message
    and the representation its ``.rem`` file: the standard tokens (an empty
    RM, 4.2 and 19.3) for the standard board, the full list otherwise.
    Raises :class:`VariantError` with a one-line reason (unknown name, or
    data that cannot be played, naming the file).
    """
    try:
        the_map = maps.variant_map(name)
    except maps.MapError as exc:
        raise VariantError(str(exc)) from None
    rep = the_map.representation()
    try:
        mdf = parse_message(from_tree(the_map.mdf, rep), rep, sender=Role.SERVER)
    except ProtocolError as exc:
        raise VariantError(f"variant {name!r}: its MDF is not a valid message: {exc}") from None
    if not isinstance(mdf, Mdf):
        raise VariantError(f"variant {name!r}: its MDF is not an MDF message")
    return Variant(the_map.name.upper(), the_map, rep, mdf)


@dataclass(frozen=True)
class Outcome:
    """A processed phase: its ORDs, whether ownership was updated, a solo, the next position."""

    results: tuple[Ord, ...]
    year_end: bool
    solo: str | None
    engine: Engine


@dataclass(frozen=True, eq=False)
class Engine:
    """One position of a game, with the rules' answers in DAIDE terms."""

    variant: Variant
    state: GameState
    rulebook: Rulebook = DEFAULT

    @property
    def turn(self) -> po.Turn:
        return convert.turn_of(self.state.phase)

    @property
    def season(self) -> str:
        return self.state.phase.season

    @cached_property
    def _sco(self) -> Sco:
        return convert.sco_message(self.state, self.variant.powers,
                                   (self.variant.map.provinces[c].mnemonic
                                    for c in self.variant.map.supply_centres))

    def sco_message(self) -> Sco:
        return self._sco

    @cached_property
    def _now(self) -> Now:
        return convert.now_message(self.state)

    def now_message(self) -> Now:
        return self._now

    @cached_property
    def _owing(self) -> frozenset[str]:
        return owing(self.state, self.variant.powers)

    def owing(self) -> frozenset[str]:
        """Powers that must order in this phase."""
        return self._owing

    @cached_property
    def _survivors(self) -> frozenset[str]:
        return survivors(self.state)

    def survivors(self) -> frozenset[str]:
        """Powers still in the game (a centre or a unit)."""
        return self._survivors

    def centre_counts(self) -> Mapping[str, int]:
        return convert.centre_counts(self.state, self.variant.powers)

    @cached_property
    def _converted(self) -> dict[int, tuple[po.Order, adj.Order]]:
        return {}

    def _adj(self, orders: Sequence[po.Order]) -> list[adj.Order]:
        """The adjudicator's form of orders, each converted once per position.

        Every THX check and MIS of a phase looks at the power's accepted
        orders again; converting them once keeps a SUB of n orders linear.
        Keyed by identity (cheaper than hashing an order); the cache holds
        each order, so its id cannot be reused while the position lives.
        """
        cache = self._converted
        out = []
        for order in orders:
            found = cache.get(id(order))
            if found is None or found[0] is not order:
                found = cache[id(order)] = (order, convert.order_to_adj(order))
            out.append(found[1])
        return out

    def check(self, power: str, order: po.Order, accepted: Sequence[po.Order]) -> str:
        """The THX note of ``order`` from ``power`` given its accepted orders (9.3)."""
        return validate(self.variant.map, self.state, power, self._adj((order,))[0],
                        self._adj(accepted))

    def missing(self, power: str, accepted: Sequence[po.Order]) -> Mis | None:
        """The MIS for ``power``, or None when its orders are complete."""
        if power not in self._owing:
            return None
        return convert.missing_message(self.state, power, self._adj(accepted))

    def advance(self, orders: Mapping[str, Sequence[po.Order]]) -> Outcome:
        """Adjudicate the phase; missing orders get the civil-disorder defaults."""
        given = {p: self._adj(held) for p, held in orders.items()}
        result = adjudicate(self.variant.map, self.state, given, self.rulebook)
        return Outcome(convert.ord_messages(result), result.ownership_updated, result.winner,
                       Engine(self.variant, result.state, self.rulebook))


def owing(state: GameState, powers: Sequence[str]) -> frozenset[str]:
    """The powers that must order in this phase (docs/protocol.md §8.3)."""
    kind = state.phase.kind
    if kind == adj.MOVEMENT:
        return frozenset(u.power for u in state.units)
    if kind == adj.RETREAT:
        return frozenset(d.unit.power for d in state.dislodged)
    return frozenset(p for p in powers if state.adjustment(p) != 0)


def survivors(state: GameState) -> frozenset[str]:
    """Powers still in the game: a centre or a unit (the French adjudicator's convention 2(b), docs/references.md)."""
    return (frozenset(state.ownership.values()) | frozenset(u.power for u in state.units)
            | frozenset(d.unit.power for d in state.dislodged))
