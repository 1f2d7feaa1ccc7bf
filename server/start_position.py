"""The position a game starts from: the map's, or one the host gave.

`GameSettings.start` holds ``NOW (...)`` and ``SCO (...)`` in DAIDE text
(``daide serve --start-from FILE``; `engine.start_text`); without it a game
starts from the variant's own start.  The rulebook follows the game's rule
settings (AOA, the expedited removal of players).  A start the map cannot
hold is a `SettingsError` of one line: `check_start` says so before a server
takes any game.
"""

from __future__ import annotations

from adjudicator.rulebook import DEFAULT, Rulebook
from engine.phase_text import InputError
from engine.position import Engine
from engine.start_text import read_start
from engine.variants import Variant
from server.settings import GameSettings, SettingsError


def rulebook_of(settings: GameSettings) -> Rulebook:
    """The adjudicator's rules for a game of these settings."""
    return DEFAULT.with_aoa(settings.aoa).with_expedite(settings.expedite)


def starting_engine(variant: Variant, settings: GameSettings) -> Engine:
    """The engine of a new game of ``variant`` with ``settings``."""
    if settings.start is not None:
        return start_from(variant, settings.start, rulebook_of(settings))
    return variant.start(rulebook_of(settings))


def start_from(variant: Variant, text: str, rulebook: Rulebook) -> Engine:
    """The engine of a game starting from the position in ``text``; SettingsError if it cannot."""
    try:
        return read_start(variant, text, rulebook)
    except InputError as exc:
        raise SettingsError(f"start position: {exc}") from None


def check_start(variant: Variant, settings: GameSettings) -> None:
    """SettingsError (one line) unless a game of ``settings`` can start."""
    starting_engine(variant, settings)
