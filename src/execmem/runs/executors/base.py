"""What every executor shares: its protocol, what a worker gives the run's episodes, shared inputs.

An executor runs the pending episodes of an :class:`~execmem.runs.runner.EpisodeRunner`; the run
folder is written by the process that called it, whichever executor ran the episodes. Executors
with workers elsewhere give each worker a copy of the runner (``runner.worker_copy()``), which
:meth:`~execmem.runs.runner.EpisodeRunner.attach` connects to what the worker offers
(:class:`WorkerSide`): its model clients, a scratch folder, and an outbox instead of the run folder.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from execmem.llm.cache import Cache, ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.llm.errors import InfraError
from execmem.llm.limits import ConnectionLimit
from execmem.runs.executors.outbox import Outbox

EpisodeHook = Callable[[dict[str, Any] | None], None]
Failure = tuple[str, str, dict[str, Any]]
"""How an episode failed: its kind (``infra``, ``crash``), the reason, and what else to record."""


def failure_of(exc: Exception, redact: Callable[[str], str]) -> Failure:
    """An exception at the per-episode boundary: an :class:`InfraError` (the endpoint, after its
    retries; with the attempts made) or anything else (a crash, with its traceback, key masked)."""
    if isinstance(exc, InfraError):
        return "infra", exc.reason, {"attempts": exc.attempts}
    trace = redact("".join(traceback.format_exception(exc)))
    return "crash", f"{type(exc).__name__}: {exc}", {"traceback": trace}


class ExecutorError(Exception):
    """The executor cannot run the episodes (no cluster at the address, workers that cannot start);
    the message says what to check. Finished episodes stay on disk."""


class Runner(Protocol):
    """What executors use of an :class:`~execmem.runs.runner.EpisodeRunner`."""

    store: Any  # the run folder (an EpisodeLog), or a worker's Outbox
    cache: ResponseCache
    models: Sequence[OpenAIChatModel]
    slots: Any

    def key(self, item: Any) -> str: ...

    def concurrency(self) -> int: ...

    async def probe_endpoint(self) -> None: ...

    async def attempt(self, item: Any) -> dict[str, Any] | None: ...

    def record_failure(
        self, item: Any, kind: str, reason: str, extra: dict[str, Any] | None = None
    ) -> None: ...

    def shared_inputs(self) -> Any: ...

    def worker_copy(self) -> Runner: ...

    def attach(self, side: WorkerSide) -> None: ...


class Executor(Protocol):
    name: str

    def describe(self) -> dict[str, Any]: ...

    async def run(self, runner: Runner, pending: list[Any], on_episode: EpisodeHook | None) -> None:
        """Run ``pending`` (after the runner's start-up probe), recording each episode as it ends."""
        ...

    def session(
        self, connections: int, api_key_env: str = "OPENAI_API_KEY", preload: str | None = None
    ) -> AbstractAsyncContextManager[None]:
        """For several runs in the block, one after another or at once (a SIEVE stage's): what the
        executor starts is started once, and the endpoint's ``connections`` are shared by all."""
        ...


@dataclass
class WorkerSide:
    """What a worker process offers the episodes it runs."""

    outbox: Outbox
    scratch: Path  # this worker's own folder on its node, emptied when it starts
    cache: Cache
    limit: ConnectionLimit  # the cluster's connection slots

    def model(self, config: ModelConfig) -> OpenAIChatModel:
        """A client for ``config`` that shares the cluster's slots and the run's response cache."""
        return OpenAIChatModel(config, self.cache, limit=self.limit)


@dataclass
class Shipment:
    """A shared input as it travels: a small ``value`` and large ``parts`` (bytes by name), each part
    sent once however many values name it."""

    value: Any
    parts: dict[str, bytes] = field(default_factory=dict)


class SharedInputs(Protocol):
    """Something several episodes need that is made once (a scenario's memory), on the driver: made
    here when that is cheap, else by a worker, and kept in the run folder either way."""

    def key(self, item: Any) -> Hashable: ...

    def ready(self, key: Hashable) -> bool:
        """Whether making it here is cheap (nothing to build, or built before)."""
        ...

    async def local(self, key: Hashable) -> Shipment:
        """Make it in this process (recording it in the run folder) and pack it for the workers."""
        ...

    def inputs(self, key: Hashable) -> Any:
        """What a worker needs to make it (read here, on the driver)."""
        ...

    def adopt(self, key: Hashable, shipment: Shipment) -> None:
        """Keep in the run folder what a worker made."""
        ...


class SharedOnWorker(Protocol):
    """The same inputs on a worker: made there, or installed as the driver sent them."""

    def key(self, item: Any) -> Hashable: ...

    async def remote(self, key: Hashable, inputs: Any) -> Shipment:
        """Make it here (its records go to the worker's outbox) and pack it."""
        ...

    def install(self, key: Hashable, value: Any, parts: dict[str, bytes]) -> None:
        """Make ``value`` what this key's episodes use (``parts``: those not sent here before)."""
        ...
