"""Running a run from the command line: the progress bar, and what it says when it resumes, is
interrupted, or ends incomplete, with its exit code.

A run that could not finish every episode says how many it has and the command that resumes it,
and exits non-zero: 1 when it ended with episodes missing (infrastructure errors), 130 when
interrupted with Ctrl-C; an endpoint that cannot serve the run at all is one error line (exit 2).
Finished episodes are on disk in every case.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from execmem.cli.boundary import EXIT_INCOMPLETE, EXIT_INTERRUPTED, command_line, fail, say
from execmem.llm.errors import EndpointError
from execmem.runs.episode_log import EpisodeLog

if TYPE_CHECKING:  # the executors load the model client: imported by the commands only to run
    from execmem.runs.executors.base import Executor
    from execmem.runs.runner import EpisodeRunner

_console = Console(stderr=True)


def run_with_progress(
    run: EpisodeRunner[Any], folder: object, quiet: bool, executor: Executor | None = None
) -> dict[str, Any]:
    """Say what a resume keeps, run every pending episode (with ``executor``, default this process)
    under a progress bar, return the metrics."""
    expected, pending = len(run.items()), len(run.pending())
    announce_resume(folder, expected - pending, expected)
    columns = (TextColumn("episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, console=_console, disable=quiet) as progress:
            task = progress.add_task("episodes", total=pending)
            return asyncio.run(run.run(lambda _record: progress.advance(task), executor))
    except KeyboardInterrupt:
        interrupted(run.store, expected)
    except EndpointError as exc:
        fail(str(exc))


def announce_resume(folder: object, kept: int, expected: int) -> None:
    """On a resumed run: how many finished episodes were kept and how many are left."""
    if kept:
        say(f"resuming {folder}: {kept} of {expected} episodes kept, {expected - kept} to run")


def interrupted(store: EpisodeLog, expected: int) -> NoReturn:
    """After Ctrl-C: close the run's files (releasing the folder), say what is saved, exit 130."""
    store.close()
    saved = len(store.finished)
    say(f"interrupted: {saved} of {expected} episodes saved; resume with: {command_line()}")
    raise typer.Exit(EXIT_INTERRUPTED)


def check_complete(episodes: dict, infra_file: object) -> None:
    """Exit 1, saying how many are missing and how to resume, unless every episode finished."""
    finished, expected, failed = episodes["finished"], episodes["expected"], episodes["infra_errors"]
    if finished >= expected:
        return
    because = f"; {failed} hit infrastructure errors (see {infra_file})" if failed else ""
    say(f"incomplete: {finished} of {expected} episodes finished{because}; resume with: {command_line()}")
    raise typer.Exit(EXIT_INCOMPLETE)
