"""How many requests may be under way at once, and who else must wait when the server says so.

A client takes a slot around every request. In one process the slots are an asyncio semaphore
(:class:`LocalLimit`); a cluster shares one set of slots among all its workers (the Ray
executor's gate), so ``--max-connections`` holds for the whole run wherever its episodes run.
``hold(seconds)`` is called when the server answered with ``retry-after``: a shared limit keeps
every worker's new requests back until then, while one process keeps the behaviour it always had
(each request waits out its own ``retry-after``; the others go on).
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Protocol


class ConnectionLimit(Protocol):
    def slot(self) -> AbstractAsyncContextManager[object]:
        """Held while one request is under way."""
        ...

    def hold(self, seconds: float) -> None:
        """The server asked for ``seconds`` of quiet (``retry-after``)."""
        ...


class LocalLimit:
    """The slots of one process."""

    def __init__(self, connections: int) -> None:
        self._slots = asyncio.Semaphore(connections)

    def slot(self) -> asyncio.Semaphore:
        return self._slots

    def hold(self, seconds: float) -> None:
        """Nothing: in one process the request that got the answer waits it out itself."""
