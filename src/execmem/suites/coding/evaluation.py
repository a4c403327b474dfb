"""Scoring an episode: its diff, applied to a clean copy of the base, under the task's tests.

The copy is fresh (base files + the agent's diff), so what is scored is exactly
the diff that is reported. Agent changes to the task's test files (the files of
FAIL_TO_PASS / PASS_TO_PASS and those the ``test_patch`` touches) are dropped,
then ``test_patch`` is applied and ``test_cmd`` runs in the sandbox, writing a
JUnit report that is parsed into per-test outcomes.
"""

from __future__ import annotations

import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execmem.suites.coding.gitrepo import GitError, apply_patch, changed_paths, export_tree, git
from execmem.suites.coding.process import CommandResult
from execmem.suites.coding.reports import ReportError, parse_junit, resolved
from execmem.suites.coding.tasks import CodingTask

if TYPE_CHECKING:
    from execmem.suites.coding.workspace import Episode

REPORT_NAME = ".execmem-junit.xml"


@dataclass(frozen=True)
class Evaluation:
    """Whether the task is resolved, every test's outcome, and what the test run did."""

    resolved: bool
    outcomes: dict[str, str]
    duration_s: float
    error: str | None = None
    result: CommandResult | None = field(default=None, repr=False)

    def failing(self, test_ids: list[str]) -> list[str]:
        return [test_id for test_id in test_ids if self.outcomes.get(test_id) != "passed"]

    def to_dict(self) -> dict[str, Any]:
        run = self.result
        return {
            "resolved": self.resolved,
            "duration_s": round(self.duration_s, 3),
            "error": self.error,
            "exit_code": run.exit_code if run else None,
            "timed_out": run.timed_out if run else None,
            "outcomes": self.outcomes,
        }


def protected_test_files(task: CodingTask) -> list[str]:
    """Files whose agent edits are ignored when scoring."""
    files = {test_id.split("::", 1)[0] for test_id in task.test_ids()}
    files.update(changed_paths(task.test_patch))
    return sorted(files)


def evaluate(task: CodingTask, episode: Episode, timeout_s: float = 600.0) -> Evaluation:
    """Run the task's tests on the episode's diff in a fresh copy of the base."""
    start = time.monotonic()
    folder = episode.root / f"eval-{uuid.uuid4().hex[:8]}"
    try:
        _stage(task, episode, folder)
    except GitError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        return Evaluation(False, {}, time.monotonic() - start, error=f"patch did not apply: {exc}")
    try:
        return _run_tests(task, episode, folder, timeout_s, start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stage(task: CodingTask, episode: Episode, folder: Path) -> None:
    diff = episode.diff(binary=True)
    export_tree(episode.repo, episode.base_sha, folder)
    git(folder, "init", "-q")  # anchors `git apply` paths at this folder
    apply_patch(folder, diff, exclude=protected_test_files(task))
    apply_patch(folder, task.test_patch)


def _run_tests(
    task: CodingTask, episode: Episode, folder: Path, timeout_s: float, start: float
) -> Evaluation:
    report = folder / REPORT_NAME
    command = task.test_command(str(report))
    result = episode.sandbox.run(command, folder, timeout_s, episode.variables(folder))
    if not report.is_file():
        error = "test run timed out" if result.timed_out else "the test command wrote no JUnit report"
        return Evaluation(False, {}, time.monotonic() - start, error=error, result=result)
    try:
        outcomes = parse_junit(report, root=folder)
    except ReportError as exc:
        return Evaluation(False, {}, time.monotonic() - start, error=str(exc), result=result)
    return Evaluation(resolved(task, outcomes), outcomes, time.monotonic() - start, result=result)
