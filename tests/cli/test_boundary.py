"""The CLI boundary: literal one-line messages, internal errors, the debug switch, closed pipes."""

from __future__ import annotations

import subprocess

import pytest
import typer
from typer.testing import CliRunner

from execmem.cli.boundary import EXIT_INTERNAL, EXIT_PIPE_CLOSED, ExecmemGroup
from execmem.memory import MissingExtraError
from tests.cli.conftest import assert_one_line_error, execmem


def _app_raising(error: BaseException) -> typer.Typer:
    app = typer.Typer(cls=ExecmemGroup)

    @app.command()
    def boom() -> None:
        raise error

    @app.command()
    def other() -> None:
        """A second command, so 'boom' stays a subcommand."""

    return app


def test_missing_extra_hint_keeps_the_extra_name():
    app = _app_raising(MissingExtraError("memory system 'dense'", "execmem", "dense"))
    result = CliRunner().invoke(app, ["boom"])
    assert_one_line_error(result, 'pip install "execmem[dense]"')


def test_messages_are_printed_literally_not_as_markup():
    app = _app_raising(MissingExtraError("a [/bold] [red]odd[/red] name", "execmem", "x"))
    result = CliRunner().invoke(app, ["boom"])
    assert_one_line_error(result, "a [/bold] [red]odd[/red] name")


def test_internal_error_is_one_line_unless_debugging(monkeypatch):
    app = _app_raising(TypeError("unsupported operand"))
    result = CliRunner().invoke(app, ["boom"])
    line = assert_one_line_error(
        result, "internal error (TypeError: unsupported operand)", code=EXIT_INTERNAL
    )
    assert "EXECMEM_DEBUG=1" in line
    monkeypatch.setenv("EXECMEM_DEBUG", "1")
    debug = CliRunner().invoke(app, ["boom"])
    assert isinstance(debug.exception, TypeError)  # the traceback reaches the developer


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (RecursionError("maximum recursion depth exceeded"), "input nested too deeply"),
        (FileNotFoundError(2, "No such file or directory", "x.json"), "No such file or directory: x.json"),
        (KeyboardInterrupt(), None),
    ],
)
def test_environment_errors(error, fragment):
    result = CliRunner().invoke(_app_raising(error), ["boom"])
    if fragment is None:
        assert result.exit_code == 130 and result.stderr.strip() == "interrupted"
    else:
        assert_one_line_error(result, fragment)


# `gold` writes far more than a pipe holds, so it must meet the closed pipe; `lint --json` writes about
# 3 kB, which may all fit in the pipe before the reader leaves: then finishing normally is quiet too.
@pytest.mark.parametrize(
    ("args", "codes"),
    [(["vehicle", "gold"], {EXIT_PIPE_CLOSED}), (["vehicle", "lint", "--json"], {0, EXIT_PIPE_CLOSED})],
)
def test_closed_pipe_exits_quietly(args, codes):
    process = execmem(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().startswith(b"{")
    process.stdout.close()  # like `| head -1`
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert stderr == b"" and process.returncode in codes


def test_no_arguments_shows_help():
    process = execmem(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=60)
    assert b"Usage:" in out + err and b"Traceback" not in err
