"""The `daide` program: subcommands are discovered and bad arguments fail cleanly."""

from __future__ import annotations

import pytest

from daide.cli import build_parser, main


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for action in build_parser()._subparsers._group_actions:  # type: ignore[union-attr]
        for name in action.choices:
            assert name in out


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_command_run_by_name_imports_only_its_own_module() -> None:
    # `daide encode ...` must not pay for trio, the server and the bots (each CLI
    # launch of the test suite and of users' scripts would).
    import subprocess
    import sys

    probe = ("import sys; from daide.cli import main; code = main(['encode', '-']); "
             "print(code, sorted(m for m in ('trio', 'server', 'bots', 'adjudicator') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], input="OBS\n",
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr
