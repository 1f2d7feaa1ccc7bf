"""How a game ends: solo, agreed draw, or a house rule; and the SMR summary.

House rules (all off by default, `server.settings.GameSettings`):

* the Technical Guide's draw (the Diplomacy Player's Technical Guide,
  chapter II; docs/references.md): the game is drawn when ``N``
  consecutive year-ends have each seen no supply centre change owner;
* maximum year: the game is drawn when that year's last autumn phase has
  been processed (the Guide's "thirty-five game years" = 1935);
* the French adjudicator's refereeing convention 2(a) (docs/references.md): the game is stopped when the centre
  ownership table is the same after three consecutive years.

A house-rule end comes right after the year's ownership update, so the
final adjustments are skipped (the Guide's chapter II: "the ending year skips the
meaningless final adjustments").  The server announces it as a draw
(``DRW``) among the survivors, then SMR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from protocol.messages import Drw
from server.settings import UNCHANGED_STOP_YEARS, GameSettings

Turn = tuple[str, int]
YearTable = tuple[int, Mapping[str, str]]


@dataclass(frozen=True)
class Ending:
    """The end of a game: its kind, the winner(s) and the final turn."""

    kind: str                      # "solo", "draw", "max-year", "idle-years", "unchanged"
    powers: frozenset[str]
    turn: Turn
    partial: bool = False          # a PDA draw among some survivors only

    @classmethod
    def solo(cls, power: str, turn: Turn) -> Ending:
        return cls("solo", frozenset([power]), turn)

    @classmethod
    def agreed(cls, powers: frozenset[str], survivors: frozenset[str], turn: Turn) -> Ending:
        return cls("draw", powers, turn, partial=powers != survivors)

    @property
    def draw(self) -> bool:
        return self.kind != "solo"

    def draw_message(self) -> Drw:
        """``DRW`` (all survivors), or ``DRW (powers)`` for a partial draw (docs/protocol.md §16.2)."""
        return Drw(tuple(sorted(self.powers)) if self.partial else ())


@dataclass(frozen=True)
class HouseRules:
    """The house rules in force in one game."""

    idle_years: int | None = None
    max_year: int | None = None

    @classmethod
    def from_settings(cls, settings: GameSettings) -> HouseRules:
        limits = [n for n in (settings.idle_years_draw,
                              UNCHANGED_STOP_YEARS if settings.stop_unchanged else None)
                  if n is not None]
        return cls(idle_years=min(limits, default=None), max_year=settings.max_year)

    def check(self, tables: Sequence[YearTable], survivors: frozenset[str],
              turn: Turn) -> Ending | None:
        """After a year-end: the ending a house rule imposes, or None.

        ``tables`` holds the ownership after every year-end, preceded by the
        starting ownership.
        """
        if self.max_year is not None and turn[1] >= self.max_year:
            return Ending("max-year", survivors, turn)
        if self.idle_years is not None and idle_years(tables) >= self.idle_years:
            kind = "idle-years"
            return Ending(kind, survivors, turn)
        return None


def idle_years(tables: Sequence[YearTable]) -> int:
    """How many consecutive year-ends, counting back from the last, changed no owner."""
    count = 0
    for index in range(len(tables) - 1, 0, -1):
        if tables[index][1] != tables[index - 1][1]:
            break
        count += 1
    return count


def elimination_years(powers: Sequence[str], tables: Sequence[YearTable],
                      counts: Mapping[str, int]) -> dict[str, int]:
    """For each power without centres: the year-end at which it lost its last one."""
    years: dict[str, int] = {}
    for power in powers:
        if counts.get(power, 0):
            continue
        year = tables[-1][0] if tables else 0
        for table_year, owners in reversed(tables):
            if power in owners.values():
                break
            year = table_year
        years[power] = year
    return years
