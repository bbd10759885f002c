"""The CLI's contract: --version, --help per subcommand, exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kgbench
from kgbench.cli import build_parser, main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgbench", *args], capture_output=True, text=True, check=False
    )


def test_version_matches_native_module() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"kgbench {kgbench.__version__}"
    assert kgbench.__version__.count(".") == 2


def test_usage_error_exits_2() -> None:
    proc = run_cli("no-such-command")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_missing_command_exits_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_every_subcommand_has_help() -> None:
    parser = build_parser()
    sub_actions = [a for a in parser._actions if a.dest == "command"]
    assert sub_actions, "no subcommands registered"
    choices = sub_actions[0].choices
    assert choices is not None
    for name in choices:
        proc = run_cli(name, "--help")
        assert proc.returncode == 0, (name, proc.stderr)
        assert "usage: kgbench" in proc.stdout
