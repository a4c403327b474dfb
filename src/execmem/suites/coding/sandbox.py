"""Where agent commands run: bubblewrap by default, a plain subprocess only on request, or docker.

Every sandbox gets a clean environment (nothing of the caller's, so no API
keys), a time limit after which the whole process tree is killed, and output
capped at ``output_cap`` bytes per stream.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from execmem.suites.coding.process import CommandResult, run_process

__all__ = [
    "BubblewrapSandbox",
    "CommandResult",
    "DockerSandbox",
    "Sandbox",
    "SandboxConfig",
    "SandboxUnavailable",
    "UnsafeLocalSandbox",
    "default_hidden_paths",
    "make_sandbox",
]

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxUnavailable(RuntimeError):
    """No safe way to run agent commands here; the message says what to install or pass."""


@runtime_checkable
class Sandbox(Protocol):
    def run(
        self, command: str, workdir: Path, timeout_s: float, env: dict[str, str] | None = None
    ) -> CommandResult: ...

    def describe(self) -> dict[str, Any]: ...


class SandboxConfig(BaseModel):
    """What a sandbox may see. Paths are absolute; relative ones are rejected at use."""

    output_cap: int = Field(default=64_000, gt=0, description="bytes kept per stream (head + tail)")
    readonly_paths: list[Path] = Field(
        default_factory=list, description="bound read-only (e.g. the environment's venv)"
    )
    hidden_paths: list[Path] = Field(
        default_factory=list, description="replaced by empty tmpfs (e.g. home, the task cache)"
    )
    protected_subpaths: list[str] = Field(
        default_factory=lambda: [".git"], description="inside the workdir, bound read-only"
    )


def default_hidden_paths(*extra: Path) -> list[Path]:
    """What agent commands should not read: the home folder (caches, keys), execmem itself (its
    shipped task data holds gold patches) and whatever the caller adds (task files, caches)."""
    package = Path(__file__).resolve().parents[2]  # .../execmem
    return [Path.home(), package, *extra]


def base_env(env: dict[str, str] | None) -> dict[str, str]:
    """The only variables a command sees: a neutral base plus the caller's ``env``."""
    merged = {"PATH": BASE_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TERM": "dumb", "TMPDIR": "/tmp"}
    merged.update(env or {})
    return merged


class BubblewrapSandbox:
    """``bwrap``: read-only root, private /tmp, no network, own PID namespace, only ``workdir`` writable."""

    def __init__(self, config: SandboxConfig | None = None, bwrap: str | None = None) -> None:
        self.config = config or SandboxConfig()
        self.bwrap = bwrap or shutil.which("bwrap")
        if self.bwrap is None:
            raise SandboxUnavailable(_MISSING_BWRAP)

    def argv(self, command: str, workdir: Path, env: dict[str, str] | None = None) -> list[str]:
        workdir = _absolute(workdir)
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for hidden in self.config.hidden_paths:
            if _absolute(hidden).is_dir() and not _is_within(hidden, workdir):
                args += ["--tmpfs", str(hidden)]
        # The interpreter's own environment stays visible (read-only) even when it lives under /tmp.
        for path in [Path(sys.base_prefix), Path(sys.prefix), *self.config.readonly_paths]:
            if _absolute(path).exists():
                args += ["--ro-bind", str(path), str(path)]
        args += ["--bind", str(workdir), str(workdir)]
        for sub in self.config.protected_subpaths:
            if (workdir / sub).exists():
                args += ["--ro-bind", str(workdir / sub), str(workdir / sub)]
        args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        args += ["--die-with-parent", "--new-session", "--chdir", str(workdir), "--clearenv"]
        for key, value in base_env(env).items():
            args += ["--setenv", key, value]
        return [*args, "bash", "-c", command]

    def run(
        self, command: str, workdir: Path, timeout_s: float, env: dict[str, str] | None = None
    ) -> CommandResult:
        argv = self.argv(command, workdir, env)
        return run_process(argv, workdir, timeout_s, {"PATH": BASE_PATH}, self.config.output_cap)

    def describe(self) -> dict[str, Any]:
        return {"kind": "bubblewrap", "bwrap": self.bwrap, "version": _bwrap_version(self.bwrap)}


class UnsafeLocalSandbox:
    """A plain subprocess: time limit and clean environment, but NO isolation (``--unsafe-local`` only)."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()

    def run(
        self, command: str, workdir: Path, timeout_s: float, env: dict[str, str] | None = None
    ) -> CommandResult:
        argv = ["bash", "-c", command]
        return run_process(argv, _absolute(workdir), timeout_s, base_env(env), self.config.output_cap)

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

    def argv(self, command: str, workdir: Path, env: dict[str, str] | None, name: str) -> list[str]:
        args = [self.docker, "run", "--rm", "--name", name, "--network", "none"]
        args += ["-v", f"{_absolute(workdir)}:{self.mount_point}", "-w", self.mount_point]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        return [*args, *self.extra_args, self.image, "bash", "-lc", command]

    def run(
        self, command: str, workdir: Path, timeout_s: float, env: dict[str, str] | None = None
    ) -> CommandResult:
        name = f"execmem-{uuid.uuid4().hex[:12]}"
        argv = self.argv(command, workdir, env, name)
        kill = [self.docker, "kill", name]
        return run_process(
            argv, _absolute(workdir), timeout_s, dict(os.environ), self.config.output_cap, kill
        )

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
    raise SandboxUnavailable(_MISSING_BWRAP)


_MISSING_BWRAP = (
    "bubblewrap (bwrap) is not installed, so agent commands cannot be sandboxed: "
    "install it (apt-get install bubblewrap) or pass --unsafe-local to run them without isolation"
)


def _absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError(f"sandbox paths must be absolute, got {path}")
    return path


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


@cache
def _bwrap_version(bwrap: str) -> str:
    done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()
