"""Scoring an episode: its diff, applied to a fresh copy of the base, under the task's tests.

As SWE-bench does it, with more care for reports that could be forged:

1. a fresh copy of the base commit (``eval-*/repo``), so what is scored is exactly the reported diff;
2. the agent's diff applied minus test files, test configuration and start-up hooks (``protected``);
3. the task's test files restored (left at the base) and ``test_patch`` applied;
4. the test command run in the sandbox with plugin autoload disabled (the environment's own plugins
   loaded by name) and a one-off plugin that keeps only the declared tests and adds a control test
   that always fails (``selection``), writing its JUnit report into a fresh folder outside the
   repository (``eval-*/report-<random>``);
5. the report checked against the run (``integrity``): one that names other tests than the
   declared ones, shows the control as anything but failed, disagrees with pytest's exit code or
   summary, or comes with a diff that reaches into the test runner makes the evaluation *suspect*,
   and a suspect evaluation never resolves.
"""

from __future__ import annotations

import secrets
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execmem.suites.coding.evaluation.integrity import diff_problems, report_problems
from execmem.suites.coding.evaluation.junit import ReportError, outcomes_of, read_cases, resolved
from execmem.suites.coding.evaluation.protected import dropped_paths, scored_diff
from execmem.suites.coding.evaluation.selection import write_selection
from execmem.suites.coding.gitrepo import GitError, apply_patch, export_tree, git
from execmem.suites.coding.sandbox.process import CommandResult
from execmem.suites.coding.tasks import CodingTask

if TYPE_CHECKING:
    from execmem.suites.coding.workspace import Episode


@dataclass(frozen=True)
class Evaluation:
    """Whether the task is resolved, every test's outcome, what the run did and why it is doubted."""

    resolved: bool
    outcomes: dict[str, str]
    duration_s: float
    error: str | None = None
    result: CommandResult | None = field(default=None, repr=False)
    suspect_reasons: list[str] = field(default_factory=list)
    dropped_paths: list[str] = field(default_factory=list)

    @property
    def suspect(self) -> bool:
        return bool(self.suspect_reasons)

    def failing(self, test_ids: list[str]) -> list[str]:
        return [test_id for test_id in test_ids if self.outcomes.get(test_id) != "passed"]

    def to_dict(self) -> dict[str, Any]:
        run = self.result
        return {
            "resolved": self.resolved,
            "suspect": self.suspect,
            "suspect_reasons": self.suspect_reasons,
            "dropped_paths": self.dropped_paths,
            "duration_s": round(self.duration_s, 3),
            "error": self.error,
            "exit_code": run.exit_code if run else None,
            "timed_out": run.timed_out if run else None,
            "outcomes": self.outcomes,
        }


@dataclass(frozen=True)
class _Staged:
    repo: Path
    scored: str
    dropped: list[str]


def evaluate(task: CodingTask, episode: Episode, timeout_s: float = 600.0) -> Evaluation:
    """Run the task's declared tests on the episode's diff in a fresh copy of the base."""
    start = time.monotonic()
    folder = episode.root / f"eval-{secrets.token_hex(4)}"
    try:
        staged = _stage(task, episode, folder)
    except GitError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        return Evaluation(False, {}, time.monotonic() - start, error=f"patch did not apply: {exc}")
    try:
        return _run_tests(task, episode, folder, staged, timeout_s, start)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stage(task: CodingTask, episode: Episode, folder: Path) -> _Staged:
    diff = episode.diff(binary=True)
    dropped = dropped_paths(task, diff, episode.venv.pytest_plugins())
    scored = scored_diff(diff, dropped)
    dropped += episode.left_out()  # never in the diff: reported with what was dropped from it
    repo = folder / "repo"
    export_tree(episode.repo, episode.base_sha, repo)
    git(repo, "init", "-q")  # anchors `git apply` paths at this folder
    apply_patch(repo, scored)
    apply_patch(repo, task.test_patch)
    return _Staged(repo, scored, dropped)


def _run_tests(
    task: CodingTask, episode: Episode, folder: Path, staged: _Staged, timeout_s: float, start: float
) -> Evaluation:
    selection = write_selection(folder / "harness", task.test_ids(), episode.venv.pytest_plugins())
    reports = folder / f"report-{secrets.token_hex(8)}"
    reports.mkdir()
    report = reports / "junit.xml"
    env = selection.variables(episode.variables(staged.repo))
    result = episode.sandbox.run(
        task.test_command(str(report)), staged.repo, timeout_s, env,
        writable=[reports], readonly=[selection.folder],
    )  # fmt: skip

    def verdict(outcomes: dict[str, str], error: str | None = None, suspect: list[str] | None = None):
        ok = resolved(task, outcomes) and not suspect and error is None
        return Evaluation(
            ok, outcomes, time.monotonic() - start, error, result, suspect or [], staged.dropped
        )

    if not report.is_file():
        missing = "test run timed out" if result.timed_out else "the test command wrote no JUnit report"
        return verdict({}, missing)
    try:
        cases = read_cases(report, root=staged.repo)
    except ReportError as exc:
        return verdict({}, str(exc))
    suspect = report_problems(task, cases, result.exit_code, result.stdout, selection.control)
    declared = [case for case in cases if case.test_id.rsplit("::", 1)[-1] != selection.control]
    return verdict(outcomes_of(declared), suspect=suspect + diff_problems(staged.scored))
