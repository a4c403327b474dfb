"""Test doubles: in-process stand-ins for the SDK clients of hosted memory services, like the real ones.

Each keeps what it is given per user space and ranks by word overlap with the query, so the
adapters' mapping (spaces, source records, cut-off, reset) is tested without a service. The
real services are exercised by ``test_live_adapters.py`` when their URLs or keys are set.
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import UTC, datetime
from types import SimpleNamespace as Obj
from typing import Any

import httpx

_WORD = re.compile(r"[a-z]+")
_ids = itertools.count(1)


def overlap(query: str, text: str) -> float:
    words = set(_WORD.findall(query.lower()))
    return len(words & set(_WORD.findall(text.lower()))) / max(len(words), 1)


def ranked(query: str, rows: list[Any], text: Any, limit: int) -> list[Any]:
    scored = sorted(((overlap(query, text(r)), r) for r in rows), key=lambda pair: -pair[0])
    return [row for score, row in scored if score > 0][:limit]


# ---------------------------------------------------------------- supermemory


class ApiError(Exception):
    def __init__(self, status_code: int):
        super().__init__(status_code)
        self.status_code = status_code


class FakeSupermemory:
    """``add`` / ``search`` / ``documents.get`` / ``namespaces.delete`` of the v5 SDK."""

    def __init__(self, polls_until_done: int = 1):
        self.spaces: dict[str, list[Obj]] = {}
        self.calls: list[tuple[str, dict]] = []
        self.polls_until_done = polls_until_done
        self.documents = Obj(get=self._get)
        self.namespaces = Obj(delete=self._delete)

    def add(self, namespace: str, **request: Any) -> Obj:
        self.calls.append(("add", {"namespace": namespace, **request}))
        doc = Obj(id=f"doc-{next(_ids)}", polls=0, **request)
        self.spaces.setdefault(namespace, []).append(doc)
        return Obj(id=doc.id, status="queued")

    def search(
        self, namespace: str, *, query: str, limit: int, filter: dict | None = None, **rest: Any
    ) -> Obj:
        self.calls.append(("search", {"namespace": namespace, "filter": filter, "limit": limit, **rest}))
        docs = self.spaces.get(namespace, [])
        if filter:
            docs = [d for d in docs if d.metadata[filter["field"]] < filter["value"]]
        hits = ranked(query, docs, lambda d: d.content, limit)
        results = [
            Obj(id=d.id, memory=d.content, chunk=None, metadata=d.metadata, similarity=0.5) for d in hits
        ]
        return Obj(results=results)

    def _get(self, namespace: str, document_id: str) -> Obj:
        doc = next(d for d in self.spaces[namespace] if d.id == document_id)
        doc.polls += 1
        status = "done" if doc.polls >= self.polls_until_done else "extracting"
        return Obj(system=Obj(status=status, dreaming_status=status))

    def _delete(self, namespace: str) -> None:
        if self.spaces.pop(namespace, None) is None:
            raise ApiError(404)


# ---------------------------------------------------------------- letta


class FakeLetta:
    """``agents.list/create/delete`` and ``agents.passages.create/search`` of letta-client 1.x."""

    def __init__(self):
        self.agents_by_id: dict[str, Obj] = {}
        self.passages: dict[str, list[Obj]] = {}
        self.searches: list[dict] = []
        self.agents = Obj(
            list=lambda name: [a for a in self.agents_by_id.values() if a.name == name],
            create=self._create,
            delete=self._delete,
            passages=Obj(create=self._add, search=self._search),
        )

    def _create(self, name: str, **settings: Any) -> Obj:
        agent = Obj(id=f"agent-{next(_ids)}", name=name, **settings)
        self.agents_by_id[agent.id] = agent
        return agent

    def _delete(self, agent_id: str) -> None:
        del self.agents_by_id[agent_id]
        self.passages.pop(agent_id, None)

    def _add(self, agent_id: str, *, text: str, created_at: datetime, tags: list[str]) -> None:
        assert created_at.tzinfo is not None
        passage = Obj(id=f"passage-{next(_ids)}", content=text, created_at=created_at, tags=tags)
        self.passages.setdefault(agent_id, []).append(passage)

    def _search(self, agent_id: str, *, query: str, top_k: int, end_datetime: datetime | None = None) -> Obj:
        self.searches.append({"top_k": top_k, "end_datetime": end_datetime})
        rows = self.passages.get(agent_id, [])
        if end_datetime is not None:  # inclusive, so the adapter's own check must drop the equal ones
            rows = [p for p in rows if p.created_at <= end_datetime]
        hits = ranked(query, rows, lambda p: p.content, top_k)
        return Obj(
            results=[Obj(id=p.id, content=p.content, timestamp=str(p.created_at), tags=p.tags) for p in hits]
        )


# ---------------------------------------------------------------- memobase


class FakeMemobaseUser:
    """A user whose flush turns every buffered message into an event and a per-speaker profile entry."""

    def __init__(self):
        self.buffer: list[Any] = []
        self.events: list[Obj] = []
        self.profiles: dict[str, Obj] = {}

    def insert(self, blob: Any, sync: bool = False) -> str:
        assert sync
        self.buffer.extend(blob.messages)
        return f"blob-{next(_ids)}"

    def flush(self, sync: bool = False) -> bool:
        assert sync
        for message in self.buffer:
            tip = f"{message.alias} said at {message.created_at}: {message.content}"
            self.events.insert(
                0, Obj(id=f"event-{next(_ids)}", event_data=Obj(event_tip=tip, profile_delta=[]))
            )
            profile = self.profiles.setdefault(message.alias, Obj(id=f"profile-{next(_ids)}", topic="about"))
            profile.sub_topic, profile.content = message.alias, message.content
            profile.updated_at = datetime.now(UTC).isoformat() + str(next(_ids))
        self.buffer.clear()
        return True

    def event(self, topk: int = 10) -> list[Obj]:
        return self.events[:topk]

    def profile(self) -> list[Obj]:
        return list(self.profiles.values())

    def search_event(self, query: str, topk: int, **options: Any) -> list[Obj]:
        hits = ranked(query, self.events, lambda e: e.event_data.event_tip, topk)
        return [Obj(id=e.id, event_data=e.event_data, similarity=0.5) for e in hits]


class FakeMemobase:
    def __init__(self):
        self.users: dict[str, FakeMemobaseUser] = {}

    def get_or_create_user(self, user_id: str) -> FakeMemobaseUser:
        return self.users.setdefault(user_id, FakeMemobaseUser())

    def get_user(self, user_id: str) -> FakeMemobaseUser:
        from memobase.error import ServerError

        if user_id not in self.users:
            raise ServerError("no such user")
        return self.users[user_id]

    def delete_user(self, user_id: str) -> bool:
        from memobase.error import ServerError

        if self.users.pop(user_id, None) is None:
            raise ServerError("no such user")
        return True


# ---------------------------------------------------------------- memos (REST)


class FakeMemosServer:
    """``/product/add``, ``/product/search`` and ``/product/delete_memory`` behind an httpx MockTransport."""

    def __init__(self):
        self.memories: dict[str, list[dict]] = {}
        self.bodies: list[tuple[str, dict]] = []

    def client(self) -> httpx.Client:
        return httpx.Client(base_url="http://memos.test", transport=httpx.MockTransport(self.handle))

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append((request.url.path, body))
        route = {
            "/product/add": self._add,
            "/product/search": self._search,
            "/product/delete_memory": self._delete,
        }
        return httpx.Response(200, json={"code": 200, "message": "ok", "data": route[request.url.path](body)})

    def _add(self, body: dict) -> list:
        assert body["async_mode"] == "sync" and body["writable_cube_ids"] == [body["user_id"]]
        for message in body["messages"]:
            memory = {"id": f"mem-{next(_ids)}", "memory": f"{message['content']} ({message['chat_time']})"}
            memory["metadata"] = {"info": body["info"], "relativity": 0.7, "memory_type": "LongTermMemory"}
            self.memories.setdefault(body["user_id"], []).append(memory)
        return []

    def _search(self, body: dict) -> dict:
        (cube,) = body["readable_cube_ids"]
        hits = ranked(body["query"], self.memories.get(cube, []), lambda m: m["memory"], body["top_k"])
        return {"text_mem": [{"cube_id": cube, "memories": hits}], "pref_mem": []}

    def _delete(self, body: dict) -> dict:
        self.memories.pop(body["user_id"], None)
        return {"status": "success"}
