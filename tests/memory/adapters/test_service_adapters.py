"""The hosted-service adapters against in-process fakes of their clients: the protocol mapping."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from execmem.memory.adapters.common import posix
from execmem.memory.adapters.letta import LettaMemory, metadata_of, tags_of
from execmem.memory.adapters.memobase import MemobaseMemory
from execmem.memory.adapters.memos import MemosMemory
from execmem.memory.adapters.supermemory import SupermemoryMemory
from execmem.testing import fake_memory_services as fakes
from tests.memory.adapters.contract import CUT, EARLY, exercise
from tests.memory.conftest import at


def needs(module: str):
    return pytest.mark.skipif(find_spec(module) is None, reason=f"{module} is not installed")


@needs("supermemory")
def test_supermemory(monkeypatch):
    monkeypatch.setattr("supermemory.core.api_error.ApiError", fakes.ApiError)
    client = fakes.FakeSupermemory(polls_until_done=2)
    memory = SupermemoryMemory(client=client, poll_s=0.001, namespace_prefix="t-")
    exercise(memory, "gary allen", "dana")

    add = next(request for kind, request in client.calls if kind == "add")
    assert add["namespace"] == "t-gary_20allen" and add["dreaming"] == "instant"
    assert add["content"] == "[2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    assert add["date"] == "2025-03-03T08:30:00+00:00"
    cut_search = [request for kind, request in client.calls if kind == "search" and request["filter"]]
    assert cut_search[0]["filter"] == {"field": "execmem_time", "operator": "lt", "value": posix(CUT)}
    memory.reset("never written")  # a 404 for an empty space is not an error


@needs("letta_client")
def test_letta_archival_passages():
    client = fakes.FakeLetta()
    memory = LettaMemory(client=client, agent_prefix="t-", model="m/x", embedding="e/y")
    exercise(memory, "gary allen", "dana")
    assert [a.name for a in client.agents_by_id.values()] == ["t-dana"]  # alice's agent went with reset
    assert memory.search("anything", "nobody", 5) == []  # no agent is created by a search
    assert not any(a.name == "t-nobody" for a in client.agents_by_id.values())

    memory.add(EARLY, "gary allen", at("2025-03-03 09:00"))
    at_the_line = memory.search("seat heater", "gary allen", 5, before=at("2025-03-03 08:30"))
    assert at_the_line == []  # the fake's end_datetime is inclusive; the cut-off is strict
    assert client.searches[-1]["top_k"] == 10 and client.searches[-1]["end_datetime"].tzinfo is not None


def test_letta_tags_round_trip_the_source_record():
    record = {
        "execmem_time": 1.5,
        "execmem_times": "2025-03-03T08:30:00",
        "execmem_line_ids": "",
        "other": "x",
    }
    tags = tags_of(record)
    assert tags == ["execmem_time=1.5", "execmem_times=2025-03-03T08:30:00"]
    assert metadata_of([*tags, "user-tag"]) == {"execmem_time": 1.5, "execmem_times": "2025-03-03T08:30:00"}


@needs("memobase")
def test_memobase_ledger_stamps_events_and_profiles():
    client = fakes.FakeMemobase()
    memory = MemobaseMemory(client=client, base_url="http://memobase.test", profile_items=2)
    exercise(memory, "gary allen", "dana")

    space = memory.space("gary allen")
    assert space == memory.space("gary allen") != memory.space("dana")
    memory.reset("never written")  # Memobase answers an error for a missing user: nothing to forget
    memory.add(EARLY, "gary allen", at("2025-03-03 09:00"))
    (profile, event) = memory.search("seat heater", "gary allen", 5)
    assert profile.metadata["kind"] == "profile" and profile.score == 0.0
    assert event.metadata["kind"] == "event" and event.line_ids == (1,)
    assert event.text.startswith("Gary Allen said at 2025-03-03T08:30:00")


@needs("memobase")
def test_memobase_entries_made_before_the_adapter_saw_them_are_hidden_by_a_cutoff():
    client = fakes.FakeMemobase()
    first = MemobaseMemory(client=client, base_url="http://memobase.test")
    first.add(EARLY, "gary allen", at("2025-03-03 09:00"))
    second = MemobaseMemory(client=client, base_url="http://memobase.test")  # a new process: empty ledger
    assert second.search("seat heater", "gary allen", 5)
    assert second.search("seat heater", "gary allen", 5, before=CUT) == []


def test_memos_rest_requests():
    server = fakes.FakeMemosServer()
    memory = MemosMemory(base_url="http://memos.test", http=server.client(), cube_prefix="t-")
    exercise(memory, "gary allen", "dana")

    path, add = server.bodies[0]
    assert path == "/product/add" and add["user_id"] == "t-gary%20allen" and add["mode"] == "fine"
    assert add["messages"] == [
        {
            "role": "user",
            "content": "Gary Allen: Set the seat heater to level two every morning.",
            "chat_time": "2025-03-03T08:30:00",
        }
    ]
    assert add["info"]["execmem_line_ids"] == "1"
    searches = [body for path, body in server.bodies if path == "/product/search"]
    assert {body["top_k"] for body in searches} == {5, 10, 30}  # 30: a cut-off over-fetches
    assert not any(body["include_preference"] for body in searches)
