"""Materialise a task's repository at its base state into a fresh folder.

``source.kind`` says how: ``pypi-sdist`` (package, version, sha256: our offline
tasks), ``git`` (url, at the task's ``base_commit``: SWE-bench style) or
``local`` (a folder copied as is). Only files are copied, never history, so an
episode cannot read future commits.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from execmem.suites.coding.gitrepo import export_tree, git
from execmem.suites.coding.pypi import fetch_sdist, unpack_sdist
from execmem.suites.coding.tasks import CodingTask


class SourceError(ValueError):
    """A task whose ``source`` cannot be materialised."""


def materialise(task: CodingTask, dest: Path, cache_dir: Path) -> None:
    """Write the task's repository (before any bug is applied) into ``dest``, which must not exist."""
    kind = task.source.get("kind")
    if kind == "pypi-sdist":
        _sdist(task, dest, cache_dir)
    elif kind == "git":
        _git(task, dest)
    elif kind == "local":
        shutil.copytree(_field(task, "path"), dest, symlinks=True)
    else:
        raise SourceError(f"{task.instance_id}: field source.kind: unknown kind {kind!r}")


def _field(task: CodingTask, name: str) -> str:
    value = task.source.get(name)
    if not isinstance(value, str) or not value:
        raise SourceError(f"{task.instance_id}: field source.{name}: missing")
    return value


def _sdist(task: CodingTask, dest: Path, cache_dir: Path) -> None:
    package, version = _field(task, "package"), _field(task, "version")
    archive = fetch_sdist(package, version, task.source.get("sha256"), cache_dir)
    unpack_sdist(archive, dest)


def _git(task: CodingTask, dest: Path) -> None:
    if not task.base_commit:
        raise SourceError(f"{task.instance_id}: field base_commit: required for git sources")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as scratch:
        clone = Path(scratch) / "clone"
        git(Path(scratch), "clone", "--quiet", "--no-checkout", _field(task, "url"), str(clone))
        export_tree(clone, task.base_commit, dest)
