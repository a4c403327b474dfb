"""The local executor: every pending episode as an asyncio task in this process (the default)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from execmem.runs.executors.base import EpisodeHook, Runner


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


class LocalExecutor:
    """All episodes in this process, at most ``runner.concurrency()`` of them holding a slot."""

    name = "local"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}

    @contextlib.asynccontextmanager
    async def session(
        self, connections: int, api_key_env: str = "OPENAI_API_KEY", preload: str | None = None
    ) -> AsyncIterator[None]:
        """Nothing to start: each run has its own slots in this process."""
        yield

    async def run(self, runner: Runner, pending: list[Any], on_episode: EpisodeHook | None) -> None:
        runner.store.record_executor(self.describe())
        runner.slots = asyncio.Semaphore(runner.concurrency())

        async def one(item: Any) -> None:
            record = await runner.attempt(item)
            if on_episode:
                on_episode(record)

        await runner.probe_endpoint()
        await run_all([one(item) for item in pending])
