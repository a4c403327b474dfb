"""The docker sandbox: each command in a fresh container of a given image, without network.

The engine is ``docker``, or ``podman`` where docker is absent. Commands run as the sandbox user
(the configured unprivileged one when the harness is root, whose folders are handed over to it
first, else the harness's own), with the sandbox's limits (a process cap per container, the
rlimits, a size-capped ``/tmp``). Paths keep their meaning inside: the workdir (the command's cwd;
its ``.git`` read-only, as in bubblewrap), the folders a command may write and those it may read
(the task venv among them) are mounted at their own absolute paths, so every path the harness
passes (a ``{repo}`` in the task's variables, a report file, the venv's ``bin``) is the same in the
container. The command sees only the variables it is given. Runs never pull: the image must be
present (``docker pull IMAGE`` first), which is checked once per process before any episode.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.suites.coding.sandbox.config import (
    MIB,
    SandboxConfig,
    SandboxLimits,
    SandboxUnavailable,
    absolute,
)
from execmem.suites.coding.sandbox.launcher import hand_over, identity
from execmem.suites.coding.sandbox.process import CommandResult, run_process

ENGINES = ("docker", "podman")
_CHECKED: set[tuple[str, str]] = set()


def find_engine() -> str:
    """The container engine on PATH: docker, else podman."""
    for engine in ENGINES:
        if shutil.which(engine):
            return engine
    raise SandboxUnavailable(
        "--sandbox docker needs a container engine: neither docker nor podman is on PATH"
    )


def check_image(engine: str, image: str) -> None:
    """SandboxUnavailable unless ``engine`` has ``image`` locally (asked once per process)."""
    if (engine, image) in _CHECKED:
        return
    done = subprocess.run([engine, "image", "inspect", image], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise SandboxUnavailable(
            f"--image {image}: {engine} cannot use it ({why}); pull it first ({engine} pull {image}): "
            "runs never pull, their commands have no network"
        )
    _CHECKED.add((engine, image))


def limit_args(limits: SandboxLimits) -> list[str]:
    """The sandbox's per-command limits as the engine's flags (processes per container, rlimits); the
    engines have no address-space flag, so ``shell`` sets that one."""
    return [
        "--pids-limit", str(limits.processes),
        "--ulimit", f"fsize={limits.file_size_mib * MIB}",
        "--ulimit", f"nofile={limits.open_files}",
        "--ulimit", f"cpu={limits.cpu_s}",
        "--ulimit", "core=0",
        "--tmpfs", f"/tmp:size={limits.tmpfs_mib}m",
    ]  # fmt: skip


def shell(command: str, limits: SandboxLimits) -> list[str]:
    """``bash -c COMMAND`` under the address-space cap (set soft and hard, so it cannot be raised)."""
    kib = limits.address_space_mib * 1024
    return ["bash", "-c", 'ulimit -v "$1" && exec bash -c "$2"', "bash", str(kib), command]


def mount(path: Path, mode: str = "") -> list[str]:
    """``-v PATH:PATH[:mode]``: a host folder at its own path in the container."""
    path = absolute(path)
    return ["-v", f"{path}:{path}" + (f":{mode}" if mode else "")]


class DockerSandbox:
    """``ENGINE run`` in ``image``: no network, the sandbox user and limits, paths mounted where they
    are, the variables given."""

    def __init__(
        self,
        image: str,
        config: SandboxConfig | None = None,
        engine: str | None = None,
    ) -> None:
        self.image = image
        self.config = config or SandboxConfig()
        self.engine = engine or find_engine()
        self.who = identity(self.config)
        check_image(self.engine, image)

    def argv(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str] | None,
        name: str,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
    ) -> list[str]:
        args = [self.engine, "run", "--rm", "--name", name, "--network", "none", *self.user_args()]
        args += [*mount(workdir), "-w", str(absolute(workdir))]
        protected = [workdir / sub for sub in self.config.protected_subpaths if (workdir / sub).exists()]
        args += [arg for path in protected for arg in mount(path, "ro")]  # the base commit stays true
        args += [arg for path in writable for arg in mount(path)]
        args += [arg for path in [*self.config.readonly_paths, *readonly] for arg in mount(path, "ro")]
        args += [arg for path in self.config.hidden_paths for arg in ("--tmpfs", f"{absolute(path)}:ro")]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        return [*args, *limit_args(self.config.limits), self.image, *shell(command, self.config.limits)]

    def user_args(self) -> list[str]:
        """Commands run as the sandbox user (``launcher.identity``); podman keeps the caller's id."""
        keep = ["--userns=keep-id"] if Path(self.engine).name == "podman" and not self.who.switch else []
        return [*keep, "--user", f"{self.who.uid}:{self.who.gid}"]

    def run(
        self,
        command: str,
        workdir: Path,
        timeout_s: float,
        env: dict[str, str] | None = None,
        *,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
    ) -> CommandResult:
        name = f"execmem-{uuid.uuid4().hex[:12]}"
        hand_over([absolute(workdir), *writable], self.who)
        argv = self.argv(command, workdir, env, name, writable, readonly)
        kill = [self.engine, "kill", name]
        # The engine's client needs the caller's environment (config, socket); the container gets none of it.
        return run_process(argv, absolute(workdir), timeout_s, dict(os.environ), self.config.output_cap, kill)

    def describe(self) -> dict[str, Any]:
        return {"kind": "docker", "image": self.image, "network": "none"}
