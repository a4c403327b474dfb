"""The skeleton every run shares: pending episodes, the per-episode error boundary, an executor that
runs them (``runs.executors``: in this process, or on a Ray cluster), and finishing with metrics.
The vehicle and coding runs fill in what an episode is.

Re-creating a run on the same folder resumes: finished episodes are kept, and those that hit
infrastructure errors or crashed are run again. An episode's failure is stored with its reason
(and, for a crash, its traceback) and never stops the others; only :class:`EndpointError` (the
endpoint cannot serve the run at all) stops the run, after the episodes in flight are cancelled.
"""

from __future__ import annotations

import asyncio
import copy
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from execmem.core.clock import now_iso
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.errors import EndpointError
from execmem.runs.episode_log import EpisodeLog
from execmem.runs.executors.base import EpisodeHook, Executor, SharedInputs, WorkerSide, failure_of
from execmem.runs.executors.local import LocalExecutor

Item = TypeVar("Item")
DRIVER_ONLY = ("store", "cache", "models", "slots")
"""What a worker's copy of a runner leaves behind: open files and connections of this process."""


class EpisodeRunner(ABC, Generic[Item]):
    """One run folder being filled. Subclasses set ``store``, ``cache`` and ``models`` (the first is
    probed) and say what the run's episodes are, how one runs and what the metrics are."""

    store: EpisodeLog
    cache: ResponseCache
    models: Sequence[OpenAIChatModel]
    probe: bool = True
    slots: asyncio.Semaphore  # set by the executor

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

    async def run(
        self, on_episode: EpisodeHook | None = None, executor: Executor | None = None
    ) -> dict[str, Any]:
        """Run every pending episode with ``executor`` (default: this process), then write and
        return the metrics.

        :class:`EndpointError` (refused key, unknown model, nothing listening; from the start-up
        probe or any request) stops the run at once: episodes in flight are cancelled, finished
        ones stay on disk, and the error propagates; so does an executor's ``ExecutorError``."""
        executor = executor or LocalExecutor()
        try:
            pending = self.pending()
            if pending:
                await executor.run(self, pending, on_episode)
        except BaseException:
            self.store.close()
            raise
        finally:
            for model in self.models:
                await model.aclose()
            self.cache.close()
        return self.finish()

    async def probe_endpoint(self) -> None:
        """The start-up probe: a wrong URL, key or model fails in seconds."""
        if self.probe:
            await self.models[0].probe()

    def finish(self) -> dict[str, Any]:
        """Write metrics.json over the finished episodes and close the run folder."""
        order = [self.key(item) for item in self.items()]
        episodes = [self.store.finished[key] for key in order if key in self.store.finished]
        metrics = self.metrics(episodes, len(order))
        self.store.write_metrics(metrics)
        self.store.close()
        return metrics

    async def attempt(self, item: Item) -> dict[str, Any] | None:
        """Run and record one episode; any failure is recorded with it (the per-episode boundary)."""
        try:
            record = await self.episode(item)
        except EndpointError:
            raise
        except Exception as exc:  # noqa: BLE001 - stored with its reason, re-run on resume
            self.record_failure(item, *failure_of(exc, self.models[0].redact))
            return None
        self.store.add_episode(record)
        return record

    def record_failure(self, item: Item, kind: str, reason: str, extra: dict[str, Any] | None = None) -> None:
        """An infra-error line: the episode, what kind of failure, why (key masked), when."""
        reason = self.models[0].redact(reason)
        record = {
            **self.identity(item),
            "error_kind": kind,
            "reason": reason,
            "at": now_iso(),
            **(extra or {}),
        }
        self.store.add_infra_error(record)

    # ------------------------------------------------ running on workers (runs.executors)

    def shared_inputs(self) -> SharedInputs | None:
        """What several episodes need that is made once (a scenario's memory); None: nothing."""
        return None

    def driver_only(self) -> tuple[str, ...]:
        """Attributes a worker's copy leaves behind (``attach`` makes its own)."""
        return DRIVER_ONLY

    def worker_copy(self) -> EpisodeRunner[Item]:
        """This runner without what belongs to this process, to be sent to a worker."""
        twin = copy.copy(self)
        for name in self.driver_only():
            twin.__dict__.pop(name, None)
        return twin

    def attach(self, side: WorkerSide) -> None:
        """On a worker: connect a :meth:`worker_copy` to the worker's clients and outbox."""
        raise NotImplementedError(f"{type(self).__name__} cannot run on workers")
