"""One virtualenv per (repo, version), built once from the task's ``install`` commands and reused.

The repository's own package is NOT installed: each episode has its own copy
and imports it from there (the task's ``env``, e.g. ``PYTHONPATH={repo}/src``,
or the working directory that ``python -m pytest`` puts on ``sys.path``). The
venv holds only the test dependencies, so one venv serves every episode.

Install commands are ours, not the agent's: they run unsandboxed (they need
PyPI) with the venv first on PATH. A finished venv carries ``env.json``
(commands, python, build time); a folder without it is a failed build and is
rebuilt.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from execmem.core.files import file_lock, read_json_document, write_json_atomic
from execmem.core.hashing import text_sha256
from execmem.core.text import slug

INSTALL_TIMEOUT_S = 1800.0
PACKAGE_DIRS = ("site-packages", "dist-packages")
_MARKER = "env.json"


class VenvBuildError(RuntimeError):
    """An install command failed; the message has the command and the end of its output."""


@dataclass(frozen=True)
class Venv:
    """A built venv: where it is, how long it took to build, and whether this call reused it."""

    path: Path
    build_s: float
    reused: bool

    @property
    def bin_dir(self) -> Path:
        return self.path / "venv" / "bin"

    @property
    def venv(self) -> Path:
        return self.path / "venv"

    def variables(self) -> dict[str, str]:
        """The variables that put this venv first for a command."""
        return {"PATH": f"{self.bin_dir}:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(self.venv)}

    def interpreter_prefix(self) -> Path | None:
        """Where the venv's base interpreter lives (``home`` in ``pyvenv.cfg``, one level up)."""
        config = self.venv / "pyvenv.cfg"
        if not config.is_file():
            return None
        for line in config.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return Path(value.strip()).resolve().parent
        return None

    def pytest_plugins(self) -> list[str]:
        """Modules of the pytest plugins installed in the venv (its ``pytest11`` entry points).

        Evaluation turns plugin autoload off and loads exactly these: the environment is ours, while
        autoload would also take plugins from metadata files an agent added to the repository.
        """
        modules: set[str] = set()
        for path in self.venv.glob("lib/python*/site-packages/*.dist-info/entry_points.txt"):
            parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
            parser.read(path, encoding="utf-8")
            if parser.has_section("pytest11"):
                modules.update(value.split(":")[0].strip() for value in parser["pytest11"].values())
        return sorted(modules)

    def readonly_paths(self) -> list[Path]:
        """What a sandboxed command needs to use this environment: the venv and its interpreter.

        The interpreter's prefix is bound read-only at its own path (e.g. a pyenv build under a
        mode-700 home): nothing else of that home becomes visible.
        """
        prefix = self.interpreter_prefix()
        if prefix is None or prefix.is_relative_to("/usr"):  # system folders are bound anyway
            return [self.venv]
        return [self.venv, prefix]

    def hidden_paths(self) -> list[Path]:
        """The installed packages of the bound interpreter prefix: the venv does not use them, and they
        may hold a task's library at its fixed version (or execmem itself, with the gold patches)."""
        prefix = self.interpreter_prefix()
        if prefix is None or prefix.is_relative_to("/usr"):  # the sandbox hides the system's own
            return []
        return [path for name in PACKAGE_DIRS for path in sorted(prefix.glob(f"lib/python*/{name}"))]


class Recipe(Protocol):
    """What a venv is keyed on and built from (a ``CodingTask`` and a builder ``RepoSpec`` are)."""

    repo: str
    version: str
    install: list[str]


class VenvCache:
    """Builds venvs under ``root`` on first use, keyed by repo, version and install recipe."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def key(self, task: Recipe) -> str:
        recipe = json.dumps([task.install, sys.version], sort_keys=True)
        return f"{slug(f'{task.repo}-{task.version}')}-{text_sha256(recipe)[:10]}"

    def get(self, task: Recipe) -> Venv:
        """The venv of ``task``, building it (under a lock) if needed."""
        path = self.root / self.key(task)
        path.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(path.parent / f"{path.name}.lock"):
            marker = path / _MARKER
            if marker.is_file():
                return Venv(path, read_json_document(marker)["build_s"], reused=True)
            return self._build(task, path)

    def _build(self, task: Recipe, path: Path) -> Venv:
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        start = time.monotonic()
        env = Venv(path, 0.0, reused=False)
        _run([sys.executable, "-m", "venv", str(env.venv)], path, os.environ.copy())
        variables = {**os.environ, **env.variables()}
        variables.pop("PYTHONPATH", None)
        for command in task.install:
            _run(["bash", "-c", command], path, variables)
        build_s = time.monotonic() - start
        record: dict[str, Any] = {
            "repo": task.repo,
            "version": task.version,
            "install": task.install,
            "python": sys.version,
            "build_s": round(build_s, 3),
        }
        write_json_atomic(path / _MARKER, record)
        return Venv(path, build_s, reused=False)


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise VenvBuildError(f"install step timed out: {argv[-1]}") from None
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-3000:]
        raise VenvBuildError(f"install step failed ({done.returncode}): {argv[-1]}\n{tail}")
