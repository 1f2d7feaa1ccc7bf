"""The press grammar of docs/protocol.md §16, with the level rules, over message trees.

Theory of operation
-------------------

One recursive-descent parser reads a press message (the contents of the last
bracket group of ``SND``/``FRM``) from a :mod:`protocol.tree` node tuple and
builds the dataclasses of :mod:`protocol.press_model`.  It is given the
game's press level and rejects every construct above it *at the point where
it meets it*, so the first fault in token order is the one reported - which
is where the reference server's "furthest alternative" rule puts ERR for a
level violation (docs/protocol.md §14.2, 16.1: "ERR before the first offending
token").  Every alternative is chosen by its first word, or by looking one
group ahead (FCT/THK (QRY ...), FOR ((turn) (turn))), so the position where
the parse stops is also the furthest any alternative could reach.

ERR positions (token offsets and tree locations) are kept by the cursor of
:mod:`protocol.press_cursor`, by the three rules of docs/protocol.md §14.2; a
construct above the level is a wrong token (rule 1): ERR before its first
word.  Orders inside XDO and units are read by :mod:`protocol.orders`, the
same grammar as SUB.

The level rules enforced beyond "each word has a level" (docs/protocol.md §16.3):

* levels 30 and 40: AND/ORR at most once per message (so never both and
  never nested) - the second one is the offending token, as in the 14.2
  example (ERR before the AND nested in an ORR at level 40);
* level 90: no FOR inside the arrangement of a FOR, except inside a press
  message embedded in it (SND at level 120) - DN doc, Level 90;
* IDK (PRP|INS|SUG ...) needs 130 although IDK is a level-60 word: the
  inner word is the offending token.

What the syntax document only advises against is accepted, as Parlance
does: a double negative ``NOT (NOT (...))`` ("should not be used",
docs/protocol.md §16.2) parses as two NOTs, and a TRY list may name the
press tokens withdrawn in revision 14 (IOU, PPT, UOM, §6.7: "may be received
from old software"; the server's TRY trimming drops them, as they belong to
no level).  docs/press.md lists what is still refused on purpose.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

from orders import Unit
from protocol.orders import Turn, location, parse_order, parse_unit
from protocol.press_cursor import Mark, Seq, abort, head_word, is_word, peek_word, sequence
from protocol.press_model import (
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
    Propose,
    Query,
    Reject,
    Reply,
    SendRequest,
    Solo,
    Sorry,
    Suggest,
    Think,
    ThinkQuery,
    Try,
    WhatShould,
    Why,
)
from protocol.press_tokens import (
    FREE_TEXT_LEVEL,
    NESTED_MULTIPART_LEVEL,
    TOKEN_LEVELS,
    TRY_VOCABULARY,
    WITHDRAWN_PRESS,
)
from protocol.tokens import (
    CAT_COAST,
    CAT_PHASE,
    CAT_POWER,
    Representation,
    is_province,
    is_supply_centre,
)
from protocol.tree import Text, Tree


class Mode(enum.Enum):
    """What a message position accepts (docs/protocol.md §16.2)."""

    PRESS = "press_message"
    REPLY = "reply"
    ANY = "press_message or reply"


#: Words that start a reply and never a press message.
_REPLY_WORDS = frozenset({"YES", "REJ", "BWX", "HUH", "IDK", "SRY", "WHY", "POB"})

#: IDK answers: the inner word and the level that allows it (docs/protocol.md §16.3).
_IDK_LEVELS: Mapping[str, int] = {
    "QRY": 60,
    "WHT": 70,
    "HOW": 70,
    "EXP": 80,
    "PRP": 130,
    "INS": 130,
    "SUG": 130,
}

#: What WHY may ask about (docs/protocol.md §16.3, level 130).
_WHY_LEVELS: Mapping[str, int] = {w: 130 for w in ("THK", "FCT", "SUG", "PRP", "INS")}


class PressParser:
    """Parses press at one game level against one representation.

    Use :meth:`message` for a press message or reply given as the nodes of
    its group, :meth:`arrangement` likewise for an arrangement.  ``start`` is
    the token offset of the first node, so positions can be reported
    relative to a whole ``SND``/``FRM`` message.  A parser instance counts
    AND/ORR for the level-30 rule, so use a fresh one per message.
    """

    def __init__(self, level: int, rep: Representation) -> None:
        self.level = level
        self.rep = rep
        self.values = rep.values
        self.multipart = 0

    # --- helpers ----------------------------------------------------------

    def need(self, required: int, at: Mark, what: str) -> None:
        """Fail at ``at`` unless the game level allows ``what`` (which needs ``required``)."""
        if self.level < required:
            raise abort(at, f"{what} needs press level {required} (game is level {self.level})")

    def _category(self, word: str) -> int:
        return self.values.get(word, -1) >> 8

    def power(self, seq: Seq) -> str:
        word, at = seq.word("power")
        if self._category(word) != CAT_POWER:
            raise abort(at, f"{word} is not a power")
        return word

    def power_group(self, seq: Seq) -> str:
        g = seq.group("power")
        p = self.power(g)
        g.finish()
        return p

    def powers(self, seq: Seq) -> tuple[str, ...]:
        """``(power power ...)``: one or more powers."""
        g = seq.group("power list")
        out = [self.power(g)]
        while not g.done():
            out.append(self.power(g))
        return tuple(out)

    def province(self, seq: Seq, *, centre: bool = False) -> str:
        word, at = seq.word("supply centre" if centre else "province")
        value = self.values.get(word, -1)
        if not is_province(value):
            raise abort(at, f"{word} is not a province")
        if centre and not is_supply_centre(value):
            raise abort(at, f"{word} is not a supply centre")
        return word

    def location(self, seq: Seq) -> tuple[str, str | None]:
        """``province`` or ``(province coast)``."""
        if isinstance(seq.peek(), tuple):
            g = seq.group("province and coast")
            province = self.province(g)
            coast, at = g.word("coast")
            if self._category(coast) != CAT_COAST:
                raise abort(at, f"{coast} is not a coast")
            g.finish()
            return province, coast
        return self.province(seq), None

    def unit(self, seq: Seq, *, any_type: bool = False) -> Unit:
        """``(unit)`` as in NOW (:func:`protocol.orders.parse_unit`).

        With ``any_type`` (OCC, level 40) the unit type may also be UNT, "any
        unit", written like a fleet: ``power UNT province`` or
        ``power UNT (province coast)``.
        """
        g = seq.peek()
        if any_type and isinstance(g, tuple) and len(g) > 1 and is_word(g[1]) and g[1] == "UNT":
            group = seq.group("unit")
            power = self.power(group)
            group.keyword("UNT")
            province, coast = self.location(group)
            group.finish()
            return Unit(power, "UNT", location(province, coast))
        return seq.external(parse_unit, self.rep)

    def turn(self, g: Seq) -> Turn:
        """``season year`` - the contents of a turn group (years are 0..8191)."""
        season, at = g.word("season")
        if self._category(season) != CAT_PHASE:
            raise abort(at, f"{season} is not a season")
        year = g.integer("year", lo=0)
        g.finish()
        return Turn(season, year)

    # --- messages -----------------------------------------------------------

    def message(self, seq: Seq, mode: Mode = Mode.ANY) -> PressBody:
        """A press message or reply filling ``seq`` (the contents of its group)."""
        first = seq.peek()
        if isinstance(first, Text):
            _, at = seq.take("press message")
            self.need(FREE_TEXT_LEVEL, at, "free text")
            if mode is Mode.REPLY:
                raise abort(at, "free text is a press message; a reply is expected here")
            seq.finish()
            return FreeText(str(first))
        word, at = seq.word(mode.value)
        handler = _MESSAGE_HEADS.get(word)
        if handler is None:
            raise abort(at, f"{word} does not start a {mode.value}")
        self.need(TOKEN_LEVELS[word], at, word)
        if mode is Mode.PRESS and word in _REPLY_WORDS:
            raise abort(at, f"{word} is a reply; a press message is expected here")
        if mode is Mode.REPLY and word not in _REPLY_WORDS and word not in ("FCT", "THK", "IFF"):
            raise abort(at, f"{word} is a press message; a reply is expected here")
        msg = handler(self, seq, mode)
        seq.finish()
        return msg

    def message_group(self, seq: Seq, mode: Mode) -> PressBody:
        return self.message(seq.group(mode.value), mode)

    def press_group(self, seq: Seq) -> PressMessage:
        msg = self.message(seq.group("press message"), Mode.PRESS)
        assert isinstance(msg, PressMessage)
        return msg

    def arrangement_group(self, seq: Seq, in_for: bool = False) -> Arrangement:
        return self.arrangement(seq.group("arrangement"), in_for)

    def _query_form(self, seq: Seq, mode: Mode) -> bool:
        """Whether FCT/THK is followed by ``(QRY ...)`` or ``(NOT (QRY ...))``, a reply.

        Where only a reply may stand, it must be; where only a press message
        may, it is never one (then the arrangement parse fails at QRY).
        """
        if mode is not Mode.ANY:
            return mode is Mode.REPLY
        g = seq.peek()
        if not isinstance(g, tuple) or not g:
            return False
        head = head_word(g)
        if head == "QRY":
            return True
        inner = g[1] if len(g) > 1 else None
        return head == "NOT" and isinstance(inner, tuple) and head_word(inner) == "QRY"

    def _query_reply(self, seq: Seq) -> tuple[Arrangement, bool]:
        """``(QRY (arr))`` or ``(NOT (QRY (arr)))`` - the body of THK/FCT replies (60)."""
        g = seq.group("query")
        negated = peek_word(g) == "NOT"
        if negated:
            g.keyword("NOT")
            inner = g.group("query")
            g.finish()
            g = inner
        at = g.keyword("QRY")
        self.need(TOKEN_LEVELS["QRY"], at, "QRY")
        arr = self.arrangement_group(g)
        g.finish()
        return arr, negated

    def _prp(self, seq: Seq, mode: Mode) -> PressBody:
        return Propose(self.arrangement_group(seq))

    def _ins(self, seq: Seq, mode: Mode) -> PressBody:
        return Insist(self.arrangement_group(seq))

    def _qry(self, seq: Seq, mode: Mode) -> PressBody:
        return Query(self.arrangement_group(seq))

    def _sug(self, seq: Seq, mode: Mode) -> PressBody:
        return Suggest(self.arrangement_group(seq))

    def _fct(self, seq: Seq, mode: Mode) -> PressBody:
        if self._query_form(seq, mode):
            arr, negated = self._query_reply(seq)
            return FactQuery(arr, negated)
        return Fact(self.arrangement_group(seq))

    def _thk(self, seq: Seq, mode: Mode) -> PressBody:
        if self._query_form(seq, mode):
            arr, negated = self._query_reply(seq)
            return ThinkQuery(arr, negated)
        return Think(self.arrangement_group(seq))

    def _ccl(self, seq: Seq, mode: Mode) -> PressBody:
        # DN doc: CCL also cancels one's own YES, so it takes a reply too.
        return Cancel(self.message_group(seq, Mode.ANY))

    def _try(self, seq: Seq, mode: Mode) -> PressBody:
        g = seq.group("token list")
        words = []
        while not g.done():
            word, at = g.word("press token")
            if word not in TRY_VOCABULARY and word not in WITHDRAWN_PRESS:
                raise abort(at, f"{word} is not a press token")
            words.append(word)
        return Try(tuple(words))

    def _wht(self, seq: Seq, mode: Mode) -> PressBody:
        return WhatShould(self.unit(seq))

    def _how(self, seq: Seq, mode: Mode) -> PressBody:
        g = seq.group("province or power")
        target, at = g.word("province or power")
        value = self.values.get(target, -1)
        if value >> 8 != CAT_POWER and not is_province(value):
            raise abort(at, f"{target} is neither a province nor a power")
        g.finish()
        return HowToAttack(target)

    def _exp(self, seq: Seq, mode: Mode) -> PressBody:
        turn = self.turn(seq.group("turn"))
        return Explain(turn, self.message_group(seq, Mode.ANY))

    def _iff(self, seq: Seq, mode: Mode) -> PressBody:
        # The THN branch decides: press branches make a press message, reply
        # branches a reply (Parlance: "statement = IFF (condition) THN
        # (statement) [ELS (statement)]", "reply = IFF ... THN (reply) ...").
        condition = self.arrangement_group(seq)
        seq.keyword("THN")
        then = self.message_group(seq, mode)
        branch = Mode.REPLY if isinstance(then, Reply) else Mode.PRESS
        otherwise: PressBody | None = None
        if not seq.done():
            seq.keyword("ELS")
            otherwise = self.message_group(seq, branch)
        if isinstance(then, Reply):
            assert otherwise is None or isinstance(otherwise, Reply)
            return ConditionalReply(condition, then, otherwise)
        assert otherwise is None or isinstance(otherwise, PressMessage)
        return Conditional(condition, then, otherwise)

    def _frm(self, seq: Seq, mode: Mode) -> PressBody:
        sender = self.power_group(seq)
        recipients = self.powers(seq)
        return Forwarded(sender, recipients, self.message_group(seq, Mode.ANY))

    def _yes(self, seq: Seq, mode: Mode) -> PressBody:
        return Accept(self.press_group(seq))

    def _rej(self, seq: Seq, mode: Mode) -> PressBody:
        return Reject(self.press_group(seq))

    def _bwx(self, seq: Seq, mode: Mode) -> PressBody:
        return NoneOfYourBusiness(self.press_group(seq))

    def _huh(self, seq: Seq, mode: Mode) -> PressBody:
        g = seq.group("press message")
        if g.done():
            raise abort(g.closing(), "press message missing")
        return NotUnderstood(g.nodes)

    def _restricted(
        self, seq: Seq, allowed: Mapping[str, int], what: str, mode: Mode = Mode.PRESS
    ) -> PressBody:
        """The group of IDK/SRY/WHY/POB: a message whose first word is in ``allowed``.

        ``allowed`` maps each word to the level it needs *in this position*
        (IDK (PRP ...) needs 130 although PRP and IDK are lower).
        """
        g = seq.group(what)
        word = peek_word(g)
        if word is None or word not in allowed:
            raise abort(g.here(), f"expected {what}")
        self.need(allowed[word], g.here(), f"{word} in this reply")
        return self.message(g, mode)

    def _idk(self, seq: Seq, mode: Mode) -> PressBody:
        msg = self._restricted(seq, _IDK_LEVELS, "QRY, WHT, HOW, EXP, PRP, INS or SUG")
        assert isinstance(
            msg, Query | WhatShould | HowToAttack | Explain | Propose | Insist | Suggest
        )
        return DontKnow(msg)

    def _sry(self, seq: Seq, mode: Mode) -> PressBody:
        msg = self._restricted(seq, {"EXP": TOKEN_LEVELS["EXP"]}, "EXP")
        assert isinstance(msg, Explain)
        return Sorry(msg)

    def _why(self, seq: Seq, mode: Mode) -> PressBody:
        # WHY (THK (arrangement)) etc.: press messages, never the THK (QRY) reply.
        msg = self._restricted(seq, _WHY_LEVELS, "THK, FCT, SUG, PRP or INS")
        assert isinstance(msg, Think | Fact | Suggest | Propose | Insist)
        return Why(msg)

    def _pob(self, seq: Seq, mode: Mode) -> PressBody:
        msg = self._restricted(seq, {"WHY": TOKEN_LEVELS["WHY"]}, "WHY", Mode.REPLY)
        assert isinstance(msg, Why)
        return PositionOnBoard(msg)

    # --- arrangements -----------------------------------------------------------

    def arrangement(self, seq: Seq, in_for: bool = False) -> Arrangement:
        """An arrangement filling ``seq``; ``in_for``: inside a FOR's arrangement."""
        word, at = seq.word("arrangement")
        handler = _ARRANGEMENT_HEADS.get(word)
        if handler is None:
            raise abort(at, f"{word} is not an arrangement")
        self.need(TOKEN_LEVELS[word], at, word)
        arr = handler(self, seq, at, in_for)
        seq.finish()
        return arr

    def _pce(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        return Peace(self.powers(seq))

    def _aly(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        allies = self.powers(seq)
        seq.keyword("VSS")
        return Alliance(allies, self.powers(seq))

    def _drw(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        return Draw() if seq.done() else Draw(self.powers(seq))

    def _slo(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        return Solo(self.power_group(seq))

    def _not(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        # NOT (NOT (...)) is advised against (16.2), not forbidden: accepted.
        return Not(self.arrangement_group(seq, in_for))

    def _nar(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        return NoArrangement(self.arrangement_group(seq, in_for))

    def _xdo(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        # The order grammar of docs/protocol.md §9.1, as SUB uses it.
        return DoOrder(seq.external(parse_order, self.rep))

    def _dmz(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        powers = self.powers(seq)
        g = seq.group("province list")
        provinces = [self.province(g)]
        while not g.done():
            provinces.append(self.province(g))
        return Dmz(powers, tuple(provinces))

    def _parts(self, seq: Seq, in_for: bool, least: int) -> tuple[Arrangement, ...]:
        parts = []
        while not seq.done():
            parts.append(self.arrangement_group(seq, in_for))
        if len(parts) < least:
            raise abort(seq.closing(), f"at least {least} arrangements needed")
        return tuple(parts)

    def _multipart(self, at: Mark, word: str) -> None:
        # Levels 30/40: "AND and ORR must not be nested - they must not both
        # appear in the same message, and neither may appear more than once"
        # (DN doc, Level 30).  The second one is the offending token.
        if self.level < NESTED_MULTIPART_LEVEL and self.multipart:
            raise abort(
                at,
                f"a second AND/ORR ({word}) needs press level {NESTED_MULTIPART_LEVEL} "
                f"(game is level {self.level})",
            )
        self.multipart += 1

    def _and(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        self._multipart(at, "AND")
        return And(self._parts(seq, in_for, 2))

    def _orr(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        self._multipart(at, "ORR")
        return Orr(self._parts(seq, in_for, 2))

    def _scd(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        allotments: list[Allotment] = []
        while not seq.done() or not allotments:
            g = seq.group("power and centres")
            power = self.power(g)
            centres = [self.province(g, centre=True)]
            while not g.done():
                centres.append(self.province(g, centre=True))
            allotments.append(Allotment(power, tuple(centres)))
        return CentreDistribution(tuple(allotments))

    def _occ(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        units = [self.unit(seq, any_type=True)]
        while not seq.done():
            units.append(self.unit(seq, any_type=True))
        return Occupy(tuple(units))

    def _cho(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        g = seq.group("minimum maximum")
        minimum = g.integer("minimum")
        maximum = g.integer("maximum")
        g.finish()
        return Choose(minimum, maximum, self._parts(seq, in_for, 1))

    def _for(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        # DN doc, Level 90: the arrangement of a FOR must not include a
        # further FOR unless it is inside an embedded press message.
        if in_for:
            raise abort(at, "FOR inside the arrangement of a FOR")
        g = seq.group("turn")
        end: Turn | None = None
        if isinstance(g.peek(), tuple):
            start = self.turn(g.group("start turn"))
            end = self.turn(g.group("end turn"))
            g.finish()
        else:
            start = self.turn(g)
        return For(start, self.arrangement_group(seq, in_for=True), end)

    def _xoy(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        debtor = self.power_group(seq)
        return OwesFavour(debtor, self.power_group(seq))

    def _ydo(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        power = self.power_group(seq)
        units = [self.unit(seq)]
        while not seq.done():
            units.append(self.unit(seq))
        return GiveControl(power, tuple(units))

    def _snd(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        sender = self.power_group(seq)
        recipients = self.powers(seq)
        # An embedded press message: a FOR inside it is allowed again.
        return SendRequest(sender, recipients, self.message_group(seq, Mode.ANY))

    def _fwd(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        sources = self.powers(seq)
        via = self.power_group(seq)
        return ForwardReceived(sources, via, self.power_group(seq))

    def _bcc(self, seq: Seq, at: Mark, in_for: bool) -> Arrangement:
        sender = self.power_group(seq)
        recipients = self.powers(seq)
        return ForwardSent(sender, recipients, self.power_group(seq))


_MessageHandler = Callable[[PressParser, Seq, Mode], PressBody]
_ArrangementHandler = Callable[[PressParser, Seq, Mark, bool], Arrangement]

_MESSAGE_HEADS: Mapping[str, _MessageHandler] = {
    "PRP": PressParser._prp,
    "CCL": PressParser._ccl,
    "FCT": PressParser._fct,
    "TRY": PressParser._try,
    "INS": PressParser._ins,
    "QRY": PressParser._qry,
    "SUG": PressParser._sug,
    "THK": PressParser._thk,
    "WHT": PressParser._wht,
    "HOW": PressParser._how,
    "EXP": PressParser._exp,
    "IFF": PressParser._iff,
    "FRM": PressParser._frm,
    "YES": PressParser._yes,
    "REJ": PressParser._rej,
    "BWX": PressParser._bwx,
    "HUH": PressParser._huh,
    "IDK": PressParser._idk,
    "SRY": PressParser._sry,
    "WHY": PressParser._why,
    "POB": PressParser._pob,
}

_ARRANGEMENT_HEADS: Mapping[str, _ArrangementHandler] = {
    "PCE": PressParser._pce,
    "ALY": PressParser._aly,
    "DRW": PressParser._drw,
    "SLO": PressParser._slo,
    "NOT": PressParser._not,
    "NAR": PressParser._nar,
    "XDO": PressParser._xdo,
    "DMZ": PressParser._dmz,
    "AND": PressParser._and,
    "ORR": PressParser._orr,
    "SCD": PressParser._scd,
    "OCC": PressParser._occ,
    "CHO": PressParser._cho,
    "FOR": PressParser._for,
    "XOY": PressParser._xoy,
    "YDO": PressParser._ydo,
    "SND": PressParser._snd,
    "FWD": PressParser._fwd,
    "BCC": PressParser._bcc,
}


def parse_message_nodes(
    nodes: Tree, level: int, rep: Representation, start: int = 0, mode: Mode = Mode.ANY
) -> PressBody:
    """Parse the nodes of one press message at ``level``.

    Raises :class:`~protocol.press_cursor.Abort` (holding the
    :class:`~protocol.press_cursor.PressFault`) if they are not one.

    ``start`` is the token offset of ``nodes[0]`` within the whole message
    being checked (so the fault position can be used there directly).
    """
    return PressParser(level, rep).message(sequence(nodes, start), mode)


__all__ = ["Mode", "PressParser", "parse_message_nodes"]
