"""The Ray executor: a run's episodes as Ray tasks on a pool of workers; the run folder written here.

The driver (the process that called the run) keeps the run folder: it is the only writer of
``episodes.jsonl`` and the rest, replaying what each task returns (:mod:`outbox`), so a run
started in one process can be resumed on a cluster and the other way round, and a task whose
worker dies leaves nothing behind. Beside the workers (one per CPU of the cluster, each an async
actor running many episodes at once) runs the host, on the driver's node (:mod:`ray_host`): the
gate whose slots are ``--max-connections`` for the whole cluster (:mod:`ray_gate`), each run's
response cache and runner copy. A shared input (a scenario's memory, a Layer B target) is made
once: on the driver when it is cheap, else as a task on a worker; it reaches the workers through
Ray's object store. A pool is started for one run, or once for several (:meth:`RayExecutor.session`:
the many small runs of a SIEVE stage share one pool and one gate).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import uuid
from collections.abc import AsyncIterator, Hashable
from typing import Any

from execmem.llm.errors import EndpointError
from execmem.runs.executors.base import EpisodeHook, ExecutorError, Failure, Runner, Shipment, failure_of
from execmem.runs.executors.local import run_all
from execmem.runs.executors.outbox import replay
from execmem.runs.executors.ray_support import check_address, connected, require_ray

TASK_RETRIES = 2
"""How often a task whose worker died is run again (on the restarted worker) before it counts as a crash."""


class SharedFailed(Exception):
    """A shared input could not be made: every episode needing it records this failure."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure[1])
        self.failure = failure


class RayExecutor:
    """Episodes on a Ray cluster: ``address`` as ``ray.init`` takes it, ``workers`` (default: one per
    CPU of the cluster)."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        require_ray()
        check_address(address)
        self.address, self.size = address, workers
        self.pool: Pool | None = None  # the workers and their tasks under way, while a run is
        self._session = False

    def describe(self) -> dict[str, Any]:
        workers = len(self.pool.workers) if self.pool else self.size
        return {"name": self.name, "address": self.address, "workers": workers}

    async def run(self, runner: Runner, pending: list[Any], on_episode: EpisodeHook | None) -> None:
        if self.pool is not None and self._session:
            await runner.probe_endpoint()
            await self._on(self.pool, runner, pending, on_episode)
            return
        config = runner.models[0].config
        async with self._pool(config.max_connections, config.api_key_env, type(runner).__module__) as pool:
            await runner.probe_endpoint()  # the workers start meanwhile
            await self._ready(pool)
            await self._on(pool, runner, pending, on_episode)

    @contextlib.asynccontextmanager
    async def session(
        self, connections: int, api_key_env: str = "OPENAI_API_KEY", preload: str | None = None
    ) -> AsyncIterator[None]:
        """One pool for every run in the block (their endpoint's ``connections`` shared by all);
        ``preload``: the runners' module, imported by the workers as they start."""
        async with self._pool(connections, api_key_env, preload) as pool:
            await self._ready(pool)
            self._session = True
            try:
                yield
            finally:
                self._session = False

    async def _ready(self, pool: Pool) -> None:
        await pool.ready()
        self.pool = pool

    @contextlib.asynccontextmanager
    async def _pool(self, connections: int, api_key_env: str, preload: str | None) -> AsyncIterator[Pool]:
        with connected(self.address) as ray:
            pool = Pool(ray, self.size, connections, api_key_env, preload)
            try:
                yield pool
            finally:
                self.pool = None
                await pool.stop()

    async def _on(
        self, pool: Pool, runner: Runner, pending: list[Any], on_episode: EpisodeHook | None
    ) -> None:
        run = await pool.add(runner)
        try:
            runner.store.record_executor(self.describe())
            await Dispatch(pool.ray, runner, pool, run, on_episode).run(pending)
        finally:
            await pool.remove(run)


class Pool:
    """The workers, and the host beside the driver; the runs they serve, by key."""

    def __init__(
        self, ray: Any, size: int | None, connections: int, api_key_env: str, preload: str | None
    ) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from execmem.runs.executors.ray_host import HostActor
        from execmem.runs.executors.ray_worker import WorkerActor, actor_name

        pool_id = uuid.uuid4().hex[:12]
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        beside = {"num_cpus": 0, "scheduling_strategy": here}
        host = HostActor.options(name=actor_name(pool_id, "host"), max_concurrency=100_000, **beside)
        self.host = host.remote(connections)
        secrets = {api_key_env: os.environ[api_key_env]} if api_key_env in os.environ else {}
        count = size or max(1, int(ray.cluster_resources().get("CPU", 1)))
        options = {"num_cpus": 1, "max_restarts": -1, "max_task_retries": TASK_RETRIES}
        self.workers = [
            WorkerActor.options(name=actor_name(pool_id, f"worker-{i}"), **options).remote(
                f"worker-{i}", pool_id, secrets, preload
            )
            for i in range(count)
        ]
        self.busy = [0] * count  # tasks sent to each worker and not yet returned
        self.ray = ray

    async def ready(self) -> None:
        """ExecutorError when a worker cannot start (execmem missing on a node, say)."""
        try:
            self.pids = await asyncio.gather(*(worker.start.remote() for worker in self.workers))
        except self.ray.exceptions.RayError as exc:
            raise ExecutorError(f"the Ray workers could not start: {_first_line(exc)}") from None

    async def add(self, runner: Runner) -> str:
        """A run the workers serve from now on (its copy and cache with the host): its key."""
        run = uuid.uuid4().hex[:12]
        await self.host.add_run.remote(run, pickle.dumps(runner.worker_copy()), str(runner.cache.path))
        return run

    async def remove(self, run: str) -> None:
        """The run is over: its copies closed on every worker, its scratch folders removed."""
        ended = [worker.end_run.remote(run) for worker in self.workers]
        await self._settle([*ended, self.host.drop_run.remote(run)])

    def take(self) -> int:
        """The least busy worker, now one task busier."""
        index = min(range(len(self.busy)), key=self.busy.__getitem__)
        self.busy[index] += 1
        return index

    def give(self, index: int) -> None:
        self.busy[index] -= 1

    async def stop(self) -> None:
        """Empty the workers' scratch folders, write the caches' last answers, end every actor."""
        await self._settle([*(worker.stop.remote() for worker in self.workers), self.host.close.remote()])
        for actor in (*self.workers, self.host):
            self.ray.kill(actor, no_restart=True)

    async def _settle(self, refs: list[Any]) -> None:
        for ref in refs:  # a dead worker has nothing left to clean
            with contextlib.suppress(self.ray.exceptions.RayError, TimeoutError):
                await asyncio.wait_for(ref, timeout=30)


class Dispatch:
    """Each pending episode: its shared input made (once), then a task on the least busy worker,
    at most ``runner.concurrency()`` under way; what it returns is replayed into the run folder."""

    def __init__(
        self, ray: Any, runner: Runner, pool: Pool, run: str, on_episode: EpisodeHook | None
    ) -> None:
        self.ray, self.runner, self.pool, self.run_key, self.on_episode = ray, runner, pool, run, on_episode
        self.shared = runner.shared_inputs()
        self.flight = asyncio.Semaphore(runner.concurrency())
        self._made: dict[Hashable, asyncio.Task[list[Any]]] = {}
        self._parts: dict[str, Any] = {}

    async def run(self, pending: list[Any]) -> None:
        await run_all([self.one(item) for item in pending])

    async def one(self, item: Any) -> None:
        try:
            shipped = await self._shared(self.shared.key(item)) if self.shared is not None else []
        except SharedFailed as failed:
            self._failed(item, failed.failure)
            return
        async with self.flight:
            index = self.pool.take()
            try:
                outcome = await self.pool.workers[index].episode.remote(self.run_key, item, shipped)
            except self.ray.exceptions.RayError as exc:  # the worker died, or failed outside the episode
                self._failed(item, ("crash", self._reason(exc), {}))
                return
            finally:
                self.pool.give(index)
        record = self._commit(outcome)
        if outcome.stop:
            raise EndpointError(outcome.stop)
        self._notify(record)

    def _commit(self, outcome: Any) -> dict[str, Any] | None:
        """A task's new answers into the run's cache, then its calls into the run folder."""
        self._keep_answers(outcome)
        return replay(outcome.calls, self.runner.store)

    def _keep_answers(self, outcome: Any) -> None:
        for key, text in outcome.responses.items():
            self.runner.cache.put_text(key, text)

    def _reason(self, exc: Exception) -> str:
        if isinstance(exc, self.ray.exceptions.RayActorError):
            return f"its Ray worker died {TASK_RETRIES + 1} times ({_first_line(exc)})"
        return f"its Ray task failed: {_first_line(exc)}"

    def _failed(self, item: Any, failure: Failure) -> None:
        kind, reason, extra = failure
        self.runner.record_failure(item, kind, reason, extra)
        self._notify(None)

    def _notify(self, record: dict[str, Any] | None) -> None:
        if self.on_episode:
            self.on_episode(record)

    def _shared(self, key: Hashable) -> asyncio.Task[list[Any]]:
        if key not in self._made:
            self._made[key] = asyncio.ensure_future(self._make(key))
        return self._made[key]

    async def _make(self, key: Hashable) -> list[Any]:
        """The references an episode gets: the shared value and its parts (each part put once)."""
        shipment = await (self._here(key) if self.shared.ready(key) else self._on_worker(key))
        parts = {}
        for name, data in shipment.parts.items():
            if name not in self._parts:
                self._parts[name] = self.ray.put(data)
            parts[name] = self._parts[name]
        return [self.ray.put(shipment.value), parts]

    async def _here(self, key: Hashable) -> Shipment:
        try:
            return await self.shared.local(key)
        except EndpointError:
            raise
        except Exception as exc:  # noqa: BLE001 - recorded for each episode that needs it
            raise SharedFailed(failure_of(exc, self.runner.models[0].redact)) from exc

    async def _on_worker(self, key: Hashable) -> Shipment:
        index = self.pool.take()
        try:
            make = self.pool.workers[index].make_shared.options(num_returns=2)
            shipment_ref, outcome_ref = make.remote(self.run_key, key, self.shared.inputs(key))
            outcome = await outcome_ref
            shipment = await shipment_ref
        except self.ray.exceptions.RayError as exc:
            raise SharedFailed(("crash", self._reason(exc), {})) from None
        finally:
            self.pool.give(index)
        self._keep_answers(outcome)
        if outcome.stop:
            raise EndpointError(outcome.stop)
        if outcome.failure:
            raise SharedFailed(outcome.failure)
        self.shared.adopt(key, shipment)  # the store or build first, then its record in memory/
        replay(outcome.calls, self.runner.store)
        return shipment


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
