"""The shipped task set is well-formed and consistent with the pinned libraries (no network, no runs)."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from execmem.suites.coding.builder.repos import BUILTIN_REPOS
from execmem.suites.coding.builder.statements import patch_lines
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import load_tasks

SPECS = {spec.repo: spec for spec in BUILTIN_REPOS}


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(builtin_tasks_path())


def test_size_and_spread(tasks):
    by_repo = defaultdict(list)
    for task in tasks:
        by_repo[task.repo].append(task)
    assert len(tasks) >= 40 and len(by_repo) >= 5
    for repo_tasks in by_repo.values():
        dates = [task.created_at for task in repo_tasks]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)  # every later task has history


def test_every_task_matches_its_pinned_library(tasks):
    for task in tasks:
        spec = SPECS[task.repo]
        assert task.source == {**spec.source(), "bug": "reverse-patch"}
        assert (task.version, task.install, task.env) == (spec.version, spec.install, spec.env())
        assert re.fullmatch(r"[0-9a-f]{40}", task.base_commit)
        assert task.instance_id.startswith(f"{spec.package}-{spec.version}__bug-")


def test_statements_do_not_leak_the_fix_or_the_build(tasks):
    for task in tasks:
        assert task.patch.startswith("diff --git a/") and task.test_patch == ""
        assert not set(task.FAIL_TO_PASS) & set(task.PASS_TO_PASS)
        for line in patch_lines(task.patch):
            assert line not in task.problem_statement, task.instance_id
        assert "/build/" not in task.problem_statement and not re.search(
            r"0x[0-9a-f]{6,}", task.problem_statement
        )
        assert all(test_id in task.problem_statement for test_id in task.FAIL_TO_PASS[:8])
