"""A turn in players' words: ``SPR 1901`` is "Spring 1901", ``WIN 1901`` "Winter adjustments 1901".

Both ways: `turn_words` writes a DAIDE turn in words, `turn_from_text` reads
what a person types (either form) back into DAIDE's.

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


#: What people type for a season: the words above, and the season alone where
#: it names one phase (Summer is only retreats, Winter only adjustments).
_TYPED = {**{words.lower(): season for season, words in SEASON_WORDS.items()},
          "summer": "SUM", "winter": "WIN"}


def turn_from_text(text: str) -> str | None:
    """A turn typed as DAIDE writes it (``spr 1901``) or in words (``Spring 1901``,
    ``Fall retreats 1901``) as DAIDE's ``SPR 1901``; None when it is neither."""
    parts = text.split()
    if len(parts) < 2 or not parts[-1].isdigit():
        return None
    season = " ".join(parts[:-1])
    code = season.upper() if season.upper() in SEASON_WORDS else _TYPED.get(season.lower())
    return None if code is None else f"{code} {int(parts[-1])}"


__all__ = ["SEASON_WORDS", "turn_from_text", "turn_words"]
