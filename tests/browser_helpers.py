"""Helpers of the browser tests: headless Chromium, a served server, bots.

The browser is the system's Chromium (Debian's ``chromium`` package) driven
by playwright for Python through ``executable_path`` - never a browser
playwright downloads.  Without it the browser tests are skipped with the one
line saying how to install it, unless ``DAIDE_REQUIRE_BROWSER=1`` (set by
``.ci/run``), which makes them fail instead.

`served` runs ``daide serve --http-port 0`` as a real subprocess and reads
the two addresses from its JSON log lines; `bots` runs ``daide bot``
processes against it.  Screenshots go to ``build/browser/`` (git-ignored).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "browser"
DAIDE = [sys.executable, "-m", "daide"]
INSTALL_HINT = "Chromium not found: `apt-get install -y chromium` (Debian) runs the browser tests"
BROWSER_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-sync",
                "--disable-dev-shm-usage"]


def chromium_path() -> str | None:
    """The system's Chromium: $CHROMIUM, else chromium / chromium-browser on the PATH."""
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def require_browser() -> str:
    """The Chromium path; skips (or fails under DAIDE_REQUIRE_BROWSER=1) without it."""
    path = chromium_path()
    problem = None
    if path is None:
        problem = INSTALL_HINT
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright for Python is missing: `.venv/bin/pip install playwright`"
    if problem is not None:
        if os.environ.get("DAIDE_REQUIRE_BROWSER") == "1":
            pytest.fail(problem + " (DAIDE_REQUIRE_BROWSER=1)")
        pytest.skip(problem)
    assert path is not None
    return path


@contextmanager
def browser_page(name: str) -> Iterator[Any]:
    """A fresh page of a headless Chromium; its console errors fail the test."""
    path = require_browser()
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=BROWSER_ARGS,
                                             headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
            page.on("console", lambda msg: errors.append(f"console: {msg.text}")
                    if msg.type == "error" and not _expected(msg.text) else None)
            yield page
        finally:
            browser.close()
    assert not errors, f"{name}: the page reported errors: {errors}"


def _expected(text: str) -> bool:
    """A 400 answer is how the API refuses bad input (shown on the page): not a page error."""
    return "Failed to load resource" in text and "status of 400" in text


def screenshot(page: Any, name: str) -> Path:
    """Save the page as build/browser/NAME.png (a test artefact)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@dataclass
class Served:
    """A ``daide serve`` subprocess: its TCP port, its web URL, its log lines."""

    process: subprocess.Popen[str]
    port: int = 0
    url: str = ""
    lines: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            self.events.append(event)

    def wait_for(self, event: str, timeout: float = 20.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for item in self.events:
                if item.get("event") == event:
                    return item
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {event} from the server: {''.join(self.lines)[-2000:]}")


@contextmanager
def served(tmp_path: Path, *args: str) -> Iterator[Served]:
    """``daide serve --port 0 --http-port 0`` with these arguments, stopped at the end."""
    process = subprocess.Popen(
        [*DAIDE, "serve", "--port", "0", "--http-port", "0", "--db", str(tmp_path / "web.db"),
         "--log-json", *args],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True)
    server = Served(process)
    reader = threading.Thread(target=server._read, daemon=True)
    reader.start()
    try:
        server.port = int(server.wait_for("listening")["port"])
        server.url = str(server.wait_for("http_listening")["url"])
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=5)
        if process.stderr is not None:
            process.stderr.close()
    log = "".join(server.lines)
    assert "Traceback" not in log and "connection_failed" not in log \
        and "game_step_failed" not in log, log[-3000:]


def join_by_form(page: Any, server: Served, name: str, power: str, lang: str = "en") -> None:
    """A person opens the play page in ``lang`` and joins by its form as ``name``
    asking for ``power`` (a power token, or one of the form's other choices)."""
    page.goto(f"{server.url}play?lang={lang}")
    page.fill("#name", name)
    page.select_option("#power", power)
    page.click("#join")


def bots(port: int, kind: str = "randbot", count: int = 6
         ) -> AbstractContextManager[subprocess.Popen[str]]:
    """``daide bot KIND --count N`` against the server, ended at the end."""
    return _running([*DAIDE, "bot", kind, "--port", str(port), "--count", str(count)])


def scripted_bot(port: int, script: str) -> AbstractContextManager[subprocess.Popen[str]]:
    """The bot of `tests.scripted_bot` playing SCRIPT against the server, ended at the end."""
    return _running([sys.executable, "-m", "tests.scripted_bot", script, "--port", str(port)])


@contextmanager
def _running(command: list[str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
