"""Where the coding suite keeps downloads, environments and episodes."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$EXECMEM_CACHE/coding`` when set, else ``~/.cache/execmem/coding`` (always absolute)."""
    configured = os.environ.get("EXECMEM_CACHE")
    base = Path(configured).expanduser() if configured else Path.home() / ".cache" / "execmem"
    return (base / "coding").resolve()


def builtin_tasks_path() -> Path:
    """The shipped task set (``execmem coding build-tasks --seed 0``, validated). Hidden from agents."""
    return Path(__file__).resolve().parent / "data" / "tasks.jsonl"
