"""Ray itself for the Ray executor: the optional import, and being connected to a cluster for a run.

``--ray-address`` is whatever ``ray.init`` takes (``auto``, ``HOST:6379``); without it an
existing connection is used as it is, else ``ray.init()`` joins the cluster named by
``RAY_ADDRESS`` or starts one on this machine. The driver must run on a node of the cluster (the
run folder and the response cache are there), so Ray Client addresses (``ray://``) are refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from execmem.memory import MissingExtraError
from execmem.runs.executors.base import ExecutorError


def require_ray() -> ModuleType:
    """The ``ray`` module; MissingExtraError naming the extra when it is not installed."""
    try:
        import ray
    except ImportError as exc:
        raise MissingExtraError("--executor ray", "execmem", "ray", exc) from exc
    return ray


def check_address(address: str | None) -> None:
    """ExecutorError for an address this executor cannot use (before anything is started)."""
    named = address or os.environ.get("RAY_ADDRESS", "")
    if named.startswith("ray://"):
        raise ExecutorError(
            f"--ray-address {named}: Ray Client addresses are not supported; run execmem on a node of "
            "the cluster (e.g. through `ray job submit`) with --ray-address auto (docs/ray.md)"
        )


@contextmanager
def connected(address: str | None) -> Iterator[ModuleType]:
    """Ray, connected for the block; a connection made here is closed after it (a local instance
    started here stops with it)."""
    ray = require_ray()
    check_address(address)
    if ray.is_initialized():
        yield ray
        return
    try:
        ray.init(address=address, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ExecutorError(f"--ray-address {address or '(none)'}: cannot connect to Ray: {exc}") from None
    try:
        yield ray
    finally:
        ray.shutdown()
