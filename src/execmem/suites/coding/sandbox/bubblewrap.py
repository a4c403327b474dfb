"""The bubblewrap sandbox: an allow-listed view of the machine, an unprivileged user, no capabilities.

Every command runs as a chain of ``prlimit`` -> outer ``bwrap`` -> [``setpriv``] -> inner ``bwrap``:

- ``prlimit`` sets the rlimits (processes, address space, file size, open files, CPU, no core files).
- The outer ``bwrap`` builds the view from an allow-list and nothing else: system directories
  read-only (``/usr``, ``/etc``, ``/bin``, ``/lib*``, ``/sbin`` where they exist), the task environment
  and its interpreter read-only at their own paths, the workdir read-write (its ``.git`` read-only),
  extra folders the caller names, a new ``/proc`` and ``/dev``, and private size-capped tmpfs on
  ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run``. Installed Python packages inside those folders
  (the system's ``site-packages``/``dist-packages`` and those of the interpreter, ``hidden_paths``)
  are covered by empty read-only folders: the task's venv does not use them, and they may hold a
  task's library at its fixed version, or execmem with its task file. It unshares the pid,
  network, IPC and UTS namespaces, starts a new session, clears the environment and dies with
  its parent.
- When the harness is root, the outer ``bwrap`` runs as root (so it can open sources under a
  mode-700 home) keeping only the capabilities ``setpriv`` needs to switch to the unprivileged host
  user, which then clears every capability set, the bounding set included.
- The inner ``bwrap`` puts the command in a user namespace of that user with ``--cap-drop ALL`` and
  ``--disable-userns`` (no further namespaces), over the outer view.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from execmem.suites.coding.sandbox.config import (
    BASE_PATH,
    MIB,
    SandboxConfig,
    SandboxUnavailable,
    absolute,
    base_env,
)
from execmem.suites.coding.sandbox.launcher import Identity, hand_over, identity, prlimit_args, tool
from execmem.suites.coding.sandbox.process import CommandResult, run_process

SYSTEM_DIRS = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_PACKAGES = ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages")
PRIVATE_TMPFS = {"/tmp": "1777", "/var/tmp": "1777", "/dev/shm": "1777", "/run": "0755"}
MIN_VERSION = (0, 7, 0)  # --size for tmpfs
_PROBED: dict[tuple[str, Identity], str] = {}
MISSING_BWRAP = (
    "bubblewrap (bwrap) is not installed, so agent commands cannot be sandboxed: "
    "install it (apt-get install bubblewrap) or pass --unsafe-local to run them without isolation"
)


class BubblewrapSandbox:
    """``bwrap`` with an allow-listed view, an unprivileged user in a user namespace and rlimits."""

    def __init__(self, config: SandboxConfig | None = None, bwrap: str | None = None) -> None:
        self.config = config or SandboxConfig()
        self.bwrap = bwrap or shutil.which("bwrap")
        if self.bwrap is None:
            raise SandboxUnavailable(MISSING_BWRAP)
        self.who = identity(self.config)
        self.prlimit = tool("prlimit")
        self.setpriv = tool("setpriv") if self.who.switch else None
        self._check_usable()

    def argv(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str] | None = None,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
    ) -> list[str]:
        """The full launcher chain for ``command`` with cwd ``workdir``."""
        workdir = absolute(workdir)
        limits = [self.prlimit, *prlimit_args(self.config.limits, self.who.uid), "--"]
        view = outer_args(self.config, self.who, workdir, [*writable], [*readonly])
        for key, value in base_env(env).items():
            view += ["--setenv", key, value]
        switch = [self.setpriv, *setpriv_args(self.who), "--"] if self.setpriv else []
        jail = inner_args(self.bwrap, self.who, workdir)
        return [*limits, self.bwrap, *view, *switch, *jail, "bash", "-c", command]

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
        hand_over([absolute(workdir), *writable], self.who)
        argv = self.argv(command, workdir, env, writable, readonly)
        return run_process(argv, Path("/"), timeout_s, {"PATH": BASE_PATH}, self.config.output_cap)

    def _check_usable(self) -> None:
        """Refuse an old bubblewrap, or a kernel that does not let it start (probed once per process)."""
        version = _bwrap_version(self.bwrap)
        if _version_tuple(version) < MIN_VERSION:
            wanted = ".".join(map(str, MIN_VERSION))
            raise SandboxUnavailable(f"{version} is too old: the sandbox needs bubblewrap {wanted} or newer")
        key = (self.bwrap, self.who)
        if key not in _PROBED:
            _PROBED[key] = self._probe()
        if _PROBED[key]:
            raise SandboxUnavailable(f"bubblewrap cannot start a sandbox here: {_PROBED[key]}")

    def _probe(self) -> str:
        """Empty when a minimal command runs; else what went wrong."""
        with tempfile.TemporaryDirectory(prefix="execmem-probe-") as folder:
            result = self.run("true", Path(folder), 30)
        return "" if result.ok else (result.stderr.strip() or f"exit code {result.exit_code}")

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "bubblewrap",
            "bwrap": self.bwrap,
            "version": _bwrap_version(self.bwrap),
            "runs_as": {"uid": self.who.uid, "gid": self.who.gid, "switched_from_root": self.who.switch},
            "user_namespace": True,
            "capabilities": "none",
            **self.config.settings(),
        }


def outer_args(
    config: SandboxConfig, who: Identity, workdir: Path, writable: list[Path], readonly: list[Path]
) -> list[str]:
    """The outer ``bwrap``: namespaces, the allow-listed mounts and a cleared environment."""
    args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net"]
    args += ["--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"]
    if who.switch:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    args += system_mounts() + ["--proc", "/proc", "--dev", "/dev"]
    size = str(config.limits.tmpfs_mib * MIB)
    for path, mode in PRIVATE_TMPFS.items():
        args += ["--perms", mode, "--size", size, "--tmpfs", path]
    for path in [*config.readonly_paths, *readonly]:
        args += bind("--ro-bind", absolute(path))
    for path in [workdir, *writable]:
        args += bind("--bind", absolute(path))
    for sub in config.protected_subpaths:
        if (workdir / sub).exists():
            args += ["--ro-bind", str(workdir / sub), str(workdir / sub)]
    for path in hidden_folders(config.hidden_paths):
        args += ["--perms", "0555", "--size", str(MIB), "--tmpfs", str(path), "--remount-ro", str(path)]
    return [*args, "--clearenv"]  # the inner bwrap, as the workdir's owner, changes into it


def hidden_folders(extra: Sequence[Path]) -> list[Path]:
    """The system's installed Python packages and ``extra``, where they exist."""
    system = [Path(path) for pattern in SYSTEM_PACKAGES for path in sorted(glob.glob(pattern))]
    return [path for path in [*system, *map(absolute, extra)] if path.is_dir()]


def system_mounts() -> list[str]:
    """System directories read-only; the merged-/usr links (``/bin`` -> ``usr/bin``) as links."""
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def bind(flag: str, path: Path) -> list[str]:
    """Bind ``path`` at its own place, its missing parents made traversable (mode 0755) first."""
    if path == Path("/") or str(path) in PRIVATE_TMPFS or str(path) in SYSTEM_DIRS:
        raise ValueError(f"{path} cannot be bound into the sandbox: it would cover a system folder")
    args: list[str] = []
    for parent in reversed(path.parents[:-1]):
        if str(parent) not in PRIVATE_TMPFS:
            args += ["--perms", "0755", "--dir", str(parent)]
    return [*args, flag, str(path), str(path)]


def setpriv_args(who: Identity) -> list[str]:
    """Switch to the unprivileged user and clear every capability set, the bounding set too."""
    return [
        f"--reuid={who.uid}",
        f"--regid={who.gid}",
        "--clear-groups",
        "--bounding-set=-all",
        "--inh-caps=-all",
    ]


def inner_args(bwrap: str, who: Identity, workdir: Path) -> list[str]:
    """The inner ``bwrap``: a user namespace of the sandbox user over the outer view, no capabilities."""
    args = [bwrap, "--unshare-user", "--uid", str(who.uid), "--gid", str(who.gid), "--disable-userns"]
    args += ["--cap-drop", "ALL", "--bind", "/", "/", "--dev-bind", "/dev", "/dev"]
    return [*args, "--die-with-parent", "--chdir", str(workdir)]


def _version_tuple(text: str) -> tuple[int, ...]:
    digits = text.split()[-1] if text else "0"
    return tuple(int(part) for part in digits.split(".") if part.isdigit())


@cache
def _bwrap_version(bwrap: str) -> str:
    done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()
