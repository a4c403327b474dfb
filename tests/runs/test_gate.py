"""The cluster's gate, as plain asyncio (Ray only carries its calls): slots, quiet time, restarts,
tickets given up."""

from __future__ import annotations

import asyncio
import time

from execmem.runs.executors.ray_gate import Gate


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
        gate.hold(0.3)
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
