"""What every sandbox matches, and the one place that picks the kind for a run: bubblewrap by
default, a plain subprocess only on request, docker when an image is given.

Every sandbox gets a clean environment (nothing of the caller's, so no API
keys), a time limit after which the whole process tree is killed, and output
capped at ``output_cap`` bytes per stream. Bubblewrap (``bubblewrap.py``) adds
the allow-listed view, the unprivileged user and the rlimits.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from execmem.suites.coding.sandbox.bubblewrap import MISSING_BWRAP, BubblewrapSandbox
from execmem.suites.coding.sandbox.config import SandboxConfig, SandboxUnavailable
from execmem.suites.coding.sandbox.docker import DockerSandbox
from execmem.suites.coding.sandbox.local import UnsafeLocalSandbox
from execmem.suites.coding.sandbox.process import CommandResult


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
