"""What stays beside the driver for a whole cluster: the endpoint's gate, the response cache, the
runner copy; one host actor on the driver's node holds them.

The gate's slots are ``--max-connections`` for every worker together (:mod:`ray_gate`). The cache
file stays where the run keeps it: the host answers the workers' lookups of what it held when the
run began; a worker's new answers travel back with its episodes, and the driver writes them into
the file. Each worker starts with the file's keys and asks only about those: a fresh request costs
no round trip, a resumed run's answers are still reused, and a worker answers its own repeats.
Answers another worker got during this run are not shared (two identical requests are rare; each
is simply asked), nor those of a worker killed before its episode returned. The host also hands
each worker, and each restarted worker, the copy of the runner it works with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ray

from execmem.llm.cache import ResponseCache
from execmem.runs.executors.ray_gate import Gate


class Host:
    """The run's gate, cache and runner copy (an async actor: its methods share one loop). The copy
    is kept pickled: the host never imports the suite, so it is up before the workers need it."""

    def __init__(self, connections: int, cache: str, runner: bytes) -> None:
        self.gate = Gate(connections)
        self.cache = ResponseCache(Path(cache))
        self.runner = runner

    def runner_copy(self) -> bytes:
        return self.runner

    async def join(self, worker: str, incarnation: str) -> None:
        await self.gate.join(worker, incarnation)

    async def acquire(self, worker: str, incarnation: str, ticket: int) -> bool:
        return await self.gate.acquire(worker, incarnation, ticket)

    async def release(self, worker: str, incarnation: str, ticket: int) -> None:
        await self.gate.release(worker, incarnation, ticket)

    async def hold(self, seconds: float) -> None:
        await self.gate.hold(seconds)

    async def watch(self, worker: str, incarnation: str, seen: Any) -> Any:
        return await self.gate.watch(worker, incarnation, seen)

    def stats(self) -> dict[str, Any]:
        return self.gate.stats()

    def known_keys(self) -> set[str]:
        return self.cache.keys()

    def lookup(self, key: str) -> str | None:
        return self.cache.get_text(key)

    def close(self) -> None:
        self.cache.close()


class RemoteCache:
    """A worker's side of the run's cache (:class:`execmem.llm.cache.Cache`): the host's answers
    from before the run, and this worker's own, which ``fresh()`` hands over for the driver."""

    def __init__(self, host: Any, known: set[str]) -> None:
        self.host, self.known = host, known
        self.mine: dict[str, str] = {}
        self._fresh: dict[str, str] = {}

    async def lookup(self, key: str) -> str | None:
        if key in self.mine:
            return self.mine[key]
        if key not in self.known:
            return None
        return await self.host.lookup.remote(key)

    def put_text(self, key: str, text: str) -> None:
        self.mine[key] = self._fresh[key] = text

    def fresh(self) -> dict[str, str]:
        """The answers got since the last call, to be written into the run's file."""
        fresh, self._fresh = self._fresh, {}
        return fresh


HostActor = ray.remote(Host)
