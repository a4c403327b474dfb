"""Where agent commands run: bubblewrap by default, a plain subprocess only on request, or docker.

Every sandbox gets a clean environment (nothing of the caller's, so no API
keys), a time limit after which the whole process tree is killed, and output
capped at ``output_cap`` bytes per stream. Bubblewrap (``bubblewrap.py``) adds
the allow-listed view, the unprivileged user and the rlimits.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from execmem.suites.coding.bubblewrap import MISSING_BWRAP, BubblewrapSandbox
from execmem.suites.coding.process import CommandResult, run_process
from execmem.suites.coding.sandbox_config import (
    SandboxConfig,
    SandboxLimits,
    SandboxUnavailable,
    absolute,
    base_env,
)

__all__ = [
    "BubblewrapSandbox",
    "CommandResult",
    "DockerSandbox",
    "Sandbox",
    "SandboxConfig",
    "SandboxLimits",
    "SandboxUnavailable",
    "UnsafeLocalSandbox",
    "make_sandbox",
]


@runtime_checkable
class Sandbox(Protocol):
    """Runs a shell command with cwd ``workdir`` (writable), plus extra ``writable``/``readonly`` folders."""

    def run(
        self,
        command: str,
        workdir: Path,
        timeout_s: float,
        env: dict[str, str] | None = None,
        *,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
    ) -> CommandResult: ...

    def describe(self) -> dict[str, Any]: ...


class UnsafeLocalSandbox:
    """A plain subprocess: time limit and clean environment, but NO isolation (``--unsafe-local`` only)."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()

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
        argv = ["bash", "-c", command]
        return run_process(argv, absolute(workdir), timeout_s, base_env(env), self.config.output_cap)

    def describe(self) -> dict[str, Any]:
        return {"kind": "unsafe-local", "isolation": "none"}


class DockerSandbox:
    """``docker run`` in a task image (SWE-rebench ``image_name``), no network, workdir mounted at /work."""

    def __init__(
        self,
        image: str,
        config: SandboxConfig | None = None,
        docker: str = "docker",
        mount_point: str = "/work",
        extra_args: list[str] | None = None,
    ) -> None:
        self.image = image
        self.config = config or SandboxConfig()
        self.docker = docker
        self.mount_point = mount_point
        self.extra_args = extra_args if extra_args is not None else ["--pids-limit", "1024"]

    def argv(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str] | None,
        name: str,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
    ) -> list[str]:
        args = [self.docker, "run", "--rm", "--name", name, "--network", "none"]
        args += ["-v", f"{absolute(workdir)}:{self.mount_point}", "-w", self.mount_point]
        args += [arg for path in writable for arg in ("-v", f"{absolute(path)}:{path}")]
        args += [arg for path in readonly for arg in ("-v", f"{absolute(path)}:{path}:ro")]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        return [*args, *self.extra_args, self.image, "bash", "-lc", command]

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
        argv = self.argv(command, workdir, env, name, writable, readonly)
        kill = [self.docker, "kill", name]
        return run_process(argv, absolute(workdir), timeout_s, dict(os.environ), self.config.output_cap, kill)

    def describe(self) -> dict[str, Any]:
        return {"kind": "docker", "image": self.image, "network": "none"}


def make_sandbox(
    config: SandboxConfig | None = None, unsafe_local: bool = False, image: str | None = None
) -> Sandbox:
    """Docker when an image is given; else bubblewrap; a plain subprocess only with ``unsafe_local``."""
    if image:
        return DockerSandbox(image, config)
    if shutil.which("bwrap"):
        return BubblewrapSandbox(config)
    if unsafe_local:
        return UnsafeLocalSandbox(config)
    raise SandboxUnavailable(MISSING_BWRAP)
