"""Typed press for bots: builders, answers to SNDs, agreements, and negotiating
bots in a level-30 game on the real server (docs/protocol.md §16.2, 16.5)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import trio

from bots.client import BotClient, ClientSettings
from bots.holdbot import HoldBot
from bots.press import (
    Agreement,
    Agreements,
    Negotiator,
    PeacePact,
    PendingPress,
    PressContext,
    accept,
    no_press_replies,
    not_understood,
    propose,
    reject,
    reply,
    vocabulary,
)
from bots.tracking import read_server_message
from orders import Location, Move, Unit
from protocol.messages import Frm, Message
from protocol.press import (
    And,
    DontKnow,
    DoOrder,
    Draw,
    NotUnderstood,
    Peace,
    PressFault,
    Propose,
    Query,
    ReceivedPress,
    SendPress,
    Try,
    try_parse_press,
)
from protocol.text import tree_from_text, tree_to_text
from tests.server_helpers import POWERS, start_server

PACT = ("ENG", "FRA", "GER")


def text(value: SendPress) -> str:
    return tree_to_text(value.nodes())


def server(text: str) -> Message:
    """A server message in DAIDE text, typed as the client reads it."""
    message = read_server_message(tree_from_text(text))
    assert message is not None, text
    return message


def frm_of(text: str) -> Frm:
    """An FRM in DAIDE text, typed as the client reads it."""
    message = read_server_message(tree_from_text(text))
    assert isinstance(message, Frm), text
    return message


def received(frm: str) -> ReceivedPress:
    message = frm_of(frm)
    found = try_parse_press(message.press)
    assert not isinstance(found, PressFault)
    return ReceivedPress(message.sender, message.recipients, found)


# --- building and replying ------------------------------------------------------------


def test_builders_render_the_press_of_protocol_16() -> None:
    proposal = received("FRM ( ENG ) ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )")
    assert text(propose(("FRA", "GER"), Peace(PACT))) == (
        "SND ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )")
    # YES goes to the proposer and every other recipient (16.2).
    assert text(accept(proposal, "FRA")) == "SND ( ENG GER ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )"
    assert text(reject(proposal)) == "SND ( ENG ) ( REJ ( PRP ( PCE ( ENG FRA GER ) ) ) )"
    question = received("FRM ( ENG ) ( FRA GER ) ( QRY ( DRW ) )")
    assert isinstance(question.message, Query)
    assert text(reply(question, DontKnow(question.message), "FRA")) == (
        "SND ( ENG ) ( IDK ( QRY ( DRW ) ) )")
    assert text(reply(question, DontKnow(question.message), "FRA", to_all=True)) == (
        "SND ( ENG GER ) ( IDK ( QRY ( DRW ) ) )")
    assert " ".join(vocabulary(10)) == "ALY BWX CCL DRW FCT HUH NAR NOT PCE PRP REJ SLO TRY VSS YES"
    assert vocabulary(20)[-2:] == ("DMZ", "XDO")


def test_not_understood_puts_err_before_the_first_unknown_word() -> None:
    frm = frm_of("FRM ( RUS ) ( ITA ) ( PRP ( ORR ( PCE ( ITA RUS ) ) ( AND ( DRW ) ( SLO ( RUS ) ) ) ) )")
    fault = try_parse_press(frm.press, 30)
    assert isinstance(fault, PressFault)
    assert [text(v) for v in not_understood(frm, fault, vocabulary(30))] == [
        "SND ( RUS ) ( HUH ( PRP ( ORR ( PCE ( ITA RUS ) ) ( ERR AND ( DRW ) ( SLO ( RUS ) ) ) ) ) )",
        "SND ( RUS ) ( TRY ( " + " ".join(vocabulary(30)) + " ) )",
    ]
    # HUH and TRY are never answered (16.5), typed or not.
    huh = frm_of("FRM ( RUS ) ( ITA ) ( HUH ( ERR PRP ( DRW ) ) )")
    assert not_understood(huh, fault, ()) == [] and no_press_replies(huh) == []


def test_pending_press_matches_each_answer_to_its_snd() -> None:
    pending = PendingPress()
    first = propose(("FRA", "GER"), Peace(PACT))
    second = SendPress(("AUS",), Propose(Draw(("AUS", "ENG"))))
    third = SendPress(("ITA",), Try(("PRP",)))
    for value in (first, second, third):
        pending.sent(value)
    # A CCD broadcast about a power none of them names is no answer.
    assert pending.match(server("CCD ( TUR )")) is None
    answer = pending.match(server("OUT ( AUS )"))         # the oldest naming AUS
    assert answer is not None and answer.send == second and answer.kind == "OUT"
    huh = tree_from_text("HUH ( SND ( ITA ) ( TRY ( ERR PRP ) ) )")
    answer = pending.match(server("HUH ( SND ( ITA ) ( TRY ( ERR PRP ) ) )"))
    assert answer is not None and answer.send == third and answer.huh == huh[1]
    answer = pending.match(server(f"YES ( {text(first)} )"))
    assert answer is not None and answer.delivered and pending.waiting == []


def test_pending_press_matches_an_echo_by_its_value() -> None:
    """An XDO in an echoed SND is read as an order value, so the answer goes to
    the SND with that very order - here not to the older one whose fleet stands
    on the other coast."""
    pending = PendingPress()
    south = Unit("RUS", "FLT", Location("STP", "SCS"))
    north = Unit("RUS", "FLT", Location("STP", "NCS"))
    sent = propose(("GER",), DoOrder(Move(south, Location("GOB"))))
    other = propose(("GER",), DoOrder(Move(north, Location("GOB"))))
    pending.sent(other)
    pending.sent(sent)
    echo = server("REJ ( SND ( GER ) ( PRP ( XDO ( ( RUS FLT ( STP SCS ) ) MTO GOB ) ) ) )")
    answer = pending.match(echo)
    assert answer is not None and answer.send == sent and answer.kind == "REJ"
    assert pending.waiting == [other]


def test_agreements_form_when_every_recipient_said_yes_to_all() -> None:
    seen = Agreements()
    log = ["FRM ( ENG ) ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )",
           "FRM ( FRA ) ( ENG ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )",    # not to GER: no
           "FRM ( FRA ) ( ENG GER ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )",
           "FRM ( GER ) ( ENG FRA ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )"]
    results = [seen.observe(received(m)) for m in log]
    assert results[:3] == [None, None, None]
    assert results[3] == Agreement("ENG", PACT, Peace(PACT)) and seen.formed == [results[3]]


# --- negotiating bots on the server ------------------------------------------------------


class MultipartProposer(Negotiator):
    """RUS: proposes a level-30 deal to ITA (level-10 negotiator) and TUR (no press)."""

    level = 30
    offer = Propose(And((Peace(("ITA", "RUS")), Draw())))

    def __init__(self) -> None:
        self.heard: list[ReceivedPress] = []

    def opening(self, context: PressContext) -> Sequence[SendPress]:
        return [SendPress(("ITA", "TUR"), self.offer)] if context.turn and \
            context.turn.season == "SPR" and context.turn.year == 1901 else []

    def received(self, press: ReceivedPress, context: PressContext) -> Sequence[SendPress]:
        self.heard.append(press)
        return ()

    def ready_to_order(self, context: PressContext) -> bool:
        # Wait for both answers in the first phase (HUH then TRY from each).
        spring = context.turn is not None and (context.turn.season, context.turn.year) == ("SPR", 1901)
        return not spring or sum(isinstance(p.message, Try) for p in self.heard) == 2


async def test_negotiating_bots_reach_an_agreement_at_level_30(nursery: trio.Nursery,
                                                               tmp_path: Path) -> None:
    _server, port = await start_server(nursery, tmp_path / "g.db", level=30, max_year=1901)
    negotiators: dict[str, Negotiator] = {p: PeacePact(PACT, proposer="ENG", level=30)
                                          for p in PACT}
    negotiators["RUS"] = rus = MultipartProposer()
    negotiators["ITA"] = Negotiator()            # level 10: AND is beyond it
    bots = {p: BotClient(HoldBot(), ClientSettings(port=port, name=f"{p}:bot", seed=i),
                         negotiator=negotiators.get(p))
            for i, p in enumerate(POWERS)}
    with trio.fail_after(30):
        async with trio.open_nursery() as players:
            for bot in bots.values():
                players.start_soon(bot.run)

    for bot in bots.values():
        assert bot.tracker.end is not None and bot.tracker.end.draw_powers == ()
        assert bot.problems == [], bot.problems
    agreement = Agreement("ENG", PACT, Peace(PACT))
    for power in PACT:
        pact = negotiators[power]
        assert isinstance(pact, PeacePact) and pact.agreements.formed == [agreement]
    # The three saw the same three messages in the same order (16.1).
    logs = [[tree_to_text(p.nodes()) for p in bots[power].press_log] for power in PACT]
    assert logs[0] == logs[1] == logs[2]
    assert logs[0][0] == "FRM ( ENG ) ( FRA GER ) ( PRP ( PCE ( ENG FRA GER ) ) )"
    assert sorted(logs[0][1:]) == [
        "FRM ( FRA ) ( ENG GER ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )",
        "FRM ( GER ) ( ENG FRA ) ( YES ( PRP ( PCE ( ENG FRA GER ) ) ) )"]
    assert [a.kind for a in bots["ENG"].press_answers] == ["YES"]
    # RUS's level-30 offer: ITA (level 10) marks the AND, TUR (no press) the whole message.
    offer = "PRP ( AND ( PCE ( ITA RUS ) ) ( DRW ) )"
    heard = sorted(tree_to_text(p.nodes()) for p in rus.heard)
    assert heard == sorted([
        "FRM ( ITA ) ( RUS ) ( HUH ( PRP ( ERR AND ( PCE ( ITA RUS ) ) ( DRW ) ) ) )",
        "FRM ( ITA ) ( RUS ) ( TRY ( " + " ".join(vocabulary(10)) + " ) )",
        f"FRM ( TUR ) ( RUS ) ( HUH ( ERR {offer} ) )",
        "FRM ( TUR ) ( RUS ) ( TRY ( ) )"])
    assert all(isinstance(p.message, NotUnderstood | Try) for p in rus.heard)
    assert [a.kind for a in bots["RUS"].press_answers] == ["YES"]
    # ITA's log holds the press it understood: its own HUH and TRY, once the
    # server took them (TUR, a no-press bot, keeps no log); AUS heard nothing.
    assert [a.kind for a in bots["ITA"].press_answers] == ["YES", "YES"]
    assert [tree_to_text(p.nodes()) for p in bots["ITA"].press_log] == heard[:2]
    assert bots["TUR"].press_log == [] and bots["TUR"].press_answers == []
    assert bots["AUS"].press_log == [] and bots["AUS"].press_answers == []
