"""A Ray worker: an async actor running many episodes at once, each one a Ray task.

For each run it serves (a pool may serve several: the runs of a SIEVE stage) it holds a copy of the
runner, connected to the cluster's gate, the run's cache and an outbox
(:mod:`execmem.runs.executors.outbox`), and returns, for each episode, what the episode would have
written to the run folder: nothing is written here. A worker killed mid-episode is restarted by Ray
and the episode run again there; its scratch folder (workspaces, stores it was sent) is emptied
when it starts.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import pickle
import shutil
import tempfile
import uuid
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray

from execmem.llm.errors import EndpointError
from execmem.runs.executors.base import Failure, Shipment, WorkerSide, failure_of
from execmem.runs.executors.outbox import Call, Outbox, shared_bucket
from execmem.runs.executors.ray_gate import ClusterLimit
from execmem.runs.executors.ray_host import RemoteCache


def actor_name(pool_id: str, role: str) -> str:
    """The name of a pool's actor (``host``, ``worker-N``)."""
    return f"execmem-{pool_id}-{role}"


@dataclass
class Outcome:
    """What one task made: the run-folder calls to replay, or why it could not be made."""

    calls: list[Call] = field(default_factory=list)
    responses: dict[str, str] = field(default_factory=dict)  # new answers, for the run's cache
    failure: Failure | None = None  # of a shared input, to be recorded for each episode needing it
    stop: str | None = None  # the endpoint cannot serve the run (EndpointError's message)


@dataclass
class RunHere:
    """One run on this worker: its connected runner copy and what it was sent."""

    runner: Any
    outbox: Outbox
    cache: RemoteCache
    folder: Path
    installed: set[Hashable] = field(default_factory=set)
    parts: set[str] = field(default_factory=set)
    installing: asyncio.Lock = field(default_factory=asyncio.Lock)  # one at a time: inputs share parts

    def outcome(self, key: str, **extra: Any) -> Outcome:
        return Outcome(self.outbox.take(key), self.cache.fresh(), **extra)


class EpisodeWorker:
    """Started lazily: the first call joins the gate, each run's first call connects its runner
    copy (so nothing blocks the actor's loop). ``suite_module``, when given, is imported at once."""

    def __init__(self, name: str, pool_id: str, secrets: dict[str, str], suite_module: str | None) -> None:
        os.environ.update(secrets)  # the API key, which the driver's environment had
        if suite_module:
            importlib.import_module(suite_module)  # the runner's code, loaded while the host starts
        self.name, self.pool_id = name, pool_id  # the host is found by its name (actor_name)
        self.folder = Path(tempfile.gettempdir()) / "execmem-ray" / f"{pool_id}-{name}"
        self.limit: ClusterLimit | None = None  # its share of the gate, once it joined
        self._joined: asyncio.Task[Any] | None = None
        self._runs: dict[str, asyncio.Task[RunHere]] = {}

    async def _host(self) -> Any:
        if self._joined is None:
            self._joined = asyncio.ensure_future(self._join())
        return await self._joined

    async def _join(self) -> Any:
        """Join the gate as a new incarnation (freeing what a killed predecessor held), empty the
        scratch folder."""
        host = ray.get_actor(actor_name(self.pool_id, "host"))
        incarnation = uuid.uuid4().hex
        await host.join.remote(self.name, incarnation)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.limit = ClusterLimit(host, self.name, incarnation)
        return host

    async def _run(self, run: str) -> RunHere:
        if run not in self._runs:
            self._runs[run] = asyncio.ensure_future(self._connect(run))
        return await self._runs[run]

    async def _connect(self, run: str) -> RunHere:
        host = await self._host()
        runner = pickle.loads(await host.runner_copy.remote(run))
        here = RunHere(runner, Outbox(), RemoteCache(host, run, await host.known_keys.remote(run)),
                       self.folder / run)  # fmt: skip
        here.folder.mkdir(parents=True, exist_ok=True)
        runner.attach(WorkerSide(here.outbox, here.folder, here.cache, self.limit))
        runner.slots = asyncio.Semaphore(runner.concurrency())
        return here

    async def start(self) -> int:
        """Be ready for episodes; this process's id."""
        await self._host()
        return os.getpid()

    async def episode(self, run: str, item: Any, shipped: list[Any]) -> Outcome:
        """Run one episode of ``run`` (its shared input installed first, when it has one)."""
        here = await self._run(run)
        if shipped:
            await self._install(here, item, *shipped)
        key = here.runner.key(item)
        try:
            await here.runner.attempt(item)
        except EndpointError as exc:
            return here.outcome(key, stop=str(exc))
        return here.outcome(key)

    async def make_shared(self, run: str, key: Hashable, inputs: Any) -> tuple[Shipment | None, Outcome]:
        """Make a shared input of ``run`` here; its failure is returned for the driver to record."""
        here = await self._run(run)
        bucket = shared_bucket(key)
        try:
            shipment = await here.runner.shared_inputs().remote(key, inputs)
        except EndpointError as exc:
            return None, here.outcome(bucket, stop=str(exc))
        except Exception as exc:  # noqa: BLE001 - recorded for each episode that needs it
            return None, here.outcome(bucket, failure=failure_of(exc, here.runner.models[0].redact))
        return shipment, here.outcome(bucket)

    async def end_run(self, run: str) -> None:
        """Close the run's model connections and remove its scratch folder."""
        started = self._runs.pop(run, None)
        if started is not None and started.done() and not started.exception():
            for model in started.result().runner.models:
                await model.aclose()
        shutil.rmtree(self.folder / run, ignore_errors=True)

    async def stop(self) -> None:
        """End every run and remove this worker's scratch folder."""
        for run in list(self._runs):
            await self.end_run(run)
        if self.limit is not None:
            self.limit.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    async def _install(self, here: RunHere, item: Any, value_ref: Any, part_refs: dict[str, Any]) -> None:
        """Fetch the item's shared input (and the parts not fetched before) and install it, once."""
        shared = here.runner.shared_inputs()
        key = shared.key(item)
        async with here.installing:
            if key in here.installed:
                return
            parts = {name: await ref for name, ref in part_refs.items() if name not in here.parts}
            shared.install(key, await value_ref, parts)
            here.parts.update(parts)
            here.installed.add(key)


WorkerActor = ray.remote(EpisodeWorker)
