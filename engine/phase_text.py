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
from functools import cache

from adjudicator import GameState, PhaseResult, Rulebook, position_checks
from adjudicator.values import Dislodged, Phase
from engine import convert
from engine.position import Engine, Outcome, PhaseOrders
from engine.variants import UnknownVariant, variant_files, variant_names
from maps import Map, MapError
from orders import Order, Unit, order_power
from protocol.errors import ProtocolError
from protocol.messages import Message, Now, Ord, Sco, Slo, Sub, Thx
from protocol.orders import DaideOrderResult, order_text, unit_text
from protocol.parse import Sender
from protocol.reader import MessageReader
from protocol.text import tree_to_text
from protocol.tokens import STANDARD, Representation
from protocol.tree import Tree

MBV = "MBV"
RULE_PRESETS = ("datc-2.4", "datc-3.0")


class InputError(ValueError):
    """The input (a position, an order message, a rule or variant name) is unusable."""


class LineError(InputError):
    """An :class:`InputError` found at a line of the text (:func:`phase_lines`)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


# --- the game context: map, token representation, rules -------------------------


class Setting:
    """What a phase is played under: the variant's map and tokens, and the rules;
    and the reader of its messages (the grammar, with the SUBs' orders kept:
    the same orders come in block after block)."""

    __slots__ = ("map", "rep", "rules", "reader", "centres", "_centre_set", "_sorted_centres",
                 "_powers")

    def __init__(self, map: Map, rep: Representation, rules: Rulebook) -> None:
        self.map = map
        self.rep = rep
        self.rules = rules
        self.reader = MessageReader(rep)
        #: the supply centres' mnemonics, in the map's order
        self.centres: tuple[str, ...] = tuple(
            map.provinces[c].mnemonic for c in map.supply_centres)
        self._centre_set = frozenset(self.centres)
        self._sorted_centres = tuple(sorted(self.centres))
        self._powers = frozenset(map.powers)

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


def read_message(s: Setting, text: str, sender: Sender) -> Message:
    """One message in text form, checked against the grammar of ``sender``."""
    try:
        return s.reader.read_text(text, sender=sender)
    except ProtocolError as exc:
        raise InputError(f"{_head(text)}: {exc}") from None


def _head(text: str) -> str:
    return text.split(maxsplit=1)[0] if text.strip() else "(empty)"


def read_position(s: Setting, sco_text: str | None, now_text: str) -> GameState:
    """The position of an ``SCO`` (None: the map's starting ownership) and a
    ``NOW`` (:func:`engine.convert.state_from_messages`, checked against the
    map)."""
    units: list[Unit] = []
    dislodged: list[Dislodged] = []
    now = read_message(s, now_text, Sender.SERVER)
    if not isinstance(now, Now):
        raise InputError(f"expected a NOW message with units, got {_head(now_text)}")
    turn = now.turn
    for position in now.units:
        if position.retreats is None:
            units.append(position.unit)
        else:
            dislodged.append(Dislodged(position.unit, position.retreats))
    groups: list[tuple[str | tuple[str, ...], Sequence[str]]]
    if sco_text is None:
        starts = s.map.start_ownership
        groups = [(owner, sorted(c for c, o in starts.items() if o == owner))
                  for owner in sorted(set(starts.values()))]
    else:
        message = read_message(s, sco_text, Sender.SERVER)
        if not isinstance(message, Sco):
            raise InputError(f"expected an SCO message with centres, got {_head(sco_text)}")
        groups = [(g.owner, g.centres) for g in message.ownership]
    ownership = _check_sco(s, groups)
    try:
        phase = Phase(turn.season, turn.year)
    except ValueError as exc:
        raise InputError(f"NOW: {exc}") from None
    units.sort(key=_province_of)
    dislodged.sort(key=_dislodged_province)
    state = GameState(phase, tuple(units), ownership, tuple(dislodged))
    check_position(s, state)
    return state


def _dislodged_province(d: Dislodged) -> str:
    return d.unit.location.province


def _check_sco(s: Setting, groups: Sequence[tuple[str | tuple[str, ...], Sequence[str]]]
               ) -> dict[str, str]:
    """The ownership (centre -> power, neutral centres left out) of an SCO's
    groups; InputError unless each owner is a power of the map or UNO, once,
    and each centre a supply centre of the map, once."""
    seen: set[str] = set()
    owners: set[str] = set()
    ownership: dict[str, str] = {}
    centres = s._centre_set
    for owner, owned in groups:
        if not isinstance(owner, str) or (owner != "UNO" and owner not in s._powers):
            raise InputError(f"SCO: {owner} is not a power of the map")
        if owner in owners:
            raise InputError(f"SCO: two groups for {owner}")
        owners.add(owner)
        for centre in owned:
            if centre not in centres:
                raise InputError(f"SCO: {centre} is not a supply centre")
            if centre in seen:
                raise InputError(f"SCO: {centre} is listed twice")
            seen.add(centre)
            if owner != "UNO":
                ownership[centre] = owner
    return ownership


def check_position(s: Setting, state: GameState) -> None:
    """InputError unless the map can hold the position: the adjudicator's
    checks (`adjudicator.position_checks`), named by the message they concern."""
    try:
        position_checks.check_position(s.map, state)
    except position_checks.PositionError as exc:
        part = "SCO" if exc.about == position_checks.CENTRES else "NOW"
        raise InputError(f"{part}: {exc}") from None


# --- one phase ------------------------------------------------------------------------


class Submission:
    """A ``SUB`` message in text form and its submitter (None: each order's
    own power, i.e. the unit's owner or the waiving power)."""

    __slots__ = ("text", "submitter")

    def __init__(self, text: str, submitter: str | None = None) -> None:
        self.text = text
        self.submitter = submitter

    def __repr__(self) -> str:
        return f"Submission({self.text!r}, {self.submitter!r})"


class PhaseOutput:
    """What a server sends for one processed phase, and the new state.

    The messages (``ords``, ``sco``, ``now``) are built when first asked for;
    :meth:`lines` writes the text straight from the adjudicator's results
    and the new position, the same text as the messages'.
    """

    __slots__ = ("thx", "outcome", "setting")

    def __init__(self, thx: tuple[Thx, ...], outcome: Outcome, setting: Setting) -> None:
        self.thx = thx
        self.outcome = outcome
        self.setting = setting

    @property
    def result(self) -> PhaseResult:
        return self.outcome.result

    @property
    def state(self) -> GameState:
        return self.outcome.result.state

    @property
    def ords(self) -> tuple[Ord, ...]:
        return self.outcome.results

    @property
    def sco(self) -> Sco:
        return self.outcome.engine.sco_message()

    @property
    def now(self) -> Now:
        return self.outcome.engine.now_message()

    @property
    def slo(self) -> Slo | None:
        solo = self.outcome.solo
        return None if solo is None else convert.slo_message(solo)

    def messages(self) -> tuple[Message, ...]:
        """THX..., ORD..., SCO, NOW, then SLO if the game ended in a solo."""
        slo = self.slo
        tail = (self.sco, self.now) if slo is None else (self.sco, self.now, slo)
        return (*self.thx, *self.ords, *tail)

    def trees(self) -> tuple[Tree, ...]:
        return tuple(m.to_tree() for m in self.messages())

    def lines(self, rep: Representation = STANDARD) -> tuple[str, ...]:
        """The messages in DAIDE text form: ``tree_to_text`` of each."""
        slo = self.slo
        state = self.state
        return (*(tree_to_text(m.to_tree(), rep) for m in self.thx),
                *_ord_lines(self.outcome.result, rep),
                _sco_line(state, self.setting, rep),
                _now_line(state, rep) if not state.dislodged
                else tree_to_text(self.now.to_tree(), rep),
                *(() if slo is None else (tree_to_text(slo.to_tree(), rep),)))


# The lines of a phase are written from the values directly, the words
# tree_to_text joins for their trees, without building the trees.  Their
# mnemonics are the representation's: the orders and units were read under
# it (or made by the adjudicator for those units), the centres and powers
# are the map's; the turn and results are checked by tree_to_text.


def _turn_text(phase: Phase, rep: Representation) -> str:
    return tree_to_text(((phase.season, phase.year),), rep)


def _ord_lines(result: PhaseResult, rep: Representation) -> list[str]:
    """``ORD (turn) (order) (result)`` for every order (docs/protocol.md §8.4):
    the text of :func:`engine.convert.ord_messages`, each distinct result
    written once, the orders by :func:`~protocol.orders.order_text`."""
    turn = _turn_text(result.phase, rep)
    kept: dict[str | None, str] = {}        # outcome -> "( SUC )"...
    dislodged: dict[str | None, str] = {}   # outcome -> "( BNC RET )"...
    lines = []
    for r in result.results:
        texts = dislodged if r.dislodged else kept
        text = texts.get(r.outcome)
        if text is None:
            text = texts[r.outcome] = tree_to_text(
                (DaideOrderResult(r.outcome, r.dislodged).to_node(),), rep)
        lines.append(f"ORD {turn} {order_text(r.order)} {text}")
    return lines


def _now_line(state: GameState, rep: Representation) -> str:
    """The NOW of a position without dislodged units: its units by province
    (:func:`engine.convert.now_message`), each by :func:`~protocol.orders.unit_text`."""
    units = state.units
    if any(units[k].location.province > units[k + 1].location.province
           for k in range(len(units) - 1)):
        units = tuple(sorted(units, key=_province_of))
    return " ".join(["NOW", _turn_text(state.phase, rep), *[unit_text(u) for u in units]])


def _province_of(unit: Unit) -> str:
    return unit.location.province


def _sco_line(state: GameState, s: Setting, rep: Representation) -> str:
    """The SCO of a position (:func:`engine.convert.sco_message`): the owners
    in the map's order, then any other owner, then the neutral centres as
    UNO, each group's centres sorted."""
    ownership = dict(state.ownership)  # a plain dict: compiled lookups go direct
    centres = s._centre_set
    for centre in ownership:
        if centre not in centres:  # a centre the map lacks: the message's text
            return tree_to_text(convert.sco_message(state, s.map.powers, s.centres).to_tree(), rep)
    owned: dict[str, list[str]] = {}
    neutral: list[str] = []
    for centre in s._sorted_centres:
        owner = ownership.get(centre)
        if owner is None:
            neutral.append(centre)
        elif owner in owned:
            owned[owner].append(centre)
        else:
            owned[owner] = [centre]
    powers = s.map.powers
    order = [p for p in powers if p in owned]
    if len(order) < len(owned):
        order += sorted(set(owned) - set(powers))
    parts = ["SCO"]
    for power in order:
        parts.append(" ".join(["(", power, *owned[power], ")"]))
    if neutral:
        parts.append(" ".join(["(", "UNO", *neutral, ")"]))
    return " ".join(parts)


def read_orders(s: Setting, state: GameState, sub: Submission) -> Orders:
    """The orders of a SUB with their submitter (a ``SUB (turn) ...`` must
    name the current turn)."""
    message = read_message(s, sub.text, Sender.CLIENT)
    if not isinstance(message, Sub) or not message.orders:
        raise InputError(f"expected SUB with at least one order, got {_head(sub.text)}")
    orders, turn = message.orders, message.turn
    if turn is not None and convert.phase_of(turn) != state.phase:
        raise InputError(f"SUB for {turn}, but the position is in {state.phase}")
    return Orders(orders, sub.submitter)


class Orders:
    """The orders of one SUB, as submitted, and their submitter (None: each
    order's own power)."""

    __slots__ = ("orders", "submitter")

    def __init__(self, orders: tuple[Order, ...], submitter: str | None = None) -> None:
        self.orders = orders
        self.submitter = submitter

    def __repr__(self) -> str:
        return f"Orders({self.orders!r}, {self.submitter!r})"


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
    return PhaseOutput(tuple(thx), phase.advance(), s)


def sco_of(s: Setting, state: GameState) -> Sco:
    """The SCO message of a position under setting ``s``."""
    return convert.sco_message(state, s.map.powers, s.centres)


# --- a phase as lines of text (``daide adjudicate``) ------------------------------------


def phase_lines(s: Setting, lines: Sequence[tuple[int, str]]) -> list[str]:
    """What a server sends for one phase given as numbered text lines: one
    ``SCO``, one ``NOW``, and ``SUB`` lines (``AS <power> SUB ...`` submits
    for that power) - the lines of :meth:`PhaseOutput.lines`.  Raises
    :class:`LineError` with the number of the line at fault."""
    sco: tuple[int, str] | None = None
    now: tuple[int, str] | None = None
    subs: list[tuple[int, Submission]] = []
    for number, text in lines:
        head = text[:4]
        if head == "SCO " or head == "NOW " or text == "SCO" or text == "NOW":
            word = text[:3]
            if (sco if word == "SCO" else now) is not None:
                raise LineError(number, f"a second {word} line")
            if word == "SCO":
                sco = (number, text)
            else:
                now = (number, text)
        elif head == "SUB " or text == "SUB":
            subs.append((number, Submission(text)))
        else:
            word, _, rest = text.partition(" ")
            if word != "AS":
                raise LineError(number, f"expected SCO, NOW or SUB, got {word}")
            power, _, message = rest.strip().partition(" ")
            if not power or not message.strip().startswith("SUB"):
                raise LineError(number, "AS needs a power and a SUB: AS GER SUB ( ... )")
            subs.append((number, Submission(message.strip(), power.upper())))
    if sco is None or now is None:
        raise LineError(lines[0][0], f"the block has no {'SCO' if sco is None else 'NOW'} line")
    try:
        state = read_position(s, sco[1], now[1])
    except InputError as exc:
        raise LineError(now[0] if str(exc).startswith("NOW") else sco[0], str(exc)) from None
    orders: list[Orders] = []
    for number, sub in subs:
        try:
            orders.append(read_orders(s, state, sub))
        except InputError as exc:
            raise LineError(number, str(exc)) from None
    return list(run_phase(s, state, orders).lines(s.rep))
