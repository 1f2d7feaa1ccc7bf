"""Where DAIDE messages and the adjudicator meet (docs/architecture.md).

protocol/ and adjudicator/ never import each other.  Both speak the one
order model of :mod:`orders` - a SUB's orders are the adjudicator's input
as they are, its results hold the same values - so nothing here converts
orders; this module builds the messages around them.  Both sides keep
DAIDE mnemonics (``'ENG'``, ``'STP'``, ``'NCS'``, ``'FLT'``), independent of
the token representation (variants work unchanged), and never consult a
map.

What it builds:

* an order from a tree node of a SUB (:func:`order_from_node`,
  docs/protocol.md §9.1);
* the THX reply (8.3): :func:`thx_message` echoes the order *exactly as
  submitted* - the very value parsed from the SUB;
* results (8.4, 9.4, docs/adjudication-conventions.md): an adjudicator
  :class:`~adjudicator.results.OrderResult` -> ``ORD (turn) (order)
  (result)`` (:func:`result_to_ord`, :func:`ord_messages`).  The adjudicator
  already reports unordered units as ``HLD`` / ``DSB``, forced removals as
  ``REM`` and unused builds as ``(power WVE)``; this module only renders;
* positions (8.2): a :class:`~adjudicator.values.GameState` -> ``NOW``
  (dislodged units with their ``MRT`` list) and ``SCO`` (neutral centres in
  a ``UNO`` group, a power without centres omitted), and ``SCO`` + ``NOW``
  -> state (:func:`state_from_messages`, :func:`state_from_trees`);
* ``MIS`` (8.3) for what a power still owes, and ``SLO`` (8.10).

Units are listed canonically (by province) in NOW, so equal
states render to equal bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from adjudicator import values as adj
from adjudicator.results import OrderResult, PhaseResult
from orders import Build, Order, Remove, Unit, Waive
from protocol import orders as po
from protocol.errors import GrammarError
from protocol.grammar import Fail, Parser, token_index
from protocol.mapdef import CentreGroup
from protocol.messages import Mis, Now, Ord, Sco, Slo, Thx
from protocol.parse import Sender, parse_message
from protocol.tokens import STANDARD, Representation
from protocol.tree import Node, Tree, from_tree

UNO = "UNO"

# --- units, turns ------------------------------------------------------------------


def _standing(unit: Unit) -> po.UnitPosition:
    """A (not dislodged) unit as NOW and MIS list it.

    Built each time, not cached: compiled, building one is a few slot stores,
    cheaper than hashing the unit (its dataclass ``__hash__`` is interpreted)."""
    return po.UnitPosition(unit)


def turn_of(phase: adj.Phase) -> po.Turn:
    """``( season year )`` of a phase."""
    return po.Turn(phase.season, phase.year)


def phase_of(turn: po.Turn) -> adj.Phase:
    """The adjudicator phase of a turn; ValueError for an unknown season."""
    return adj.Phase(turn.season, turn.year)


# --- orders ------------------------------------------------------------------------


def order_from_node(node: Node, rep: Representation = STANDARD) -> Order:
    """One bracketed order node of a SUB, e.g. ``(('ENG', 'FLT', 'NTH'), 'MTO', 'PIC')``.

    Raises :class:`GrammarError` (with the token position of the fault
    inside ``( order )``) when the node is not an order of docs/protocol.md §9.1.
    """
    wrapper: Tree = (node,)
    parser = Parser(rep)
    try:
        return po.parse_order(parser, wrapper, 0, ())
    except Fail:
        tokens = from_tree(wrapper, rep)
        raise GrammarError(tokens, token_index(wrapper, parser.far), parser.reason) from None


def thx_message(submitted: Order, note: str) -> Thx:
    """``THX (order) (note)``; ``submitted`` is echoed exactly (docs/protocol.md §8.3)."""
    return Thx(submitted, note)


# --- results -----------------------------------------------------------------------


def result_to_ord(phase: adj.Phase, result: OrderResult) -> Ord:
    """``ORD (turn) (order) (result)`` for one adjudicated order (docs/protocol.md §8.4, 9.4).

    ``result.outcome`` None is a dislodged holder / convoyer: ``( RET )``.
    """
    return Ord(turn_of(phase), result.order, _order_result(result.outcome, result.dislodged))


def ord_messages(outcome: PhaseResult) -> tuple[Ord, ...]:
    """Every ORD of a processed phase, in the adjudicator's fixed order; each
    shows the adjudicator's order value (for a submitted order, the very
    value parsed from the SUB)."""
    turn = turn_of(outcome.phase)
    return tuple(Ord(turn, r.order, _order_result(r.outcome, r.dislodged))
                 for r in outcome.results)


@cache
def _order_result(outcome: str | None, dislodged: bool) -> po.DaideOrderResult:
    """The ``(result)`` of an ORD: a dozen values in all, each built once."""
    return po.DaideOrderResult(outcome, dislodged)


def slo_message(winner: str) -> Slo:
    """``SLO (power)``: the game ended in a solo (docs/protocol.md §8.10)."""
    return Slo(winner)


# --- positions ---------------------------------------------------------------------


def sco_message(state: adj.GameState, powers: Sequence[str], centres: Iterable[str]) -> Sco:
    """``SCO (power centre ...) ... (UNO centre ...)`` (docs/protocol.md §8.2).

    ``powers`` in the order to list them (the map's), ``centres`` every
    supply centre of the map.  Centres are sorted; a power without centres is
    left out (the grammar has no empty group; Parlance omits it).  An owner
    of ``state.ownership`` missing from ``powers`` is listed after them.
    """
    ownership = state.ownership
    owned: dict[str, list[str]] = {}
    for centre, owner in ownership.items():
        owned.setdefault(owner, []).append(centre)
    neutral = sorted({c for c in centres if c not in ownership})
    order = [p for p in powers if p in owned] + sorted(set(owned) - set(powers))
    groups = [CentreGroup(p, tuple(sorted(owned[p]))) for p in order]
    if neutral:
        groups.append(CentreGroup(UNO, tuple(neutral)))
    return Sco(tuple(groups))


def now_message(state: adj.GameState) -> Now:
    """``NOW (turn) (unit) ...`` with ``MRT (...)`` after each dislodged unit (8.2).

    Units are listed by province; a dislodged unit directly after the unit
    that took its province.
    """
    entries: list[tuple[str, int, po.UnitPosition]] = [
        (u.location.province, 0, _standing(u)) for u in state.units
    ]
    entries += [
        (
            d.unit.location.province,
            1,
            po.UnitPosition(d.unit, d.retreats),
        )
        for d in state.dislodged
    ]
    entries.sort(key=lambda e: (e[0], e[1]))
    return Now(turn_of(state.phase), tuple(e[2] for e in entries))


def ownership_from_sco(sco: Sco) -> dict[str, str]:
    """Centre -> owner of an SCO (UNO groups, i.e. neutral centres, left out)."""
    ownership: dict[str, str] = {}
    for group in sco.ownership:
        if isinstance(group.owner, str) and group.owner != UNO:
            for centre in group.centres:
                ownership[centre] = group.owner
    return ownership


def state_from_messages(sco: Sco, now: Now) -> adj.GameState:
    """The position an SCO and a NOW describe (how the server stores positions).

    Units with an MRT list become :class:`~adjudicator.values.Dislodged`
    (whose attacker is unknown from a NOW).  Nothing is checked against a map.
    """
    units: list[Unit] = []
    dislodged: list[adj.Dislodged] = []
    for position in now.units:
        if position.retreats is None:
            units.append(position.unit)
        else:
            dislodged.append(adj.Dislodged(position.unit, position.retreats))
    units.sort(key=lambda u: u.location.province)
    dislodged.sort(key=lambda d: d.unit.location.province)
    return adj.GameState(phase_of(now.turn), tuple(units), ownership_from_sco(sco), tuple(dislodged))


def state_from_trees(sco: Tree, now: Tree, rep: Representation = STANDARD) -> adj.GameState:
    """:func:`state_from_messages` for message trees; :class:`GrammarError` when
    either is not a server's SCO / NOW (ValueError for an unknown season)."""
    sco_msg = parse_message(from_tree(sco, rep), rep, sender=Sender.SERVER)
    now_msg = parse_message(from_tree(now, rep), rep, sender=Sender.SERVER)
    if not isinstance(sco_msg, Sco):
        raise GrammarError(from_tree(sco, rep), 0, "expected an SCO message")
    if not isinstance(now_msg, Now):
        raise GrammarError(from_tree(now, rep), 0, "expected a NOW message")
    return state_from_messages(sco_msg, now_msg)


# --- what is still owed --------------------------------------------------------


def missing_message(
    state: adj.GameState, power: str, accepted: Sequence[Order]
) -> Mis | None:
    """``MIS`` for what ``power`` still has to order, or None when complete (8.3).

    Movement: the units without an accepted order; retreat: the dislodged
    units without one (with their MRT lists); adjustment: ``MIS (n)``, n > 0
    removals still owed, n < 0 builds (or waives) still to order.
    """
    kind = state.phase.kind
    if kind == adj.ADJUSTMENT:
        owed = state.adjustment(power)
        if owed > 0:
            left = owed - sum(isinstance(o, (Build, Waive)) for o in accepted)
            return Mis(count=-left) if left > 0 else None
        if owed < 0:
            left = -owed - sum(isinstance(o, Remove) for o in accepted)
            return Mis(count=left) if left > 0 else None
        return None
    ordered = {o.unit for o in accepted if not isinstance(o, Waive)}
    if kind == adj.MOVEMENT:
        units = tuple(
            _standing(u)
            for u in state.units_of(power)
            if u not in ordered
        )
    else:
        units = tuple(
            po.UnitPosition(d.unit, d.retreats)
            for d in state.dislodged
            if d.unit.power == power and d.unit not in ordered
        )
    return Mis(units) if units else None


def centre_counts(state: adj.GameState, powers: Iterable[str]) -> Mapping[str, int]:
    """Centres per power, 0 for a power without any."""
    counts = state.centre_counts()
    return {p: counts.get(p, 0) for p in powers}


__all__ = [
    "UNO",
    "centre_counts",
    "missing_message",
    "now_message",
    "ord_messages",
    "order_from_node",
    "ownership_from_sco",
    "phase_of",
    "result_to_ord",
    "sco_message",
    "slo_message",
    "state_from_messages",
    "state_from_trees",
    "thx_message",
    "turn_of",
]
