"""Running a run's episodes concurrently, so that one that must stop the run stops all of them."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


async def run_all(coroutines: list[Coroutine[Any, Any, None]]) -> None:
    """Run the coroutines concurrently; when one raises (or this is cancelled), cancel the rest
    and wait for them before passing the exception on, so nothing is left writing to the run."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
