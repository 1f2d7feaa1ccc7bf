"""Rule choices: the DATC issues (chapter 4) as one frozen value.

A :class:`Rulebook` maps every DATC issue id (``'4.A.1'`` ... ``'4.E.6'``) to
the chosen interpretation (the letter of the DATC v2.4 text, or a named
rule).  :data:`DATC_2_4` holds the preferences of DATC v2.4 (the default;
the DATC editions are listed in ``docs/references.md``); :data:`DATC_3_0` the 2023-rulebook
preferences of DATC v3.0.  ``docs/datc-issues.md`` explains how each issue
is handled over DAIDE.

Only choices that the engine implements are accepted: issues settled by the
DAIDE grammar or the THX notes accept just the letter describing that
behaviour.  Per-game options that are not DATC issues (AOA, docs/protocol.md §9.2;
the French adjudicator's expedited removal of players, a house rule:
docs/adjudication-conventions.md) live here too, so one value carries "the
rules of this game".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

#: The DATC v2.4 preferences (DATC v2.4, chapter 4).
_V24: dict[str, str] = {
    "4.A.1": "b",  # multi-route convoy: disrupted only when all routes are
    "4.A.2": "d",  # convoy paradoxes: Szykman rule
    "4.A.3": "d",  # convoy to adjacent place: intent (CTO), land route as fallback
    "4.A.4": "a",  # convoyed attack from the supported target does not cut
    "4.A.5": "b",  # may retreat to the origin of a convoyed attacker
    "4.A.6": "b",  # VIA path allowed, not required (ignored at adjudication)
    "4.A.7": "b",  # a dislodged unit loses effect only after a head-to-head battle
    "4.B.1": "a",
    "4.B.2": "a",
    "4.B.3": "b",
    "4.B.4": "d",
    "4.B.5": "b",
    "4.B.6": "b",
    "4.B.7": "a",
    "4.C.1": "b",
    "4.C.2": "b",
    "4.C.3": "c",
    "4.C.4": "a",
    "4.C.5": "b",
    "4.C.6": "b",
    "4.D.1": "c",
    "4.D.2": "b",
    "4.D.3": "c",
    "4.D.4": "b",
    "4.D.5": "b",
    "4.D.6": "b",
    "4.D.7": "a",
    "4.D.8": "d",
    "4.D.9": "b",
    "4.E.1": "d",
    "4.E.2": "d",
    "4.E.3": "b",
    "4.E.4": "b",
    "4.E.5": "c",
    "4.E.6": "remove",
}

#: DATC v3.0 (2023 rulebook): no land fallback for an explicit convoy to an
#: adjacent province (6.G.8, 6.G.20: choice e of v2.4 = explicit adjacent
#: convoying), the 2023 civil-disorder removal rule, orders judged one by one.
#: Legality (4.E.1) as defined by v3.0: a convoy order whose fleet no convoy
#: route needs is illegal too (6.F.12, 6.G.19); named "2023" here.
_V30: dict[str, str] = dict(
    _V24, **{"4.A.3": "e", "4.A.6": "a", "4.D.8": "2023", "4.E.1": "2023", "4.E.2": "a"}
)

#: Choices the engine can play, per issue (anything else is refused).
SUPPORTED: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        **{issue: frozenset({choice}) for issue, choice in _V24.items()},
        "4.A.1": frozenset({"a", "b"}),
        "4.A.3": frozenset({"d", "e"}),
        "4.A.4": frozenset({"a", "b"}),
        "4.A.5": frozenset({"a", "b"}),
        "4.A.6": frozenset({"a", "b"}),
        "4.A.7": frozenset({"a", "b"}),
        "4.D.8": frozenset({"d", "2023"}),
        "4.E.1": frozenset({"d", "2023"}),
        "4.E.2": frozenset({"a", "d"}),
    }
)


@dataclass(frozen=True)
class Rulebook:
    """The rule choices of a game.

    ``choices`` maps each DATC issue to its choice; ``aoa`` is the DAIDE
    "any orders accepted" option (docs/protocol.md §9.2, 10): every grammatical
    order gets THX MBV and an order that fails the checks holds (disbands,
    is ignored) with its note shown as its ORD result.  ``expedite`` is the
    French adjudicator's expedited removal of players (a house rule, off by
    default; :mod:`adjudicator.expedite`): a power whose orders cannot matter
    loses its dislodged units at the autumn moves and its units at the year's
    end, so that nobody waits for its retreats or removals.
    """

    name: str = "datc-2.4"
    choices: Mapping[str, str] = field(default_factory=lambda: MappingProxyType(dict(_V24)))
    aoa: bool = False
    expedite: bool = False

    def __post_init__(self) -> None:
        merged = dict(_V24)
        merged.update(self.choices)
        for issue, choice in merged.items():
            allowed = SUPPORTED.get(issue)
            if allowed is None:
                raise ValueError(f"unknown DATC issue {issue!r}")
            if choice not in allowed:
                raise ValueError(
                    f"choice {choice!r} for issue {issue} is not supported "
                    f"(supported: {', '.join(sorted(allowed))})"
                )
        object.__setattr__(self, "choices", MappingProxyType(merged))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.choices.items())), self.aoa, self.expedite))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rulebook):
            return NotImplemented
        return (self.name, dict(self.choices), self.aoa, self.expedite) == (
            other.name,
            dict(other.choices),
            other.aoa,
            other.expedite,
        )

    @classmethod
    def preset(cls, name: str) -> Rulebook:
        """``'datc-2.4'`` (default) or ``'datc-3.0'``."""
        if name == "datc-2.4":
            return DATC_2_4
        if name == "datc-3.0":
            return DATC_3_0
        raise ValueError(f"unknown rulebook preset {name!r} (datc-2.4, datc-3.0)")

    def choice(self, issue: str) -> str:
        """The choice for a DATC issue id such as ``'4.A.2'``."""
        return self.choices[issue]

    def with_choice(self, issue: str, choice: str) -> Rulebook:
        """A copy with one issue overridden (``RULES datc-2.4 4.A.5=a``)."""
        choices = dict(self.choices)
        choices[issue] = choice
        return replace(self, name=f"{self.name} {issue}={choice}", choices=choices)

    def with_aoa(self, aoa: bool = True) -> Rulebook:
        """A copy with the AOA game option switched on or off."""
        return replace(self, aoa=aoa)

    def with_expedite(self, expedite: bool = True) -> Rulebook:
        """A copy with the expedited removal of players switched on or off."""
        return replace(self, expedite=expedite)

    # -- the switches the engine reads --------------------------------------

    @property
    def any_route_disrupts(self) -> bool:
        """4.A.1 a: a convoy fails when any of its routes is disrupted."""
        return self.choices["4.A.1"] == "a"

    @property
    def adjacent_convoy_land_fallback(self) -> bool:
        """4.A.3 d: a CTO to an adjacent place without any ordered route moves by land."""
        return self.choices["4.A.3"] == "d"

    @property
    def convoy_from_target_cuts(self) -> bool:
        """4.A.4 b: a convoyed attack from the supported move's target cuts the support."""
        return self.choices["4.A.4"] == "b"

    @property
    def retreat_to_convoy_origin(self) -> bool:
        """4.A.5 b: may retreat to where a convoyed attacker came from."""
        return self.choices["4.A.5"] == "b"

    @property
    def dislodged_prevents_unless_head_to_head(self) -> bool:
        """4.A.7 b: only a head-to-head loss takes away a dislodged unit's prevent strength."""
        return self.choices["4.A.7"] == "b"

    @property
    def convoy_must_be_on_route(self) -> bool:
        """4.E.1 as in v3.0 (6.G.19): a CVY whose fleet no convoy route needs
        is illegal (v2.4: the fleet's group of fleet-held seas must join the
        army and the destination)."""
        return self.choices["4.E.1"] == "2023"

    @property
    def civil_disorder_rule(self) -> str:
        """4.D.8: ``'d'`` (the Player's Technical Guide: distances to home centres) or ``'2023'``."""
        return self.choices["4.D.8"]


DATC_2_4 = Rulebook("datc-2.4", MappingProxyType(dict(_V24)))
DATC_3_0 = Rulebook("datc-3.0", MappingProxyType(dict(_V30)))
DEFAULT = DATC_2_4

__all__ = ["DATC_2_4", "DATC_3_0", "DEFAULT", "Rulebook", "SUPPORTED"]
