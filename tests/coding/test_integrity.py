"""The report checks and the diff filter, on their own (no test run)."""

from __future__ import annotations

import pytest

from execmem.suites.coding.evaluation.integrity import diff_problems, report_problems
from execmem.suites.coding.evaluation.junit import CaseResult
from execmem.suites.coding.evaluation.protected import dropped_paths, scored_diff, why_dropped
from execmem.suites.coding.evaluation.selection import Selection
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import Venv
from tests.coding.conftest import task_record

TASK = CodingTask.model_validate(task_record())  # F2P test_add, P2P test_sub in tests/test_calc.py
ADD, SUB = "tests/test_calc.py::test_add", "tests/test_calc.py::test_sub"
HONEST = "..    [100%]\n2 passed in 0.02s\n"


def cases(**outcomes: str) -> list[CaseResult]:
    return [CaseResult(test_id, outcome) for test_id, outcome in outcomes.items()]


def test_an_honest_report_has_no_problem():
    assert report_problems(TASK, cases(**{ADD: "passed", SUB: "passed"}), 0, HONEST) == []
    failing = "F.\n1 failed, 1 passed in 0.1s\n"
    assert report_problems(TASK, cases(**{ADD: "failed", SUB: "passed"}), 1, failing) == []


def test_tests_that_were_not_selected_make_it_suspect():
    extra = cases(**{ADD: "passed", SUB: "passed", "tests/test_calc.py::test_mul": "passed"})
    assert "test_mul, which was not selected" in report_problems(TASK, extra, 0, HONEST)[0]


def test_a_missing_declared_test_needs_a_collection_error():
    only_add = cases(**{ADD: "passed"})
    assert "leaves out tests/test_calc.py::test_sub" in report_problems(TASK, only_add, 0, HONEST)[0]
    broken = cases(**{"tests/test_calc.py": "error"})
    assert report_problems(TASK, broken, 2, "1 error in 0.1s\n") == []


def test_an_internal_error_of_pytest_is_a_failed_run_not_a_forgery():
    crashed = cases(**{"pytest.py::internal": "error"})
    assert report_problems(TASK, crashed, 3, "no tests ran in 0.39s\n") == []


def test_a_clean_report_must_agree_with_the_exit_code_and_the_summary():
    clean = cases(**{ADD: "passed", SUB: "passed"})
    assert "pytest exited with 1" in report_problems(TASK, clean, 1, HONEST)[0]
    assert "disagrees" in report_problems(TASK, clean, 0, "F.\n1 failed, 1 passed in 0.1s\n")[0]
    assert "2 summary lines" in report_problems(TASK, clean, 0, HONEST + "2 passed in 0.01s\n")[0]
    assert "0 summary lines" in report_problems(TASK, clean, 0, "all good\n")[0]
    verbose = "==== 2 passed, 3 deselected, 1 warning in 0.12s ====\n"
    assert report_problems(TASK, clean, 0, verbose) == []


CONTROL = "test_0123abcd"
WITH_CONTROL = "..F    [100%]\n1 failed, 2 passed in 0.02s\n"


def with_control(outcome: str = "failed", **outcomes: str) -> list[CaseResult]:
    return [*cases(**outcomes), CaseResult(f"../harness/execmem_select_x.py::{CONTROL}", outcome)]


def test_an_honest_run_with_its_control_has_no_problem():
    passing = with_control(**{ADD: "passed", SUB: "passed"})
    assert report_problems(TASK, passing, 1, WITH_CONTROL, CONTROL) == []
    failing = with_control(**{ADD: "failed", SUB: "passed"})
    assert report_problems(TASK, failing, 1, "F.F\n2 failed, 1 passed in 0.1s\n", CONTROL) == []


def test_a_control_that_passed_means_the_outcomes_were_rewritten():
    flipped = with_control("passed", **{ADD: "passed", SUB: "passed"})
    problems = report_problems(TASK, flipped, 0, "3 passed in 0.02s\n", CONTROL)
    assert "the control test, which always fails, is reported as passed" in problems[0]
    assert "only the control test failed but pytest exited with 0" in problems[1]
    # even when the declared tests fail too
    partly = with_control("skipped", **{ADD: "failed", SUB: "passed"})
    assert "reported as skipped" in report_problems(TASK, partly, 1, "1 failed in 0.1s\n", CONTROL)[0]


def test_a_control_missing_from_a_clean_report_is_suspect():
    clean = cases(**{ADD: "passed", SUB: "passed"})
    problems = report_problems(TASK, clean, 1, WITH_CONTROL, CONTROL)
    assert problems == ["the control test, which always fails, is reported 0 times, not once"]
    failing = cases(**{ADD: "failed", SUB: "passed"})  # -x may stop before the control runs
    assert report_problems(TASK, failing, 1, "F\n1 failed, 1 passed in 0.1s\n", CONTROL) == []


def test_with_a_control_the_summary_must_show_exactly_its_failure():
    passing = with_control(**{ADD: "passed", SUB: "passed"})
    summary = "..F\n2 failed, 2 passed in 0.02s\n"
    assert "disagrees" in report_problems(TASK, passing, 1, summary, CONTROL)[0]
    assert "disagrees" in report_problems(TASK, passing, 1, "3 passed in 0.02s\n", CONTROL)[0]


def test_diffs_reaching_into_the_test_runner_are_flagged():
    assert diff_problems("+++ b/calc.py\n+import _pytest.runner\n")
    assert diff_problems("+def pytest_runtest_makereport(item, call):\n")
    assert diff_problems("+open('junit.xml', 'w')\n")
    assert diff_problems("+    py.TestReport.from_item_and_call = forged\n")
    assert diff_problems("+    return a + b\n-    return a - b\n") == []


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("conftest.py", "test configuration"),
        ("src/pkg/conftest.py", "test configuration"),
        ("setup.cfg", "test configuration"),
        ("sub/pytest.ini", "test configuration"),
        ("pyproject.toml", "test configuration"),
        ("src/sitecustomize.py", "start-up hook"),
        ("evil.pth", "start-up hook"),
        ("x.dist-info/entry_points.txt", "start-up hook"),
        ("tests/helpers.py", "test file"),
        ("test_calc.py", "test file"),
        ("pkg/calc_test.py", "test file"),
        ("pytest.py", "shadows the test runner"),
        ("_pytest/runner.py", "shadows the test runner"),
        ("src/pluggy/__init__.py", "shadows the test runner"),
        ("calc/__init__.py", None),
        ("src/pkg/testing_utils.py", None),
        ("README.md", None),
    ],
)
def test_what_is_left_out_of_the_scored_diff(path, reason):
    assert why_dropped(path) == reason


def test_the_scored_diff_keeps_only_the_library_change():
    fix = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a - b\n+a + b\n"
    hook = "diff --git a/conftest.py b/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ b/conftest.py\n"
    hook += "@@ -0,0 +1 @@\n+x = 1\n"
    binary = "diff --git a/sitecustomize.py b/sitecustomize.py\nnew file mode 100644\nGIT binary patch\n"
    diff = hook + fix + binary
    dropped = dropped_paths(TASK, diff)
    assert dropped == ["conftest.py", "sitecustomize.py"]
    assert scored_diff(diff, dropped) == fix


def test_the_environment_plugins_are_loaded_by_name_and_cannot_be_shadowed(tmp_path):
    site = tmp_path / "env" / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "pytest_cov-5.0.0.dist-info").mkdir(parents=True)
    (site / "pytest_cov-5.0.0.dist-info" / "entry_points.txt").write_text(
        "[pytest11]\npytest_cov = pytest_cov.plugin\n"
    )
    (site / "six-1.16.0.dist-info").mkdir()
    plugins = Venv(tmp_path / "env", 0.0, reused=True).pytest_plugins()
    assert plugins == ["pytest_cov.plugin"]
    selection = Selection(tmp_path / "harness", "execmem_select_x", tuple(plugins))
    variables = selection.variables({"PYTHONPATH": "/repo/src", "PYTEST_ADDOPTS": "-x"})
    assert variables["PYTEST_ADDOPTS"] == "-x -p pytest_cov.plugin -p execmem_select_x"
    assert variables["PYTHONPATH"] == f"/repo/src:{tmp_path / 'harness'}"
    assert variables["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    diff = "diff --git a/pytest_cov/plugin.py b/pytest_cov/plugin.py\nnew file mode 100644\n"
    diff += "--- /dev/null\n+++ b/pytest_cov/plugin.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert dropped_paths(TASK, diff, plugins) == ["pytest_cov/plugin.py"]
    assert dropped_paths(TASK, diff) == []
