"""`daide render`, `daide export --html` and the tournament report's replays,
run as real subprocesses on a real game: a one-game tournament of real bots on
an embedded server, whose database holds the server's record of the game."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from daide.cli import main
from server.store import Store

ROOT = Path(__file__).resolve().parent.parent


def daide(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daide", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 0, result.stderr
    return result.stdout


def fails(result: subprocess.CompletedProcess[str], message: str, command: str) -> None:
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 1
    assert result.stderr.startswith(f"daide {command}: error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output directory of a one-game, two-year tournament of dumbbot and randbot."""
    out = tmp_path_factory.mktemp("tournament")
    ok(daide("tournament", "--bots", "dumbbot,randbot", "--games", "1", "--year-limit", "2",
             "--seed", "4", "--out", str(out), "--no-progress"))
    return out


def stored(db: Path, game: int = 1):
    store = Store.open_readonly(db)
    try:
        return store.game(game), store.phases(game)
    finally:
        store.close()


def title(root: ET.Element) -> str:
    """The picture's title: the text a person reads above the map."""
    return next(e.text or "" for e in root.iter() if e.get("class") == "turn")


def test_render_draws_a_variants_starting_position(tmp_path: Path) -> None:
    out = tmp_path / "standard.svg"
    assert ok(daide("render", "--variant", "standard", "--out", str(out))).strip() == \
        f"wrote {out}"
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.get("data-turn") == "SPR 1901"
    # The title a person reads names the turn in words, not DAIDE's SPR 1901.
    assert title(root) == "standard - Spring 1901"
    units = [e.get("data-unit") for e in root.iter() if e.get("data-unit")]
    assert len(units) == 22 and "RUS FLT (STP SCS)" in units
    assert len([e for e in root.iter() if e.get("data-sc")]) == 34


def test_render_draws_a_phase_of_a_stored_game(played: Path, tmp_path: Path) -> None:
    db = played / "tournament.db"
    _record, phases = stored(db)
    fall = next(p for p in phases if p.turn == "FAL 1901")
    out = tmp_path / "fall.svg"
    ok(daide("render", "--db", str(db), "--game", "1", "--turn", "fal 1901", "--out", str(out)))
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.get("data-turn") == "FAL 1901"
    assert title(root) == "standard - Fall 1901"
    # The turn typed as players name it draws the same picture.
    worded = tmp_path / "fall-words.svg"
    assert main(["render", "--db", str(db), "--game", "1", "--turn", "Fall 1901",
                 "--out", str(worded)]) == 0
    assert worded.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    drawn = [e for e in root.iter() if e.get("data-order")]
    ord_lines = [m for m in fall.messages if m.startswith("ORD")]
    assert len(drawn) == len(ord_lines) > 0
    # the units drawn are the ones the orders were given to (the NOW before FAL 1901)
    spring = next(p for p in phases if p.turn == "SPR 1901")
    units = [e.get("data-unit") for e in root.iter() if e.get("data-unit")]
    assert len(units) == spring.now.count(" AMY ") + spring.now.count(" FLT ")


def test_render_errors_are_one_line(played: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = str(played / "tournament.db")
    out = str(tmp_path / "x.svg")
    fails(daide("render", "--db", db, "--game", "1", "--turn", "SPR 1950", "--out", out),
          "game 1 has no phase Spring 1950 (it has Spring 1901 to ", "render")
    # the rest in process (same main(), no interpreter start per case)
    for args, message in [
        (["--variant", "atlantis", "--out", out], "unknown variant 'atlantis'"),
        (["--db", db, "--game", "9", "--out", out], "no game 9"),
        (["--db", db, "--game", "1", "--turn", "spring", "--out", out], "is not a turn"),
        (["--db", db, "--game", "1", "--turn", "Autumn 1901", "--out", out],
         """--turn 'Autumn 1901' is not a turn like "Spring 1901", "Fall retreats 1901" """),
        (["--db", db, "--game", "1", "--variant", "hundred3", "--out", out],
         "game 1 plays standard, not hundred3"),
        (["--db", str(tmp_path / "none.db"), "--game", "1", "--out", out], "no database at"),
        (["--db", str(played / "report.md"), "--game", "1", "--out", out], "cannot open"),
        (["--game", "1", "--out", out], "--db and --game go together"),
        (["--out", str(tmp_path / "no" / "x.svg")], "no directory"),
        (["--out", str(tmp_path)], "is a directory"),
    ]:
        assert main(["render", *args]) == 1, args
        err = capsys.readouterr().err
        assert err.startswith("daide render: error: ") and message in err, (args, err)
        assert err.count("\n") == 1
    assert not (tmp_path / "x.svg").exists()


def test_export_html_is_a_self_contained_replay_of_every_phase(played: Path,
                                                                tmp_path: Path) -> None:
    db = played / "tournament.db"
    record, phases = stored(db)
    out = tmp_path / "replays"
    ok(daide("export", "1", "--db", str(db), "--html", "--out", str(out)))
    page = (out / "game-1.html").read_text(encoding="utf-8")
    frames = re.findall(r'<div class="frame" data-turn="([^"]+)"', page)
    processed = [p.turn for p in phases if p.seq > 0]
    assert frames[:-1] == processed                 # every phase, in order
    assert len(frames) == len(processed) + 1        # and the final position
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) == len(frames) + 1             # a map per frame, and the chart
    for svg, turn in zip(svgs, frames, strict=False):
        assert ET.fromstring(svg).get("data-turn") == turn
    # Each frame's caption and title name its turn in words.
    captions = re.findall(r'<div class="frame" data-turn="[^"]+" data-caption="([^"]+)"', page)
    assert captions[0].startswith("Spring 1901: ") and "orders" in captions[0], captions[0]
    assert captions[-1].endswith(": position") and "SPR" not in " ".join(captions)
    assert "standard - Winter adjustments 1901" in page
    # What a person reads holds no DAIDE token of the order grammar: the orders in the
    # usual notation, the players and the ending in words (the DAIDE behind "in DAIDE").
    shown = re.sub(r"<details>.*?</details>|<script>.*?</script>|<style>.*?</style>", "",
                   page, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", shown)
    for token in ("MTO", "SUP", "CVY", "CTO", "HLD", "RTO", "DSB", "BLD", "REM", "WVE", "SUC",
                  "BNC", "NSO", "AMY", "FLT", "SPR", "FAL", "WIN", "DRW", "SMR", "SLO"):
        assert not re.search(rf"\b{token}\b", text), (token, text[:2000])
    lines = re.findall(r'<li[^>]*>([^<]*)</li>', page)
    assert len(lines) == sum(1 for p in phases for m in p.messages if m.startswith("ORD")) and all(re.match(
        r"(Austria|England|France|Germany|Italy|Russia|Turkey)(: ([AF] [A-Za-z][a-z]{2}|build"
        r"|remove)| waives)", line) for line in lines), lines[:10]
    assert "Players: Austria: " in page
    assert "Ending: " in page and "in DAIDE" in page
    orders = sum(1 for p in phases for m in p.messages if m.startswith("ORD"))
    assert page.count('class="order"') == orders
    assert 'class="centre-chart"' in page and "<script>" in page
    # self-contained: nothing fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert record.status == "finished"


def test_export_html_errors(played: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    db = str(played / "tournament.db")
    for args, message in [
        (["5", "--db", db, "--html", "--out", str(tmp_path)], "no game 5"),
        (["1", "--db", db, "--html", "--stdout", "text"], "--html writes a file"),
    ]:
        assert main(["export", *args]) == 1
        err = capsys.readouterr().err
        assert err.startswith("daide export: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_tournament_report_links_each_game_to_its_replay(played: Path) -> None:
    report = (played / "report.md").read_text(encoding="utf-8")
    links = re.findall(r"\[replay\]\(([^)]+)\)", report)
    assert links == ["replays/game-1.html"]
    page = (played / links[0]).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count('<div class="frame"') > 4
