"""Shared test configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# ../shared holds the reference material (PROTOCOL.md, tokens.tsv, DATC).
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    return SHARED
