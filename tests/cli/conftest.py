"""Helpers for driving the real CLI: in-process through typer's CliRunner, or as a subprocess."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from tests.runs.conftest import oracle, questions  # noqa: F401 - fixtures for runs against the fake server

runner = CliRunner()


@pytest.fixture(autouse=True)
def _data_env(vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(vehicle_data))


def invoke(*args: str, input: bytes | str | None = None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def assert_one_line_error(result, *fragments: str, code: int = 2) -> str:
    """Exit ``code``, no traceback, exactly one stderr line, starting ``error:`` and naming each fragment."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT back to its default in the child: a test suite started in the background (``cmd &``
    in a script) ignores it, and so would every process it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def execmem(*args: str, **options) -> subprocess.Popen:
    """``python -m execmem ARGS`` as a real process (the worktree's code, through PYTHONPATH), which
    Ctrl-C (SIGINT) interrupts as it would at a terminal."""
    command = [sys.executable, "-m", "execmem", *map(str, args)]
    return subprocess.Popen(command, preexec_fn=_ctrl_c_as_at_a_terminal, **options)
