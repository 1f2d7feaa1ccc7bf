"""Shared test configuration."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: facts copied from outside documents, each with its source (tests/data/README.md)
DATA = ROOT / "tests" / "data"
