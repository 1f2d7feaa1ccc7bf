"""Every press construct of docs/protocol.md §16.3 at its level, and ERR placement one level lower.

Each construct is written in the DAIDE text form, parsed at the level that
introduces it into the expected typed value, rendered back to the same
tokens, and rejected one level lower with ERR exactly where the server's
``HUH`` must put it (docs/protocol.md §14.2, 16.1).
"""

from __future__ import annotations

import pytest

from orders import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)
from protocol.errors import GrammarError
from protocol.grammar import token_index
from protocol.press import (
    Accept,
    Alliance,
    Allotment,
    And,
    Cancel,
    CentreDistribution,
    Choose,
    Conditional,
    ConditionalReply,
    Dmz,
    DontKnow,
    DoOrder,
    Draw,
    Explain,
    Fact,
    FactQuery,
    For,
    Forwarded,
    ForwardReceived,
    ForwardSent,
    FreeText,
    GiveControl,
    HowToAttack,
    Insist,
    NoArrangement,
    NoneOfYourBusiness,
    Not,
    NotUnderstood,
    Occupy,
    Orr,
    OwesFavour,
    Peace,
    PositionOnBoard,
    PressBody,
    PressFault,
    PressMessage,
    Propose,
    Query,
    ReceivedPress,
    Reject,
    Reply,
    SendPress,
    SendRequest,
    Solo,
    Sorry,
    Suggest,
    Think,
    ThinkQuery,
    Try,
    Turn,
    WhatShould,
    Why,
    check_level,
    legal_at,
    minimum_level,
    parse_press,
    parse_received,
    parse_send,
    powers_named,
    render_press,
    try_parse_press,
)
from protocol.press_tokens import PRESS_LEVELS
from protocol.text import parse_text, render_text
from protocol.tokens import ERR, Representation
from protocol.tree import from_tree, to_tree, tokens_to_bytes


def A(power: str, province: str) -> Unit:
    return Unit(power, "AMY", Location(province))


def F(power: str, province: str, coast: str | None = None) -> Unit:
    return Unit(power, "FLT", Location(province, coast))


LON_NTH = DoOrder(Move(F("ENG", "LON"), Location("NTH")))
PCE_EF = Peace(("ENG", "FRA"))

# (level, text, value): the construct is introduced at ``level``.
CONSTRUCTS: list[tuple[int, str, PressBody]] = [
    # Level 10: peace and alliances
    (10, "PRP ( PCE ( ENG FRA ) )", Propose(PCE_EF)),
    (10, "PRP ( ALY ( ENG FRA ) VSS ( GER AUS ) )", Propose(Alliance(("ENG", "FRA"), ("GER", "AUS")))),
    (10, "PRP ( DRW )", Propose(Draw())),
    (10, "PRP ( DRW ( ENG FRA RUS ) )", Propose(Draw(("ENG", "FRA", "RUS")))),
    (10, "PRP ( SLO ( TUR ) )", Propose(Solo("TUR"))),
    (10, "PRP ( NOT ( PCE ( ENG FRA ) ) )", Propose(Not(PCE_EF))),
    (10, "PRP ( NAR ( ALY ( ENG ) VSS ( FRA ) ) )", Propose(NoArrangement(Alliance(("ENG",), ("FRA",))))),
    (10, "CCL ( PRP ( DRW ) )", Cancel(Propose(Draw()))),
    (10, "CCL ( YES ( PRP ( DRW ) ) )", Cancel(Accept(Propose(Draw())))),
    (10, "FCT ( NOT ( DRW ) )", Fact(Not(Draw()))),
    (10, "TRY ( PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX FCT CCL )",
     Try(tuple("PRP PCE ALY VSS DRW SLO NOT NAR YES REJ BWX FCT CCL".split()))),
    (10, "TRY ( )", Try(())),
    # Advised against, not forbidden - accepted, as Parlance does (docs/press.md):
    # a double negative (docs/protocol.md §16.2) and the tokens withdrawn in
    # revision 14 in a TRY list (§6.7: "may be received from old software").
    (10, "PRP ( NOT ( NOT ( PCE ( ENG FRA ) ) ) )", Propose(Not(Not(PCE_EF)))),
    (10, "TRY ( PRP IOU PPT UOM )", Try(("PRP", "IOU", "PPT", "UOM"))),
    (10, "YES ( PRP ( PCE ( ENG FRA ) ) )", Accept(Propose(PCE_EF))),
    (10, "REJ ( PRP ( DRW ) )", Reject(Propose(Draw()))),
    (10, "BWX ( FCT ( DRW ) )", NoneOfYourBusiness(Fact(Draw()))),
    (10, "HUH ( ERR PRP ( XDO ( ( ENG FLT LON ) HLD ) ) )",
     NotUnderstood(("ERR", "PRP", ("XDO", (("ENG", "FLT", "LON"), "HLD"))))),
    # Level 20: order proposals - every order form of docs/protocol.md §9.1
    (20, "PRP ( XDO ( ( ENG FLT LON ) MTO NTH ) )", Propose(LON_NTH)),
    (20, "PRP ( XDO ( ( ENG AMY LVP ) HLD ) )", Propose(DoOrder(Hold(A("ENG", "LVP"))))),
    (20, "PRP ( XDO ( ( ENG FLT BAR ) MTO ( STP NCS ) ) )",
     Propose(DoOrder(Move(F("ENG", "BAR"), Location("STP", "NCS"))))),
    (20, "PRP ( XDO ( ( RUS FLT ( STP SCS ) ) HLD ) )",
     Propose(DoOrder(Hold(F("RUS", "STP", "SCS"))))),
    (20, "PRP ( XDO ( ( ENG FLT EDI ) SUP ( ENG FLT LON ) ) )",
     Propose(DoOrder(SupportHold(F("ENG", "EDI"), F("ENG", "LON"))))),
    (20, "PRP ( XDO ( ( ENG FLT NWY ) SUP ( ENG FLT BAR ) MTO STP ) )",
     Propose(DoOrder(SupportMove(F("ENG", "NWY"), F("ENG", "BAR"), "STP")))),
    (20, "PRP ( XDO ( ( ITA FLT ION ) CVY ( ITA AMY TUN ) CTO SYR ) )",
     Propose(DoOrder(Convoy(F("ITA", "ION"), A("ITA", "TUN"), "SYR")))),
    (20, "PRP ( XDO ( ( ITA AMY TUN ) CTO SYR VIA ( ION EAS ) ) )",
     Propose(DoOrder(ConvoyMove(A("ITA", "TUN"), "SYR", ("ION", "EAS"))))),
    (20, "PRP ( XDO ( ( TUR FLT CON ) RTO ( BUL ECS ) ) )",
     Propose(DoOrder(Retreat(F("TUR", "CON"), Location("BUL", "ECS"))))),
    (20, "PRP ( XDO ( ( TUR FLT CON ) DSB ) )", Propose(DoOrder(Disband(F("TUR", "CON"))))),
    (20, "PRP ( XDO ( ( RUS FLT ( STP NCS ) ) BLD ) )",
     Propose(DoOrder(Build(F("RUS", "STP", "NCS"))))),
    (20, "PRP ( XDO ( ( RUS FLT GOB ) REM ) )", Propose(DoOrder(Remove(F("RUS", "GOB"))))),
    (20, "PRP ( XDO ( ITA WVE ) )", Propose(DoOrder(Waive("ITA")))),
    (20, "PRP ( DMZ ( ENG FRA ) ( ECH NTH BEL ) )", Propose(Dmz(("ENG", "FRA"), ("ECH", "NTH", "BEL")))),
    # Level 30: multipart arrangements
    (30, "PRP ( AND ( XDO ( ( ENG FLT LON ) MTO NTH ) ) ( PCE ( ENG FRA ) ) )",
     Propose(And((LON_NTH, PCE_EF)))),
    (30, "PRP ( ORR ( DRW ) ( SLO ( ENG ) ) ( NOT ( PCE ( ENG FRA ) ) ) )",
     Propose(Orr((Draw(), Solo("ENG"), Not(PCE_EF))))),
    (30, "FCT ( NOT ( AND ( DRW ) ( SLO ( ENG ) ) ) )", Fact(Not(And((Draw(), Solo("ENG")))))),
    # Level 40: sharing out supply centres
    (40, "PRP ( SCD ( ENG LON EDI NWY ) ( FRA PAR BEL ) )",
     Propose(CentreDistribution((Allotment("ENG", ("LON", "EDI", "NWY")), Allotment("FRA", ("PAR", "BEL")))))),
    (40, "PRP ( OCC ( ENG UNT BEL ) ( FRA FLT ( SPA NCS ) ) ( GER AMY MUN ) )",
     Propose(Occupy((Unit("ENG", "UNT", Location("BEL")), Unit("FRA", "FLT", Location("SPA", "NCS")), Unit("GER", "AMY", Location("MUN")))))),
    # Level 50: nested multipart arrangements, CHO
    (50, "PRP ( ORR ( XDO ( ( FRA AMY PAR ) MTO PIC ) ) ( AND ( XDO ( ( FRA AMY PAR ) MTO BUR ) ) "
         "( XDO ( ( GER AMY MUN ) MTO BUR ) ) ) )",
     Propose(Orr((DoOrder(Move(A("FRA", "PAR"), Location("PIC"))),
                  And((DoOrder(Move(A("FRA", "PAR"), Location("BUR"))),
                       DoOrder(Move(A("GER", "MUN"), Location("BUR"))))))))),
    (50, "PRP ( CHO ( 2 2 ) ( SCD ( ENG NWY ) ) ( SCD ( ENG DEN ) ) ( SCD ( ENG SWE ) ) )",
     Propose(Choose(2, 2, tuple(CentreDistribution((Allotment("ENG", (c,)),)) for c in ("NWY", "DEN", "SWE"))))),
    # Level 60: queries and insistences
    (60, "INS ( PCE ( ENG FRA ) )", Insist(PCE_EF)),
    (60, "QRY ( ALY ( ENG FRA ) VSS ( GER ) )", Query(Alliance(("ENG", "FRA"), ("GER",)))),
    (60, "SUG ( XDO ( ( RUS FLT SEV ) MTO BLA ) )", Suggest(DoOrder(Move(F("RUS", "SEV"), Location("BLA"))))),
    (60, "THK ( PCE ( ENG FRA ) )", Think(PCE_EF)),
    (60, "THK ( QRY ( PCE ( ENG FRA ) ) )", ThinkQuery(PCE_EF)),
    (60, "THK ( NOT ( QRY ( PCE ( ENG FRA ) ) ) )", ThinkQuery(PCE_EF, negated=True)),
    (60, "FCT ( QRY ( DRW ) )", FactQuery(Draw())),
    (60, "FCT ( NOT ( QRY ( DRW ) ) )", FactQuery(Draw(), negated=True)),
    (60, "IDK ( QRY ( DRW ) )", DontKnow(Query(Draw()))),
    (60, "YES ( INS ( DRW ) )", Accept(Insist(Draw()))),
    # Level 70: requests for suggestions
    (70, "WHT ( ENG FLT LON )", WhatShould(Unit("ENG", "FLT", Location("LON")))),
    (70, "WHT ( RUS FLT ( STP SCS ) )", WhatShould(Unit("RUS", "FLT", Location("STP", "SCS")))),
    (70, "HOW ( MUN )", HowToAttack("MUN")),
    (70, "HOW ( GER )", HowToAttack("GER")),
    (70, "IDK ( WHT ( ENG FLT LON ) )", DontKnow(WhatShould(Unit("ENG", "FLT", Location("LON"))))),
    (70, "BWX ( WHT ( ENG FLT LON ) )", NoneOfYourBusiness(WhatShould(Unit("ENG", "FLT", Location("LON"))))),
    (70, "REJ ( HOW ( MUN ) )", Reject(HowToAttack("MUN"))),
    (70, "IDK ( HOW ( GER ) )", DontKnow(HowToAttack("GER"))),
    # Level 80: accusations
    (80, "EXP ( SPR 1902 ) ( PRP ( PCE ( ENG FRA ) ) )", Explain(Turn("SPR", 1902), Propose(PCE_EF))),
    (80, "EXP ( FAL 1901 ) ( YES ( PRP ( DRW ) ) )", Explain(Turn("FAL", 1901), Accept(Propose(Draw())))),
    (80, "YES ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )", Accept(Explain(Turn("SPR", 1902), Propose(Draw())))),
    (80, "IDK ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )", DontKnow(Explain(Turn("SPR", 1902), Propose(Draw())))),
    (80, "SRY ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )", Sorry(Explain(Turn("SPR", 1902), Propose(Draw())))),
    # Level 90: future discussions
    (90, "PRP ( FOR ( SPR 1902 ) ( XDO ( ( ENG FLT LON ) MTO NTH ) ) )",
     Propose(For(Turn("SPR", 1902), LON_NTH))),
    (90, "PRP ( FOR ( ( SPR 1902 ) ( WIN 1904 ) ) ( NOT ( PCE ( ENG FRA ) ) ) )",
     Propose(For(Turn("SPR", 1902), Not(PCE_EF), Turn("WIN", 1904)))),
    (90, "FCT ( NOT ( FOR ( ( SPR 1902 ) ( FAL 1902 ) ) ( DRW ) ) )",
     Fact(Not(For(Turn("SPR", 1902), Draw(), Turn("FAL", 1902))))),
    # Level 100: conditionals (the DN doc's example, and IFF as a reply)
    (100, "IFF ( NOT ( XDO ( ( RUS FLT ( STP NCS ) ) BLD ) ) ) "
          "THN ( PRP ( FOR ( SPR 1902 ) ( XDO ( ( ENG FLT NWY ) SUP ( RUS FLT GOB ) MTO SWE ) ) ) ) "
          "ELS ( INS ( FOR ( SPR 1902 ) ( XDO ( ( ENG FLT NWY ) SUP ( GER FLT DEN ) MTO SWE ) ) ) )",
     Conditional(
         Not(DoOrder(Build(F("RUS", "STP", "NCS")))),
         Propose(For(Turn("SPR", 1902), DoOrder(SupportMove(F("ENG", "NWY"), F("RUS", "GOB"), "SWE")))),
         Insist(For(Turn("SPR", 1902), DoOrder(SupportMove(F("ENG", "NWY"), F("GER", "DEN"), "SWE")))),
     )),
    (100, "IFF ( PCE ( ENG FRA ) ) THN ( PRP ( DRW ) )", Conditional(PCE_EF, Propose(Draw()))),
    (100, "IFF ( PCE ( ENG FRA ) ) THN ( YES ( PRP ( DRW ) ) ) ELS ( REJ ( PRP ( DRW ) ) )",
     ConditionalReply(PCE_EF, Accept(Propose(Draw())), Reject(Propose(Draw())))),
    (100, "IFF ( DRW ) THN ( FCT ( QRY ( DRW ) ) ) ELS ( THK ( NOT ( QRY ( SLO ( ENG ) ) ) ) )",
     ConditionalReply(Draw(), FactQuery(Draw()), ThinkQuery(Solo("ENG"), negated=True))),
    # Level 110: puppets and favours
    (110, "PRP ( XOY ( ENG ) ( FRA ) )", Propose(OwesFavour("ENG", "FRA"))),
    (110, "PRP ( YDO ( ENG ) ( FRA AMY PAR ) ( FRA FLT BRE ) )",
     Propose(GiveControl("ENG", (Unit("FRA", "AMY", Location("PAR")), Unit("FRA", "FLT", Location("BRE")))))),
    # Level 120: forwarding press
    (120, "PRP ( SND ( ENG ) ( GER RUS ) ( PRP ( PCE ( ENG GER RUS ) ) ) )",
     Propose(SendRequest("ENG", ("GER", "RUS"), Propose(Peace(("ENG", "GER", "RUS")))))),
    (120, "PRP ( FWD ( GER RUS ) ( ENG ) ( FRA ) )", Propose(ForwardReceived(("GER", "RUS"), "ENG", "FRA"))),
    (120, "PRP ( BCC ( ENG ) ( GER RUS ) ( FRA ) )", Propose(ForwardSent("ENG", ("GER", "RUS"), "FRA"))),
    (120, "PRP ( NOT ( FWD ( GER ) ( ENG ) ( FRA ) ) )", Propose(Not(ForwardReceived(("GER",), "ENG", "FRA")))),
    (120, "PRP ( NAR ( BCC ( ENG ) ( GER ) ( FRA ) ) )", Propose(NoArrangement(ForwardSent("ENG", ("GER",), "FRA")))),
    (120, "FRM ( GER ) ( ENG AUS ) ( PRP ( DRW ) )", Forwarded("GER", ("ENG", "AUS"), Propose(Draw()))),
    (120, "FRM ( GER ) ( ENG ) ( REJ ( PRP ( DRW ) ) )", Forwarded("GER", ("ENG",), Reject(Propose(Draw())))),
    # Level 130: explanations
    (130, "WHY ( THK ( PCE ( ENG FRA ) ) )", Why(Think(PCE_EF))),
    (130, "WHY ( FCT ( DRW ) )", Why(Fact(Draw()))),
    (130, "WHY ( SUG ( DRW ) )", Why(Suggest(Draw()))),
    (130, "WHY ( PRP ( DRW ) )", Why(Propose(Draw()))),
    (130, "WHY ( INS ( DRW ) )", Why(Insist(Draw()))),
    (130, "POB ( WHY ( FCT ( DRW ) ) )", PositionOnBoard(Why(Fact(Draw())))),
    (130, "IDK ( PRP ( DRW ) )", DontKnow(Propose(Draw()))),
    (130, "IDK ( INS ( DRW ) )", DontKnow(Insist(Draw()))),
    (130, "IDK ( SUG ( DRW ) )", DontKnow(Suggest(Draw()))),
    # Level 8000: free text
    (8000, "'Hello, it''s England.'", FreeText("Hello, it's England.")),
    (8000, "YES ( 'deal' )", Accept(FreeText("deal"))),
]  # fmt: skip


def _ids(cases: list[tuple[int, str, PressBody]]) -> list[str]:
    return [f"{lv}:{text[:40]}" for lv, text, _ in cases]


def _previous(level: int) -> int:
    return PRESS_LEVELS[PRESS_LEVELS.index(level) - 1]


def _marked(tokens: tuple[int, ...], position: int) -> str:
    """The message with ERR inserted before token ``position``, in text form."""
    return render_text((*tokens[:position], ERR, *tokens[position:]))


def _huh(text: str, level: int) -> str:
    """Parse ``text`` as press at ``level``; it must fail; return it with ERR inserted."""
    tokens = parse_text(text)
    with pytest.raises(GrammarError) as info:
        parse_press(to_tree(tokens), level)
    assert info.value.tokens == tokens
    return _marked(tokens, info.value.position)


@pytest.mark.parametrize("level,text,value", CONSTRUCTS, ids=_ids(CONSTRUCTS))
def test_construct_parses_and_renders_at_its_level(level: int, text: str, value: PressBody) -> None:
    tokens = parse_text(text)
    tree = to_tree(tokens)
    assert parse_press(tree, level) == value
    assert render_press(value) == tree
    assert from_tree(render_press(value)) == tokens
    assert minimum_level(value) == level
    assert legal_at(value, level) and legal_at(value, 8000)


@pytest.mark.parametrize("level,text,value", CONSTRUCTS, ids=_ids(CONSTRUCTS))
def test_construct_is_rejected_one_level_lower(level: int, text: str, value: PressBody) -> None:
    lower = _previous(level)
    violation = check_level(value, lower)
    assert violation is not None
    assert not legal_at(value, lower)
    assert _huh(text, lower) == _marked(parse_text(text), violation.position)


# One-level-too-low rejections with the exact ERR the server must send.
TOO_LOW: list[tuple[int, str, str]] = [
    (0, "PRP ( DRW )", "ERR PRP ( DRW )"),
    (0, "YES ( PRP ( DRW ) )", "ERR YES ( PRP ( DRW ) )"),
    (10, "PRP ( XDO ( ( ENG FLT LON ) MTO NTH ) )", "PRP ( ERR XDO ( ( ENG FLT LON ) MTO NTH ) )"),
    (10, "PRP ( NOT ( DMZ ( ENG ) ( NTH ) ) )", "PRP ( NOT ( ERR DMZ ( ENG ) ( NTH ) ) )"),
    (20, "PRP ( AND ( DRW ) ( SLO ( ENG ) ) )", "PRP ( ERR AND ( DRW ) ( SLO ( ENG ) ) )"),
    (20, "CCL ( PRP ( ORR ( DRW ) ( DRW ) ) )", "CCL ( PRP ( ERR ORR ( DRW ) ( DRW ) ) )"),
    (30, "PRP ( AND ( DRW ) ( SCD ( ENG LON ) ) )", "PRP ( AND ( DRW ) ( ERR SCD ( ENG LON ) ) )"),
    (30, "PRP ( OCC ( ENG UNT BEL ) )", "PRP ( ERR OCC ( ENG UNT BEL ) )"),
    # docs/protocol.md §14.2: nesting AND inside ORR needs level 50.
    (40, "PRP ( ORR ( NOT ( DRW ) ) ( AND ( PCE ( ENG FRA ) ) ( DRW ) ) )",
     "PRP ( ORR ( NOT ( DRW ) ) ( ERR AND ( PCE ( ENG FRA ) ) ( DRW ) ) )"),
    (40, "PRP ( AND ( ORR ( DRW ) ( DRW ) ) ( DRW ) )", "PRP ( AND ( ERR ORR ( DRW ) ( DRW ) ) ( DRW ) )"),
    (40, "PRP ( NOT ( AND ( NOT ( AND ( DRW ) ( DRW ) ) ) ( DRW ) ) )",
     "PRP ( NOT ( AND ( NOT ( ERR AND ( DRW ) ( DRW ) ) ) ( DRW ) ) )"),
    (40, "PRP ( CHO ( 1 1 ) ( DRW ) ( SLO ( ENG ) ) )", "PRP ( ERR CHO ( 1 1 ) ( DRW ) ( SLO ( ENG ) ) )"),
    (50, "INS ( DRW )", "ERR INS ( DRW )"),
    (50, "FCT ( QRY ( DRW ) )", "FCT ( ERR QRY ( DRW ) )"),
    (50, "FCT ( NOT ( QRY ( DRW ) ) )", "FCT ( NOT ( ERR QRY ( DRW ) ) )"),
    (50, "THK ( QRY ( DRW ) )", "ERR THK ( QRY ( DRW ) )"),
    (50, "REJ ( SUG ( DRW ) )", "REJ ( ERR SUG ( DRW ) )"),
    (60, "BWX ( WHT ( ENG FLT LON ) )", "BWX ( ERR WHT ( ENG FLT LON ) )"),
    (60, "IDK ( HOW ( GER ) )", "IDK ( ERR HOW ( GER ) )"),
    (70, "YES ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )", "YES ( ERR EXP ( SPR 1902 ) ( PRP ( DRW ) ) )"),
    (70, "SRY ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )", "ERR SRY ( EXP ( SPR 1902 ) ( PRP ( DRW ) ) )"),
    (80, "PRP ( AND ( DRW ) ( FOR ( SPR 1902 ) ( DRW ) ) )", "PRP ( AND ( DRW ) ( ERR FOR ( SPR 1902 ) ( DRW ) ) )"),
    (90, "YES ( IFF ( DRW ) THN ( PRP ( DRW ) ) )", "YES ( ERR IFF ( DRW ) THN ( PRP ( DRW ) ) )"),
    (100, "IFF ( DRW ) THN ( PRP ( XOY ( ENG ) ( FRA ) ) )", "IFF ( DRW ) THN ( PRP ( ERR XOY ( ENG ) ( FRA ) ) )"),
    (100, "FCT ( NOT ( YDO ( FRA ) ( ENG FLT LON ) ) )", "FCT ( NOT ( ERR YDO ( FRA ) ( ENG FLT LON ) ) )"),
    (110, "EXP ( SPR 1902 ) ( FRM ( GER ) ( ENG ) ( PRP ( DRW ) ) )",
     "EXP ( SPR 1902 ) ( ERR FRM ( GER ) ( ENG ) ( PRP ( DRW ) ) )"),
    (110, "PRP ( NOT ( BCC ( ENG ) ( GER ) ( FRA ) ) )", "PRP ( NOT ( ERR BCC ( ENG ) ( GER ) ( FRA ) ) )"),
    (120, "IDK ( INS ( DRW ) )", "IDK ( ERR INS ( DRW ) )"),
    (120, "POB ( WHY ( INS ( DRW ) ) )", "ERR POB ( WHY ( INS ( DRW ) ) )"),
    (130, "FRM ( GER ) ( ENG ) ( 'psst' )", "FRM ( GER ) ( ENG ) ( ERR 'psst' )"),
]  # fmt: skip


@pytest.mark.parametrize(
    "level,text,expected", TOO_LOW, ids=[f"{c[0]}:{c[1][:40]}" for c in TOO_LOW]
)
def test_err_position_one_level_too_low(level: int, text: str, expected: str) -> None:
    assert _huh(text, level) == expected
    # ... and one official level higher it is legal.
    assert parse_press(to_tree(parse_text(text)), PRESS_LEVELS[PRESS_LEVELS.index(level) + 1])


# Grammar errors: illegal at every level, ERR by the rules of docs/protocol.md §14.2.
MALFORMED: list[tuple[str, str]] = [
    ("PRP", "PRP ERR"),                                         # missing: end of message
    ("PRP ( )", "PRP ( ERR )"),                                 # missing: before the KET
    ("PRP ( DRW ) ( DRW )", "PRP ( DRW ) ERR ( DRW )"),         # extra group
    ("PRP ( PCE ( ) )", "PRP ( PCE ( ERR ) )"),
    ("PRP ( PCE ( ENG LON ) )", "PRP ( PCE ( ENG ERR LON ) )"), # a province for a power
    ("PRP ( PCE ENG FRA )", "PRP ( PCE ERR ENG FRA )"),         # a word for a group
    ("PRP ( ALY ( ENG ) ( FRA ) )", "PRP ( ALY ( ENG ) ERR ( FRA ) )"),
    ("PRP ( AND ( DRW ) )", "PRP ( AND ( DRW ) ERR )"),         # AND needs two parts
    ("PRP ( FOR ( SPR 1902 ) ( FOR ( FAL 1902 ) ( DRW ) ) )",
     "PRP ( FOR ( SPR 1902 ) ( ERR FOR ( FAL 1902 ) ( DRW ) ) )"),  # FOR directly in FOR
    ("PRP ( FOR ( SPR 1902 ) ( AND ( DRW ) ( NOT ( FOR ( FAL 1902 ) ( DRW ) ) ) ) )",
     "PRP ( FOR ( SPR 1902 ) ( AND ( DRW ) ( NOT ( ERR FOR ( FAL 1902 ) ( DRW ) ) ) ) )"),
    ("PRP ( FOR ( SPR ) ( DRW ) )", "PRP ( FOR ( SPR ERR ) ( DRW ) )"),
    ("PRP ( FOR ( 1902 SPR ) ( DRW ) )", "PRP ( FOR ( ERR 1902 SPR ) ( DRW ) )"),
    ("PRP ( CHO ( 1 ) ( DRW ) )", "PRP ( CHO ( 1 ERR ) ( DRW ) )"),
    ("PRP ( SCD ( ENG LON YOR ) )", "PRP ( SCD ( ENG LON ERR YOR ) )"),  # YOR is no centre
    ("PRP ( SCD )", "PRP ( SCD ERR )"),
    ("PRP ( XDO ( ( ENG FLT LON ) MTO ) )", "PRP ( XDO ( ( ENG FLT LON ) MTO ERR ) )"),
    ("PRP ( XDO ( ( ENG FLT LON ) XDO NTH ) )", "PRP ( XDO ( ( ENG FLT LON ) ERR XDO NTH ) )"),
    ("PRP ( XDO ( ( ENG FLT NWY ) SUP ( ENG FLT BAR ) MTO ( STP NCS ) ) )",
     "PRP ( XDO ( ( ENG FLT NWY ) SUP ( ENG FLT BAR ) MTO ERR ( STP NCS ) ) )"),  # 9.1: no coast
    ("PRP ( XDO ( ( ENG FLT LON ) MTO ( NTH ) ) )", "PRP ( XDO ( ( ENG FLT LON ) MTO ( NTH ERR ) ) )"),
    ("PRP ( XDO ( ITA WVE BLD ) )", "PRP ( XDO ( ITA WVE ERR BLD ) )"),
    ("PRP ( XDO ( ( ENG UNT LON ) HLD ) )", "PRP ( XDO ( ( ENG ERR UNT LON ) HLD ) )"),
    ("WHT ( ENG UNT LON )", "WHT ( ENG ERR UNT LON )"),          # UNT only inside OCC
    ("HOW ( FLT )", "HOW ( ERR FLT )"),
    ("TRY ( PRP ENG )", "TRY ( PRP ERR ENG )"),
    ("TRY ( PRP ( XDO ) )", "TRY ( PRP ERR ( XDO ) )"),
    ("HUH ( )", "HUH ( ERR )"),
    ("YES ( PCE ( ENG FRA ) )", "YES ( ERR PCE ( ENG FRA ) )"),  # an arrangement is no message
    ("YES ( YES ( PRP ( DRW ) ) )", "YES ( ERR YES ( PRP ( DRW ) ) )"),  # YES takes a press message
    ("YES ( THK ( QRY ( DRW ) ) )", "YES ( THK ( ERR QRY ( DRW ) ) )"),
    ("WHY ( THK ( QRY ( DRW ) ) )", "WHY ( THK ( ERR QRY ( DRW ) ) )"),
    ("WHY ( CCL ( PRP ( DRW ) ) )", "WHY ( ERR CCL ( PRP ( DRW ) ) )"),
    ("IDK ( FCT ( DRW ) )", "IDK ( ERR FCT ( DRW ) )"),
    ("IDK ( )", "IDK ( ERR )"),
    ("SRY ( PRP ( DRW ) )", "SRY ( ERR PRP ( DRW ) )"),
    ("POB ( FCT ( DRW ) )", "POB ( ERR FCT ( DRW ) )"),
    ("EXP ( SPR 1902 ) ( PCE ( ENG FRA ) )", "EXP ( SPR 1902 ) ( ERR PCE ( ENG FRA ) )"),
    ("IFF ( DRW ) ( PRP ( DRW ) )", "IFF ( DRW ) ERR ( PRP ( DRW ) )"),  # THN missing
    ("IFF ( DRW ) THN ( PRP ( DRW ) ) ELS ( YES ( PRP ( DRW ) ) )",
     "IFF ( DRW ) THN ( PRP ( DRW ) ) ELS ( ERR YES ( PRP ( DRW ) ) )"),  # mixed branches
    ("IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( PRP ( DRW ) )",
     "IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( ERR PRP ( DRW ) )"),
    ("IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( FCT ( DRW ) )",
     "IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( FCT ( ERR DRW ) )"),  # FCT reply = FCT (QRY)
    ("IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( THK ( NOT ( DRW ) ) )",
     "IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( THK ( NOT ( ERR DRW ) ) )"),
    ("IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( 'no' )",
     "IFF ( DRW ) THN ( YES ( PRP ( DRW ) ) ) ELS ( ERR 'no' )"),
    ("PRP ( SND ( ENG FRA ) ( GER ) ( PRP ( DRW ) ) )", "PRP ( SND ( ENG ERR FRA ) ( GER ) ( PRP ( DRW ) ) )"),
    ("'hi' ( DRW )", "'hi' ERR ( DRW )"),                       # free text is the whole message
    ("PRP ( 'text' )", "PRP ( ERR 'text' )"),
    ("DRW", "ERR DRW"),
]  # fmt: skip


@pytest.mark.parametrize("text,expected", MALFORMED, ids=[m[0][:40] for m in MALFORMED])
def test_malformed_press_is_rejected_at_every_level(text: str, expected: str) -> None:
    assert _huh(text, 8000) == expected
    # The same fault as a tree location, for callers using protocol.grammar.
    tree = to_tree(parse_text(text))
    fault = try_parse_press(tree)
    assert isinstance(fault, PressFault)
    assert token_index(tree, fault.loc) == fault.position


def test_for_is_allowed_again_inside_an_embedded_press_message() -> None:
    """DN doc, Level 90: a further FOR only inside a press message within the FOR."""
    text = "PRP ( FOR ( SPR 1902 ) ( SND ( ENG ) ( GER ) ( PRP ( FOR ( FAL 1902 ) ( DRW ) ) ) ) )"
    value = parse_press(to_tree(parse_text(text)), 120)
    assert value == Propose(
        For(
            Turn("SPR", 1902), SendRequest("ENG", ("GER",), Propose(For(Turn("FAL", 1902), Draw())))
        )
    )
    assert minimum_level(value) == 120


def test_try_parse_press_plugs_into_an_enclosing_parse() -> None:
    """protocol.parse reads ``SND (powers) (press)`` itself; the press fault's
    location, prefixed with the press group's, is ERR's place in the SND."""
    snd = to_tree(parse_text("SND ( FRA ) ( PRP ( ORR ( DRW ) ( AND ( DRW ) ( DRW ) ) ) )"))
    press = snd[2]
    assert isinstance(press, tuple)
    fault = try_parse_press(press, 40)
    assert isinstance(fault, PressFault)
    assert fault.loc == (1, 2, 0)
    assert token_index(snd, (2, *fault.loc)) == 12 == fault.position + 5
    assert try_parse_press(press, 50) == Propose(Orr((Draw(), And((Draw(), Draw())))))


def test_two_multiparts_need_level_50_even_when_not_nested_as_written() -> None:
    """Level 30: 'neither of them is allowed to appear more than once' - per message."""
    value = Propose(And((Draw(), Not(Orr((Draw(), Solo("ENG")))))))
    assert minimum_level(value) == 50
    violation = check_level(value, 40)
    assert violation is not None and violation.position == 9  # before the ORR
    assert "level 50" in violation.reason


# --- SND and FRM: positions in the whole message -----------------------------------


def _huh_snd(text: str, level: int) -> str:
    tokens = parse_text(text)
    with pytest.raises(GrammarError) as info:
        parse_send(to_tree(tokens), level)
    assert info.value.tokens == tokens
    return _marked(tokens, info.value.position)


@pytest.mark.parametrize(
    "level,text,expected",
    [
        # docs/protocol.md §14.2, the level-40 example, verbatim.
        (40, "SND ( ENG ) ( PRP ( ORR ( NOT ( DRW ) ) ( AND ( PCE ( ENG FRA ) ) ( DRW ) ) ) )",
         "SND ( ENG ) ( PRP ( ORR ( NOT ( DRW ) ) ( ERR AND ( PCE ( ENG FRA ) ) ( DRW ) ) ) )"),
        # docs/protocol.md §8.11 / 16.6: SND in a level-0 game.
        (0, "SND ( FRA ) ( PRP ( DRW ) )", "ERR SND ( FRA ) ( PRP ( DRW ) )"),
        (10, "SND ( SPR 1901 ) ( FRA GER ) ( PRP ( XDO ( ( ENG FLT LON ) HLD ) ) )",
         "SND ( SPR 1901 ) ( FRA GER ) ( PRP ( ERR XDO ( ( ENG FLT LON ) HLD ) ) )"),
        (130, "SND ( FRA ) ( 'bonjour' )", "SND ( FRA ) ( ERR 'bonjour' )"),
        (8000, "SND ( ) ( PRP ( DRW ) )", "SND ( ERR ) ( PRP ( DRW ) )"),
        (8000, "SND ( FRA ) ( PRP ( DRW ) ) ( DRW )", "SND ( FRA ) ( PRP ( DRW ) ) ERR ( DRW )"),
        (8000, "SND ( FRA )", "SND ( FRA ) ERR"),
        (8000, "SND ( SPR ) ( FRA ) ( PRP ( DRW ) )", "SND ( SPR ERR ) ( FRA ) ( PRP ( DRW ) )"),
        (8000, "SND ( FRA ) ( PCE ( ENG FRA ) )", "SND ( FRA ) ( ERR PCE ( ENG FRA ) )"),
    ],
)  # fmt: skip
def test_snd_errors_are_placed_in_the_whole_message(level: int, text: str, expected: str) -> None:
    assert _huh_snd(text, level) == expected


def test_snd_parses_with_and_without_turn_and_golden_bytes() -> None:
    tokens = parse_text("SND ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )")
    assert tokens_to_bytes(tokens).hex(" ", 2) == (
        "4817 4000 4102 4001 4000 4a13 4000 4a10 4000 4101 4102 4001 4001 4001"
    )
    snd = parse_send(to_tree(tokens), 10)
    assert snd == SendPress(("FRA",), Propose(PCE_EF))
    assert from_tree(snd.nodes()) == tokens
    with_turn = parse_send(
        to_tree(parse_text("SND ( FAL 1903 ) ( FRA RUS ) ( REJ ( PRP ( DRW ) ) )"))
    )
    assert with_turn == SendPress(("FRA", "RUS"), Reject(Propose(Draw())), Turn("FAL", 1903))
    assert render_text(from_tree(with_turn.nodes())) == (
        "SND ( FAL 1903 ) ( FRA RUS ) ( REJ ( PRP ( DRW ) ) )"
    )
    assert check_level(with_turn, 10) is None
    assert check_level(SendPress(("FRA",), Propose(LON_NTH)), 10) is not None


def test_received_press_and_the_level_0_bot_answer() -> None:
    """docs/protocol.md §16.5: a no-press bot answers HUH (ERR press_message), then TRY ()."""
    frm = parse_received(
        to_tree(parse_text("FRM ( ENG ) ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )"))
    )
    assert frm == ReceivedPress("ENG", ("FRA", "GER"), Propose(Peace(("ENG", "FRA", "GER"))))
    huh = SendPress((frm.sender,), NotUnderstood(("ERR", *frm.message.nodes())))
    assert render_text(from_tree(huh.nodes())) == (
        "SND ( ENG ) ( HUH ( ERR PRP ( PCE ( ENG FRA GER ) ) ) )"
    )
    assert parse_send(huh.nodes(), 10) == huh
    assert parse_send(SendPress(("ENG",), Try()).nodes(), 10) == SendPress(("ENG",), Try(()))
    with pytest.raises(GrammarError) as info:
        parse_received(to_tree(parse_text("FRM ( ENG ) ( FRA ) ( INS ( DRW ) )")), 50)
    assert info.value.position == 8


# --- families, modes and variants ----------------------------------------------------


def test_replies_and_press_messages_are_told_apart() -> None:
    for level, _, value in CONSTRUCTS:
        assert isinstance(value, PressMessage) != isinstance(value, Reply), (level, value)
    assert isinstance(ConditionalReply(Draw(), Accept(Propose(Draw()))), Reply)
    assert isinstance(Conditional(Draw(), Propose(Draw())), PressMessage)


def test_ill_formed_values_are_legal_at_no_level() -> None:
    assert minimum_level(Propose(And((Draw(),)))) is None
    assert minimum_level(Propose(Peace(()))) is None
    # A double negative is advised against, not ill-formed: legal from level 10.
    assert minimum_level(Propose(Not(Not(Draw())))) == 10
    assert minimum_level(Accept(ThinkQuery(Draw()))) is None  # type: ignore[arg-type]
    violation = check_level(Propose(And((Draw(),))), 8000)
    assert violation is not None and violation.position == 6  # before PRP's closing bracket


def test_variant_representation_decides_powers_and_provinces() -> None:
    from protocol.tokens import ProvinceCategory

    rep = Representation.for_variant(
        ["NOR", "SOU"],
        [("ONE", ProvinceCategory.COASTAL, True), ("TWO", ProvinceCategory.SEA, False)],
    )
    tree = to_tree(parse_text("PRP ( DMZ ( NOR ) ( ONE TWO ) )", rep), rep)
    assert parse_press(tree, 20, rep) == Propose(Dmz(("NOR",), ("ONE", "TWO")))
    scd = to_tree(parse_text("PRP ( SCD ( SOU ONE TWO ) )", rep), rep)
    with pytest.raises(GrammarError) as info:
        parse_press(scd, 40, rep)
    assert render_text((*info.value.tokens[: info.value.position], ERR,
                        *info.value.tokens[info.value.position:]), rep) == (
        "PRP ( SCD ( SOU ONE ERR TWO ) )"
    )  # fmt: skip
    # The standard powers mean nothing on this map.
    assert not legal_at(Propose(Peace(("ENG", "FRA"))), 8000, rep)


def test_powers_named_anywhere_for_the_out_check() -> None:
    snd = parse_send(
        to_tree(
            parse_text(
                "SND ( FRA ) ( PRP ( AND ( XDO ( ( GER AMY MUN ) SUP ( AUS AMY BOH ) MTO TYR ) ) "
                "( ALY ( ENG ) VSS ( TUR ) ) ) )"
            )
        )
    )
    assert powers_named(snd) == {"FRA", "GER", "AUS", "ENG", "TUR"}
    assert powers_named(snd.message) == {"GER", "AUS", "ENG", "TUR"}
    assert powers_named(HowToAttack("MUN")) == frozenset()
    assert powers_named(NotUnderstood(("ERR", "PRP", ("SLO", ("ITA",))))) == {"ITA"}
