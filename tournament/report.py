"""The report in the output directory: Markdown, CSV and SVG.

`write_report` reads the finished games from the database (so a report can
be made again at any time, with any scoring system) and writes:

* ``report.md`` - the games' pace (games per minute) and where they ran,
  ranking under the chosen system (mean per seat, 95 %
  bootstrap interval, solos/draws/losses, mean centres) and a verdict, the
  means under every system, the per-power breakdown (mean score, and mean
  centres by year with the seats eliminated), head-to-head, the
  seating balance actually achieved, every game, every bot failure, and the
  protocol faults per bot (`tournament.faults`: refused orders, messages
  not understood or rejected, phases processed with orders missing,
  failures; a bot with faults marked, each faulty seat linked to its replay,
  its bot log and its program's output);
* ``games.csv`` - one row per seat of every finished game, with its score
  under every system (recomputable by anyone from the same columns);
* ``bots.csv`` - one row per bot and system: mean and interval;
* ``scores.svg`` - the ranking as bars with error bars;
* ``centres-game-N.svg`` - centre counts over time for a sample game (the
  first solo if there is one, else the game whose leader ended highest);
* ``replays/game-S.html`` - the replay of every game whose server record is
  in the database (S: the server's game number, as `daide export S --html`
  names it), linked from the table of games; a game played on Ray, whose
  server lived on its worker for that game only, has the replay the worker
  made, ``replays/tournament-game-N.html`` (N: the tournament's game number,
  `worker_replay_name`), written by the driver when the result came back.
* ``bot-logs/gameN-POWER.txt`` - the bot log of each seat with protocol
  faults (`tournament.faults.write_bot_logs`, as `daide export S --bot-log
  POWER` prints it).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bots.registry import BUDGETED
from tournament.config import TournamentConfig
from tournament.design import balance, seat_counts
from tournament.faults import bot_faults, external_logs, fault_lines, write_bot_logs
from tournament.plots import centre_chart, score_chart
from tournament.scoring import SYSTEMS, GameResult, ScoringSystem
from tournament.stats import (
    BotSummary,
    HeadToHead,
    ScoredGame,
    bot_summaries,
    courses,
    head_to_head,
    per_power,
)
from tournament.store import Failure, StoredGame, TournamentStore


@dataclass(frozen=True)
class ReportFiles:
    """What `write_report` wrote, and the ranking it found."""

    markdown: Path
    games_csv: Path
    bots_csv: Path
    scores_svg: Path
    sample_svg: Path | None
    ranking: tuple[BotSummary, ...]
    games: int
    text: str


def scored_games(stored: Sequence[StoredGame]) -> list[ScoredGame]:
    """The finished games as `ScoredGame` values (unfinished ones are left out)."""
    out = []
    for game in stored:
        if game.status != "finished":
            continue
        result = GameResult.of({s.power: s.centres for s in game.seats},
                               {s.power for s in game.seats if s.survived}, game.winner)
        out.append(ScoredGame(game.number, tuple((s.power, s.bot) for s in game.seats), result))
    return out


def sample_game(stored: Sequence[StoredGame]) -> StoredGame | None:
    """The game drawn in the centre chart (see the module docstring)."""
    finished = [g for g in stored if g.status == "finished" and g.history]
    if not finished:
        return None
    solos = [g for g in finished if g.winner]
    if solos:
        return solos[0]
    return max(finished, key=lambda g: (max(s.centres for s in g.seats), -g.number))


def _fmt(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def _table(header: Sequence[str], rows: Sequence[Sequence[object]],
           align: Sequence[str] | None = None) -> list[str]:
    marks = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(marks) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def verdict(ranking: Sequence[BotSummary], pairs: Sequence[HeadToHead]) -> str:
    """One sentence: who is best, and against whom that is significant."""
    if not ranking:
        return "No game has finished yet."
    best = ranking[0]
    if len(ranking) == 1:
        return f"Only **{best.bot}** played."
    beaten: list[str] = []
    unclear: list[str] = []
    for other in ranking[1:]:
        pair = next((p for p in pairs if {p.first, p.second} == {best.bot, other.bot}), None)
        if pair is None:
            unclear.append(other.bot)
            continue
        if pair.first == best.bot:
            significant = pair.difference.low > 0
        else:
            significant = pair.difference.high < 0
        (beaten if significant else unclear).append(other.bot)
    text = f"**{best.bot}** has the best mean score ({_fmt(best.score.mean)})."
    if beaten:
        text += (" It is better than " + ", ".join(f"**{b}**" for b in beaten)
                 + " with 95 % confidence (the interval of the head-to-head difference"
                 " excludes 0).")
    if unclear:
        text += (" The games played cannot separate it from " + ", ".join(unclear)
                 + " (the interval of the difference includes 0).")
    return text


def write_report(config: TournamentConfig, store: TournamentStore, tid: int) -> ReportFiles:
    """Write every report file into ``config.out`` (see the module docstring)."""
    out = config.out
    out.mkdir(parents=True, exist_ok=True)
    stored = store.games(tid)
    games = scored_games(stored)
    bots = [b.name for b in config.bots]
    system = SYSTEMS[config.scoring]
    ranking = bot_summaries(games, bots, system, seed=config.seed)
    ranked_bots = [s.bot for s in ranking] + [b for b in bots if b not in
                                              {s.bot for s in ranking}]
    pairs = head_to_head(games, ranked_bots, system, seed=config.seed)
    failures = store.failures(tid)

    scores_svg = out / "scores.svg"
    scores_svg.write_text(score_chart(ranking, title=f"Mean score per bot: {system.title}",
                                      unit=system.title), encoding="utf-8")
    sample = sample_game(stored)
    sample_svg = None
    if sample is not None:
        sample_svg = out / f"centres-game-{sample.number}.svg"
        players = {s.power: s.bot for s in sample.seats}
        result = f"solo {sample.winner}" if sample.winner else (sample.ending or "")
        sample_svg.write_text(centre_chart(
            sample.history, players,
            title=f"Game {sample.number}: supply centres ({result}, {sample.end_turn})"),
            encoding="utf-8")
    games_csv = out / "games.csv"
    games_csv.write_text(_games_csv(stored, games), encoding="utf-8")
    bots_csv = out / "bots.csv"
    bots_csv.write_text(_bots_csv(games, bots, config.seed), encoding="utf-8")

    replays = write_replays(config.db_path, stored, out / "replays")
    faults = bot_faults(ranked_bots, stored, failures, config.db_path)
    fault_section = fault_lines(faults, replays, external_logs(stored, out / "logs", out),
                                write_bot_logs(config.db_path, stored, faults,
                                               out / "bot-logs", out))
    text = "\n".join([*_markdown(config, stored, games, ranking, pairs, failures, system,
                                 sample, sample_svg, scores_svg, replays,
                                 {f.bot: f.summary for f in faults}),
                       "", *fault_section]) + "\n"
    markdown = out / "report.md"
    markdown.write_text(text, encoding="utf-8")
    return ReportFiles(markdown, games_csv, bots_csv, scores_svg, sample_svg, tuple(ranking),
                       len(games), text)


def worker_replay_name(number: int) -> str:
    """The file (in ``replays/``) of the replay of tournament game ``number`` played on Ray."""
    return f"tournament-game-{number}.html"


def write_replays(db: Path, stored: Sequence[StoredGame], folder: Path) -> dict[int, str]:
    """Write the replay of every game the server's records in ``db`` hold.

    Returns tournament game number -> link relative to the report.  A game
    without a server record links the replay its Ray worker made
    (`worker_replay_name`) when there is one; else (an external server whose
    database is not ``db``) it simply gets no replay.
    """
    links = _server_replays(db, stored, folder)
    for game in stored:
        name = worker_replay_name(game.number)
        if (game.number not in links and game.server_game_id is None
                and game.status == "finished" and (folder / name).is_file()):
            links[game.number] = f"{folder.name}/{name}"
    return links


def _server_replays(db: Path, stored: Sequence[StoredGame], folder: Path) -> dict[int, str]:
    from maps import MapError
    from render import RenderError
    from render.replay import game_replay
    from server.store import Store, StoreError

    wanted = [g for g in stored if g.server_game_id is not None]
    if not wanted or not db.exists():
        return {}
    links: dict[int, str] = {}
    try:
        store = Store.open_readonly(db)
    except Exception:  # not a server database (a tournament-only --db): no replays
        return {}
    try:
        for game in wanted:
            sid = game.server_game_id
            assert sid is not None
            try:
                page = game_replay(store, sid)
            except (StoreError, MapError, RenderError):
                continue
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"game-{sid}.html").write_text(page, encoding="utf-8")
            links[game.number] = f"{folder.name}/game-{sid}.html"
    finally:
        store.close()
    return links


def _games_csv(stored: Sequence[StoredGame], games: Sequence[ScoredGame]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["game", "seed", "ending", "end_turn", "winner", "power", "bot", "centres",
                     "units", "survived", *SYSTEMS])
    by_number = {g.number: g for g in stored}
    for game in games:
        row = by_number[game.number]
        scores = {key: s.score(game.result) for key, s in SYSTEMS.items()}
        for seat in row.seats:
            writer.writerow([game.number, row.seed, row.ending, row.end_turn, row.winner or "",
                             seat.power, seat.bot, seat.centres, seat.units, int(seat.survived),
                             *(f"{scores[k][seat.power]:.4f}" for k in SYSTEMS)])
    return buffer.getvalue()


def _bots_csv(games: Sequence[ScoredGame], bots: Sequence[str], seed: int) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["system", "bot", "games", "seats", "mean", "ci_low", "ci_high", "solos",
                     "draws", "losses", "mean_centres"])
    for key, system in SYSTEMS.items():
        for s in bot_summaries(games, bots, system, seed=seed):
            writer.writerow([key, s.bot, s.games, s.seats, f"{s.score.mean:.4f}",
                             f"{s.score.low:.4f}", f"{s.score.high:.4f}", s.solos, s.draws,
                             s.losses, f"{s.mean_centres:.4f}"])
    return buffer.getvalue()


def pace_line(finished: Sequence[StoredGame]) -> str:
    """Games per minute of play, and the games each node played.

    The minutes of play are the time at least one game was being played (the
    union of the games' [start, end] intervals), so the pauses between an
    interrupted run and its continuation do not count.
    """
    spans = sorted((datetime.fromisoformat(g.started_at), datetime.fromisoformat(g.finished_at))
                   for g in finished if g.started_at and g.finished_at)
    busy = 0.0
    end: datetime | None = None
    for start, stop in spans:
        if end is None or start > end:
            busy += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            busy += (stop - end).total_seconds()
            end = stop
    nodes: dict[str, int] = {}
    for g in finished:
        nodes[g.node or "?"] = nodes.get(g.node or "?", 0) + 1
    where = ", ".join(f"{n} {k}" for n, k in sorted(nodes.items())) or "none"
    if busy <= 0:
        return f"- pace: no game timed yet; games per node: {where}"
    return (f"- pace: {len(spans) * 60 / busy:.1f} games per minute ({len(spans)} games in "
            f"{busy / 60:.1f} min of play); games per node: {where}")


def cut_line(finished: Sequence[StoredGame], config: TournamentConfig) -> str:
    """The header line on the CPU limit of the bots that search in process: whether a
    phase's search was cut short by it, and so whether the games replay from their seeds
    (`bots.budget`)."""
    searching = [b.name for b in config.bots if b.strategy in BUDGETED]
    if not searching:
        return "- CPU limit: none of these bots searches in process (nothing to cut)"
    phases: dict[str, int] = dict.fromkeys(searching, 0)
    games: dict[str, int] = dict.fromkeys(searching, 0)
    unknown = 0
    for g in finished:
        seats = [s for s in g.seats if s.bot in phases]
        if any(s.cut is None for s in seats):
            unknown += 1            # played before the count was kept
            continue
        for bot in searching:
            n = sum(s.cut or 0 for s in seats if s.bot == bot)
            phases[bot] += n
            games[bot] += n > 0
    if unknown == len(finished):
        return "- CPU limit: phases cut short not recorded (games played by an older version)"
    tail = f"; not recorded in {unknown} game(s) played by an older version" if unknown else ""
    if not any(phases.values()):
        # an external program may play differently each time, whatever its seed
        also = ("the games replay from their seeds" if all(b.strategy for b in config.bots)
                else "their orders do not depend on the machine's speed")
        return "- CPU limit: no phase of " + ", ".join(searching) + f" reached it; {also}" + tail
    return ("- CPU limit: " + "; ".join(
        f"{bot} {phases[bot]} phase(s) cut short in {games[bot]} game(s)"
        for bot in searching if phases[bot])
        + " - those games may not replay from their seeds" + tail)


def _markdown(config: TournamentConfig, stored: Sequence[StoredGame],
              games: Sequence[ScoredGame], ranking: Sequence[BotSummary],
              pairs: Sequence[HeadToHead], failures: Sequence[tuple[int, Failure]],
              system: ScoringSystem, sample: StoredGame | None, sample_svg: Path | None,
              scores_svg: Path, replays: dict[int, str] | None = None,
              faults: dict[str, str] | None = None) -> list[str]:
    bots = [b.name for b in config.bots]
    powers = list(config.powers)
    finished = [g for g in stored if g.status == "finished"]
    endings: dict[str, int] = {}
    for g in finished:
        endings[g.ending or "?"] = endings.get(g.ending or "?", 0) + 1
    plans = [g.plan for g in stored]
    spread = balance(plans, bots, powers)
    lines = [
        "# Tournament report",
        "",
        f"- bots: {', '.join(_bot_label(config, b) for b in bots)}",
        f"- games: {len(finished)} finished of {len(stored)} planned"
        + (f" ({sum(1 for g in stored if g.status == 'failed')} failed)"
           if any(g.status == "failed" for g in stored) else ""),
        f"- seed {config.seed}; year limit {config.year_limit} (games end after "
        f"{config.max_year} at the latest); time limit {config.time_limit:g} s per game",
        "- endings: " + (", ".join(f"{k} {v}" for k, v in sorted(endings.items())) or "none"),
        pace_line(finished),
        f"- scoring: **{system.title}** (`--scoring {system.key}`); intervals are 95 % "
        "bootstrap intervals over games",
        f"- seating: each (bot, power) count within {spread['pair']} of every other, seat "
        f"totals within {spread['seats']}",
        cut_line(finished, config),
        "",
        f"## Ranking: {system.title}",
        "",
    ]
    marks = faults or {}
    lines += _table(
        ["rank", "bot", "games", "seats", "mean", "95 % interval", "solos", "draws", "losses",
         "mean centres", "protocol faults"],
        [[i + 1, s.bot, s.games, s.seats, _fmt(s.score.mean),
          f"{_fmt(s.score.low)} .. {_fmt(s.score.high)}", s.solos, s.draws, s.losses,
          f"{s.mean_centres:.2f}", marks.get(s.bot, "-")] for i, s in enumerate(ranking)],
        ["--:", "---", "--:", "--:", "--:", ":-:", "--:", "--:", "--:", "--:", "---"])
    lines += ["", verdict(ranking, pairs), "", f"![mean score per bot]({scores_svg.name})", ""]

    lines += ["## Every scoring system (mean per seat)", ""]
    means = {key: {s.bot: s.score.mean for s in bot_summaries(games, bots, sys_,
                                                              seed=config.seed, resamples=0)}
             for key, sys_ in SYSTEMS.items()}
    lines += _table(["bot", *(s.title for s in SYSTEMS.values())],
                    [[s.bot, *(_fmt(means[k].get(s.bot, 0.0)) for k in SYSTEMS)]
                     for s in ranking], ["---", *(["--:"] * len(SYSTEMS))])

    lines += ["", f"## Per power: {system.title} (mean, seats)", ""]
    breakdown = per_power(games, system)
    rows = []
    for s in ranking:
        cells = []
        for power in powers:
            n, mean = breakdown.get((s.bot, power), (0, 0.0))
            cells.append(f"{_fmt(mean)} ({n})" if n else "-")
        rows.append([s.bot, *cells, _fmt(s.score.mean)])
    lines += _table(["bot", *powers, "all"], rows, ["---", *(["--:"] * (len(powers) + 1))])
    lines += _course_lines(stored, [s.bot for s in ranking], powers)

    lines += ["", f"## Head to head: {system.title}", "",
              "Per game both bots played: the mean score of the first bot's seats against "
              "the second's.", ""]
    lines += _table(
        ["first", "second", "games", "first better", "equal", "second better",
         "mean difference", "95 % interval"],
        [[p.first, p.second, p.games, p.first_better, p.equal, p.second_better,
          _fmt(p.difference.mean), f"{_fmt(p.difference.low)} .. {_fmt(p.difference.high)}"]
         for p in pairs],
        ["---", "---", "--:", "--:", "--:", "--:", "--:", ":-:"])

    lines += ["", "## Seating (games per bot and power)", ""]
    counts = seat_counts(plans)
    lines += _table(["bot", *powers, "seats"],
                    [[b, *(counts[(b, p)] for p in powers),
                      sum(counts[(b, p)] for p in powers)] for b in bots],
                    ["---", *(["--:"] * (len(powers) + 1))])

    lines += ["", "## Games", ""]
    links = replays or {}
    lines += _table(
        ["game", "seed", "status", "ending", "end", "centres (power bot count)", "node",
         "server game", "replay"],
        [[g.number, g.seed, g.status, g.ending or "-", g.end_turn or "-",
          " ".join(f"{s.power}:{s.bot}:{s.centres}" + ("*" if g.winner == s.power else "")
                   for s in g.seats) if g.status == "finished" else (g.note or "-"),
          g.node or "-", g.server_game_id if g.server_game_id is not None else "-",
          f"[replay]({links[g.number]})" if g.number in links else "-"]
         for g in stored],
        ["--:", "--:", "---", "---", "---", "---", "---", "--:", "---"])
    lines += ["", "`*` marks the solo winner."]

    lines += ["", "## Bot failures", ""]
    if failures:
        lines += _table(["game", "power", "bot", "kind", "detail"],
                        [[n, f.power, f.bot, f.kind, f.detail.replace("|", "/")]
                         for n, f in failures])
    else:
        lines.append("None: every bot played every game to its end.")
    if sample is not None and sample_svg is not None:
        lines += ["", f"## Sample game: {sample.number}", "",
                  f"![supply centres of game {sample.number}]({sample_svg.name})"]
    return lines


COURSE_COLUMNS = 10
"""Years shown at most in the table of courses (evenly spaced, the last always)."""


def _course_lines(stored: Sequence[StoredGame], bots: Sequence[str],
                  powers: Sequence[str]) -> list[str]:
    """The section of courses: per bot and power, mean centres by year and the seats
    eliminated (`tournament.stats.courses`); none without histories."""
    table = courses(stored)
    if not table:
        return []
    years = sorted(next(iter(table.values())).centres)
    step = -(-len(years) // COURSE_COLUMNS)
    shown = years[::step]
    if shown[-1] != years[-1]:
        shown[-1] = years[-1]
    rows = []
    for bot in bots:
        for power in powers:
            course = table.get((bot, power))
            if course is not None:
                rows.append([bot, power, course.seats,
                             *(_fmt(course.centres[y]) for y in shown), course.eliminated])
    lines = ["", "## Per power: centres by year (mean) and eliminations", "",
             "Mean supply centres once each year is over (a game over sooner counts "
             "with its final centres), and how many of the seats ended eliminated: where "
             "a bot's power collapses, its centres fall year by year.", ""]
    lines += _table(["bot", "power", "seats", *(str(y) for y in shown), "eliminated"], rows,
                    ["---", "---", "--:", *(["--:"] * len(shown)), "--:"])
    return lines


def _bot_label(config: TournamentConfig, name: str) -> str:
    entry = config.entry(name)
    return f"{name} (in process)" if entry.strategy else f"{name} (`{entry.command}`)"
