"""Protocol faults per bot, for the tournament report.

A bot that does the protocol wrong loses points for reasons its author
cannot see in the ranking.  For each bot this counts, over all its seats:

* **refused**: what the server refused, from its store (the refusals
  table, `server.refusals`) for every bot, external programs included:
  orders refused by THX note, and messages not understood (HUH, PRN) or
  rejected (REJ) as a whole, counted by answer (``5 (NYU 3, HUH 2)``); for
  the in-process sample bots the count of what `bots.client.BotClient` met
  when it is larger (a tournament on another server has no store to read);
* **missing**: phases it owed orders in that were processed with orders
  still missing (at the deadline, or with the power away) - from the
  phases the server stored (`server.bot_log.owed_phases`), so for every bot;
* **failures**: the tournament's own failures (did not join, crashed, hung,
  disconnected; `tournament.store.Failure`).

Each faulty seat is listed with links to the game's replay, its bot log
(`write_bot_logs`: what the server sent the power and refused from it, in
words, as `daide export GAME --bot-log POWER` prints it) and, for an
external program, its output log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.variants import VariantError, load_variant
from server.bot_log import BotLogError, bot_log, owed_phases
from server.store import Store, StoreError
from tournament.store import Failure, StoredGame


@dataclass
class SeatFaults:
    """One seat's faults in one game."""

    game: int
    power: str
    refused: int = 0
    missing: list[str] = field(default_factory=list)      # the turns
    failures: list[str] = field(default_factory=list)     # "kind: detail"
    notes: dict[str, int] = field(default_factory=dict)   # answer (THX note, HUH, REJ) -> count


@dataclass
class BotFaults:
    bot: str
    seats: int = 0
    refused: int = 0
    missing: int = 0
    failures: int = 0
    faulty: list[SeatFaults] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)   # answer (THX note, HUH, REJ) -> count

    @property
    def marked(self) -> bool:
        return bool(self.refused or self.missing or self.failures)

    @property
    def summary(self) -> str:
        """The ranking table's cell: ``none``, or ``! 9 missing, 4 failures`` (see below)."""
        if not self.marked:
            return "none"
        parts = [f"{n} {what}" for n, what in ((self.refused, "refused"),
                                               (self.missing, "missing"),
                                               (self.failures, "failures")) if n]
        return "! " + ", ".join(parts) + " ([below](#protocol-faults))"


def bot_faults(bots: Sequence[str], stored: Sequence[StoredGame],
               failures: Sequence[tuple[int, Failure]], db: Path) -> list[BotFaults]:
    """Every bot's faults, in ``bots``' order (see the module docstring)."""
    out = {b: BotFaults(b) for b in bots}
    missing, refusals = _from_store(stored, db)
    failed: dict[tuple[int, str], list[str]] = {}
    for number, failure in failures:
        failed.setdefault((number, failure.power), []).append(f"{failure.kind}: {failure.detail}")
    for game in stored:
        for seat in game.seats:
            faults = out.setdefault(seat.bot, BotFaults(seat.bot))
            faults.seats += 1
            notes = refusals.get((game.number, seat.power), {})
            refused = max(seat.problems, sum(notes.values()))
            seat_faults = SeatFaults(game.number, seat.power, refused,
                                     missing.get((game.number, seat.power), []),
                                     failed.get((game.number, seat.power), []), dict(notes))
            for note, count in notes.items():
                faults.notes[note] = faults.notes.get(note, 0) + count
            faults.refused += seat_faults.refused
            faults.missing += len(seat_faults.missing)
            faults.failures += len(seat_faults.failures)
            if seat_faults.refused or seat_faults.missing or seat_faults.failures:
                faults.faulty.append(seat_faults)
    return [out[b] for b in out]


def _from_store(stored: Sequence[StoredGame], db: Path
                ) -> tuple[Mapping[tuple[int, str], list[str]],
                           Mapping[tuple[int, str], dict[str, int]]]:
    """From the server's store in ``db`` (nothing for games it does not hold: an external
    server's): (game number, power) -> the turns processed with its orders missing, and
    -> what the server refused from it, counted by answer (THX note, HUH, PRN, REJ)."""
    wanted = [g for g in stored if g.server_game_id is not None]
    if not wanted or not db.exists():
        return {}, {}
    try:
        store = Store.open_readonly(db)
    except Exception:  # not a server database (a tournament-only --db)
        return {}, {}
    out: dict[tuple[int, str], list[str]] = {}
    refused: dict[tuple[int, str], dict[str, int]] = {}
    try:
        for game in wanted:
            assert game.server_game_id is not None
            try:
                record = store.game(game.server_game_id)
                variant = load_variant(record.settings.variant)
                phases = store.phases(game.server_game_id)
                refusals = store.refusals(game.server_game_id)
            except (StoreError, VariantError):
                continue
            for refusal in refusals:
                notes = refused.setdefault((game.number, refusal.power), {})
                notes[refusal.answer] = notes.get(refusal.answer, 0) + 1
            for seat in game.seats:
                turns = [o.turn for o in owed_phases(variant, seat.power, phases)
                         if o.missing is not None]
                if turns:
                    out[(game.number, seat.power)] = turns
    finally:
        store.close()
    return out, refused


def _by_note(notes: Mapping[str, int]) -> str:
    """`` (NYU 3, HUH 1)``: the refusals by answer (THX note, HUH, PRN, REJ), most first;
    "" for none."""
    if not notes:
        return ""
    ranked = sorted(notes.items(), key=lambda item: (-item[1], item[0]))
    return " (" + ", ".join(f"{note} {count}" for note, count in ranked) + ")"


def fault_lines(faults: Sequence[BotFaults], replays: Mapping[int, str],
                logs: Mapping[tuple[int, str], str],
                bot_logs: Mapping[tuple[int, str], str] | None = None) -> list[str]:
    """The report's section: a table per bot, then each faulty seat with its links
    (``logs``: external programs' output; ``bot_logs``: `write_bot_logs`)."""
    lines = ["## Protocol faults", "",
             "Per bot, over all its seats: orders the server refused (by THX note) and "
             "messages it did not understand (HUH, PRN) or rejected (REJ), phases "
             "processed with its orders missing, "
             "and failures (did not join, crashed, hung, disconnected).  `!` marks a bot "
             "with faults; each faulty seat's bot log shows what went wrong, in order, and "
             "`daide check-bot` finds the causes.", "",
             "| bot | seats | refused / HUH / REJ | phases missing orders | failures | |",
             "|---|--:|--:|--:|--:|---|"]
    for f in faults:
        lines.append(f"| {f.bot} | {f.seats} | {f.refused}{_by_note(f.notes)} | {f.missing} | "
                     f"{f.failures} | {'!' if f.marked else ''} |")
    faulty = [(f.bot, s) for f in faults for s in f.faulty]
    if not faulty:
        return [*lines, "", "No faults."]
    lines += [""]
    for bot, seat in faulty:
        parts = []
        if seat.refused:
            parts.append(f"{seat.refused} refused or not understood{_by_note(seat.notes)}")
        if seat.missing:
            parts.append(f"orders missing in {', '.join(seat.missing)}")
        parts += seat.failures
        links = []
        if seat.game in replays:
            links.append(f"[replay]({replays[seat.game]})")
        if bot_logs and (seat.game, seat.power) in bot_logs:
            links.append(f"[bot log]({bot_logs[(seat.game, seat.power)]})")
        if (seat.game, seat.power) in logs:
            links.append(f"[log]({logs[(seat.game, seat.power)]})")
        detail = "; ".join(p.replace("|", "/") for p in parts)
        lines.append(f"- {bot}, game {seat.game} as {seat.power}: {detail}"
                     + (f" ({' '.join(links)})" if links else ""))
    return lines


def external_logs(stored: Sequence[StoredGame], folder: Path, out: Path) -> dict[tuple[int, str], str]:
    """(game, power) -> the link (relative to ``out``) of an external program's output log."""
    links = {}
    for game in stored:
        for seat in game.seats:
            path = folder / f"game{game.number}-{seat.power}-{seat.bot}.log"
            if path.is_file():
                try:
                    links[(game.number, seat.power)] = str(path.relative_to(out))
                except ValueError:
                    links[(game.number, seat.power)] = str(path)
    return links


def write_bot_logs(db: Path, stored: Sequence[StoredGame], faults: Sequence[BotFaults],
                   folder: Path, out: Path) -> dict[tuple[int, str], str]:
    """Write the bot log (`server.bot_log`) of every faulty seat whose game the server's
    store in ``db`` holds into ``folder``; (game, power) -> its link relative to ``out``."""
    server_id = {g.number: g.server_game_id for g in stored if g.server_game_id is not None}
    wanted = [(s.game, s.power) for f in faults for s in f.faulty if s.game in server_id]
    if not wanted or not db.exists():
        return {}
    try:
        store = Store.open_readonly(db)
    except Exception:  # not a server database (a tournament-only --db)
        return {}
    links = {}
    try:
        for number, power in wanted:
            try:
                text = bot_log(store, server_id[number], power)
            except (StoreError, BotLogError):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"game{number}-{power}.txt"
            path.write_text(text, encoding="utf-8")
            try:
                links[(number, power)] = str(path.relative_to(out))
            except ValueError:
                links[(number, power)] = str(path)
    finally:
        store.close()
    return links


__all__ = ["BotFaults", "SeatFaults", "bot_faults", "external_logs", "fault_lines",
           "write_bot_logs"]
