from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from execmem.suites.coding.evaluation.junit import ReportError, node_id, parse_junit, read_cases, resolved
from execmem.suites.coding.tasks import CodingTask
from tests.coding.conftest import task_record

XUNIT2 = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="" name="tests.test_broken" time="0.0">
  <error message="collection failure">boom</error></testcase>
<testcase classname="tests.sub.test_a.TestC.TestInner" name="test_n" time="0.0" />
<testcase classname="tests.sub.test_a.TestC" name="test_p[a.b::c]" time="0.0">
  <failure message="AssertionError: assert 'a.b::c' == 1">long traceback</failure></testcase>
<testcase classname="tests.sub.test_a" name="test_err" time="0.0">
  <error message="failed on setup with &quot;RuntimeError: setup boom&quot;">tb</error></testcase>
<testcase classname="tests.sub.test_a" name="test_xf" time="0.0">
  <skipped type="pytest.xfail" message="" /></testcase>
<testcase classname="tests.sub.test_a" name="test_skip" time="0.0">
  <skipped type="pytest.skip" message="nope">x</skipped></testcase>
</testsuite></testsuites>"""

EXPECTED = {
    "tests/test_broken.py": "error",
    "tests/sub/test_a.py::TestC::TestInner::test_n": "passed",
    "tests/sub/test_a.py::TestC::test_p[a.b::c]": "failed",
    "tests/sub/test_a.py::test_err": "error",
    "tests/sub/test_a.py::test_xf": "skipped",
    "tests/sub/test_a.py::test_skip": "skipped",
}


def test_xunit2_ids_follow_pytest_node_ids():
    assert parse_junit(XUNIT2) == EXPECTED


def test_messages_are_the_short_form_not_the_traceback():
    cases = {case.test_id: case for case in read_cases(XUNIT2)}
    assert (
        cases["tests/sub/test_a.py::TestC::test_p[a.b::c]"].message == "AssertionError: assert 'a.b::c' == 1"
    )
    assert "tb" not in cases["tests/sub/test_a.py::test_err"].message


def test_file_attribute_decides_the_module_split():
    # a lower-case class name defeats the CamelCase guess, the xunit1 file attribute does not
    assert node_id("pkg.tests.test_x.lower_case", "test_y[1.5]", file="pkg/tests/test_x.py") == (
        "pkg/tests/test_x.py::lower_case::test_y[1.5]"
    )
    assert node_id("pkg.tests.test_x.lower_case", "test_y") == "pkg/tests/test_x/lower_case.py::test_y"
    assert node_id("pkg.tests.test_x.TestCase", "test_y") == "pkg/tests/test_x.py::TestCase::test_y"


def test_repository_folder_decides_the_split_without_file(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    assert (
        node_id("tests.test_x.helper_cls", "test_y", root=tmp_path) == "tests/test_x.py::helper_cls::test_y"
    )


def test_worst_outcome_wins_for_a_repeated_id():
    xml = """<testsuite><testcase classname="t" name="test_a" /><testcase classname="t" name="test_a">
    <error message="teardown" /></testcase></testsuite>"""
    assert parse_junit(xml) == {"t.py::test_a": "error"}


def test_unreadable_report_raises(tmp_path):
    with pytest.raises(ReportError):
        parse_junit("<testsuite><testcase")
    with pytest.raises(ReportError, match="missing.xml"):
        parse_junit(tmp_path / "missing.xml")


def test_ids_match_what_pytest_itself_collects(tmp_path):
    (tmp_path / "tests" / "sub").mkdir(parents=True)
    (tmp_path / "tests" / "sub" / "test_real.py").write_text(
        textwrap.dedent(
            """
            import pytest

            class TestOuter:
                class TestInner:
                    def test_inner(self):
                        pass

                @pytest.mark.parametrize("value", [1, "x.y::z", "a b"])
                def test_param(self, value):
                    assert value == 1

            def test_plain():
                pass
            """
        )
    )
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "tests"]
    collected = subprocess.run([*base, "--co", "-q"], cwd=tmp_path, capture_output=True, text=True).stdout
    node_ids = {line for line in collected.splitlines() if "::" in line}
    for family in ("xunit1", "xunit2"):
        report = tmp_path / f"{family}.xml"
        subprocess.run(
            [*base, "-o", f"junit_family={family}", f"--junitxml={report}"], cwd=tmp_path, check=False
        )
        outcomes = parse_junit(report, root=tmp_path)
        assert set(outcomes) == node_ids, family
        assert outcomes["tests/sub/test_real.py::TestOuter::test_param[x.y::z]"] == "failed"


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ({"f": "passed", "p1": "passed", "p2": "passed"}, True),
        ({"f": "failed", "p1": "passed", "p2": "passed"}, False),
        ({"f": "passed", "p1": "error", "p2": "passed"}, False),
        ({"f": "passed", "p1": "passed"}, False),  # a missing test is not passing
        ({"f": "skipped", "p1": "passed", "p2": "passed"}, False),
        ({"f": "passed", "p1": "passed", "p2": "passed", "other": "failed"}, True),  # not in the task
    ],
)
def test_resolved(outcomes, expected):
    task = CodingTask.model_validate(task_record(FAIL_TO_PASS=["f"], PASS_TO_PASS=["p1", "p2"]))
    assert resolved(task, outcomes) is expected
