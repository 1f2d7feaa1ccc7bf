"""`daide serve`'s web door flags reach `ServerSettings` and its checks (docs/hardening.md)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from daide import cmd_serve
from daide.cli import main


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


@pytest.mark.parametrize(("args", "message"), [
    (["--trusted-proxy", "proxy.example"], "trusted proxy must be an IP address"),
    (["--http-max-connections", "0"], "http_max_connections must be at least 1"),
    (["--http-connections-per-address", "0"], "http_connections_per_address must be at least 1"),
    (["--http-request-timeout", "0"], "http_request_timeout must be positive"),
])
def test_serve_refuses_bad_web_limits(args: list[str], message: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", str(tmp_path / "x.db"), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("daide serve: error: ") and message in err
    assert err.count("\n") == 1


def test_trusted_proxies_repeat() -> None:
    parser = argparse.ArgumentParser()
    cmd_serve.add_arguments(parser)
    args = parser.parse_args(["--trusted-proxy", "10.0.0.1", "--trusted-proxy", "::1",
                              "--http-max-connections", "20"])
    assert args.trusted_proxies == ["10.0.0.1", "::1"]
    assert args.http_max_connections == 20
