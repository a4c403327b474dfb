"""The endpoint's limits for a whole cluster: one gate whose slots every worker's requests take.

``--max-connections`` is the number of slots; a request waits for one and gives it back when it
ends. A ``retry-after`` answer to any worker closes the gate for that long: no worker starts a new
request until it reopens (requests already under way go on). Each worker holds slots under its name
and the incarnation it started as; when Ray restarts a killed worker, the new incarnation's
``join`` frees whatever the dead one held, so a kill never shrinks the limit. Every acquire has a
ticket: a worker that gives up waiting releases the ticket, and a slot granted to it later is
dropped at once. The gate lives in the run's host actor (:mod:`ray_host`), beside the driver.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any


class Gate:
    """The slots and the quiet time of one run (its methods run on one event loop)."""

    def __init__(self, connections: int) -> None:
        self.connections = connections
        self.held: dict[str, set[int]] = {}  # worker -> tickets holding a slot
        self.incarnations: dict[str, str] = {}
        self.given_up: set[tuple[str, int]] = set()
        self.quiet_until = 0.0
        self.changed = asyncio.Condition()
        self.figures = {"granted": 0, "peak": 0, "holds": 0}

    async def join(self, worker: str, incarnation: str) -> None:
        """A worker (re)started: what an earlier incarnation of it held is free again."""
        async with self.changed:
            self.incarnations[worker] = incarnation
            self.held.pop(worker, None)
            self.given_up = {entry for entry in self.given_up if entry[0] != worker}
            self.changed.notify_all()

    async def acquire(self, worker: str, incarnation: str, ticket: int) -> bool:
        """Wait for a free slot while the gate is open; False for a ticket given up or a worker
        replaced since (no slot is taken then)."""
        async with self.changed:
            while True:
                if (worker, ticket) in self.given_up or self.incarnations.get(worker) != incarnation:
                    self.given_up.discard((worker, ticket))
                    return False
                if self._in_use() < self.connections and time.monotonic() >= self.quiet_until:
                    break
                await self._wait()
            self.held.setdefault(worker, set()).add(ticket)
            self.figures["granted"] += 1
            self.figures["peak"] = max(self.figures["peak"], self._in_use())
            return True

    async def release(self, worker: str, incarnation: str, ticket: int) -> None:
        """Give a slot back (or give up waiting for it)."""
        async with self.changed:
            if self.incarnations.get(worker) != incarnation:
                return
            held = self.held.get(worker, set())
            if ticket in held:
                held.discard(ticket)
            else:
                self.given_up.add((worker, ticket))
            self.changed.notify_all()

    def hold(self, seconds: float) -> None:
        """The server asked for ``seconds`` of quiet: no new request until then."""
        self.quiet_until = max(self.quiet_until, time.monotonic() + seconds)
        self.figures["holds"] += 1

    def stats(self) -> dict[str, Any]:
        return {"connections": self.connections, "in_use": self._in_use(), **self.figures}

    def _in_use(self) -> int:
        return sum(len(tickets) for tickets in self.held.values())

    async def _wait(self) -> None:
        """Until something changes, or the quiet time ends."""
        quiet = self.quiet_until - time.monotonic()
        with suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout=quiet if quiet > 0 else None)


class ClusterLimit:
    """A worker's side of the gate (:class:`execmem.llm.limits.ConnectionLimit`), through the
    actor holding it (``gate``: its ``acquire``, ``release`` and ``hold``)."""

    def __init__(self, gate: Any, worker: str, incarnation: str) -> None:
        self.gate, self.worker, self.incarnation = gate, worker, incarnation
        self._tickets = itertools.count()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        ticket = next(self._tickets)
        try:
            granted = await self.gate.acquire.remote(self.worker, self.incarnation, ticket)
        except BaseException:  # gave up waiting: a slot granted afterwards goes straight back
            self.gate.release.remote(self.worker, self.incarnation, ticket)
            raise
        if not granted:
            raise RuntimeError(f"worker {self.worker} was replaced; its requests stop")
        try:
            yield
        finally:
            self.gate.release.remote(self.worker, self.incarnation, ticket)

    def hold(self, seconds: float) -> None:
        self.gate.hold.remote(seconds)
