"""The short scripted games of ``daide check-bot``, each chosen to need something.

Each `Scenario` is one game on its own embedded server: the bot under test
plays ``power``; the other seats are the project's HoldBot, in process.  A
game starts from the map's start or from a position (``GameSettings.start``,
as ``daide serve --start-from``) that puts the bot at once in the phase kind
to check - the standard map's positions are the DATC v3.0 cases' where one
fits (named with each) - and ends by the max-year rule (a DRW, SMR and OFF)
or, in ``solo``, by another power's solo (SLO, SMR, OFF).

``action`` is what the checker does besides relaying: ``inject`` sends the
bot, one at a time, the messages of `injections`; ``drop`` cuts its
connection once its first orders were answered.  ``pacer`` names a seat that
waits ``pace`` seconds before ordering, so the phase stays open meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every centre of the standard map but Russia's four (for the DATC's adjustment cases).
_NEUTRAL_BUT_RUS = ("ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON LVP MAR MUN NAP NWY PAR "
                    "POR ROM RUM SER SMY SPA SWE TRI TUN VEN VIE")


@dataclass(frozen=True)
class Scenario:
    """One short game (see the module docstring)."""

    key: str
    title: str
    power: str | None = None        # None: the variant's first power
    start: str | None = None        # NOW / SCO text; None: the map's start
    variant: str | None = None      # None: standard; "*": the --variant of the run
    bot_joins_first: bool = False
    years: int = 1                  # the game ends after this many years' autumns
    pacer: str | None = None
    pace: float = 0.0
    action: str | None = None       # "inject" or "drop"


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("join-at-once", "the map's start; the game begins as the bot joins (last)",
             power="FRA"),
    Scenario("join-waits", "a retreat with options (DATC 6.H.1); the bot joins first and "
                           "waits for the other players", power="TUR", bot_joins_first=True,
             start="NOW ( SUM 1901 ) ( AUS FLT TRI MRT ( ADR ALB ) ) ( AUS AMY SER ) "
                   "( TUR FLT GRE MRT ( ALB ( BUL SCS ) ) ) ( ITA AMY VEN ) ( ITA AMY TRI ) "
                   "( ITA FLT GRE ) ( ITA FLT AEG )"),
    Scenario("retreat-nowhere", "a dislodged unit with nowhere to go (DATC 6.D.8)", power="TUR",
             start="NOW ( SUM 1901 ) ( AUS FLT ION ) ( AUS AMY SER ) ( AUS AMY GRE ) "
                   "( TUR AMY GRE MRT ( ) ) ( TUR AMY BUL )"),
    Scenario("builds", "two builds owed (DATC 6.I.7)", power="RUS", years=2,
             start=f"SCO ( RUS MOS SEV STP WAR ) ( UNO {_NEUTRAL_BUT_RUS} )\n"
                   "NOW ( WIN 1901 ) ( RUS FLT SEV ) ( RUS AMY WAR )"),
    Scenario("builds-no-home", "a build owed with no free home centre (DATC 6.I.3, Munich "
                               "occupied too)", power="GER", years=2,
             start="SCO ( GER BER DEN KIE MUN ) ( UNO ANK BEL BRE BUD BUL CON EDI GRE HOL LON "
                   "LVP MAR MOS NAP NWY PAR POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN "
                   "VIE WAR )\n"
                   "NOW ( WIN 1901 ) ( GER AMY BER ) ( GER FLT KIE ) ( GER AMY MUN )"),
    Scenario("removals", "two removals owed (DATC 6.J.2)", power="FRA", years=2,
             start="SCO ( FRA PAR ) ( UNO ANK BEL BER BRE BUD BUL CON DEN EDI GRE HOL KIE LON "
                   "LVP MAR MOS MUN NAP NWY POR ROM RUM SER SEV SMY SPA STP SWE TRI TUN VEN VIE "
                   "WAR )\n"
                   "NOW ( WIN 1901 ) ( FRA AMY PAR ) ( FRA AMY PIC ) ( FRA AMY MUN )"),
    Scenario("no-units", "a movement phase with centres but no units", power="ENG",
             start="SCO ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN ) ( UNO ANK "
                   "BEL BUD BUL CON DEN GRE HOL MOS NAP NWY POR ROM RUM SER SEV SMY SPA STP SWE "
                   "TRI TUN VEN VIE WAR )\n"
                   "NOW ( FAL 1901 ) ( FRA AMY PAR ) ( FRA FLT BRE ) ( GER AMY MUN ) "
                   "( GER FLT KIE )"),
    Scenario("solo", "another power's solo at the end of the year (SLO)", power="ENG",
             start="SCO ( ENG LON ) ( RUS ANK BER BUD BUL CON DEN GRE KIE MOS MUN RUM SER SEV "
                   "SMY STP SWE WAR ) ( UNO BEL BRE EDI HOL LVP MAR NAP PAR POR ROM SPA TRI TUN "
                   "VEN VIE )\n"
                   "NOW ( AUT 1901 ) ( ENG FLT LON ) ( RUS AMY ANK ) ( RUS AMY BER ) "
                   "( RUS AMY BUD ) ( RUS AMY BUL ) ( RUS AMY CON ) ( RUS AMY DEN ) "
                   "( RUS AMY GRE ) ( RUS AMY KIE ) ( RUS AMY MOS ) ( RUS AMY MUN ) "
                   "( RUS AMY RUM ) ( RUS AMY SER ) ( RUS AMY SEV ) ( RUS AMY SMY ) "
                   "( RUS AMY STP ) ( RUS AMY SWE ) ( RUS AMY WAR ) ( RUS AMY NWY )"),
    Scenario("robustness", "the map's start; messages the bot did not expect, one at a time",
             power="ITA", pacer="AUS", pace=2.5, action="inject"),
    Scenario("reconnect", "the map's start; the connection dropped after the bot's orders",
             power="AUS", pacer="ENG", pace=2.5, action="drop"),
    Scenario("variant", "two years of another variant", variant="*", years=2),
)

SCENARIO_KEYS: tuple[str, ...] = tuple(s.key for s in SCENARIOS)


@dataclass(frozen=True)
class Injection:
    """A message the checker sends the bot as if from the server (``{me}``: the
    bot's power, ``{other}``: another power)."""

    key: str
    label: str
    text: str
    raw: tuple[int, ...] | None = None   # tokens, when the text cannot be encoded


INJECTIONS: tuple[Injection, ...] = (
    Injection("unknown", "an unknown message (a command token no DAIDE version defines)",
              "0x4830 ( 1 )", raw=(0x4830, 0x4000, 1, 0x4001)),
    Injection("malformed", "a malformed message (one bracket too many)",
              "NOW ( SPR 1901 ) ( {me} AMY PAR ) )"),
    Injection("press", "press at a level the bot did not ask for",
              "FRM ( {other} ) ( {me} ) ( PRP ( PCE ( {other} {me} ) ) )"),
    Injection("adm", "an ADM line", "ADM ( 'Server' ) ( 'The game master says hello.' )"),
    Injection("ccd", "another power in civil disorder (CCD)", "CCD ( {other} )"),
    Injection("not-ccd", "another power back from civil disorder (NOT (CCD))",
              "NOT ( CCD ( {other} ) )"),
)


def select(keys: str | None) -> tuple[Scenario, ...]:
    """The scenarios named in a comma-separated list (all for None); ValueError for an unknown one."""
    if keys is None:
        return SCENARIOS
    wanted = [k.strip() for k in keys.split(",") if k.strip()]
    unknown = [k for k in wanted if k not in SCENARIO_KEYS]
    if unknown or not wanted:
        raise ValueError(f"unknown scenario {', '.join(unknown) or '(none)'}: "
                         f"choose from {', '.join(SCENARIO_KEYS)}")
    return tuple(s for s in SCENARIOS if s.key in wanted)


__all__ = ["INJECTIONS", "SCENARIOS", "SCENARIO_KEYS", "Injection", "Scenario", "select"]
