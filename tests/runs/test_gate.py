"""The cluster's gate, as plain asyncio (Ray only carries its calls): slots, quiet time, restarts,
tickets given up."""

from __future__ import annotations

import asyncio
import time

import pytest

from execmem.runs.executors.ray_gate import ClusterLimit, Gate
from execmem.testing.fake_ray_actor import FakeActorHandle


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=10))


def test_no_more_than_the_slots_are_held_at_once():
    async def scenario():
        gate = Gate(3)
        await gate.join("w0", "a")
        await gate.join("w1", "b")
        in_use, peak = 0, 0

        async def request(worker, incarnation, ticket):
            nonlocal in_use, peak
            assert await gate.acquire(worker, incarnation, ticket)
            in_use += 1
            peak = max(peak, in_use)
            await asyncio.sleep(0.01)
            in_use -= 1
            await gate.release(worker, incarnation, ticket)

        await asyncio.gather(*(request(*(("w0", "a") if i % 2 else ("w1", "b")), i) for i in range(30)))
        return peak, gate.stats()

    peak, stats = run(scenario())
    assert peak == 3 and stats == {"connections": 3, "in_use": 0, "granted": 30, "peak": 3, "holds": 0}


def test_a_hold_keeps_every_new_request_back_until_it_ends():
    async def scenario():
        gate = Gate(5)
        await gate.join("w0", "a")
        await gate.acquire("w0", "a", 0)
        await gate.hold(0.3)
        started = time.monotonic()
        await gate.acquire("w0", "a", 1)  # a slot is free, but the server asked for quiet
        return time.monotonic() - started

    assert 0.28 < run(scenario()) < 2.0


def test_a_restarted_worker_frees_what_its_predecessor_held():
    async def scenario():
        gate = Gate(2)
        await gate.join("w0", "old")
        await gate.acquire("w0", "old", 0)
        await gate.acquire("w0", "old", 1)  # all slots held by a worker that is then killed
        await gate.join("w1", "x")
        waiting = asyncio.ensure_future(gate.acquire("w1", "x", 0))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await gate.join("w0", "new")  # Ray restarted it: the dead incarnation's slots are free
        assert await waiting
        await gate.release("w0", "old", 0)  # a late release from the dead one changes nothing
        return gate.stats()["in_use"], await gate.acquire("w0", "old", 2)

    assert run(scenario()) == (1, False)


def test_a_ticket_given_up_while_waiting_takes_no_slot():
    async def scenario():
        gate = Gate(1)
        await gate.join("w0", "a")
        await gate.acquire("w0", "a", 0)
        waiting = asyncio.ensure_future(gate.acquire("w0", "a", 1))
        await asyncio.sleep(0.02)
        await gate.release("w0", "a", 1)  # the request was cancelled before its slot came
        await gate.release("w0", "a", 0)
        granted = await waiting
        return granted, gate.stats()["in_use"]

    assert run(scenario()) == (False, 0)


# ------------------------------------------------ a worker's side: leased slots (ClusterLimit)


def limits(connections: int, *workers: str):
    """A gate behind a stand-in actor handle, and one joined ClusterLimit per worker."""
    gate = Gate(connections)
    handle = FakeActorHandle(gate)
    return gate, handle, [ClusterLimit(handle, worker, "i0") for worker in workers]


async def joined(gate, *workers):
    for worker in workers:
        await gate.join(worker, "i0")


class Load:
    """Requests through several workers' limits: how many ran at once, overall and per worker."""

    def __init__(self) -> None:
        self.now: dict[str, int] = {}
        self.peak, self.peaks = 0, {}

    async def request(self, limit: ClusterLimit, seconds: float = 0.005) -> None:
        async with limit.slot():
            self.now[limit.worker] = self.now.get(limit.worker, 0) + 1
            self.peak = max(self.peak, sum(self.now.values()))
            self.peaks[limit.worker] = max(self.peaks.get(limit.worker, 0), self.now[limit.worker])
            await asyncio.sleep(seconds)
            self.now[limit.worker] -= 1

    async def stream(self, limit: ClusterLimit, requests: int, at_once: int) -> None:
        """``requests`` one after another on each of ``at_once`` episodes."""

        async def episode():
            for _ in range(requests):
                await self.request(limit)

        await asyncio.gather(*(episode() for _ in range(at_once)))


def test_leased_slots_hold_the_limit_and_pass_from_request_to_request():
    async def scenario():
        gate, handle, (a, b) = limits(4, "w0", "w1")
        await joined(gate, "w0", "w1")
        load = Load()
        await asyncio.gather(load.stream(a, 40, 6), load.stream(b, 40, 6))
        return load.peak, await settled(gate), handle.calls  # the last slots travel back

    peak, in_use, calls = run(scenario())
    assert peak == 4 and in_use == 0  # never more than the gate's slots; all given back at the end
    assert calls["acquire"] < 480 / 10  # 480 requests: almost all took a slot another one passed on


def test_a_worker_that_arrives_late_gets_its_share():
    async def scenario():
        gate, handle, (a, b) = limits(4, "w0", "w1")
        await joined(gate, "w0", "w1")
        load = Load()
        first = asyncio.ensure_future(load.stream(a, 200, 8))  # w0 alone: it leases all four
        await asyncio.sleep(0.1)
        alone = load.peaks["w0"]
        late = Load()
        await late.stream(b, 20, 8)  # w0 still wants every slot it can get
        first.cancel()
        return alone, late.peaks["w1"]

    alone, share = run(scenario())
    assert alone == 4 and share >= 2  # the gate's slots split between the two workers wanting some


def test_a_hold_from_one_worker_quiets_the_others():
    async def scenario():
        gate, handle, (a, b) = limits(4, "w0", "w1")
        await joined(gate, "w0", "w1")
        await Load().request(b)  # b is watching the gate, and keeps its slot a moment
        held = time.monotonic()
        a.hold(0.5)
        while b.quiet_until <= time.monotonic() and time.monotonic() - held < 1.0:
            await asyncio.sleep(0.001)  # the gate tells b (through b's open watch call)
        told = time.monotonic() - held
        await Load().request(b)  # a free slot of its own, but the server asked for quiet
        return told, time.monotonic() - held

    told, done = run(scenario())
    assert told < 0.25 and 0.45 < done < 2.0


async def held_and_waiting(hold_s: float):
    """A one-slot gate: one request holding the slot for ``hold_s``, a second one waiting."""
    gate, handle, (limit,) = limits(1, "w0")
    await joined(gate, "w0")
    holder = asyncio.ensure_future(Load().request(limit, seconds=hold_s))
    await asyncio.sleep(0.01)
    waiter = asyncio.ensure_future(Load().request(limit))
    await asyncio.sleep(0.01)
    return gate, limit, holder, waiter


async def settled(gate) -> int:
    """The gate's slots in use once the leases idle slots linger in have ended (at most 2 s)."""
    for _ in range(40):
        if gate.stats()["in_use"] == 0:
            break
        await asyncio.sleep(0.05)
    return gate.stats()["in_use"]


def test_a_request_cancelled_while_waiting_leaks_no_slot():
    async def scenario():
        gate, limit, holder, waiter = await held_and_waiting(0.1)
        waiter.cancel()
        await holder
        in_use = await settled(gate)  # what the cancelled request asked for came and went back
        await Load().request(limit)  # the slot is still there for the next request
        return in_use

    assert run(scenario()) == 0


def test_a_replaced_worker_stops_asking():
    async def scenario():
        gate, limit, holder, waiter = await held_and_waiting(0.2)
        await gate.join("w0", "i1")  # Ray restarted the worker: this old side must not go on
        with pytest.raises(RuntimeError, match="was replaced"):
            await waiter
        holder.cancel()

    run(scenario())
