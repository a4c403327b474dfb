"""The executor a command asks for, by name."""

from __future__ import annotations

from execmem.runs.executors.base import Executor, ExecutorError
from execmem.runs.executors.local import LocalExecutor

EXECUTORS = ("local", "ray")


def make_executor(name: str, address: str | None = None) -> Executor:
    """``local`` or ``ray`` (at ``address``); ExecutorError for an option that does not fit,
    MissingExtraError when Ray is not installed."""
    if name == "local":
        if address:
            raise ExecutorError("--ray-address applies to --executor ray only")
        return LocalExecutor()
    if name == "ray":
        from execmem.runs.executors.ray_executor import RayExecutor  # Ray is imported only here

        return RayExecutor(address)
    raise ExecutorError(f"unknown executor {name!r}; choose one of {', '.join(EXECUTORS)}")
