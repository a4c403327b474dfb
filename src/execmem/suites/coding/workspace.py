"""Episodes: a private copy of the repository at the task's base state, run through a sandbox.

Layout of one episode folder::

    <root>/<instance>-<id>/repo     the working copy (the agent's cwd; only writable place)
    <root>/<instance>-<id>/meta     our bookkeeping (private git index), outside the sandbox's reach

``repo`` is a one-commit git repository made at preparation; its ``.git`` is
read-only inside the sandbox, so ``diff()`` always compares against the true
base. For tasks whose ``source.bug`` is ``"reverse-patch"`` (our offline tasks)
the base state is the upstream source with the task's fix reversed, i.e. with
the bug in.
"""

from __future__ import annotations

import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.core.text import slug
from execmem.suites.coding.bases import BaseCache, pinned
from execmem.suites.coding.gitrepo import apply_patch, diff_against, git, init_base, left_out_of_diff
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.sandbox.base import Sandbox, make_sandbox
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.sandbox.process import CommandResult
from execmem.suites.coding.sources import materialise
from execmem.suites.coding.tasks import REPO_PLACEHOLDER, CodingTask
from execmem.suites.coding.venvs import Venv, VenvCache

DEFAULT_TIMEOUT_S = 120.0


class EpisodeError(RuntimeError):
    """An episode that cannot be prepared as the task describes."""


@dataclass
class Episode:
    """One attempt at one task: its folder, base commit, venv and sandbox."""

    task: CodingTask
    root: Path
    base_sha: str
    venv: Venv
    sandbox: Sandbox
    prepare_s: float = 0.0
    commands: list[dict[str, Any]] = field(default_factory=list)

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def meta(self) -> Path:
        return self.root / "meta"

    def variables(self, repo: Path | None = None) -> dict[str, str]:
        """What commands see: the venv first on PATH, no bytecode files, the task's own variables."""
        folder = str(repo or self.repo)
        values = {**self.venv.variables(), "PYTHONDONTWRITEBYTECODE": "1"}
        values.update({key: value.replace(REPO_PLACEHOLDER, folder) for key, value in self.task.env.items()})
        return values

    def run(self, command: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> CommandResult:
        """Run an (agent) command in the sandbox, cwd = the repository copy."""
        result = self.sandbox.run(command, self.repo, timeout_s, self.variables())
        self.commands.append({"command": command, "exit_code": result.exit_code, "s": result.duration_s})
        return result

    def diff(self, binary: bool = False) -> str:
        """Unified diff of everything changed since the base (new files included, caches ignored),
        except ``left_out()``."""
        self.meta.mkdir(exist_ok=True)
        return diff_against(self.repo, self.base_sha, self.meta / "index", binary, self.left_out())

    def left_out(self) -> list[str]:
        """Paths of the working copy no diff includes: nested repositories, files over 8 MiB."""
        return left_out_of_diff(self.repo)

    def apply(self, patch: str, reverse: bool = False) -> None:
        """Apply a patch of ours (not the agent's) to the working copy, e.g. the gold fix."""
        apply_patch(self.repo, patch, reverse=reverse)

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        return {
            "instance_id": self.task.instance_id,
            "root": str(self.root),
            "base_sha": self.base_sha,
            "environment": str(self.venv.path),
            "environment_reused": self.venv.reused,
            "sandbox": self.sandbox.describe(),
        }


def prepare_episode(
    task: CodingTask,
    root: Path,
    env_cache: VenvCache,
    *,
    sandbox: Sandbox | None = None,
    unsafe_local: bool = False,
    cache_dir: Path | None = None,
    sandbox_config: SandboxConfig | None = None,
    image: str | None = None,
    bases: BaseCache | None = None,
) -> Episode:
    """A fresh episode folder under ``root`` with the repository at the task's base state.

    Commands see only what the sandbox allows (system folders, the task environment, this
    episode's ``repo``); ``sandbox_config`` gives the limits, the venv's paths are added. With an
    ``image`` the commands run in containers of it (``sandbox.docker``). With ``bases``, a pinned
    source's base is copied from its prepared repository instead of being built again.
    """
    start = time.monotonic()
    cache_dir = cache_dir or cache_root()
    venv = env_cache.get(task)
    folder = root.resolve() / f"{slug(task.instance_id, limit=80)}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    repo = folder / "repo"
    if bases is not None and pinned(task):
        base_sha = bases.copy_into(task, repo, lambda dest: _build_base(task, dest, cache_dir))
    else:
        base_sha = _build_base(task, repo, cache_dir)
    if sandbox is None:
        config = (sandbox_config or SandboxConfig()).model_copy(
            update={"readonly_paths": venv.readonly_paths(), "hidden_paths": venv.hidden_paths()}
        )
        sandbox = make_sandbox(config, unsafe_local=unsafe_local, image=image)
    return Episode(task, folder, base_sha, venv, sandbox, prepare_s=time.monotonic() - start)


def _build_base(task: CodingTask, repo: Path, cache_dir: Path) -> str:
    materialise(task, repo, cache_dir)
    return _make_base(task, repo)


def _make_base(task: CodingTask, repo: Path) -> str:
    git(repo, "init", "-q")
    if task.source.get("bug") == "reverse-patch":
        apply_patch(repo, task.patch, reverse=True)
    base_sha = init_base(repo)
    if task.source.get("kind") == "pypi-sdist" and task.base_commit and task.base_commit != base_sha:
        raise EpisodeError(
            f"{task.instance_id}: field base_commit: the prepared base is {base_sha}, "
            f"not the recorded {task.base_commit}"
        )
    return base_sha
