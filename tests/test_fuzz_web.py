"""The web door fuzzed (issue 26): seeded HTTP requests and WebSocket frame sequences
against a real ``daide serve --http-port`` on 127.0.0.1 (`fuzz.web_harness`).

A few hundred cases of `fuzz.web_inputs` - malformed and well-formed
requests to every route, JSON of every shape, WebSocket handshakes and
frames with bad opcodes, reserved bits, lying lengths, interleaved control
frames and endless continuations - while seven DAIDE TCP players hold a
game.  No answer may be a 5xx, no log line an error or a traceback, and the
server must still answer a DAIDE TCP client and the API.  ``make fuzz`` runs
the same cases for minutes (`fuzz/fuzz_web.py`).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import trio

from fuzz.web_harness import Tally, WebServer, expected_5xx, fuzz_cases, make_case

CASES = 400


async def test_seeded_web_cases_find_nothing() -> None:
    with WebServer.running() as server:
        async with trio.open_nursery() as nursery:
            await server.ready(nursery)
            tally = Tally()
            seeds = itertools.count(26_000_000)
            await fuzz_cases(server, itertools.islice(seeds, CASES), workers=16, tally=tally)
            assert not tally.findings, "\n".join(map(str, tally.findings))
            assert tally.cases == CASES
            # Not vacuous: the cases reached the pages, the API, the WebSocket and the
            # door's refusals, and got the server's answers.
            assert tally.kinds["http"] > CASES // 3 and tally.kinds["websocket"] > CASES // 5
            for status in (101, 200, 400, 404, 405, 415):
                assert tally.statuses[status] > 0, (status, tally.statuses)
            # A dead server is a finding.
            server.process.kill()
            server.process.wait()
            assert "exited" in (await server.answering() or "")
            nursery.cancel_scope.cancel()


def test_the_same_seed_is_the_same_case() -> None:
    assert make_case(7, b"h:1") == make_case(7, b"h:1")
    kind, chunks = make_case(7, b"127.0.0.1:8080")
    assert kind in ("http", "websocket", "websocket-eager")
    assert b"{HOST}" not in b"".join(chunks)


def test_the_log_check_sees_errors_and_raw_tracebacks(tmp_path: Path) -> None:
    """`WebServer.log_findings` on a log as the server writes it."""
    log = tmp_path / "server.log"
    lines = [{"event": "websocket_refused", "level": "warning"},
             {"event": "http_request_failed", "level": "error"},
             {"event": "connection_failed", "level": "info", "exception": "Traceback ..."}]
    log.write_text("\n".join(json.dumps(line) for line in lines)
                   + "\nTraceback (most recent call last):\n  File x\nValueError: y\n")
    server = WebServer(tmp_path, None, log)  # type: ignore[arg-type]
    found = server.log_findings()
    assert len(found) == 3
    assert "http_request_failed" in found[0] and "connection_failed" in found[1]
    assert found[2].endswith("Traceback (most recent call last):\n  File x\nValueError: y")
    assert server.log_findings() == []          # each line is judged once


def test_only_the_5xx_http_prescribes_are_expected() -> None:
    assert expected_5xx(501, b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n")
    assert not expected_5xx(501, b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert expected_5xx(505, b"GET / HTTP/2.0\r\nHost: x\r\n\r\n")
    assert not expected_5xx(505, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert not expected_5xx(500, b"GET / HTTP/2.0\r\nTransfer-Encoding: gzip\r\n\r\n")
