"""The docker sandbox: each command in a fresh container of a task image, without network."""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.suites.coding.sandbox.config import SandboxConfig, absolute
from execmem.suites.coding.sandbox.process import CommandResult, run_process


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
