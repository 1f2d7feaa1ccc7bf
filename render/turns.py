"""A turn in players' words: ``SPR 1901`` is "Spring 1901", ``WIN 1901`` "Winter adjustments 1901".

DAIDE names a phase by its season token and year (docs/protocol.md §6.6);
people name the season and, for the two phases that are not moves, what is
played in it: the retreats after each season of moves and the adjustments
(builds and removals) of winter.  The web page says the same
(``web/words.js``, its English seasons), so a picture's title reads alike
wherever it is drawn.
"""

from __future__ import annotations

#: DAIDE's season tokens in players' words: movement seasons by name, retreats and
#: adjustments named as the phase they are.
SEASON_WORDS = {"SPR": "Spring", "SUM": "Summer retreats", "FAL": "Fall",
                "AUT": "Fall retreats", "WIN": "Winter adjustments"}


def turn_words(turn: str) -> str:
    """``"SPR 1901"`` -> ``"Spring 1901"``; text that is not a turn is returned as it is."""
    parts = turn.split()
    if len(parts) == 2 and parts[0] in SEASON_WORDS:
        return f"{SEASON_WORDS[parts[0]]} {parts[1]}"
    return turn


__all__ = ["SEASON_WORDS", "turn_words"]
