"""Prepared bases: a pinned source's base is built once and copied into each episode, same commit."""

from __future__ import annotations

import pytest

from execmem.suites.coding.bases import BaseCache, pinned
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import load_tasks
from execmem.suites.coding.venvs import VenvCache
from execmem.suites.coding.workspace import prepare_episode
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_task


@needs_bwrap
@pytest.mark.network
def test_a_pinned_base_is_built_once_and_copied(tmp_path, shared_cache):
    task = next(t for t in load_tasks(builtin_tasks_path()) if t.instance_id.startswith("parse-"))
    bases, envs = BaseCache(tmp_path / "bases"), VenvCache(shared_cache / "envs")
    first = prepare_episode(task, tmp_path / "ws", envs, bases=bases)
    template = bases.folder(task) / "repo"
    (first.repo / "parse.py").write_text("edited\n")  # an episode's edits never reach the template
    second = prepare_episode(task, tmp_path / "ws", envs, bases=bases)
    fresh = prepare_episode(task, tmp_path / "ws", envs)
    assert first.base_sha == second.base_sha == fresh.base_sha == task.base_commit
    assert (template / "parse.py").read_text() == (second.repo / "parse.py").read_text() != "edited\n"
    assert second.diff() == "" and "edited" in first.diff()
    for episode in (first, second, fresh):
        episode.cleanup()


def test_only_sources_pinned_by_content_are_copied(tmp_path):
    local = make_task(tmp_path, "alpha", 1, "double")
    assert not pinned(local)
    assert pinned(local.model_copy(update={"source": {"kind": "pypi-sdist", "sha256": "ab"}}))
    assert not pinned(local.model_copy(update={"source": {"kind": "pypi-sdist"}}))
    assert pinned(local.model_copy(update={"source": {"kind": "git", "url": "u"}, "base_commit": "c0ffee"}))
