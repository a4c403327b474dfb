"""Whether a test run's report can be believed: the checks behind ``evaluation_suspect``.

An honest run of the declared tests (see ``selection``) gives a JUnit report
naming exactly those tests (a file that fails to import shows up as one
collection error instead), a pytest exit code that agrees with the report, and
one summary line whose ``passed`` count matches it. A report written or
rewritten by code under test tends to break one of these: it names tests that
were not selected, misses declared ones, claims success while pytest exited
with failures, or disagrees with pytest's own summary. Separately, a diff
whose scored code reaches into pytest's machinery is flagged.

Code under test runs inside the test process, so a forger that patches pytest
itself could still agree with every check; these checks catch forgeries that
act from outside the run or after it, and the diff check catches the direct
route in.
"""

from __future__ import annotations

import re

from execmem.suites.coding.evaluation.junit import CaseResult
from execmem.suites.coding.tasks import CodingTask

_COUNT = r"\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun)"
SUMMARY = re.compile(rf"^=*\s*{_COUNT}(?:, {_COUNT})* in [\d.]+s(?: \([\d:]+\))?\s*=*$")
INTERNAL_ERROR = "pytest.py::internal"  # pytest's testcase for an INTERNALERROR (classname "pytest")
RUNNER_HOOKS = re.compile(r"_pytest|pytest_(?:runtest|collect|sessionfinish|configure|report)|junit", re.I)


def report_problems(task: CodingTask, cases: list[CaseResult], exit_code: int, stdout: str) -> list[str]:
    """Why this report cannot be believed (empty when it can)."""
    declared = set(task.test_ids())
    named = {case.test_id for case in cases if "::" in case.test_id} - {INTERNAL_ERROR}
    broken_files = {case.test_id for case in cases if "::" not in case.test_id}
    problems = [f"the report names {test_id}, which was not selected" for test_id in sorted(named - declared)]
    crashed = any(case.test_id == INTERNAL_ERROR for case in cases)  # pytest broke: nothing more to judge
    for test_id in sorted(declared - named):
        if test_id.split("::", 1)[0] not in broken_files and not crashed:
            problems.append(f"the report leaves out {test_id} with no collection error for its file")
    clean = all(case.outcome in ("passed", "skipped") for case in cases)
    if clean and cases and exit_code != 0:
        problems.append(f"the report shows no failure but pytest exited with {exit_code}")
    if clean and cases:
        problems += _summary_problems(cases, stdout)
    return problems


def _summary_problems(cases: list[CaseResult], stdout: str) -> list[str]:
    summaries = [line.strip() for line in stdout.splitlines() if SUMMARY.match(line.strip())]
    if len(summaries) != 1:
        return [f"pytest's output has {len(summaries)} summary lines, expected one"]
    passed = sum(case.outcome == "passed" for case in cases)
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", summaries[0])}
    failures = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    if counts.get("passed", 0) != passed or failures:
        return [f"pytest's summary {summaries[0]!r} disagrees with the report ({passed} passed)"]
    return []


def diff_problems(scored_diff: str) -> list[str]:
    """Added lines of the scored diff that reach into the test runner (a fix never needs to)."""
    hits = [
        line[1:].strip()
        for line in scored_diff.splitlines()
        if line.startswith("+") and not line.startswith("+++") and RUNNER_HOOKS.search(line)
    ]
    return [f"the diff reaches into the test runner: {hit[:120]!r}" for hit in hits[:3]]
