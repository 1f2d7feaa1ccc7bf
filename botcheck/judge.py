"""Judging what the bot did: every check of ``daide check-bot`` from the games played.

Each check is pass, warn or fail (or "not run" when its scenario was not
played), with a one-line summary of what happened, the exact messages behind
it (DAIDE text, from the relay's transcript) and one line of advice.  What a
power owed in a phase and what the server accepted from it come from the
phases the server stored (`server.store.Store.phases`): the position each
phase started from, and the orders it was processed with.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from adjudicator.notes import explain_note
from botcheck.play import CheckOptions, Played
from botcheck.relay import BOT, EVENT, INJECTED, SERVER, Line
from botcheck.scenarios import INJECTIONS
from engine.variants import load_variant
from protocol.messages import (
    Iam,
    MapMessage,
    MdfRequest,
    Message,
    Nme,
    Now,
    Obs,
    Rej,
    Sub,
    Thx,
    Yes,
)
from protocol.text import render_text
from server.bot_log import owed_phases as stored_owed_phases

PASS, WARN, FAIL, NOT_RUN = "pass", "warn", "fail", "not run"
#: Transcript lines kept per check.
EXCERPT = 24


@dataclass
class Check:
    """One check's verdict."""

    group: str
    name: str
    status: str
    summary: str
    advice: str = ""
    messages: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "name": self.name, "status": self.status,
                "summary": self.summary, "advice": self.advice, "messages": self.messages}


@dataclass
class PhaseOwed:
    """One phase in which the bot owed orders."""

    scenario: str
    turn: str
    kind: str
    complete: bool
    missing: str            # the MIS still owed at processing ("" when complete)
    seconds: float | None   # from the NOW to the SUB that completed its orders
    lines: list[Line]


# --- reading what was played --------------------------------------------------------------


def _turn_of(line: Line) -> str | None:
    message = line.message
    if isinstance(message, Now):
        return f"{message.turn.season} {message.turn.year}"
    return None


def phase_lines(played: Played) -> dict[str, list[Line]]:
    """The transcript cut by turn: each turn's lines from its first NOW to the next turn's."""
    out: dict[str, list[Line]] = {}
    current: str | None = None
    for line in played.lines:
        turn = _turn_of(line) if line.who == SERVER else None
        if turn is not None and turn != current and turn not in out:
            current = turn
            out[turn] = []
        if current is not None:
            out[current].append(line)
    return out


def owed_phases(played: Played) -> list[PhaseOwed]:
    """The phases the bot owed orders in, from the stored phases (`server.bot_log.owed_phases`,
    as ``daide export --bot-log`` reads them), with their timing from the transcript."""
    variant = load_variant(played.variant)
    by_turn = phase_lines(played)
    owed: list[PhaseOwed] = []
    for phase in stored_owed_phases(variant, played.power, played.phases):
        lines = by_turn.get(phase.turn, [])
        seconds = None
        if phase.missing is None and lines:
            subs = [line.at for line in lines if line.who == BOT and line.text.startswith("SUB")]
            if subs:
                seconds = max(0.0, subs[-1] - lines[0].at)
        missing_text = "" if phase.missing is None else _text(phase.missing, played)
        owed.append(PhaseOwed(played.scenario.key, phase.turn, phase.kind,
                              phase.missing is None, missing_text, seconds, lines))
    return owed


def _text(message: Message, played: Played) -> str:
    rep = load_variant(played.variant).rep
    return render_text(message.to_tokens(rep), rep)


def _excerpt(lines: Iterable[Line], limit: int = EXCERPT) -> list[str]:
    rendered = [line.render() for line in lines]
    if len(rendered) > limit:
        rendered = rendered[:limit - 1] + [f"   ... {len(rendered) - limit + 1} more lines"]
    return rendered


def _joining_lines(played: Played) -> list[Line]:
    out = []
    for line in played.lines:
        out.append(line)
        if line.who == SERVER and line.text.startswith("HLO"):
            break
    return out


def _played(runs: list[Played], key: str) -> Played | None:
    return next((p for p in runs if p.scenario.key == key), None)


# --- the checks ---------------------------------------------------------------------------


def judge(runs: list[Played], options: CheckOptions) -> list[Check]:
    """Every check, in the report's order."""
    checks: list[Check] = []
    checks += _joining(runs)
    if not any(run.joined for run in runs):
        return checks       # nothing else was played: the joining checks say why
    owed = [o for p in runs for o in owed_phases(p)]
    checks += _phases(runs, owed)
    checks += _orders(runs, owed, options)
    checks += _robustness(runs, options)
    checks += _variants(runs, owed, options)
    return checks


def _joining(runs: list[Played]) -> list[Check]:
    group = "joining"
    first = runs[0] if runs else None
    if first is None:
        return [Check(group, "joining", NOT_RUN, "no scenario was played")]
    lines = _joining_lines(first)
    excerpt = _excerpt(lines)
    checks = []
    bot_lines = [line for line in first.lines if line.who == BOT]
    if first.error and not bot_lines:
        return [Check(group, "the program starts and connects", FAIL, first.error,
                      "check the command line: {host} and {port} are replaced by the "
                      "address to connect to", excerpt + first.output)]
    if not bot_lines:
        return [Check(group, "the program connects", FAIL,
                      "the program never sent anything to the server (no IM)",
                      "connect to {host}:{port} and send the IM frame first "
                      "(docs/protocol.md §3)", excerpt + first.output)]
    im = bot_lines[0].text
    if im.startswith("IM (") and "expected" not in im:
        checks.append(Check(group, "IM", PASS, f"the first frame was {im}", "", excerpt[:3]))
    else:
        checks.append(Check(group, "IM", FAIL, f"the first frame was {im}, not a valid IM",
                            "open with the 6-byte IM: version 1, magic number 0xDA10",
                            excerpt[:3]))
    dms = [line for line in bot_lines if line.message is not None]
    hello = dms[0].message if dms else None
    if isinstance(hello, Nme) and hello.name.strip() and hello.version.strip():
        checks.append(Check(group, "NME", PASS,
                            f"joined as '{hello.name}' version '{hello.version}'", "",
                            [dms[0].render()]))
    elif isinstance(hello, Nme):
        checks.append(Check(group, "NME", FAIL, "NME with an empty name or version",
                            "send NME ('name') ('version') with both filled in: tournament "
                            "reports and SMR show them", [dms[0].render()]))
    elif isinstance(hello, Iam):
        checks.append(Check(group, "NME", FAIL, "opened with IAM in a new game",
                            "join a new game with NME; IAM is for coming back after a lost "
                            "connection", [dms[0].render()]))
    elif isinstance(hello, Obs):
        checks.append(Check(group, "NME", FAIL, "joined as an observer (OBS), not as a player",
                            "join with NME ('name') ('version')", [dms[0].render()]))
    else:
        first_text = bot_lines[1].text if len(bot_lines) > 1 else "nothing"
        checks.append(Check(group, "NME", FAIL, f"the first message was {first_text}, not NME",
                            "after the IM, join with NME ('name') ('version')", excerpt))
    asked_mdf = any(isinstance(line.message, MdfRequest) for line in bot_lines)
    yes_map = next((line for line in bot_lines if isinstance(line.message, Yes)
                    and isinstance(line.message.message, MapMessage)), None)
    rej_map = next((line for line in bot_lines if isinstance(line.message, Rej)
                    and isinstance(line.message.message, MapMessage)), None)
    map_sent = any(isinstance(line.message, MapMessage) for line in first.lines
                   if line.who == SERVER)
    mdf_note = "after asking for the MDF" if asked_mdf else "without asking for the MDF"
    if yes_map is not None:
        checks.append(Check(group, "YES (MAP)", PASS, f"answered MAP with {yes_map.text} "
                            f"{mdf_note}", "", excerpt))
    elif rej_map is not None:
        checks.append(Check(group, "YES (MAP)", FAIL, f"refused the map: {rej_map.text}",
                            "accept the map with YES (MAP ('name')); ask for the MDF if the "
                            "map is unknown to you", excerpt))
    else:
        what = "the server's MAP" if map_sent else "a MAP (the server never sent one)"
        checks.append(Check(group, "YES (MAP)", FAIL,
                            f"never answered {what} with YES (MAP (...))",
                            "answer MAP ('name') with YES (MAP ('name')) - asking for the MDF "
                            "first if you need it - or the game never starts", excerpt))
    for key, name, advice in (
            ("join-at-once", "joins a game that starts at once",
             "be ready for HLO, SCO and NOW right after your YES (MAP)"),
            ("join-waits", "joins a game that waits for other players",
             "after YES (MAP) wait quietly for HLO; do not time out")):
        run = _played(runs, key)
        if run is None:
            checks.append(Check(group, name, NOT_RUN, "scenario not played"))
            continue
        excerpt = _excerpt(_joining_lines(run))
        if run.joined and run.started and run.over:
            checks.append(Check(group, name, PASS, "joined, played and saw the game end",
                                "", excerpt))
        elif run.joined and run.started:
            checks.append(Check(group, name, FAIL, "joined but did not stay to the end of "
                                f"the game{_exit_note(run)}", advice, excerpt + run.output))
        else:
            checks.append(Check(group, name, FAIL, "did not join" + _exit_note(run), advice,
                                excerpt + run.output))
    return checks


def _exit_note(run: Played) -> str:
    if run.exit_status is not None and not run.over:
        return f" (the program ended with exit status {run.exit_status})"
    if run.error:
        return f" ({run.error})"
    return ""


PHASE_CHECKS = (
    ("join-at-once", "movement", "a movement phase",
     "order every unit: SUB with one order each, in one SUB or several"),
    ("join-waits", "retreat", "a retreat with a dislodged unit that has options",
     "order every unit listed with MRT in the NOW: RTO to one of its options, or DSB"),
    ("retreat-nowhere", "retreat", "a retreat with nowhere to go (MRT ( ))",
     "a dislodged unit with an empty MRT list must be ordered DSB"),
    ("builds", "adjustment", "builds owed",
     "in WIN, when centres outnumber units, BLD in free home centres (or WVE)"),
    ("builds-no-home", "adjustment", "a build owed with no free home centre",
     "when every home centre is occupied, send WVE for each build owed"),
    ("removals", "adjustment", "removals owed",
     "in WIN, when units outnumber centres, REM exactly as many units as owed"),
)


def _phases(runs: list[Played], owed: list[PhaseOwed]) -> list[Check]:
    group = "phases"
    checks = []
    for key, kind, name, advice in PHASE_CHECKS:
        run = _played(runs, key)
        if run is None:
            checks.append(Check(group, name, NOT_RUN, "scenario not played"))
            continue
        phase = next((o for o in owed if o.scenario == key and o.kind == kind), None)
        if phase is None:
            checks.append(Check(group, name, FAIL, "the phase was never processed with the "
                                f"bot at the table{_exit_note(run)}", advice,
                                _excerpt(run.lines) + run.output))
        elif phase.complete:
            checks.append(Check(group, name, PASS, f"{phase.turn}: orders complete in "
                                f"{phase.seconds if phase.seconds is not None else 0:.2f} s",
                                "", _excerpt(phase.lines)))
        else:
            checks.append(Check(group, name, FAIL, f"{phase.turn}: orders incomplete at the "
                                f"deadline, still owed {phase.missing}", advice,
                                _excerpt(phase.lines)))
    checks.append(_no_units(runs))
    checks.append(_resubmit(runs))
    return checks


def _no_units(runs: list[Played]) -> Check:
    group, name = "phases", "a power with centres and no units"
    run = _played(runs, "no-units")
    if run is None:
        return Check(group, name, NOT_RUN, "scenario not played")
    # The movement phase it had no units in (what follows is the game's end: a bot may
    # well answer the WIN NOW that comes just before the DRW).
    first = phase_lines(run).get("FAL 1901", [])
    subs = [line for line in first if line.who == BOT and line.text.startswith("SUB")]
    lines = _excerpt(run.lines)
    if not run.over:
        return Check(group, name, FAIL, "did not stay to the end of the game" + _exit_note(run),
                     "a NOW without units of yours is normal: order nothing, wait for the "
                     "next phase", lines + run.output)
    if subs:
        return Check(group, name, WARN, f"sent {len(subs)} SUB without any unit to order",
                     "with no units, send no SUB (an empty one is harmless but useless)", lines)
    return Check(group, name, PASS, "ordered nothing and stayed to the end", "", lines)


def _resubmit(runs: list[Played]) -> Check:
    group, name = "phases", "orders already complete after a reconnection"
    run = _played(runs, "reconnect")
    if run is None:
        return Check(group, name, NOT_RUN, "scenario not played")
    second = next((i for i, line in enumerate(run.lines)
                   if line.who == EVENT and "connection 2" in line.text), None)
    if second is None:
        return Check(group, name, WARN, "the bot did not come back after the dropped "
                     "connection, so this could not be seen",
                     "reconnect with IM and IAM (power) (passcode) after a lost connection",
                     _excerpt(run.lines))
    after = run.lines[second:]
    turn = next((_turn_of(line) for line in reversed(run.lines[:second])
                 if line.who == SERVER and _turn_of(line)), None)
    resubmitted = []
    for line in after:
        if line.who == SERVER and _turn_of(line) not in (None, turn):
            break
        if line.who == BOT and line.text.startswith("SUB"):
            resubmitted.append(line)
    if resubmitted:
        return Check(group, name, PASS, f"resubmitted its {turn} orders after coming back "
                     "(the server keeps them; resubmitting replaces them)", "",
                     _excerpt(after))
    return Check(group, name, PASS, f"kept its {turn} orders after coming back (the server "
                 "still had them)", "", _excerpt(after))


def _orders(runs: list[Played], owed: list[PhaseOwed], options: CheckOptions) -> list[Check]:
    group = "orders"
    checks = []
    notes: list[str] = []
    note_lines: list[str] = []
    for run in runs:
        last_sub: Line | None = None
        for line in run.lines:
            if line.who == BOT and isinstance(line.message, Sub):
                last_sub = line
            message = line.message
            if line.who == SERVER and isinstance(message, Thx) and message.note != "MBV":
                order = line.text[len("THX ( "):line.text.rfind(" ) (")]
                notes.append(f"{order}: {explain_note(message.note)}")
                if last_sub is not None and last_sub.render() not in note_lines:
                    note_lines.append(last_sub.render())
                note_lines.append(line.render())
    subs = sum(1 for run in runs for line in run.lines
               if line.who == BOT and line.text.startswith("SUB"))
    if notes:
        checks.append(Check(group, "every SUB answered MBV", FAIL,
                            f"{len(notes)} order(s) refused - {notes[0]}"
                            + (f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""),
                            "order only your own units, from where they stand, with the phase's "
                            "order kinds (docs/protocol.md §9.3 lists the notes)",
                            notes + note_lines[:EXCERPT]))
    else:
        checks.append(Check(group, "every SUB answered MBV", PASS,
                            f"{subs} SUB message(s), every order accepted"))
    incomplete = [o for o in owed if not o.complete]
    if incomplete:
        first = incomplete[0]
        checks.append(Check(group, "orders complete before the deadline", FAIL,
                            f"{len(incomplete)} of {len(owed)} phase(s) incomplete at the "
                            f"deadline - first {first.turn} ({first.scenario}), still owed "
                            f"{first.missing}",
                            "order everything the phase needs before the deadline; ask MIS "
                            "to see what is missing",
                            [f"{o.scenario}: {o.turn} still owed {o.missing}"
                             for o in incomplete]))
    elif owed:
        checks.append(Check(group, "orders complete before the deadline", PASS,
                            f"complete in all {len(owed)} phase(s) that needed orders"))
    else:
        checks.append(Check(group, "orders complete before the deadline", NOT_RUN,
                            "no phase that needed the bot's orders was processed with it at "
                            "the table"))
    # Phases the checker disturbed on purpose (injections, a dropped connection) are left out.
    times = [o.seconds for o in owed if o.seconds is not None
             and o.scenario not in ("robustness", "reconnect")]
    if times:
        median, longest = statistics.median(times), max(times)
        status = WARN if longest > options.deadline / 2 else PASS
        checks.append(Check(group, "time to complete orders", status,
                            f"median {median:.2f} s, max {longest:.2f} s over {len(times)} "
                            f"phase(s) (deadline {options.deadline} s)",
                            "" if status == PASS else "a slow phase risks the deadline of a "
                            "real game: budget the search per phase"))
    # From the first NOW to the end: the phases' work, not the program's start-up.
    cpu = [(run.cpu_seconds - run.cpu_at_start,
            sum(1 for o in owed if o.scenario == run.scenario.key))
           for run in runs if run.cpu_seconds is not None and run.cpu_at_start is not None]
    cpu_phases = sum(n for _, n in cpu)
    if cpu and cpu_phases:
        per_phase = sum(c for c, _ in cpu) / cpu_phases
        checks.append(Check(group, "CPU per phase", PASS,
                            f"{per_phase * 1000:.0f} ms of CPU per phase ordered, from the "
                            f"first NOW to the end ({cpu_phases} phases; /proc, 10 ms ticks)"))
    huhs: list[str] = []
    for run in runs:
        previous: Line | None = None
        for line in run.lines:
            if line.who == SERVER and line.text.startswith("HUH") \
                    and not _answers_injected_press(run, previous):
                if previous is not None:
                    huhs.append(previous.render())
                huhs.append(line.render())
            if line.who == BOT:
                previous = line
    if huhs:
        checks.append(Check(group, "no HUH from the server", FAIL,
                            f"the server did not understand {sum(1 for h in huhs if ' HUH' in h)}"
                            " message(s) (HUH marks the error with ERR)",
                            "send only messages of the DAIDE grammar (docs/protocol.md); the "
                            "ERR token in the HUH shows where yours went wrong", huhs[:EXCERPT]))
    else:
        checks.append(Check(group, "no HUH from the server", PASS,
                            "every message the bot sent was understood"))
    return checks


def _until_next_injection(lines: list[Line], index: int) -> list[Line]:
    """The injected line at ``index`` and what followed it, up to the next injected line
    or the next phase (the bot's reaction to it, not what the rest of the game brought)."""
    out = [lines[index]]
    for line in lines[index + 1:]:
        if line.who == INJECTED or (line.who == SERVER
                                    and line.text.startswith(("ORD", "NOW", "SMR", "OFF"))):
            break
        out.append(line)
    return out


_GONE = ("the bot closed its connection", "the bot's connection broke", "the program ended",
         "the bot sent bytes that are not a frame")


def _left(lines: list[Line]) -> bool:
    """Whether the bot left (closed, lost its connection, or its program ended) in ``lines``."""
    return any(line.who == EVENT and line.text.startswith(_GONE) for line in lines)


def _answers_injected_press(run: Played, line: Line | None) -> bool:
    """The bot's press in answer to the press the checker injected (judged there, not as a HUH)."""
    return (line is not None and run.scenario.key == "robustness" and line.text.startswith("SND")
            and any(i.key == "press" for i in run.injected))


def _robustness(runs: list[Played], options: CheckOptions) -> list[Check]:
    group = "robustness"
    checks = []
    run = _played(runs, "robustness")
    if run is None:
        checks.append(Check(group, "unexpected messages", NOT_RUN, "scenario not played"))
    else:
        seen = {i.key: i for i in run.injected}
        for injection in INJECTIONS:
            done = seen.get(injection.key)
            name = injection.label
            if done is None:
                checks.append(Check(group, name, NOT_RUN, "not sent: the bot had already left"
                                    if run.injected else "not sent: the phase never began"))
                continue
            window = _until_next_injection(run.lines, done.index)
            replies = [line.text for line in window if line.who == BOT]
            if _left(window):
                checks.append(Check(group, name, FAIL,
                                    f"the bot left after {injection.label.split(' (')[0]}"
                                    + _exit_note(run),
                                    _ADVICE.get(injection.key, "ignore (or HUH) what you do "
                                                "not understand; never leave for it"),
                                    _excerpt(window) + run.output))
            elif injection.key == "press" and options.level < 10 \
                    and any(r.startswith("SND") for r in replies):
                checks.append(Check(group, name, WARN, "stayed connected, but answered with "
                                    f"press in a level-0 game: {replies[0]}",
                                    "at level 0 send no press, not even HUH or TRY: the server "
                                    "refuses every SND (HUH)", _excerpt(window)))
            else:
                reply = f"; it answered {replies[0]}" if replies else ""
                checks.append(Check(group, name, PASS, f"stayed connected{reply}", "",
                                    _excerpt(window)))
        later = [o for o in owed_phases(run) if o.turn != "SPR 1901"]
        if len(run.injected) == len(INJECTIONS) \
                and not _left(_until_next_injection(run.lines, run.injected[-1].index)):
            if later and all(o.complete for o in later):
                checks.append(Check(group, "plays on after them", PASS,
                                    f"ordered {later[0].turn} completely"))
            else:
                checks.append(Check(group, "plays on after them", FAIL,
                                    "did not order the next phase completely",
                                    "after an unexpected message, go on playing",
                                    _excerpt(later[0].lines if later else run.lines[-EXCERPT:])))
    checks += _endings(runs, options)
    checks.append(_comes_back(runs))
    return checks


_ADVICE = {
    "unknown": "a token you do not know is no reason to leave: answer HUH or ignore it",
    "malformed": "a message you cannot parse is no reason to leave: answer HUH or ignore it",
    "press": "press you did not ask for (above your level) is to be ignored or answered "
             "HUH, never a reason to leave",
    "adm": "ADM is free text from the server or a player: log it or ignore it",
    "ccd": "CCD (power) only says another player is away: carry on",
    "not-ccd": "NOT (CCD (power)) only says another player is back: carry on",
}


def _endings(runs: list[Played], options: CheckOptions) -> list[Check]:
    group = "robustness"
    checks = []
    for word, key, name in (("DRW", "join-at-once", "the game ends in a draw (DRW, SMR, OFF)"),
                            ("SLO", "solo", "another power's solo (SLO, SMR, OFF)")):
        run = _played(runs, key)
        if run is None:
            checks.append(Check(group, name, NOT_RUN, "scenario not played"))
            continue
        end = [line for line in run.lines if line.who == SERVER
               and line.text.split(" ")[0] in (word, "SMR", "OFF")]
        start = run.lines.index(end[0]) if end else max(0, len(run.lines) - 8)
        lines = _excerpt(run.lines[start:])
        if not end or not run.over:
            checks.append(Check(group, name, FAIL, f"the game did not reach its {word}"
                                + _exit_note(run),
                                "stay connected until SMR and OFF", lines + run.output))
            continue
        if run.exited_at is None:
            checks.append(Check(group, name, WARN, f"still running {options.leave_grace:g} s "
                                "after OFF (stopped by the checker)",
                                "exit when the server sends OFF (docs/protocol.md §4.4)",
                                lines))
        elif run.exit_status not in (0, None):
            checks.append(Check(group, name, WARN, f"exited with status {run.exit_status} "
                                "after the game's end",
                                "exit with status 0 after a game that ended normally",
                                lines + run.output))
        else:
            checks.append(Check(group, name, PASS, f"saw {word}, SMR and OFF and exited", "",
                                lines))
    return checks


def _comes_back(runs: list[Played]) -> Check:
    group, name = "robustness", "comes back with IAM after a dropped connection"
    run = _played(runs, "reconnect")
    if run is None:
        return Check(group, name, NOT_RUN, "scenario not played")
    dropped = next((i for i, line in enumerate(run.lines)
                    if line.who == EVENT and "drops" in line.text), None)
    if dropped is None:
        return Check(group, name, WARN, "the connection was never dropped (no THX was seen)",
                     "", _excerpt(run.lines))
    after = run.lines[dropped:]
    iam = next((line for line in after if line.who == BOT and isinstance(line.message, Iam)),
               None)
    if iam is not None:
        return Check(group, name, PASS, f"came back with {iam.text} "
                     f"{iam.at - run.lines[dropped].at:.2f} s later (reported, not required)",
                     "", _excerpt(after))
    return Check(group, name, WARN, "did not come back (reported, not required)",
                 "after a lost connection, reconnect and send IAM (power) (passcode) from "
                 "the HLO: the power is yours again (docs/protocol.md §13)", _excerpt(after))


def _variants(runs: list[Played], owed: list[PhaseOwed], options: CheckOptions) -> list[Check]:
    group = "variants"
    run = _played(runs, "variant")
    name = f"two years of {options.variant}"
    if run is None:
        return [Check(group, name, NOT_RUN, "scenario not played")]
    phases = [o for o in owed if o.scenario == "variant"]
    huh = [line for line in run.lines if line.who == SERVER and line.text.startswith("HUH")]
    incomplete = [o for o in phases if not o.complete]
    lines = _excerpt(_joining_lines(run))
    if not run.over:
        return [Check(group, name, FAIL, "did not play to the end" + _exit_note(run),
                      "read the map from MAP and MDF; take power and province tokens from "
                      "the RM", lines + run.output)]
    if huh:
        return [Check(group, name, FAIL, f"{len(huh)} HUH from the server on {options.variant}",
                      "use the tokens of the RM the server sent, not the standard map's",
                      _excerpt(huh))]
    if incomplete:
        return [Check(group, name, FAIL, f"{len(incomplete)} of {len(phases)} phases "
                      f"incomplete, first {incomplete[0].turn}: still owed "
                      f"{incomplete[0].missing}",
                      "build your map from the MDF: provinces, coasts and home centres "
                      "differ from the standard map's", _excerpt(incomplete[0].lines))]
    return [Check(group, name, PASS, f"played {len(phases)} phases as {run.power}, every "
                  "one complete, no HUH", "", lines)]


__all__ = ["FAIL", "NOT_RUN", "PASS", "WARN", "Check", "PhaseOwed", "judge", "owed_phases",
           "phase_lines"]
