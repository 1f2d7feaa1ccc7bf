"""A scripted game for the server tests: 1901 with real moves, a retreat and builds.

`play_script` drives seven `ScriptClient`s through the phases in `SCRIPT`
(holds for whatever a power has no script for in a movement phase) until
the NOW of ``until`` arrives.  The script's results were checked by hand
against the rules: a bounce in Galicia, a supported attack dislodging the
Turkish army in Bulgaria (AUT 1901 retreat to Constantinople), and the
ownership of the end of 1901:

    AUS BUD GRE SER TRI VIE / ENG EDI LON LVP NWY / FRA BEL BRE MAR PAR POR
    SPA / GER BER DEN HOL KIE MUN / ITA NAP ROM TUN VEN / RUS BUL MOS SEV
    STP SWE WAR / TUR ANK CON SMY / UNO RUM
"""

from __future__ import annotations

from protocol.text import tree_from_text
from tests.server_helpers import ScriptClient, holds

SCRIPT: dict[str, dict[str, str]] = {
    "SPR 1901": {
        "ENG": "SUB ( ( ENG FLT LON ) MTO NTH ) ( ( ENG FLT EDI ) MTO NWG ) ( ( ENG AMY LVP ) MTO YOR )",
        "FRA": "SUB ( ( FRA FLT BRE ) MTO MAO ) ( ( FRA AMY PAR ) MTO BUR ) ( ( FRA AMY MAR ) MTO SPA )",
        "GER": "SUB ( ( GER FLT KIE ) MTO DEN ) ( ( GER AMY BER ) MTO KIE ) ( ( GER AMY MUN ) MTO RUH )",
        "ITA": "SUB ( ( ITA FLT NAP ) MTO ION ) ( ( ITA AMY ROM ) MTO APU ) ( ( ITA AMY VEN ) HLD )",
        "AUS": "SUB ( ( AUS AMY VIE ) MTO GAL ) ( ( AUS AMY BUD ) MTO SER ) ( ( AUS FLT TRI ) MTO ALB )",
        "RUS": "SUB ( ( RUS AMY WAR ) MTO GAL ) ( ( RUS FLT SEV ) MTO RUM )"
               " ( ( RUS FLT ( STP SCS ) ) MTO GOB ) ( ( RUS AMY MOS ) MTO UKR )",
        "TUR": "SUB ( ( TUR FLT ANK ) MTO BLA ) ( ( TUR AMY CON ) MTO BUL ) ( ( TUR AMY SMY ) MTO ARM )",
    },
    "FAL 1901": {
        "ENG": "SUB ( ( ENG FLT NTH ) MTO NWY ) ( ( ENG FLT NWG ) HLD ) ( ( ENG AMY YOR ) HLD )",
        "FRA": "SUB ( ( FRA FLT MAO ) MTO POR ) ( ( FRA AMY BUR ) MTO BEL ) ( ( FRA AMY SPA ) HLD )",
        "GER": "SUB ( ( GER FLT DEN ) HLD ) ( ( GER AMY KIE ) MTO HOL ) ( ( GER AMY RUH ) HLD )",
        "ITA": "SUB ( ( ITA FLT ION ) MTO TUN ) ( ( ITA AMY APU ) HLD ) ( ( ITA AMY VEN ) HLD )",
        "AUS": "SUB ( ( AUS AMY VIE ) HLD ) ( ( AUS AMY SER ) SUP ( RUS FLT RUM ) MTO BUL )"
               " ( ( AUS FLT ALB ) MTO GRE )",
        "RUS": "SUB ( ( RUS AMY WAR ) HLD ) ( ( RUS FLT RUM ) MTO ( BUL ECS ) )"
               " ( ( RUS FLT GOB ) MTO SWE ) ( ( RUS AMY UKR ) HLD )",
        "TUR": "SUB ( ( TUR FLT BLA ) HLD ) ( ( TUR AMY BUL ) HLD ) ( ( TUR AMY ARM ) HLD )",
    },
    "AUT 1901": {"TUR": "SUB ( ( TUR AMY BUL ) RTO CON )"},
    "WIN 1901": {
        "AUS": "SUB ( AUS WVE ) ( AUS WVE )",
        "ENG": "SUB ( ( ENG FLT LON ) BLD )",
        "FRA": "SUB ( ( FRA AMY PAR ) BLD ) ( FRA WVE ) ( FRA WVE )",
        "GER": "SUB ( GER WVE ) ( GER WVE )",
        "ITA": "SUB ( ITA WVE )",
        "RUS": "SUB ( RUS WVE ) ( RUS WVE )",
    },
}

END_OF_1901_SCO = (
    "SCO ( AUS BUD GRE SER TRI VIE ) ( ENG EDI LON LVP NWY ) ( FRA BEL BRE MAR PAR POR SPA )"
    " ( GER BER DEN HOL KIE MUN ) ( ITA NAP ROM TUN VEN ) ( RUS BUL MOS SEV STP SWE WAR )"
    " ( TUR ANK CON SMY ) ( UNO RUM )")


def turn_of(now: str) -> str:
    """``SPR 1901`` from ``NOW ( SPR 1901 ) ...``."""
    return " ".join(now.split()[2:4])


def orders_for(turn: str, power: str, now: str) -> str | None:
    """The scripted SUB of a power for a turn (holds in movement phases by default)."""
    scripted = SCRIPT.get(turn, {}).get(power)
    if scripted is None and turn.startswith(("SPR", "FAL")):
        return holds(now, power)
    return scripted


async def submit(clients: dict[str, ScriptClient], now: str,
                 powers: tuple[str, ...] | None = None) -> None:
    """Every (listed) power sends its scripted orders for the NOW's turn and reads the THXs."""
    turn = turn_of(now)
    for power in powers or tuple(clients):
        sub = orders_for(turn, power, now)
        if sub is None:
            continue
        client = clients[power]
        await client.send(sub)
        for _ in range(len(tree_from_text(sub)) - 1):      # one THX per order
            assert (await client.receive()).startswith("THX")


async def play_script(clients: dict[str, ScriptClient], until: str) -> str:
    """Play phases until the NOW of ``until``; returns that NOW."""
    now = next(m for m in reversed(clients["ENG"].log) if m.startswith("NOW"))
    while turn_of(now) != until:
        await submit(clients, now)
        for client in clients.values():
            seen = await client.receive_until("NOW")
            now = seen[-1]
    return now
