"""What stays on the driver's node for a whole cluster: the run's response cache and the runner copy.

One host actor there keeps the cache file, answers every worker's lookups and stores their new
answers: a cluster run pays for an answer once, as a run in one process does, and a worker killed
mid-episode leaves the answers it got for its retry. It writes in batches, as the file's own cache
does (:mod:`execmem.llm.cache`): a driver killed outright loses at most the last second of answers.
It also hands each worker, and each restarted worker, the copy of the runner it works with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ray

from execmem.llm.cache import ResponseCache


class Host:
    """The cache file and the runner copy, in an actor on the driver's node."""

    def __init__(self, path: str, runner: Any) -> None:
        self.cache = ResponseCache(Path(path))
        self.runner = runner

    def runner_copy(self) -> Any:
        return self.runner

    def lookup(self, key: str) -> str | None:
        return self.cache.get_text(key)

    def put(self, key: str, text: str) -> None:
        self.cache.put_text(key, text)

    def close(self) -> None:
        self.cache.close()


class RemoteCache:
    """A worker's side of the host's cache (:class:`execmem.llm.cache.Cache`)."""

    def __init__(self, host: Any) -> None:
        self.host = host

    async def lookup(self, key: str) -> str | None:
        return await self.host.lookup.remote(key)

    def put_text(self, key: str, text: str) -> None:
        self.host.put.remote(key, text)


HostActor = ray.remote(Host)
