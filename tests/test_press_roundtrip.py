"""Hypothesis: random legal press of every level round-trips and is checked at the right level.

:func:`press_messages` builds random press that is legal at a given level
(it follows the level rules itself: no AND/ORR twice below 50, no FOR
directly in FOR, IFF branches of one kind; double NOTs are legal).  For every level:

* ``parse(render(x)) == x``, also through the token encoding;
* ``legal_at(x, N)``;
* the lowest legal level equals an independent oracle (:func:`required_level`,
  a walk over the dataclasses), and one official level lower the check fails
  with ERR before the first offending token, which a second independent
  oracle (:func:`first_offence`, a scan of the rendered tree) locates.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from orders import (
    Build,
    Convoy,
    ConvoyMove,
    Disband,
    Hold,
    Location,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Unit,
    Waive,
)
from protocol.grammar import token_index
from protocol.press import (
    Accept,
    Alliance,
    Allotment,
    And,
    Arrangement,
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
    PressMessage,
    PressValue,
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
    parse_send,
    trim_try,
)
from protocol.press_tokens import PRESS_LEVELS, TOKEN_LEVELS, TRY_VOCABULARY
from protocol.tree import Text, Tree, from_tree, to_tree

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
CENTRES = ("LON", "EDI", "PAR", "BRE", "MUN", "BEL", "HOL", "SPA", "STP", "BUL", "TUN", "NWY")
PROVINCES = CENTRES + ("NTH", "ECH", "BUR", "PIC", "YOR", "MAO", "BLA", "TYR")
COASTED = (("STP", "NCS"), ("STP", "SCS"), ("SPA", "NCS"), ("BUL", "ECS"), ("BUL", "SCS"))
SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")

power = st.sampled_from(POWERS)
powers = st.lists(power, min_size=1, max_size=3).map(tuple)
province = st.sampled_from(PROVINCES)
turn = st.builds(Turn, st.sampled_from(SEASONS), st.integers(1901, 2100))


@st.composite
def units(draw: st.DrawFn, any_type: bool = False) -> Unit:
    """Units as in NOW: armies never have a coast; fleets (and UNT in OCC) may."""
    kind = draw(st.sampled_from(("AMY", "FLT", "UNT") if any_type else ("AMY", "FLT")))
    if kind != "AMY" and draw(st.booleans()):
        prov, coast = draw(st.sampled_from(COASTED))
        return Unit(draw(power), kind, Location(prov, coast))
    return Unit(draw(power), kind, Location(draw(province)))


locations = st.one_of(
    st.builds(Location, province), st.sampled_from(COASTED).map(lambda pc: Location(*pc))
)


def _newest_first(
    kinds: list[str], levels: dict[str, int], boosted: frozenset[str] = frozenset()
) -> list[str]:
    """``kinds`` with extra copies of those the highest available level introduces
    (and of ``boosted``), so that most examples really need the level under test."""
    if not kinds:
        return kinds
    newest = max(levels[k] for k in kinds)
    extra = [k for k in kinds if levels[k] == newest or k in boosted]
    return kinds + extra * 3


SIMPLE_ORDERS: dict[str, Callable[[Unit], Order]] = {
    "HLD": Hold,
    "DSB": Disband,
    "BLD": Build,
    "REM": Remove,
}
ORDER_FORMS = (*SIMPLE_ORDERS, "MTO", "RTO", "SUP", "SUPM", "CVY", "CTO", "WVE")


@st.composite
def orders(draw: st.DrawFn) -> Order:
    """Orders of docs/protocol.md §9.1 (typed, as in SUB)."""
    unit = draw(units())
    form = draw(st.sampled_from(ORDER_FORMS))
    if form in SIMPLE_ORDERS:
        return SIMPLE_ORDERS[form](unit)
    if form == "MTO":
        return Move(unit, draw(locations))
    if form == "RTO":
        return Retreat(unit, draw(locations))
    if form == "SUP":
        return SupportHold(unit, draw(units()))
    if form == "SUPM":
        return SupportMove(unit, draw(units()), draw(province))
    if form == "CVY":
        return Convoy(unit, draw(units()), draw(province))
    if form == "CTO":
        return ConvoyMove(
            unit, draw(province), tuple(draw(st.lists(province, min_size=1, max_size=3)))
        )
    return Waive(draw(power))


# Arrangement kinds: the level that introduces each, and whether it has sub-arrangements.
ARRANGEMENT_LEVELS = {
    "PCE": 10, "ALY": 10, "DRW": 10, "SLO": 10, "NOT": 10, "NAR": 10, "XDO": 20, "DMZ": 20,
    "AND": 30, "ORR": 30, "SCD": 40, "OCC": 40, "CHO": 50, "FOR": 90, "XOY": 110, "YDO": 110,
    "SND": 120, "FWD": 120, "BCC": 120,
}  # fmt: skip
NESTING_ARRANGEMENTS = {"NOT", "NAR", "AND", "ORR", "CHO", "FOR", "SND"}


@st.composite
def arrangements(
    draw: st.DrawFn, level: int, depth: int = 3, in_for: bool = False, multipart: bool = True
) -> Arrangement:
    """A random arrangement legal at ``level``.

    ``multipart``: an AND/ORR may still be used (levels 30 and 40 allow one per
    message); ``in_for``: inside a FOR's arrangement (no further FOR).
    """
    kinds = [k for k, lv in ARRANGEMENT_LEVELS.items() if lv <= level]
    if depth <= 0:
        kinds = [k for k in kinds if k not in NESTING_ARRANGEMENTS]
    if not multipart:
        kinds = [k for k in kinds if k not in ("AND", "ORR")]
    if in_for:
        kinds = [k for k in kinds if k != "FOR"]
    boosted = frozenset({"AND", "ORR"}) if level >= 50 else frozenset()
    kind = draw(st.sampled_from(_newest_first(kinds, ARRANGEMENT_LEVELS, boosted)))

    def sub(**kw: bool) -> st.SearchStrategy[Arrangement]:
        return arrangements(
            level, depth - 1, kw.get("in_for", in_for), kw.get("multipart", multipart)
        )

    if kind == "PCE":
        return Peace(draw(powers))
    if kind == "ALY":
        return Alliance(draw(powers), draw(powers))
    if kind == "DRW":
        return Draw(draw(st.one_of(st.just(()), powers)))
    if kind == "SLO":
        return Solo(draw(power))
    if kind == "NOT":
        return Not(draw(sub()))
    if kind == "NAR":
        return NoArrangement(draw(sub()))
    if kind == "XDO":
        return DoOrder(draw(orders()))
    if kind == "DMZ":
        return Dmz(draw(powers), tuple(draw(st.lists(province, min_size=1, max_size=3))))
    if kind in ("AND", "ORR"):
        nested = level >= 50
        parts = tuple(draw(st.lists(sub(multipart=nested), min_size=2, max_size=3)))
        return And(parts) if kind == "AND" else Orr(parts)
    if kind == "SCD":
        groups = st.builds(
            Allotment, power, st.lists(st.sampled_from(CENTRES), min_size=1, max_size=3).map(tuple)
        )
        return CentreDistribution(tuple(draw(st.lists(groups, min_size=1, max_size=3))))
    if kind == "OCC":
        return Occupy(tuple(draw(st.lists(units(any_type=True), min_size=1, max_size=3))))
    if kind == "CHO":
        lo = draw(st.integers(0, 3))
        parts = tuple(draw(st.lists(sub(), min_size=1, max_size=3)))
        return Choose(lo, lo + draw(st.integers(0, 2)), parts)
    if kind == "FOR":
        end = draw(st.one_of(st.none(), turn))
        return For(draw(turn), draw(sub(in_for=True)), end)
    if kind == "XOY":
        return OwesFavour(draw(power), draw(power))
    if kind == "YDO":
        return GiveControl(draw(power), tuple(draw(st.lists(units(), min_size=1, max_size=2))))
    if kind == "SND":
        # An embedded press message: FOR is allowed again inside it.
        return SendRequest(draw(power), draw(powers), draw(press_messages(level, depth - 1)))
    if kind == "FWD":
        return ForwardReceived(draw(powers), draw(power), draw(power))
    assert kind == "BCC"
    return ForwardSent(draw(power), draw(powers), draw(power))


# Message kinds: level, and "P" (press message) or "R" (reply).
MESSAGE_KINDS = {
    "PRP": (10, "P"), "CCL": (10, "P"), "FCT": (10, "P"), "TRY": (10, "P"),
    "YES": (10, "R"), "REJ": (10, "R"), "BWX": (10, "R"), "HUH": (10, "R"),
    "INS": (60, "P"), "QRY": (60, "P"), "SUG": (60, "P"), "THK": (60, "P"),
    "THKQ": (60, "R"), "FCTQ": (60, "R"), "IDK": (60, "R"),
    "WHT": (70, "P"), "HOW": (70, "P"), "EXP": (80, "P"), "SRY": (80, "R"),
    "IFF": (100, "P"), "IFFR": (100, "R"), "FRM": (120, "P"),
    "WHY": (130, "R"), "POB": (130, "R"), "TXT": (8000, "P"),
}  # fmt: skip
NESTING_MESSAGES = {"CCL", "YES", "REJ", "BWX", "IDK", "EXP", "SRY", "IFF", "IFFR", "FRM", "POB"}

HUH_CONTENTS: tuple[Tree, ...] = (
    ("ERR", "PRP", ("DRW",)),
    ("PRP", ("ERR", "XDO", (("ENG", "FLT", "LON"), "HLD"))),
    ("FCT", ("PCE", ("ENG", "ERR", "FRA"))),
    ("ERR", Text("free text")),
)


@st.composite
def press_messages(draw: st.DrawFn, level: int, depth: int = 3, family: str = "PR") -> PressBody:
    """A random press message ("P"), reply ("R") or either ("PR") legal at ``level``."""
    kinds = [k for k, (lv, f) in MESSAGE_KINDS.items() if lv <= level and f in family]
    if depth <= 0:
        kinds = [k for k in kinds if k not in NESTING_MESSAGES] or ["PRP"]
    message_levels = {k: lv for k, (lv, _) in MESSAGE_KINDS.items()}
    kind = draw(st.sampled_from(_newest_first(kinds, message_levels)))
    arrangement = arrangements(level, depth - 1)

    def sub(fam: str = "PR") -> st.SearchStrategy[PressBody]:
        return press_messages(level, depth - 1, fam)

    def press() -> st.SearchStrategy[PressMessage]:
        return sub("P")  # type: ignore[return-value]

    simple: dict[str, Callable[[Arrangement], PressBody]] = {
        "PRP": Propose, "FCT": Fact, "INS": Insist, "QRY": Query, "SUG": Suggest, "THK": Think,
        "THKQ": ThinkQuery, "FCTQ": FactQuery,
    }  # fmt: skip
    if kind in simple:
        msg = simple[kind](draw(arrangement))
        if kind in ("THKQ", "FCTQ") and draw(st.booleans()):
            assert isinstance(msg, ThinkQuery | FactQuery)
            msg = type(msg)(msg.arrangement, negated=True)
        return msg
    if kind == "CCL":
        return Cancel(draw(sub()))
    if kind == "TRY":
        return Try(tuple(draw(st.lists(st.sampled_from(sorted(TRY_VOCABULARY)), max_size=6))))
    if kind in ("YES", "REJ", "BWX"):
        wrap = {"YES": Accept, "REJ": Reject, "BWX": NoneOfYourBusiness}[kind]
        return wrap(draw(press()))
    if kind == "HUH":
        return NotUnderstood(draw(st.sampled_from(HUH_CONTENTS)))
    if kind == "IDK":
        options = [("QRY", 60), ("WHT", 70), ("HOW", 70), ("EXP", 80)]
        options += [("PRP", 130), ("INS", 130), ("SUG", 130)]
        inner = draw(st.sampled_from([w for w, lv in options if lv <= level]))
        if inner == "WHT":
            return DontKnow(WhatShould(draw(units())))
        if inner == "HOW":
            return DontKnow(HowToAttack(draw(st.one_of(power, province))))
        if inner == "EXP":
            return DontKnow(Explain(draw(turn), draw(sub())))
        wrap2 = {"QRY": Query, "PRP": Propose, "INS": Insist, "SUG": Suggest}[inner]
        return DontKnow(wrap2(draw(arrangement)))
    if kind == "WHT":
        return WhatShould(draw(units()))
    if kind == "HOW":
        return HowToAttack(draw(st.one_of(power, province)))
    if kind == "EXP":
        return Explain(draw(turn), draw(sub()))
    if kind == "SRY":
        return Sorry(Explain(draw(turn), draw(sub())))
    if kind == "IFF":
        otherwise = draw(st.one_of(st.none(), press()))
        return Conditional(draw(arrangement), draw(press()), otherwise)
    if kind == "IFFR":
        replies: st.SearchStrategy[Reply] = sub("R")  # type: ignore[assignment]
        return ConditionalReply(
            draw(arrangement), draw(replies), draw(st.one_of(st.none(), replies))
        )
    if kind == "FRM":
        return Forwarded(draw(power), draw(powers), draw(sub()))
    if kind in ("WHY", "POB"):
        wrap3 = draw(st.sampled_from((Think, Fact, Suggest, Propose, Insist)))
        why = Why(wrap3(draw(arrangement)))
        return why if kind == "WHY" else PositionOnBoard(why)
    assert kind == "TXT"
    printable = st.characters(min_codepoint=32, max_codepoint=126)
    return FreeText(draw(st.text(printable, min_size=1, max_size=20)))


# --- independent oracles ---------------------------------------------------------------

CLASS_LEVELS: dict[type, int] = {
    Peace: 10, Alliance: 10, Draw: 10, Solo: 10, Not: 10, NoArrangement: 10,
    Propose: 10, Cancel: 10, Fact: 10, Try: 10, Accept: 10, Reject: 10,
    NoneOfYourBusiness: 10, NotUnderstood: 10, DoOrder: 20, Dmz: 20, And: 30, Orr: 30,
    CentreDistribution: 40, Occupy: 40, Choose: 50, Insist: 60, Query: 60, Suggest: 60,
    Think: 60, ThinkQuery: 60, FactQuery: 60, DontKnow: 60, WhatShould: 70, HowToAttack: 70,
    Explain: 80, Sorry: 80, For: 90, Conditional: 100, ConditionalReply: 100,
    OwesFavour: 110, GiveControl: 110, SendRequest: 120, ForwardReceived: 120,
    ForwardSent: 120, Forwarded: 120, Why: 130, PositionOnBoard: 130, FreeText: 8000,
}  # fmt: skip


def _values(value: object) -> list[PressValue]:
    """Every press value inside ``value``, itself included."""
    out: list[PressValue] = []
    if isinstance(value, PressValue):
        out.append(value)
        for field in value.__dataclass_fields__:  # type: ignore[attr-defined]
            out += _values(getattr(value, field))
    elif isinstance(value, tuple):
        for item in value:
            out += _values(item)
    return out


def required_level(msg: PressBody) -> int:
    """The lowest level at which ``msg`` is legal, from the construct table alone."""
    values = _values(msg)
    level = max(CLASS_LEVELS[type(v)] for v in values)
    if sum(isinstance(v, And | Orr) for v in values) > 1:
        level = max(level, 50)
    if any(
        isinstance(v, DontKnow) and isinstance(v.message, Propose | Insist | Suggest)
        for v in values
    ):
        level = max(level, 130)
    return level


def first_offence(tree: Tree, level: int) -> int:
    """Token offset of the first token that ``level`` does not allow, scanning the tree."""
    pos = 0
    multiparts = 0

    def walk(nodes: Tree) -> int | None:
        nonlocal pos, multiparts
        skip_next_group = False
        previous = None
        for node in nodes:
            if isinstance(node, tuple):
                if skip_next_group:  # TRY lists and HUH quotes are not checked
                    skip_next_group = False
                    pos += len(from_tree((node,)))
                    previous = node
                    continue
                if previous == "IDK" and node and node[0] in ("PRP", "INS", "SUG") and level < 130:
                    return pos + 1
                pos += 1
                found = walk(node)
                if found is not None:
                    return found
                pos += 1
            elif isinstance(node, Text):
                if level < 8000:
                    return pos
                pos += len(node.encode())
            else:
                if isinstance(node, str):
                    if TOKEN_LEVELS.get(node, 0) > level:
                        return pos
                    if node in ("AND", "ORR") and level < 50:
                        multiparts += 1
                        if multiparts > 1:
                            return pos
                    skip_next_group = node in ("TRY", "HUH")
                pos += 1
            previous = node
        return None

    found = walk(tree)
    assert found is not None, "no offending token"
    return found


def _check(msg: PressBody, level: int) -> None:
    tree = msg.nodes()
    assert parse_press(tree, level) == msg
    tokens = from_tree(tree)
    assert parse_press(to_tree(tokens), level) == msg
    assert legal_at(msg, level)
    need = required_level(msg)
    assert need <= level
    assert minimum_level(msg) == need
    at_zero = check_level(msg, 0)
    assert at_zero is not None and at_zero.position == 0
    if need > 10:
        lower = PRESS_LEVELS[PRESS_LEVELS.index(need) - 1]
        violation = check_level(msg, lower)
        assert violation is not None
        assert violation.position == first_offence(tree, lower), violation
        assert token_index(tree, violation.loc) == violation.position


LEVELS = PRESS_LEVELS[1:]


def _make_test(level: int) -> Callable[[], None]:
    @settings(max_examples=60, deadline=None)
    @given(press_messages(level))
    def test(msg: PressBody) -> None:
        _check(msg, level)

    test.__name__ = f"test_random_press_round_trips_at_level_{level}"
    test.__doc__ = f"Random legal press of level {level}: round trip, level and ERR position."
    return test


for _level in LEVELS:
    globals()[f"test_random_press_round_trips_at_level_{_level}"] = _make_test(_level)


@settings(max_examples=80, deadline=None)
@given(press_messages(130), st.sampled_from(LEVELS))
def test_trimmed_try_lists_hold_only_words_of_the_level(msg: PressBody, level: int) -> None:
    trimmed = trim_try(msg, level)
    for value in _values(trimmed):
        if isinstance(value, Try):
            assert all(TOKEN_LEVELS[w] <= level for w in value.words)
    # Trimming touches nothing but TRY lists.
    untried = [v for v in _values(msg) if not isinstance(v, Try)]
    assert len(untried) == len([v for v in _values(trimmed) if not isinstance(v, Try)])
    assert trim_try(trimmed, level) == trimmed


@settings(max_examples=80, deadline=None)
@given(press_messages(130, depth=2), powers, st.one_of(st.none(), turn), st.sampled_from(LEVELS))
def test_snd_round_trip_and_positions_offset_by_the_header(
    msg: PressBody, recipients: tuple[str, ...], when: Turn | None, level: int
) -> None:
    snd = SendPress(recipients, msg, when)
    assert parse_send(snd.nodes(), 130) == snd
    header = len(from_tree(snd.nodes())) - len(from_tree(msg.nodes())) - 1  # up to the last BRA
    inner = check_level(msg, level)
    outer = check_level(snd, level)
    if inner is None:
        assert outer is None
    else:
        assert outer is not None and outer.position == inner.position + header
    frm = snd.delivery("ENG", level)
    assert isinstance(frm, ReceivedPress) and frm.message == trim_try(msg, level)
