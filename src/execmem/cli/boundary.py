"""Where every error of every command becomes an exit code and, at most, one line on stderr.

Exit codes (docs/cli.md):

- 0: done; 1: finished, but incomplete (episodes with infrastructure errors or missing, invalid
  tasks, a failed download) and said how to go on; 2: bad input (an option, a file, a run folder),
  refused before any work; 3: an internal error, a bug in execmem; 130: interrupted (Ctrl-C);
  141: the output pipe was closed (``| head``), as for a process killed by SIGPIPE.

Commands raise their own errors with messages that name the file, line, field or option; this
boundary prints them as ``error: ...`` without a traceback. An unexpected exception is a bug: it
is printed as one line too, unless ``--debug`` or ``EXECMEM_DEBUG=1`` asks for the traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

from execmem.core.pydantic_errors import first_error

EXIT_INCOMPLETE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_PIPE_CLOSED = 141

# typer >= 0.22 ships its own copy of click: take the usage-error base class from typer's own error.
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_PASS_THROUGH = (_USAGE_ERROR, typer.Exit, typer.Abort)


class StdoutConsole(Console):
    """A rich console on stdout whose closed pipe reaches the boundary (exit 141, quietly): rich's own
    handler turns it into ``SystemExit(1)``, which reads as "finished, but incomplete"."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


_stderr = Console(stderr=True, highlight=False, soft_wrap=True)
_argv: list[str] = []
_debug = {"on": False}


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: message`` as one line on stderr and exit with ``code`` (no traceback)."""
    say(f"error: {message}", style="bold red", prefix_only=True)
    raise typer.Exit(code)


def say(message: str, style: str = "", prefix_only: bool = False) -> None:
    """One line on stderr, printed literally (no markup): newlines in ``message`` become '; '."""
    line = "; ".join(part.strip() for part in str(message).strip().splitlines() if part.strip())
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")  # undecodable bytes, shown escaped
    text = Text(line)
    if style:
        text.stylize(style, 0, line.index(":") + 1 if prefix_only and ":" in line else len(line))
    _stderr.print(text)


def command_line() -> str:
    """The command being run, as the user could type it again (``execmem ...``)."""
    import shlex

    return shlex.join(["execmem", *_argv])


def set_debug(on: bool) -> None:
    _debug["on"] = on


def _debugging() -> bool:
    return _debug["on"] or os.environ.get("EXECMEM_DEBUG", "") not in ("", "0")


class ExecmemGroup(TyperGroup):
    """The root command: usage errors on one line, known errors as ``error:`` lines, exit codes."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        _argv[:] = list(sys.argv[1:] if args is None else args)
        try:
            _check_utf8(_argv)
            result = super().main(_argv, prog_name, complete_var, standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
            sys.stdout.flush()
        except _USAGE_ERROR as exc:
            code = _usage_error(exc)
        except typer.Abort:
            say("error: aborted", style="bold red", prefix_only=True)
            code = EXIT_INTERRUPTED
        except BrokenPipeError:
            code = _pipe_closed()
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _PASS_THROUGH:
            raise
        except BrokenPipeError:
            raise typer.Exit(_pipe_closed()) from None
        except KeyboardInterrupt:
            say("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:
            known = describe_error(exc)
            if known is not None:
                fail(known)
            if _debugging():
                raise
            fail(
                f"internal error ({type(exc).__name__}: {exc}); this is a bug in execmem: "
                "run again with EXECMEM_DEBUG=1 for the traceback and report it",
                EXIT_INTERNAL,
            )


def describe_error(exc: Exception) -> str | None:
    """The one-line message for an error caused by input or environment, None for a bug."""
    from execmem.cli.known_errors import KNOWN_ERRORS

    if isinstance(exc, KNOWN_ERRORS):
        return str(exc)
    if isinstance(exc, ValidationError):
        return first_error(exc)
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    if isinstance(exc, RecursionError):
        return "input nested too deeply to read"
    if isinstance(exc, MemoryError):
        return "out of memory (input too large?)"
    return None


def _check_utf8(args: list[str]) -> None:
    """Arguments are text: bytes that are not UTF-8 (kept by Python as lone surrogates) could not be
    written to a run's config or an output file, so they are refused here, by position."""
    for position, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "backslashreplace").decode("utf-8")
            raise typer.BadParameter(f"argument {position} ({shown[:60]}) is not UTF-8 text") from None


def _usage_error(exc: Any) -> int:
    if type(exc).__name__ == "NoArgsIsHelpError":  # a bare command group: its help, as click shows it
        exc.show()
        return exc.exit_code
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None and ctx.command_path else ""
    say(f"error: {exc.format_message()}{hint}", style="bold red", prefix_only=True)
    return exc.exit_code


def _pipe_closed() -> int:
    """The reader went away: say nothing, and keep Python from complaining at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests): nothing to silence
        pass
    finally:
        os.close(devnull)
    return EXIT_PIPE_CLOSED
