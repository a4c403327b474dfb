"""Forged results: an unfixed task must never count as resolved, however the agent's diff games the tests.

Each forgery is written by a sandboxed command, as an agent would, on the
``alpha__double`` task (its bug stays in); the honest fix still resolves.
"""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

import pytest

from execmem.suites.coding.evaluation.evaluate import evaluate
from execmem.suites.coding.tasks import load_tasks
from execmem.suites.coding.venvs import VenvCache
from execmem.suites.coding.workspace import Episode, prepare_episode
from tests.coding.conftest import needs_bwrap
from tests.coding.forgeries import CONFIGS, FLIP_HOOK, PATCH_REPORTS, REWRITE_REPORT, SHADOW_DEPENDENCY
from tests.coding.paired_support import GOOD, make_tasks

pytestmark = needs_bwrap


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    tasks = load_tasks(make_tasks(tmp_path_factory.mktemp("forgery")))
    return next(t for t in tasks if t.instance_id == "alpha__double")


@pytest.fixture
def episode(task, shared_cache, tmp_path):
    episode = prepare_episode(task, tmp_path / "episodes", VenvCache(shared_cache / "envs"))
    yield episode
    episode.cleanup()


def write(episode: Episode, path: str, text: str) -> None:
    """Write a file the way an agent does: a command in the sandbox."""
    quoted = shlex.quote(path)
    command = f"mkdir -p $(dirname {quoted}) && printf %s {shlex.quote(text)} > {quoted}"
    assert episode.run(command).ok


def test_the_bug_is_in_and_an_honest_fix_resolves(episode):
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved and evaluation.outcomes["tests/test_core.py::test_double"] == "failed"
    write(episode, "alpha/core.py", GOOD)
    evaluation = evaluate(episode.task, episode)
    assert evaluation.resolved and not evaluation.suspect, evaluation.to_dict()
    assert set(evaluation.outcomes) == set(episode.task.test_ids())  # exactly the declared tests ran


@pytest.mark.parametrize("where", ["conftest.py", "tests/conftest.py", "alpha/conftest.py"])
def test_a_conftest_hook_that_flips_outcomes_is_not_scored(episode, where):
    write(episode, where, FLIP_HOOK)
    assert '+    report.outcome = "passed"' in episode.diff()
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved
    assert evaluation.outcomes["tests/test_core.py::test_double"] == "failed"
    assert evaluation.dropped_paths == [where]


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_test_configuration_that_loads_a_plugin_is_not_scored(episode, config):
    write(episode, "flip.py", FLIP_HOOK)
    write(episode, config, CONFIGS[config])
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved
    assert evaluation.outcomes["tests/test_core.py::test_double"] == "failed"
    assert evaluation.dropped_paths == [config]
    assert evaluation.suspect  # the plugin left in library code reaches into pytest


@pytest.mark.parametrize("exit_clean", [False, True], ids=["exit-code-kept", "exit-code-forged"])
def test_code_that_rewrites_the_junit_report_is_suspect(episode, exit_clean):
    forger = REWRITE_REPORT.replace("EXIT_CLEAN", str(exit_clean))
    write(episode, "alpha/__init__.py", textwrap.dedent(forger))
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved and evaluation.suspect, evaluation.to_dict()
    assert evaluation.outcomes["tests/test_core.py::test_double"] == "passed"  # the forgery did land...
    reasons = ["the control test, which always fails, is reported as passed", "pytest's summary"]
    reasons += ["pytest exited with 0"] if exit_clean else []
    for reason in reasons:
        assert any(reason in text for text in evaluation.suspect_reasons), evaluation.suspect_reasons


def test_a_report_planted_at_the_old_fixed_path_is_ignored(episode, task):
    cases = "".join(
        f'<testcase classname="{t.split("::")[0][:-3].replace("/", ".")}" name="{t.split("::")[1]}" '
        f'file="{t.split("::")[0]}"/>'
        for t in task.test_ids()
    )
    report = f'<testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>'
    write(episode, ".execmem-junit.xml", report)
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved and evaluation.outcomes["tests/test_core.py::test_double"] == "failed"


def test_a_fake_pytest_module_is_not_scored(episode):
    fake = "import sys\nprint('3 passed in 0.01s')\nsys.exit(0)\n"
    write(episode, "pytest.py", fake)
    write(episode, "pytest/__main__.py", fake)
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved
    assert sorted(evaluation.dropped_paths) == ["pytest.py", "pytest/__main__.py"]


def test_sitecustomize_on_the_path_is_not_scored(episode, tmp_path: Path):
    write(episode, "sitecustomize.py", "import os\nos._exit(0)\n")
    evaluation = evaluate(episode.task, episode)
    assert evaluation.dropped_paths == ["sitecustomize.py"] and not evaluation.resolved


CONTROL_REWRITTEN = "the control test, which always fails, is reported as passed"


def test_library_code_that_flips_every_report_is_caught_by_the_control(episode):
    with open(Path(episode.repo) / "alpha" / "core.py") as handle:
        buggy = handle.read()
    write(episode, "alpha/core.py", buggy + PATCH_REPORTS)
    evaluation = evaluate(episode.task, episode)
    assert evaluation.outcomes["tests/test_core.py::test_double"] == "passed"  # the forgery did land...
    assert not evaluation.resolved and evaluation.suspect, evaluation.to_dict()
    assert any(CONTROL_REWRITTEN in text for text in evaluation.suspect_reasons), evaluation.suspect_reasons
    assert set(evaluation.outcomes) == set(episode.task.test_ids())  # the control is not an outcome


def test_a_module_shadowing_a_pytest_dependency_is_caught_by_the_control(episode):
    write(episode, "iniconfig.py", SHADOW_DEPENDENCY)
    evaluation = evaluate(episode.task, episode)
    assert evaluation.outcomes["tests/test_core.py::test_double"] == "passed"  # the forgery did land...
    assert not evaluation.resolved and evaluation.suspect, evaluation.to_dict()
    assert any(CONTROL_REWRITTEN in text for text in evaluation.suspect_reasons), evaluation.suspect_reasons
