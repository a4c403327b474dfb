"""Running a library's test suite for the builder: the pytest command, outcomes and line coverage."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from execmem.suites.coding.evaluation.junit import CaseResult, outcomes_of, read_cases
from execmem.suites.coding.sandbox.base import Sandbox
from execmem.suites.coding.sandbox.process import CommandResult
from execmem.suites.coding.tasks import JUNIT_PLACEHOLDER, REPO_PLACEHOLDER
from execmem.suites.coding.venvs import Venv

PYTEST = (
    "python -m pytest -p no:cacheprovider -q -o junit_family=xunit1 --rootdir=. "
    "--continue-on-collection-errors"
)
REPORT = ".execmem-junit.xml"
COVERAGE_DATA = ".execmem-coverage"
COVERAGE_JSON = ".execmem-coverage.json"


def pytest_command(paths: list[str], extra_args: list[str] | None = None) -> str:
    """A task ``test_cmd``: pytest on ``paths`` writing a JUnit report (xunit1, so ids are exact)."""
    quoted = [shlex.quote(arg) for arg in extra_args or []]
    return " ".join([PYTEST, *quoted, f"--junitxml={JUNIT_PLACEHOLDER}", *map(shlex.quote, paths)])


def coverage_command(test_cmd: str, include: list[str]) -> str:
    """``test_cmd`` under ``coverage run``, then a JSON line-coverage report."""
    cov = f"COVERAGE_FILE={COVERAGE_DATA} python -m coverage"
    runner = f"{cov} run --rcfile=/dev/null --include={shlex.quote(','.join(include))} -m pytest"
    run = test_cmd.replace("python -m pytest", runner, 1)
    return f"{run}; {cov} json --rcfile=/dev/null -q -o {COVERAGE_JSON}"


@dataclass
class SuiteRun:
    """One run of a test suite: every case, and per-file executed lines when measured."""

    cases: list[CaseResult]
    outcomes: dict[str, str]
    result: CommandResult
    executed: dict[str, set[int]] = field(default_factory=dict)

    def passing(self) -> set[str]:
        return {test_id for test_id, outcome in self.outcomes.items() if outcome == "passed"}


@dataclass
class SuiteRunner:
    """Runs commands for one library in its environment, through a sandbox."""

    sandbox: Sandbox
    venv: Venv
    env: dict[str, str]

    def variables(self, folder: Path) -> dict[str, str]:
        values = {**self.venv.variables(), "PYTHONDONTWRITEBYTECODE": "1"}
        values.update({key: value.replace(REPO_PLACEHOLDER, str(folder)) for key, value in self.env.items()})
        return values

    def run(
        self, folder: Path, test_cmd: str, timeout_s: float, include: list[str] | None = None
    ) -> SuiteRun:
        command = test_cmd.replace(JUNIT_PLACEHOLDER, REPORT)
        if include:
            command = coverage_command(command, include)
        result = self.sandbox.run(command, folder, timeout_s, self.variables(folder))
        report = folder / REPORT
        if result.timed_out or not report.is_file():
            return SuiteRun([], {}, result)
        cases = read_cases(report, root=folder)
        executed = _executed_lines(folder) if include else {}
        return SuiteRun(cases, outcomes_of(cases), result, executed)


def _executed_lines(folder: Path) -> dict[str, set[int]]:
    report = folder / COVERAGE_JSON
    if not report.is_file():
        return {}
    files = json.loads(report.read_text(encoding="utf-8")).get("files", {})
    executed = {}
    for name, data in files.items():
        path = Path(name)
        relative = path.relative_to(folder) if path.is_absolute() else path
        executed[relative.as_posix()] = set(data.get("executed_lines", []))
    return executed
