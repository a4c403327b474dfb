"""Build a small task set for one real library end to end (with one synthetic family), validate it,
rebuild it identically, and build it without the family.

Downloads the pinned sdist and the test dependencies from PyPI unless the coding
cache (``$EXECMEM_CACHE/coding`` or ``~/.cache/execmem/coding``) already has them.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from execmem.cli.coding import app
from execmem.suites.coding.builder.build import BuildConfig, TaskBuilder
from execmem.suites.coding.builder.families import BugSite, family_links, relation
from execmem.suites.coding.builder.statements import patch_lines
from execmem.suites.coding.tasks import dump_tasks, load_tasks
from tests.coding.conftest import needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.network]
LIBRARY = "parse"


def test_build_validate_and_rebuild(tmp_path, shared_cache):
    runner = CliRunner()
    out, stats = tmp_path / "tasks.jsonl", tmp_path / "stats.json"
    args = ["build-tasks", "--out", str(out), "--repos", LIBRARY, "--per-repo", "2", "--seed", "3"]
    built = runner.invoke(app, [*args, "--families", "1", "--stats", str(stats)])
    assert built.exit_code == 0, built.output

    tasks = load_tasks(out)
    ids = ["parse-1.20.2__bug-01", "parse-1.20.2__bug-02", "parse-1.20.2__bug-03"]
    assert sorted(task.instance_id for task in tasks) == ids
    assert [task.created_at for task in tasks] == sorted({task.created_at for task in tasks})
    by_id = {task.instance_id: task for task in tasks}
    assert by_id[ids[0]].created_at < by_id[ids[1]].created_at
    ((target, (earlier, kind)),) = family_links(tasks).items()  # only bug-02 has an earlier task
    assert (target, earlier) == (ids[1], ids[2]) and by_id[earlier].created_at < by_id[target].created_at
    sites = BugSite.from_meta(by_id[earlier].meta), BugSite.from_meta(by_id[target].meta)
    assert relation(*sites) == kind and by_id[earlier].meta["family"] == {"role": "earlier"}
    for task in tasks:
        assert task.repo == "pypi/parse" and len(task.base_commit) == 40
        assert task.source["sha256"] and task.source["bug"] == "reverse-patch"
        assert task.FAIL_TO_PASS and not set(task.FAIL_TO_PASS) & set(task.PASS_TO_PASS)
        assert all(line not in task.problem_statement for line in patch_lines(task.patch))
    record = json.loads(stats.read_text())["repos"][0]
    assert record["kept"] == 2 and record["trials"] >= 2 and record["baseline_tests"] > 50
    assert record["families"] == 1 and record["family_trials"] >= 1

    checked = runner.invoke(app, ["validate", str(out)])
    assert checked.exit_code == 0, checked.output
    assert "3/3 tasks valid" in checked.output

    config = BuildConfig(seed=3, per_repo=2, families_per_repo=1, repos=[LIBRARY])
    again, _ = TaskBuilder(config, shared_cache).build()
    assert again == tasks
    alone, _ = TaskBuilder(config.model_copy(update={"families_per_repo": 0}), shared_cache).build()
    unlinked = [
        t.model_copy(update={"meta": BugSite.from_meta(t.meta).meta()})
        for t in tasks
        if t.instance_id != earlier
    ]
    assert alone == unlinked  # the family comes from its own seeded stream: the other tasks do not move

    broken = tmp_path / "broken.jsonl"
    no_bug = tasks[0].model_copy(update={"patch": ""})
    passing_f2p = tasks[1].model_copy(
        update={"instance_id": "wrong-f2p", "FAIL_TO_PASS": tasks[1].FAIL_TO_PASS + tasks[1].PASS_TO_PASS[:1]}
    )
    dump_tasks([no_bug, passing_f2p, tasks[1]], broken)
    failed = runner.invoke(app, ["validate", str(broken), "--stats", str(tmp_path / "checks.json")])
    assert failed.exit_code == 1, failed.output
    reasons = [check["reason"] for check in json.loads((tmp_path / "checks.json").read_text())]
    assert reasons[0].startswith("cannot prepare:") and "base_commit" in reasons[0]
    assert reasons[1].startswith("FAIL_TO_PASS passes without the fix")
    assert reasons[2] == "ok"
