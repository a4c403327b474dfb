"""What a sandboxed command may see and use: the typed settings shared by every sandbox kind.

``SandboxLimits`` are applied to every command as rlimits (and the size of each
private tmpfs); ``SandboxConfig`` adds who the command runs as, the output cap
and the paths an episode exposes. ``settings()`` is what a run's manifest
records: the limits and the user, never the per-episode paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
MIB = 1024 * 1024


class SandboxUnavailable(RuntimeError):
    """No safe way to run agent commands here; the message says what to install or pass."""


class SandboxLimits(BaseModel):
    """Per-command caps. The process cap counts processes of the sandbox user started by the command
    (the kernel counts per user: the cap is set above what that user already runs)."""

    model_config = ConfigDict(extra="forbid")

    processes: int = Field(default=256, ge=8, description="processes and threads the command may add")
    address_space_mib: int = Field(
        default=1536, ge=64, description="virtual memory per process (built-in test runs fit in 768)"
    )
    file_size_mib: int = Field(default=1024, ge=1, description="largest file a process may write")
    open_files: int = Field(default=4096, ge=64, description="open file descriptors per process")
    cpu_s: int = Field(default=1800, ge=1, description="CPU seconds per process")
    tmpfs_mib: int = Field(default=256, ge=1, description="each private /tmp, /var/tmp, /dev/shm, /run")


class SandboxConfig(BaseModel):
    """Limits, the unprivileged user commands run as (when the harness is root), and what is exposed.

    Paths are absolute; relative ones are rejected at use.
    """

    model_config = ConfigDict(extra="forbid")

    output_cap: int = Field(default=64_000, gt=0, description="bytes kept per stream (head + tail)")
    limits: SandboxLimits = Field(default_factory=SandboxLimits)
    uid: int = Field(default=65534, gt=0, description="host uid of commands when the harness runs as root")
    gid: int = Field(default=65534, gt=0, description="host gid of commands when the harness runs as root")
    readonly_paths: list[Path] = Field(
        default_factory=list, description="bound read-only (the task environment, its interpreter)"
    )
    hidden_paths: list[Path] = Field(
        default_factory=list,
        description="inside bound folders, covered by an empty read-only folder (installed packages)",
    )
    protected_subpaths: list[str] = Field(
        default_factory=lambda: [".git"], description="inside the workdir, bound read-only"
    )

    def settings(self) -> dict[str, Any]:
        """What a run declares about its sandbox (no per-episode paths)."""
        return self.model_dump(include={"output_cap", "limits", "uid", "gid"})


def base_env(env: dict[str, str] | None) -> dict[str, str]:
    """The only variables a command sees: a neutral base plus the caller's ``env``."""
    merged = {"PATH": BASE_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TERM": "dumb", "TMPDIR": "/tmp"}
    merged.update(env or {})
    return merged


def absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError(f"sandbox paths must be absolute, got {path}")
    return path
