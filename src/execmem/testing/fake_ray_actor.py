"""An object called the way a Ray actor handle is (``handle.method.remote(...)``), on this event
loop: for testing the code that talks to the cluster's actors without a Ray instance."""

from __future__ import annotations

import asyncio
from typing import Any


class FakeActorHandle:
    """``FakeActorHandle(obj).method.remote(*args)`` runs ``obj.method(*args)`` as a task and returns it
    (awaitable, or left to run when nobody awaits it, like a fire-and-forget actor call).
    ``calls`` counts the calls per method."""

    def __init__(self, target: Any) -> None:
        self._target = target
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> _Method:
        return _Method(self, name)


class _Method:
    def __init__(self, actor: FakeActorHandle, name: str) -> None:
        self.actor, self.name = actor, name

    def remote(self, *args: Any) -> asyncio.Future[Any]:
        self.actor.calls[self.name] = self.actor.calls.get(self.name, 0) + 1
        result = getattr(self.actor._target, self.name)(*args)
        if asyncio.iscoroutine(result):
            return asyncio.ensure_future(result)
        done = asyncio.get_running_loop().create_future()
        done.set_result(result)
        return done
