"""The web side from the command line: ``daide serve --http-port`` and ``daide demo``.

Real subprocesses; the page and the API are fetched over real HTTP.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import adjudicator
from tests.browser_helpers import ROOT, served


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def test_serve_with_http_port_serves_the_pages_and_the_api(tmp_path: Path) -> None:
    with served(tmp_path) as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", server.url)
        status, page = get(server.url)
        assert status == 200 and 'class="daide-games"' in page
        status, games = get(server.url + "api/games")
        assert status == 200 and json.loads(games) == {"games": []}
        status, script = get(server.url + "web/play.js")
        assert status == 200 and "IAM" in script
    # The first log line still names the TCP address; the web address follows.
    first = json.loads(server.lines[0])
    assert first["event"] == "listening"


def test_serve_refuses_a_bad_http_port(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "daide", "serve", "--http-port", "70000",
                           "--db", str(tmp_path / "x.db")], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "HTTP port must be 0..65535, not 70000" in done.stderr


def test_demo_prints_where_to_watch_the_game(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "daide", "demo", "--seed", "3", "--max-years",
                           "1", "--pace", "0.02", "--out", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    # the second line says which implementation plays (compiled or pure Python)
    assert lines[1].startswith("running compiled: " if adjudicator.COMPILED
                               else "running as pure Python, not compiled ")
    assert re.fullmatch(r"watch it in a browser: http://127\.0\.0\.1:\d+/watch/1", lines[2])
    assert lines[-1].startswith("played in ")


def test_serve_names_a_busy_http_port(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "daide", "serve", "--port", "0",
                               "--http-port", str(port), "--db", str(tmp_path / "x.db")],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith(
        f"daide serve: error: cannot listen on 127.0.0.1:{port} (HTTP): Address already in use")


def test_demo_stay_shows_the_final_table_then_keeps_the_page_up_until_ctrl_c(
        tmp_path: Path) -> None:
    import signal

    demo = subprocess.Popen([sys.executable, "-m", "daide", "demo", "--seed", "3",
                             "--max-years", "1", "--stay", "--out", str(tmp_path)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL)
    try:
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("the game stays on view at "):
                break
        # The game is over and its table shown while the page is still served.
        assert "final position:" in lines
        url = re.search(r"(http://\S+)/watch/1", lines[-1])
        assert url is not None
        status, games = get(url.group(1) + "/api/games")
        assert status == 200 and json.loads(games)["games"][0]["status"] == "finished"
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.communicate()
    assert demo.returncode == 0, err
    assert "Traceback" not in err
    assert "final position:" not in out          # shown once, before the wait
    assert out.splitlines()[-1].startswith("played in ")
    assert len(list(tmp_path.glob("*.daide"))) == 1
