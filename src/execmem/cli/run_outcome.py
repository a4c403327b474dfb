"""What a run command says when it resumes, is interrupted, or ends incomplete, and its exit code.

A run that could not finish every episode says how many it has and the command that resumes it,
and exits non-zero: 1 when it ended with episodes missing (infrastructure errors), 130 when
interrupted with Ctrl-C. Finished episodes are on disk in every case.
"""

from __future__ import annotations

from typing import NoReturn

import typer

from execmem.cli.boundary import EXIT_INCOMPLETE, EXIT_INTERRUPTED, command_line, say
from execmem.runs.episode_log import EpisodeLog


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
