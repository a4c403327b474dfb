"""Who a sandboxed command runs as and under which rlimits, and handing folders over to that user.

When the harness runs as root, commands run as an unprivileged host user
(``SandboxConfig.uid``/``gid``): the kernel never applies the process cap to
host uid 0, and a root-owned process keeps powers no sandbox should have. The
folders a command may write are then chowned to that user before it starts
(the harness, as root, still reads and removes them). When the harness is not
root, commands run as the harness's own user and nothing is chowned.

rlimits are set by ``prlimit`` in front of the sandbox and inherited by every
process of the command. ``RLIMIT_NPROC`` counts all processes of a user, so
the cap is set to what the user already runs plus ``limits.processes``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from execmem.suites.coding.sandbox.config import MIB, SandboxConfig, SandboxLimits, SandboxUnavailable


@dataclass(frozen=True)
class Identity:
    """The host user and group a command runs as, and whether the harness must switch to them."""

    uid: int
    gid: int
    switch: bool


def identity(config: SandboxConfig) -> Identity:
    """The configured unprivileged user when the harness is root, else the harness's own user."""
    if os.geteuid() == 0:
        return Identity(config.uid, config.gid, switch=True)
    return Identity(os.getuid(), os.getgid(), switch=False)


def tool(name: str) -> str:
    """Path of a util-linux tool the launcher needs; missing means no safe sandbox."""
    found = shutil.which(name)
    if found is None:
        raise SandboxUnavailable(f"{name} (util-linux) is not installed; the sandbox needs it for its limits")
    return found


def prlimit_args(limits: SandboxLimits, uid: int) -> list[str]:
    """``prlimit`` options for one command (soft = hard, so the command cannot raise them)."""
    processes = processes_of(uid) + limits.processes
    return [
        f"--nproc={processes}",
        f"--as={limits.address_space_mib * MIB}",
        f"--fsize={limits.file_size_mib * MIB}",
        f"--nofile={limits.open_files}",
        f"--cpu={limits.cpu_s}",
        "--core=0",
    ]


def processes_of(uid: int) -> int:
    """Processes the host user ``uid`` runs now (what ``RLIMIT_NPROC`` counts against its cap)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:  # the process ended while we looked
                continue
    return count


def hand_over(paths: Iterable[Path], who: Identity) -> None:
    """Make everything under ``paths`` owned by the sandbox user (no-op unless the harness switches)."""
    if not who.switch:
        return
    for path in paths:
        _chown_tree(path, who.uid, who.gid)


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    _chown(root, uid, gid)
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            _chown(Path(folder) / name, uid, gid)


def _chown(path: Path, uid: int, gid: int) -> None:
    info = path.lstat()
    if info.st_uid != uid or info.st_gid != gid:
        os.lchown(path, uid, gid)
