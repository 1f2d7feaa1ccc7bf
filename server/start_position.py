"""The position a game starts from: the map's, or one the host gave.

`GameSettings.start` holds ``NOW (...)`` and ``SCO (...)`` in DAIDE text
(``daide serve --start-from FILE``); without it a game starts from the
variant's own start.  The rulebook follows the game's rule settings (AOA).
"""

from __future__ import annotations

from adjudicator.rulebook import DEFAULT, Rulebook
from engine.position import Engine
from engine.variants import Variant
from server.settings import GameSettings


def rulebook_of(settings: GameSettings) -> Rulebook:
    """The adjudicator's rules for a game of these settings."""
    return DEFAULT.with_aoa(settings.aoa)


def starting_engine(variant: Variant, settings: GameSettings) -> Engine:
    """The engine of a new game of ``variant`` with ``settings``."""
    return variant.start(rulebook_of(settings))
