"""What a client knows about its game, updated message by message (sans-IO).

`GameTracker` is fed every message the server sends, as a `protocol.tree`
tree, and keeps the latest HLO (power, passcode, variant options), SCO, NOW,
the ORD results of the last processed phase, deadlines (TME), civil-disorder
notices and the end of the game (SLO, DRW, SMR).  It turns the latest NOW
and SCO into the `BoardView` a strategy is given.  It does no I/O, so it is
tested with plain messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.board import ADJUSTMENT, MOVEMENT, RETREAT, BoardUnit, BoardView
from bots.geography import Geography, Node
from maps.model import Map
from protocol.orders import Turn  # ``season year``; str() is "SPR 1901"

Tree = tuple[Any, ...]


def node_of(location: Any) -> Node:
    """`province` or `(province coast)` as a node."""
    if isinstance(location, tuple):
        return (str(location[0]), str(location[1]))
    return (str(location), None)


def unit_of(tree: tuple[Any, ...]) -> BoardUnit:
    """A NOW unit group, `power type location [MRT (location ...)]`."""
    retreats = None
    if len(tree) > 3 and tree[3] == "MRT":
        retreats = tuple(node_of(x) for x in tree[4])
    return BoardUnit(power=str(tree[0]), kind=str(tree[1]), node=node_of(tree[2]),
                     retreats=retreats)


@dataclass(frozen=True)
class TrackedPosition:
    """One NOW: the turn and every unit, dislodged ones apart."""

    turn: Turn
    units: tuple[BoardUnit, ...]
    dislodged: tuple[BoardUnit, ...]

    @classmethod
    def from_now(cls, message: Tree) -> TrackedPosition:
        season, year = message[1]
        units: list[BoardUnit] = []
        dislodged: list[BoardUnit] = []
        for group in message[2:]:
            unit = unit_of(group)
            (dislodged if unit.retreats is not None else units).append(unit)
        return cls(Turn(str(season), int(year)), tuple(units), tuple(dislodged))


def ownership_of(message: Tree) -> dict[str, str | None]:
    """SCO groups as centre -> owner (None for UNO)."""
    owners: dict[str, str | None] = {}
    for group in message[1:]:
        owner = None if group[0] == "UNO" else str(group[0])
        for centre in group[1:]:
            owners[str(centre)] = owner
    return owners


@dataclass(frozen=True)
class GameEnd:
    """How the game ended: a solo (winner set) or a draw (winner None)."""

    winner: str | None
    turn: Turn | None
    draw_powers: tuple[str, ...] = ()


@dataclass
class GameTracker:
    """The client's knowledge of one game (see the module docstring)."""

    geography: Geography | None = None
    game_map: Map | None = None
    """The map built from the server's MDF; its ``rep`` is the representation
    the MDF came in (the RM's tokens, docs/protocol.md §4.2), None over a transport
    that does not say."""
    map_name: str | None = None
    power: str | None = None
    passcode: int | None = None
    variant: tuple[Any, ...] = ()
    ownership: Mapping[str, str | None] = field(default_factory=dict)
    position: TrackedPosition | None = None
    results: list[Tree] = field(default_factory=list)
    """ORD messages of the last processed phase."""
    deadline: int | None = None
    """Seconds to the deadline from the last TME (None: no deadlines seen)."""
    disorder: set[str] = field(default_factory=set)
    end: GameEnd | None = None
    summary: Tree | None = None
    _results_turn: Turn | None = None

    @property
    def started(self) -> bool:
        return self.power is not None

    @property
    def level(self) -> int:
        """The press level from HLO (0 before HLO)."""
        for option in self.variant:
            if isinstance(option, tuple) and option and option[0] == "LVL":
                return int(option[1])
        return 0

    def on_message(self, message: Tree) -> None:
        """Update from one server message (unknown kinds are ignored here)."""
        head = message[0]
        if head == "HLO":
            self.power = str(message[1][0])
            self.passcode = int(message[2][0])
            self.variant = tuple(message[3])
        elif head == "SCO":
            self.ownership = ownership_of(message)
        elif head == "NOW":
            self.position = TrackedPosition.from_now(message)
        elif head == "ORD":
            season, year = message[1]
            turn = Turn(str(season), int(year))
            if turn != self._results_turn:
                self.results = []
                self._results_turn = turn
            self.results.append(message)
        elif head == "TME" and len(message) > 1:
            self.deadline = int(message[1][0])
        elif head == "CCD":
            self.disorder.add(str(message[1][0]))
        elif head == "NOT" and isinstance(message[1], tuple) and message[1][0] == "CCD":
            self.disorder.discard(str(message[1][1][0]))
        elif head == "SLO":
            now = self.position.turn if self.position else None
            self.end = GameEnd(winner=str(message[1][0]), turn=now)
        elif head == "DRW":
            now = self.position.turn if self.position else None
            powers = tuple(str(p) for p in message[1]) if len(message) > 1 else ()
            self.end = GameEnd(winner=None, turn=now, draw_powers=powers)
        elif head == "SMR":
            self.summary = message

    # -- what is owed ---------------------------------------------------------

    def owes_orders(self) -> bool:
        """Whether our power has something to order in the current phase."""
        if self.power is None or self.position is None or self.end is not None:
            return False
        view = self.view()
        kind = view.phase_kind
        if kind == MOVEMENT:
            return bool(view.my_units)
        if kind == RETREAT:
            return bool(view.my_dislodged)
        assert kind == ADJUSTMENT
        return view.adjustment != 0

    def view(self) -> BoardView:
        """The strategy's view of the current position."""
        if self.geography is None or self.position is None or self.power is None:
            raise RuntimeError("no map, position or power yet")
        return BoardView(
            geography=self.geography,
            power=self.power,
            season=self.position.turn.season,
            year=self.position.turn.year,
            units=self.position.units,
            dislodged=self.position.dislodged,
            owners=dict(self.ownership),
        )
