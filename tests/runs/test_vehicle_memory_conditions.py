"""Built memories (summary, key-value), full-history truncation, and their caches and costs."""

from __future__ import annotations

import json

from execmem.agents.vehicle.conditions.build_cache import by_day
from execmem.core.files import complete_records
from execmem.suites.vehicle.dataset import load_history
from execmem.testing.fake_server import FakeServer, Reply, ToolCallSpec
from tests.runs.conftest import run_vehicle


def _builder(oracle, kind: str):
    """Answers memory-building requests itself and agent requests with the oracle."""

    def policy(body):
        system = body["messages"][0]["content"]
        if "key-value memory" in system:
            if any(m["role"] == "tool" for m in body["messages"]):
                return Reply(content="done")
            day = body["messages"][1]["content"].split("\n")[0]
            return Reply(
                tool_calls=[ToolCallSpec("memory_add", {"key": f"note {day}", "value": "panel green"})]
            )
        if "long-term memory" in system:
            previous = body["messages"][1]["content"].split("\n")[1]
            return Reply(content=f"{previous} | day")
        return oracle(body)

    return policy


def test_summary_builds_once_per_day_and_is_cached(tmp_path, oracle, vehicle_data):
    days = len(by_day(load_history(vehicle_data, 1)))
    shared = tmp_path / "cache"
    with FakeServer(_builder(oracle, "summary")) as server:
        metrics = run_vehicle(
            tmp_path / "a", server.base_url, vehicle_data, memory="summary", scenarios=[1], cache_dir=shared
        )
        build_requests = sum("long-term memory" in r["messages"][0]["content"] for r in server.requests)
        assert build_requests == days
        run_vehicle(
            tmp_path / "b", server.base_url, vehicle_data, memory="summary", scenarios=[1], cache_dir=shared
        )
        again = sum("long-term memory" in r["messages"][0]["content"] for r in server.requests)
    assert again == days  # the second run reused the built memory
    assert metrics["memory_build"]["llm_calls"] == days and metrics["memory_build"]["input_tokens"] > 0
    record = json.loads((tmp_path / "a" / "memory" / "scenario-1.json").read_text())
    assert record["text"].count("| day") == days and record["text"].startswith("(empty)")
    assert metrics["overall"]["mean_memory_tokens"] > 0


def test_key_value_memory_is_searched_with_a_tool(tmp_path, oracle, vehicle_data):
    with FakeServer(_builder(oracle, "kv")) as server:
        metrics = run_vehicle(
            tmp_path / "kv", server.base_url, vehicle_data, memory="key-value", scenarios=[2]
        )
        agent_requests = [r for r in server.requests if "list_module_tools" in json.dumps(r.get("tools", []))]
    record = json.loads((tmp_path / "kv" / "memory" / "scenario-2.json").read_text())
    assert len(record["entries"]) == len(by_day(load_history(vehicle_data, 2)))
    tool_names = {t["function"]["name"] for t in agent_requests[0]["tools"]}
    assert "memory_search" in tool_names and "memory_add" not in tool_names
    assert metrics["memory_build"]["llm_calls"] == 2 * len(record["entries"])


def test_key_value_store_search_ranks_by_shared_words():
    import asyncio

    from execmem.agents.vehicle.conditions.key_value import KeyValueStore

    store = KeyValueStore()
    asyncio.run(store.call("memory_add", {"key": "Gary / panel color", "value": "green"}))
    asyncio.run(store.call("memory_add", {"key": "Patricia / seat", "value": "headrest 44"}))
    asyncio.run(store.call("memory_remove", {"key": "Patricia / seat"}))
    assert store.search("what panel color does Gary like") == [
        {"key": "Gary / panel color", "value": "green"}
    ]
    assert store.search("headrest") == []


def test_full_history_is_cut_from_the_oldest_end(tmp_path, oracle, vehicle_data):
    with FakeServer(oracle) as server:
        metrics = run_vehicle(
            tmp_path / "fh",
            server.base_url,
            vehicle_data,
            memory="full-history",
            scenarios=[3],
            context_tokens=2000,
        )
        prompt = server.requests[0]["messages"][1]["content"]
    record = json.loads((tmp_path / "fh" / "memory" / "scenario-3.json").read_text())
    history = load_history(vehicle_data, 3)
    assert record["truncated"] and record["lines_dropped"] > 0
    assert record["lines_total"] == len(history)
    assert history[-1].text in prompt and history[0].text not in prompt
    # "fake" has no known tokenizer: the budget is counted as characters/4 x 1.5, so the kept text
    # is 2000 / 1.5 tokens on MemToken's plain characters/4 yardstick
    assert 1200 < metrics["overall"]["mean_memory_tokens"] <= 2000 / 1.5 + 1
    trajectory = complete_records(tmp_path / "fh" / "trajectories.jsonl")[0]
    assert "<memory: memory/scenario-3.json#text>" in trajectory["messages"][1]["content"]
    assert history[-1].text not in trajectory["messages"][1]["content"]
