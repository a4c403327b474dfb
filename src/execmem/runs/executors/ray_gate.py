"""The endpoint's limits for a whole cluster: one gate whose slots every worker's requests take.

``--max-connections`` is the number of slots. A worker leases slots from the gate and passes them
from one of its requests to the next without asking again (a round trip per request costs more CPU
than the request itself on a small machine); it gives a slot back when none of its requests waits,
or when another worker waits and it holds more than its share (the slots split evenly among the
workers that want some). A ``retry-after`` answer to any worker closes the gate for that long: no
worker starts a new request until it reopens (requests already under way go on); each worker
learns of it, and of its share, through one call the gate answers only when they change. Each
worker holds slots under its name and the incarnation it started as; when Ray restarts a killed
worker, the new incarnation's ``join`` frees whatever the dead one held, so a kill never shrinks
the limit. Every lease has a ticket: a ticket given up while waiting takes no slot when it comes.
The gate lives in the run's host actor (:mod:`ray_host`), beside the driver.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

LINGER_S = 0.05
"""How long a worker keeps a slot none of its requests wants before giving it back."""

View = tuple[int, bool, float]
"""What a worker's slots depend on: its share, whether another worker waits, the quiet's end."""


async def changed_or_quiet_over(changed: asyncio.Condition, quiet_until: float) -> None:
    """Wait (holding ``changed``) until it is notified, or the quiet time ends."""
    quiet = quiet_until - time.monotonic()
    with suppress(TimeoutError):
        await asyncio.wait_for(changed.wait(), timeout=quiet if quiet > 0 else None)


class Gate:
    """The slots and the quiet time of one run (its methods run on one event loop)."""

    def __init__(self, connections: int) -> None:
        self.connections = connections
        self.held: dict[str, set[int]] = {}  # worker -> tickets holding a slot
        self.waiting: dict[str, int] = {}  # worker -> tickets waiting for one
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
            self._count_waiting(worker, +1)
            try:
                while True:
                    if (worker, ticket) in self.given_up or self.incarnations.get(worker) != incarnation:
                        self.given_up.discard((worker, ticket))
                        return False
                    if self._open() and self._may_take(worker):
                        break
                    await self._wait()
            finally:
                self._count_waiting(worker, -1)
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

    async def hold(self, seconds: float) -> None:
        """The server asked for ``seconds`` of quiet: no new request until then."""
        async with self.changed:
            self.quiet_until = max(self.quiet_until, time.monotonic() + seconds)
            self.figures["holds"] += 1
            self.changed.notify_all()

    async def watch(self, worker: str, incarnation: str, seen: View | None) -> tuple[View, float] | None:
        """Once ``worker``'s view differs from ``seen``: the view, and the quiet's seconds left
        (clocks differ between nodes, durations do not); None once the worker was replaced."""
        async with self.changed:
            while (replaced := self.incarnations.get(worker) != incarnation) is False:
                if self.view(worker) != seen:
                    break
                await self._wait()
            if replaced:
                return None
            view = self.view(worker)
            return view, max(0.0, view[2] - time.monotonic())

    def view(self, worker: str) -> View:
        wanting = {w for w, tickets in self.held.items() if tickets} | {
            w for w, count in self.waiting.items() if count
        }
        share = max(1, self.connections // len(wanting | {worker}))
        others = any(count for w, count in self.waiting.items() if w != worker)
        return share, others, self.quiet_until

    def stats(self) -> dict[str, Any]:
        return {"connections": self.connections, "in_use": self._in_use(), **self.figures}

    def _count_waiting(self, worker: str, step: int) -> None:
        self.waiting[worker] = self.waiting.get(worker, 0) + step
        self.changed.notify_all()  # a worker's view changes with who waits

    def _open(self) -> bool:
        return self._in_use() < self.connections and time.monotonic() >= self.quiet_until

    def _may_take(self, worker: str) -> bool:
        """Below its share, or no other worker waits that is below its own: a slot a worker gave
        back for being over its share goes to one under it, not straight back."""
        share = self.view(worker)[0]
        if len(self.held.get(worker, ())) < share:
            return True
        return not any(
            count and len(self.held.get(other, ())) < share
            for other, count in self.waiting.items()
            if other != worker
        )

    def _in_use(self) -> int:
        return sum(len(tickets) for tickets in self.held.values())

    async def _wait(self) -> None:
        await changed_or_quiet_over(self.changed, self.quiet_until)


class ClusterLimit:
    """A worker's side of the gate (:class:`execmem.llm.limits.ConnectionLimit`), through the
    actor holding it (``gate``: its ``acquire``, ``release``, ``hold`` and ``watch``): the slots it
    leased, passed from request to request, asked for when its requests outnumber them."""

    def __init__(self, gate: Any, worker: str, incarnation: str) -> None:
        self.gate, self.worker, self.incarnation = gate, worker, incarnation
        self._tickets = itertools.count()
        self.free: list[int] = []  # leased tickets no request holds
        self.leased = 0
        self.waiting = 0  # requests waiting for a slot
        self.asking = 0  # leases asked for and not yet answered
        self.share, self.others_waiting, self.quiet_until = 1, False, 0.0
        self.replaced = False
        self._changed: asyncio.Condition | None = None
        self._watcher: asyncio.Task[None] | None = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        ticket = await self._take()
        try:
            yield
        finally:
            await self._put_back(ticket)

    def hold(self, seconds: float) -> None:
        self.quiet_until = max(self.quiet_until, time.monotonic() + seconds)
        self.gate.hold.remote(seconds)

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()

    async def _take(self) -> int:
        changed = self._condition()
        async with changed:
            self.waiting += 1
            try:
                while not (self.free and time.monotonic() >= self.quiet_until):
                    if self.replaced:
                        raise RuntimeError(f"worker {self.worker} was replaced; its requests stop")
                    self._ask_for_more()
                    await changed_or_quiet_over(changed, self.quiet_until)
            finally:
                self.waiting -= 1
            return self.free.pop()

    async def _put_back(self, ticket: int) -> None:
        async with self._condition():
            self._place(ticket)

    def _place(self, ticket: int) -> None:
        """A leased slot no request holds: to a waiting request, else kept a moment for the next
        one (an episode asks again soon); back to the gate at once when another worker waits and
        this one holds more than its share."""
        if self.others_waiting and self.leased > self.share:
            self._give_back(ticket)
            return
        self.free.append(ticket)
        if self.waiting >= len(self.free):
            self._changed.notify()
        else:
            asyncio.get_running_loop().call_later(LINGER_S, self._give_back_idle, ticket)

    def _give_back_idle(self, ticket: int) -> None:
        if ticket in self.free:  # no request took it meanwhile
            self.free.remove(ticket)
            self._give_back(ticket)

    def _give_back(self, ticket: int) -> None:
        self.leased -= 1
        self.gate.release.remote(self.worker, self.incarnation, ticket)

    def _ask_for_more(self) -> None:
        for _ in range(self.waiting - len(self.free) - self.asking):
            self.asking += 1
            asyncio.ensure_future(self._lease(next(self._tickets)))

    async def _lease(self, ticket: int) -> None:
        try:
            granted = await self.gate.acquire.remote(self.worker, self.incarnation, ticket)
        except BaseException:  # gave up asking (the worker stops): a slot granted later goes back
            self.gate.release.remote(self.worker, self.incarnation, ticket)
            raise
        finally:
            self.asking -= 1
        async with self._condition():
            if not granted:
                self.replaced = True
                self._changed.notify_all()
                return
            self.leased += 1
            self._place(ticket)

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:  # made on the worker's loop, with the watch on the gate
            self._changed = asyncio.Condition()
            self._watcher = asyncio.ensure_future(self._watch())
        return self._changed

    async def _watch(self) -> None:
        """Keep the share, the other workers' waiting and the quiet time up to date."""
        seen = None
        while True:
            answer = await self.gate.watch.remote(self.worker, self.incarnation, seen)
            changed = self._condition()
            async with changed:
                if answer is None:
                    self.replaced = True
                else:
                    seen, quiet_s = answer
                    self.share, self.others_waiting = seen[0], seen[1]
                    self.quiet_until = max(self.quiet_until, time.monotonic() + quiet_s)
                changed.notify_all()
            if answer is None:
                return
