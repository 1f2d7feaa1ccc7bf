"""Adjudicate one phase given as DAIDE text: the core of ``daide adjudicate``
and ``daide datc``.

Input is what a server holds and receives: an ``SCO`` and a ``NOW`` (the
position), and ``SUB`` messages (the orders, each with its submitter).
Output is what a server sends back (docs/protocol.md §8.3, 8.4): a ``THX`` for
every order whose note is not ``MBV``, every ``ORD``, then ``SCO``, ``NOW``
and ``SLO`` when the game ended in a solo.  The phase runs through the
server's own :class:`engine.position.Engine`, through
:class:`engine.position.PhaseOrders`: ``submit`` gives each order's THX note
(checked order by order as a server does) and ``advance`` processes the
phase.

Bad input raises :class:`InputError` with a one-line reason; nothing here
prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from adjudicator import GameState, PhaseResult, Rulebook
from adjudicator.values import RETREAT
from engine import convert
from engine.position import Engine, PhaseOrders
from engine.variants import UnknownVariant, variant_files, variant_names
from maps import Map, MapError
from orders import Order, order_power
from protocol.errors import ProtocolError
from protocol.mapdef import CentreGroup
from protocol.messages import Message, Now, Ord, Sco, Slo, Sub, Thx
from protocol.orders import order_text, unit_text
from protocol.parse import Sender, parse_message_text
from protocol.text import tree_to_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import Tree

MBV = "MBV"
RULE_PRESETS = ("datc-2.4", "datc-3.0")


class InputError(ValueError):
    """The input (a position, an order message, a rule or variant name) is unusable."""


# --- the game context: map, token representation, rules -------------------------


class Setting:
    """What a phase is played under: the variant's map and tokens, and the rules."""

    __slots__ = ("map", "rep", "rules", "centres", "_centre_set")

    def __init__(self, map: Map, rep: Representation, rules: Rulebook) -> None:
        self.map = map
        self.rep = rep
        self.rules = rules
        #: the supply centres' mnemonics, in the map's order
        self.centres: tuple[str, ...] = tuple(
            map.provinces[c].mnemonic for c in map.supply_centres)
        self._centre_set = frozenset(self.centres)

    def __repr__(self) -> str:
        return f"Setting({self.map.name!r}, rules={self.rules!r})"


@cache
def _load(variant: str) -> tuple[Map, Representation]:
    """The variant's map and tokens, from the registry (``daide variants``)."""
    try:
        files = variant_files(variant)
    except UnknownVariant:
        raise InputError(f"unknown or unreadable variant {variant!r}: "
                         f"not one of {', '.join(variant_names())}") from None
    except MapError as exc:
        raise InputError(f"unknown or unreadable variant {variant!r}: {exc}") from None
    return files.map, files.rep


def rulebook(preset: str, overrides: Sequence[tuple[str, str]] = ()) -> Rulebook:
    """A preset (``datc-2.4``, ``datc-3.0``) with ``issue=choice`` overrides."""
    try:
        rules = Rulebook.preset(preset)
        for issue, choice in overrides:
            rules = rules.with_choice(issue, choice)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    return rules


def setting(variant: str = "standard", rules: Rulebook | None = None) -> Setting:
    """The setting for a variant name (case-insensitive, ``daide variants``) and rulebook."""
    m, rep = _load(variant)
    return Setting(m, rep, rules if rules is not None else rulebook("datc-2.4"))


# --- reading messages -----------------------------------------------------------------


def read_message(text: str, rep: Representation, sender: Sender) -> Message:
    """One message in text form, checked against the grammar of ``sender``."""
    try:
        return parse_message_text(text, rep, sender=sender)
    except ProtocolError as exc:
        raise InputError(f"{_head(text)}: {exc}") from None


def _head(text: str) -> str:
    return text.split(maxsplit=1)[0] if text.strip() else "(empty)"


def read_position(s: Setting, sco_text: str | None, now_text: str) -> GameState:
    """The position of an ``SCO`` (None: the map's starting ownership) and a ``NOW``."""
    now = read_message(now_text, s.rep, Sender.SERVER)
    if not isinstance(now, Now):
        raise InputError(f"expected a NOW message with units, got {_head(now_text)}")
    if sco_text is None:
        sco = Sco(tuple(
            CentreGroup(owner, tuple(sorted(c for c, o in s.map.start_ownership.items() if o == owner)))
            for owner in sorted(set(s.map.start_ownership.values()))
        ))
    else:
        message = read_message(sco_text, s.rep, Sender.SERVER)
        if not isinstance(message, Sco):
            raise InputError(f"expected an SCO message with centres, got {_head(sco_text)}")
        sco = message
    _check_sco(s, sco)
    try:
        state = convert.state_from_messages(sco, now)
    except ValueError as exc:
        raise InputError(f"NOW: {exc}") from None
    check_position(s.map, state)
    return state


def _check_sco(s: Setting, sco: Sco) -> None:
    seen: set[str] = set()
    owners: set[str] = set()
    centres = s._centre_set
    for group in sco.ownership:
        owner = group.owner
        if not isinstance(owner, str) or (owner != "UNO" and owner not in s.map.powers):
            raise InputError(f"SCO: {owner} is not a power of the map")
        if owner in owners:
            raise InputError(f"SCO: two groups for {owner}")
        owners.add(owner)
        for centre in group.centres:
            if centre not in centres:
                raise InputError(f"SCO: {centre} is not a supply centre")
            if centre in seen:
                raise InputError(f"SCO: {centre} is listed twice")
            seen.add(centre)


def check_position(m: Map, state: GameState) -> None:
    """InputError unless every unit is a unit of the map's powers standing
    where its type may stand, at most one (not dislodged) unit per province,
    and dislodged units only in a retreat phase."""
    if state.dislodged and state.phase.kind != RETREAT:
        raise InputError(f"NOW: MRT lists in {state.phase}, which is not a retreat phase")
    where: dict[str, str] = {}
    for unit, dislodged in [(u, False) for u in state.units] + [
        (d.unit, True) for d in state.dislodged
    ]:
        if unit.power not in m.powers:
            raise InputError(f"NOW: {unit.power} is not a power of the map")
        loc = unit.location
        if loc.province not in m.ids:
            raise InputError(f"NOW: {loc.province} is not a province of the map")
        pid = m.ids[loc.province]
        province = m.provinces[pid]
        if unit.is_army:
            ok = province.is_land and loc.coast is None
        else:
            ok = m.loc_ids.get((pid, loc.coast)) in m.fleet_locs[pid]
        if not ok:
            what = "an army" if unit.is_army else "a fleet"
            raise InputError(f"NOW: {unit} - {what} cannot stand at {loc}")
        key = ("dislodged " if dislodged else "") + loc.province
        if key in where:
            raise InputError(f"NOW: two units in {key}")
        where[key] = unit.power


# --- one phase ------------------------------------------------------------------------


@dataclass(frozen=True)
class Submission:
    """A ``SUB`` message in text form and its submitter (None: each order's
    own power, i.e. the unit's owner or the waiving power)."""

    text: str
    submitter: str | None = None


@dataclass(frozen=True)
class PhaseOutput:
    """The messages a server sends for one processed phase, and the new state."""

    thx: tuple[Thx, ...]
    ords: tuple[Ord, ...]
    sco: Sco
    now: Now
    slo: Slo | None
    result: PhaseResult

    @property
    def state(self) -> GameState:
        return self.result.state

    def messages(self) -> tuple[Message, ...]:
        """THX..., ORD..., SCO, NOW, then SLO if the game ended in a solo."""
        return (*self.thx, *self.ords, *self._tail())

    def _tail(self) -> tuple[Message, ...]:
        """SCO, NOW, then SLO if the game ended in a solo."""
        return (self.sco, self.now) if self.slo is None else (self.sco, self.now, self.slo)

    def trees(self) -> tuple[Tree, ...]:
        return tuple(m.to_tree() for m in self.messages())

    def lines(self, rep: Representation = STANDARD) -> tuple[str, ...]:
        """The messages in DAIDE text form."""
        slo = () if self.slo is None else (tree_to_text(self.slo.to_tree(), rep),)
        return (*(tree_to_text(m.to_tree(), rep) for m in self.thx),
                *_ord_lines(self.ords, rep),
                tree_to_text(self.sco.to_tree(), rep),
                _now_line(self.now, rep),
                *slo)


def _now_line(now: Now, rep: Representation) -> str:
    """``tree_to_text`` of the NOW's tree; when no unit has an MRT list, its
    units are written by :func:`~protocol.orders.unit_text` (the units of a
    position read under ``rep``, whose mnemonics it has)."""
    if any(u.retreats is not None for u in now.units):
        return tree_to_text(now.to_tree(), rep)
    return " ".join(["NOW", tree_to_text((now.turn.to_node(),), rep),
                     *[unit_text(u.unit) for u in now.units]])


def _ord_lines(ords: Sequence[Ord], rep: Representation) -> list[str]:
    """The ORD lines, ``tree_to_text`` of each ORD's tree, with the parts
    every ORD shares rendered once: the turn (the same in all of them) and
    each distinct ``(result)``.  An ORD's tree is plain (mnemonics, numbers,
    groups), whose text is its nodes' texts joined by spaces, so joining the
    parts' texts gives the same line; the order is written by
    :func:`~protocol.orders.order_text` (orders read under ``rep`` or made by
    the adjudicator for their units, whose mnemonics it has)."""
    turns: dict[int, str] = {}     # by id: the ORDs hold the values (ids stay theirs)
    results: dict[int, str] = {}
    lines = []
    for o in ords:
        turn = turns.get(id(o.turn))
        if turn is None:
            turn = turns[id(o.turn)] = tree_to_text((o.turn.to_node(),), rep)
        result = results.get(id(o.result))
        if result is None:
            result = results[id(o.result)] = tree_to_text((o.result.to_node(),), rep)
        lines.append(f"ORD {turn} {order_text(o.order)} {result}")
    return lines


def read_orders(s: Setting, state: GameState, sub: Submission) -> Orders:
    """The orders of a SUB with their submitter (a ``SUB (turn) ...`` must
    name the current turn)."""
    message = read_message(sub.text, s.rep, Sender.CLIENT)
    if not isinstance(message, Sub) or not message.orders:
        raise InputError(f"expected SUB with at least one order, got {_head(sub.text)}")
    if message.turn is not None and convert.phase_of(message.turn) != state.phase:
        raise InputError(f"SUB for {message.turn}, but the position is in {state.phase}")
    return Orders(message.orders, sub.submitter)


@dataclass(frozen=True)
class Orders:
    """The orders of one SUB, as submitted, and their submitter (None: each
    order's own power)."""

    orders: tuple[Order, ...]
    submitter: str | None = None


def run_phase(s: Setting, state: GameState, submissions: Sequence[Orders]) -> PhaseOutput:
    """Check every order (THX), adjudicate the phase, render the results.

    Orders are checked one by one in the order given, each against the
    orders its submitter already had accepted (the adjustment-phase counts
    and sites, docs/protocol.md §9.3); in the movement and retreat phases a later
    accepted order for a unit replaces the earlier one (8.3).  Only accepted
    orders are adjudicated; units left without one get the
    adjudicator's defaults (docs/adjudication-conventions.md).
    """
    phase = PhaseOrders(Engine(s.map, state, s.rules))
    thx: list[Thx] = []
    for sub in submissions:
        for submitted in sub.orders:
            power = sub.submitter or order_power(submitted)
            note = phase.submit(power, submitted)
            if note != MBV:
                thx.append(convert.thx_message(submitted, note))
    outcome = phase.advance()
    new = outcome.engine
    return PhaseOutput(
        thx=tuple(thx),
        ords=outcome.results,
        sco=new.sco_message(),
        now=new.now_message(),
        slo=convert.slo_message(outcome.solo) if outcome.solo is not None else None,
        result=outcome.result,
    )


def sco_of(s: Setting, state: GameState) -> Sco:
    """The SCO message of a position under setting ``s``."""
    return convert.sco_message(state, s.map.powers, s.centres)
