"""The unsafe local "sandbox": a plain subprocess with a clean environment and a time limit, NO isolation.

Only for machines without bubblewrap, and only with ``--unsafe-local``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.suites.coding.sandbox.config import SandboxConfig, absolute, base_env
from execmem.suites.coding.sandbox.process import CommandResult, run_process


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
