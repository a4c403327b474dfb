"""The skeleton every run shares: pending episodes, a bounded gather, the per-episode error boundary,
and finishing with metrics. The vehicle and coding runs fill in what an episode is.

Re-creating a run on the same folder resumes: finished episodes are kept, and those that hit
infrastructure errors or crashed are run again. An episode's failure is stored with its reason
(and, for a crash, its traceback) and never stops the others; only :class:`EndpointError` (the
endpoint cannot serve the run at all) stops the run, after the episodes in flight are cancelled.
"""

from __future__ import annotations

import asyncio
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Generic, TypeVar

from execmem.core.clock import now_iso
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.errors import EndpointError, InfraError
from execmem.runs.episode_log import EpisodeLog

Item = TypeVar("Item")
EpisodeHook = Callable[[dict[str, Any] | None], None]


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


class EpisodeRunner(ABC, Generic[Item]):
    """One run folder being filled. Subclasses set ``store``, ``cache`` and ``models`` (the first is
    probed) and say what the run's episodes are, how one runs and what the metrics are."""

    store: EpisodeLog
    cache: ResponseCache
    models: Sequence[OpenAIChatModel]
    probe: bool = True

    @abstractmethod
    def items(self) -> list[Item]:
        """Every episode of the run, in the order metrics list them."""

    @abstractmethod
    def key(self, item: Item) -> str:
        """The episode's id in the run folder."""

    @abstractmethod
    def identity(self, item: Item) -> dict[str, Any]:
        """What names the episode in an infra-error record (its id first)."""

    @abstractmethod
    def concurrency(self) -> int:
        """How many episodes may hold a slot (``self.slots``) at once."""

    @abstractmethod
    async def episode(self, item: Item) -> dict[str, Any]:
        """Run one episode (holding ``self.slots`` where it should) and return its record."""

    @abstractmethod
    def metrics(self, episodes: list[dict[str, Any]], expected: int) -> dict[str, Any]:
        """metrics.json from the finished episodes, in run order."""

    def pending(self) -> list[Item]:
        """Episodes still to run, in run order."""
        return [item for item in self.items() if self.key(item) not in self.store.finished]

    async def run(self, on_episode: EpisodeHook | None = None) -> dict[str, Any]:
        """Run every pending episode, then write and return the metrics.

        :class:`EndpointError` (refused key, unknown model, nothing listening; from the start-up
        probe or any request) stops the run at once: episodes in flight are cancelled, finished
        ones stay on disk, and the error propagates."""
        self.slots = asyncio.Semaphore(self.concurrency())

        async def one(item: Item) -> None:
            record = await self._guarded(item)
            if on_episode:
                on_episode(record)

        try:
            pending = self.pending()
            if pending and self.probe:  # a wrong URL, key or model: fail in seconds
                await self.models[0].probe()
            await run_all([one(item) for item in pending])
        except BaseException:
            self.store.close()
            raise
        finally:
            for model in self.models:
                await model.aclose()
            self.cache.close()
        return self.finish()

    def finish(self) -> dict[str, Any]:
        """Write metrics.json over the finished episodes and close the run folder."""
        order = [self.key(item) for item in self.items()]
        episodes = [self.store.finished[key] for key in order if key in self.store.finished]
        metrics = self.metrics(episodes, len(order))
        self.store.write_metrics(metrics)
        self.store.close()
        return metrics

    async def _guarded(self, item: Item) -> dict[str, Any] | None:
        """Run and record one episode; any failure is recorded with it (the per-episode boundary)."""
        try:
            record = await self.episode(item)
        except EndpointError:
            raise
        except InfraError as exc:
            self.record_failure(item, "infra", exc.reason, attempts=exc.attempts)
            return None
        except Exception as exc:  # noqa: BLE001 - stored with its traceback, re-run on resume
            trace = self.models[0].redact(traceback.format_exc())
            self.record_failure(item, "crash", f"{type(exc).__name__}: {exc}", traceback=trace)
            return None
        self.store.add_episode(record)
        return record

    def record_failure(self, item: Item, kind: str, reason: str, **extra: Any) -> None:
        """An infra-error line: the episode, what kind of failure, why (key masked), when."""
        reason = self.models[0].redact(reason)
        record = {**self.identity(item), "error_kind": kind, "reason": reason, "at": now_iso(), **extra}
        self.store.add_infra_error(record)
