"""Prepared base repositories: a task's base state made once, then copied into every episode.

Preparing an episode from scratch unpacks the source, puts the bug in and commits every file into a
fresh git repository; for a pinned source that gives the same commit every time. So for sources
pinned by content (``pypi-sdist`` with a ``sha256``, ``git`` at a ``base_commit``) the prepared
repository is kept under ``<coding cache>/bases/<task>-<sha12 of the task record>/`` (built under a
file lock, marked done by ``base.json`` holding its commit id) and each episode gets a copy of it,
``.git`` included. ``local`` sources are prepared fresh every time: their folder may change.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from execmem.core.files import DamagedFileError, file_lock, read_json_document, write_json_atomic
from execmem.core.hashing import text_sha256
from execmem.core.text import slug
from execmem.suites.coding.tasks import CodingTask

_MARKER = "base.json"


def pinned(task: CodingTask) -> bool:
    """Whether the task's source gives the same base every time (so a copy is as good as a build)."""
    kind = task.source.get("kind")
    return (kind == "pypi-sdist" and bool(task.source.get("sha256"))) or (
        kind == "git" and bool(task.base_commit)
    )


class BaseCache:
    """Prepared bases under ``root``, one per task record."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def folder(self, task: CodingTask) -> Path:
        return self.root / f"{slug(task.instance_id, limit=80)}-{text_sha256(task.model_dump_json())[:12]}"

    def copy_into(self, task: CodingTask, repo: Path, build: Callable[[Path], str]) -> str:
        """Copy the task's prepared base to ``repo`` (building it with ``build(dest) -> commit id``
        the first time) and return its commit id."""
        folder = self.folder(task)
        folder.mkdir(parents=True, exist_ok=True)
        with file_lock(folder / ".lock"):
            sha = self._done(folder)
            if sha is None:
                shutil.rmtree(folder / "repo", ignore_errors=True)
                sha = build(folder / "repo")
                write_json_atomic(folder / _MARKER, {"instance_id": task.instance_id, "base_sha": sha})
        shutil.copytree(folder / "repo", repo, symlinks=True)
        return sha

    @staticmethod
    def _done(folder: Path) -> str | None:
        try:
            return read_json_document(folder / _MARKER)["base_sha"]
        except (DamagedFileError, FileNotFoundError, KeyError, TypeError):
            return None
