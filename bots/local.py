"""Playing strategies in process, straight through the adjudicator (no server).

Used by the benchmark (hundreds of games in seconds) and by the tests that
check strategies on thousands of positions.  The flow per phase mirrors the
server's: every power that owes orders gets a `BoardView` of the adjudicator
state and its phase generator (`phase_rng`, the same as over TCP), its
orders are checked one by one with the server's own phase runner
(`engine.position.Engine.check`: a rejected order is dropped, as the server
would), and `Engine.advance` produces the next position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from adjudicator.validate import MBV
from adjudicator.values import ADJUSTMENT, MOVEMENT, GameState, initial_state
from bots.board import BoardView
from bots.geography import geography_of
from bots.orders import board_unit
from bots.strategy import Strategy, phase_rng
from engine.position import Engine
from maps import Map
from orders import Order


def view_of(game_map: Map, state: GameState, power: str) -> BoardView:
    """The strategy's view of an adjudicator state."""
    geo = geography_of(game_map)
    owners: dict[str, str | None] = {c: None for c in geo.centres}
    owners.update(state.ownership)
    return BoardView(
        geography=geo, power=power, season=state.phase.season, year=state.phase.year,
        units=tuple(board_unit(u) for u in state.units),
        dislodged=tuple(board_unit(d.unit, d.retreats) for d in state.dislodged),
        owners=owners)


def owes_orders(state: GameState, power: str) -> bool:
    """Whether `power` has anything to order in this state's phase."""
    kind = state.phase.kind
    if kind == MOVEMENT:
        return any(u.power == power for u in state.units)
    if kind == ADJUSTMENT:
        return state.adjustment(power) != 0
    return any(d.unit.power == power for d in state.dislodged)


@dataclass(frozen=True)
class Rejection:
    """An order the adjudicator's validation refused (with its THX note)."""

    power: str
    phase: str
    order: Order
    note: str


@dataclass
class LocalGame:
    """The outcome of one in-process game."""

    state: GameState
    winner: str | None
    phases: int
    rejections: list[Rejection] = field(default_factory=list)

    def centre_counts(self) -> dict[str, int]:
        return self.state.centre_counts()


def submit(game_map: Map, state: GameState, power: str, orders: Sequence[Order],
           rejections: list[Rejection] | None = None) -> list[Order]:
    """Check a power's orders one by one; the MBV ones."""
    return _accepted(Engine(game_map, state), power, orders, rejections)


def _accepted(engine: Engine, power: str, orders: Sequence[Order],
              rejections: list[Rejection] | None) -> list[Order]:
    """The orders the server would accept, each checked against the ones before (9.3)."""
    accepted: list[Order] = []
    for order in orders:
        note = engine.check(power, order, accepted)
        if note == MBV:
            accepted.append(order)
        elif rejections is not None:
            rejections.append(Rejection(power, str(engine.state.phase), order, note))
    return accepted


def play_game(
    game_map: Map,
    players: Mapping[str, Strategy],
    *,
    seed: int = 0,
    max_year: int | None = None,
    on_phase: Callable[[GameState], None] | None = None,
) -> LocalGame:
    """Play one game to a solo or to the end of `max_year` (its last autumn phase).

    `players` maps each power to its strategy; the seed of power *p* is
    ``seed`` (the phase generator already mixes in the power and the phase).
    """
    engine = Engine(game_map, initial_state(game_map))
    rejections: list[Rejection] = []
    phases = 0
    winner: str | None = None
    while True:
        state = engine.state
        if on_phase is not None:
            on_phase(state)
        orders: dict[str, list[Order]] = {}
        for power in game_map.powers:
            if power in players and owes_orders(state, power):
                view = view_of(game_map, state, power)
                rng = phase_rng(seed, power, state.phase.season, state.phase.year)
                chosen = players[power].orders(view, rng)
                orders[power] = _accepted(engine, power, chosen, rejections)
        outcome = engine.advance(orders)
        _observe(players, state, orders)
        phases += 1
        engine = outcome.engine
        if outcome.solo is not None:
            winner = outcome.solo
            break
        if max_year is not None and _past(engine.state, max_year):
            break
    return LocalGame(state=engine.state, winner=winner, phases=phases, rejections=rejections)


def _observe(players: Mapping[str, Strategy], state: GameState,
             orders: Mapping[str, Sequence[Order]]) -> None:
    """Show a strategy that learns (one with ``observe``) every power's orders of the
    phase, as a client learns them from the ORD results (`bots.client`)."""
    given = [order for power in sorted(orders) for order in orders[power]]
    for strategy in {id(s): s for s in players.values()}.values():
        observe = getattr(strategy, "observe", None)
        if observe is not None:
            observe(state.phase.season, state.phase.year, given)


def _past(state: GameState, max_year: int) -> bool:
    """True once the last autumn phase of `max_year` is behind (the server's max-year draw)."""
    phase = state.phase
    return phase.year > max_year or (phase.year == max_year and phase.season == "WIN")
