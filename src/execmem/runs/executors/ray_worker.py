"""A Ray worker: an async actor running many of a run's episodes at once, each one a Ray task.

It holds a copy of the runner, connected to the cluster's gate and cache and to an outbox
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


def actor_name(run_id: str, role: str) -> str:
    """The name of a run's actor (``host``, ``worker-N``)."""
    return f"execmem-{run_id}-{role}"


@dataclass
class Outcome:
    """What one task made: the run-folder calls to replay, or why it could not be made."""

    calls: list[Call] = field(default_factory=list)
    responses: dict[str, str] = field(default_factory=dict)  # new answers, for the run's cache
    failure: Failure | None = None  # of a shared input, to be recorded for each episode needing it
    stop: str | None = None  # the endpoint cannot serve the run (EndpointError's message)


class EpisodeWorker:
    """Started lazily: the first call connects the runner copy (so nothing blocks the actor's loop).
    ``suite_module`` is the runner's module, imported at once."""

    def __init__(self, name: str, run_id: str, secrets: dict[str, str], suite_module: str) -> None:
        os.environ.update(secrets)  # the API key, which the driver's environment had
        importlib.import_module(suite_module)  # the runner's code, loaded while the host starts
        self.name, self.run_id = name, run_id  # the host is found by its name (actor_name)
        self.folder = Path(tempfile.gettempdir()) / "execmem-ray" / f"{run_id}-{name}"
        self.outbox = Outbox()
        self.cache: RemoteCache | None = None  # made when the worker starts, with the host's keys
        self.limit: ClusterLimit | None = None  # its share of the gate, from then too
        self._started: asyncio.Task[Any] | None = None
        self._installed: set[Hashable] = set()
        self._parts: set[str] = set()
        self._installing = asyncio.Lock()  # one at a time: scenarios may share a part

    async def _runner(self) -> Any:
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        return await self._started

    async def _start(self) -> Any:
        """Join the gate as a new incarnation (freeing what a killed predecessor held), empty the
        scratch folder, connect the runner copy."""
        host = ray.get_actor(actor_name(self.run_id, "host"))
        incarnation = uuid.uuid4().hex
        await host.join.remote(self.name, incarnation)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        runner, known = pickle.loads(await host.runner_copy.remote()), await host.known_keys.remote()
        self.cache = RemoteCache(host, known)
        self.limit = ClusterLimit(host, self.name, incarnation)
        runner.attach(WorkerSide(self.outbox, self.folder, self.cache, self.limit))
        runner.slots = asyncio.Semaphore(runner.concurrency())
        return runner

    async def start(self) -> int:
        """Be ready for episodes; this process's id."""
        await self._runner()
        return os.getpid()

    async def episode(self, item: Any, shipped: list[Any]) -> Outcome:
        """Run one episode (its shared input installed first, when it has one)."""
        runner = await self._runner()
        if shipped:
            await self._install(runner, item, *shipped)
        key = runner.key(item)
        try:
            await runner.attempt(item)
        except EndpointError as exc:
            return Outcome(self.outbox.take(key), self.cache.fresh(), stop=str(exc))
        return Outcome(self.outbox.take(key), self.cache.fresh())

    async def make_shared(self, key: Hashable, inputs: Any) -> tuple[Shipment | None, Outcome]:
        """Make a shared input here; its failure is returned for the driver to record."""
        runner = await self._runner()
        try:
            shipment = await runner.shared_inputs().remote(key, inputs)
        except EndpointError as exc:
            return None, Outcome(responses=self.cache.fresh(), stop=str(exc))
        except Exception as exc:  # noqa: BLE001 - recorded for each episode that needs it
            return None, Outcome(
                responses=self.cache.fresh(), failure=failure_of(exc, runner.models[0].redact)
            )
        finally:
            calls = self.outbox.take(shared_bucket(key))
        return shipment, Outcome(calls, self.cache.fresh())

    async def stop(self) -> None:
        """Close the model connections and remove this worker's scratch folder."""
        if self.limit is not None:
            self.limit.close()
        if self._started is not None and self._started.done() and not self._started.exception():
            for model in self._started.result().models:
                await model.aclose()
        shutil.rmtree(self.folder, ignore_errors=True)

    async def _install(self, runner: Any, item: Any, value_ref: Any, part_refs: dict[str, Any]) -> None:
        """Fetch the item's shared input (and the parts not fetched before) and install it, once."""
        shared = runner.shared_inputs()
        key = shared.key(item)
        async with self._installing:
            if key in self._installed:
                return
            parts = {name: await ref for name, ref in part_refs.items() if name not in self._parts}
            shared.install(key, await value_ref, parts)
            self._parts.update(parts)
            self._installed.add(key)


WorkerActor = ray.remote(EpisodeWorker)
