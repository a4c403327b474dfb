"""What stays beside the driver for a whole cluster: the endpoint's gate, the response caches,
the runner copies; one host actor on the driver's node holds them.

The gate's slots are ``--max-connections`` for every worker together (:mod:`ray_gate`). A pool of
workers may serve several runs (the runs of a SIEVE stage): each run is added under its key, with
its runner copy and its cache file. The cache file stays where the run keeps it: the host answers
the workers' lookups of what it held when the run began; a worker's new answers travel back with
its episodes, and the driver writes them into the file. Each worker starts a run with the file's
keys and asks only about those: a fresh request costs no round trip, a resumed run's answers are
still reused, and a worker answers its own repeats. Answers another worker got during this run are
not shared (two identical requests are rare; each is simply asked), nor those of a worker killed
before its episode returned. The host also hands each worker, and each restarted worker, the copy
of the runner it works with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ray

from execmem.llm.cache import ResponseCache
from execmem.runs.executors.ray_gate import Gate


class Host:
    """The pool's gate, and each run's cache and runner copy (an async actor: its methods share
    one loop). Copies are kept pickled: the host never imports a suite, so it is up at once."""

    def __init__(self, connections: int) -> None:
        self.gate = Gate(connections)
        self.runs: dict[str, tuple[bytes, ResponseCache]] = {}

    def add_run(self, run: str, runner: bytes, cache: str) -> None:
        self.runs[run] = (runner, ResponseCache(Path(cache)))

    def drop_run(self, run: str) -> None:
        if run in self.runs:
            self.runs.pop(run)[1].close()

    def runner_copy(self, run: str) -> bytes:
        return self.runs[run][0]

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

    def known_keys(self, run: str) -> set[str]:
        return self.runs[run][1].keys()

    def lookup(self, run: str, key: str) -> str | None:
        return self.runs[run][1].get_text(key)

    def close(self) -> None:
        for run in list(self.runs):
            self.drop_run(run)


class RemoteCache:
    """A worker's side of a run's cache (:class:`execmem.llm.cache.Cache`): the host's answers
    from before the run, and this worker's own, which ``fresh()`` hands over for the driver."""

    def __init__(self, host: Any, run: str, known: set[str]) -> None:
        self.host, self.run, self.known = host, run, known
        self.mine: dict[str, str] = {}
        self._fresh: dict[str, str] = {}

    async def lookup(self, key: str) -> str | None:
        if key in self.mine:
            return self.mine[key]
        if key not in self.known:
            return None
        return await self.host.lookup.remote(self.run, key)

    def put_text(self, key: str, text: str) -> None:
        self.mine[key] = self._fresh[key] = text

    def fresh(self) -> dict[str, str]:
        """The answers got since the last call, to be written into the run's file."""
        fresh, self._fresh = self._fresh, {}
        return fresh


HostActor = ray.remote(Host)
