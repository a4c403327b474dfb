"""The release's style of the summary and key-value memories (--memory-style release): memory
changes only through memory_update, the 8,192-character cut, the release's key-value tools and
rounds per day; the style is recorded and part of the identity."""

from __future__ import annotations

import asyncio
import json
from datetime import date

import pytest

from execmem.agents.vehicle.conditions.build_cache import by_day
from execmem.agents.vehicle.conditions.key_value_release import ReleaseStore
from execmem.agents.vehicle.conditions.summary_release import CUT_MARK, NOTHING_RECORDED, cut, update_of
from execmem.runs.episode_log import RunFolderError
from execmem.suites.vehicle.dataset import load_history
from execmem.testing.fake_server import FakeServer
from execmem.testing.memory_builders import ReleaseBuilders
from execmem.testing.scripted_model import calls, text
from tests.cli.conftest import assert_one_line_error, invoke
from tests.conftest import read_jsonl
from tests.runs.conftest import run_vehicle


def test_a_memory_within_the_limit_is_kept_whole():
    assert cut("- a\n- b", limit=10) == "- a\n- b"


def test_a_long_memory_is_cut_at_the_last_bullet_past_half_the_limit():
    memory = "- " + "a" * 60 + "\n- " + "b" * 60
    assert cut(memory, limit=100) == "- " + "a" * 60 + CUT_MARK


def test_without_a_bullet_past_half_the_limit_it_is_cut_at_the_limit():
    memory = "- a\n- " + "b" * 200
    assert cut(memory, limit=100) == memory[:100] + CUT_MARK
    assert len(cut("x" * 9000)) == 8192 + len(CUT_MARK)


def test_only_a_memory_update_call_changes_the_memory():
    assert update_of(text("nothing new")) is None
    assert update_of(calls(("memory_update", {"new_memory": "- Dana: blue"}))) == "- Dana: blue"
    assert update_of(calls(("other_tool", {}), ("memory_update", {"new_memory": "x"}))) == "x"
    assert update_of(calls(("memory_update", {}))) == ""  # called without text: empty memory
    salvaged = update_of(calls(("memory_update", '{"new_memory": "- say \\"hi\\"\\n- b"')))  # broken JSON
    assert salvaged == '- say "hi"\n- b'
    assert update_of(calls(("memory_update", "{broken"))) is None


def test_the_release_store_tools():
    store = ReleaseStore()
    run = store.run
    assert run("memory_add", {"key": "Dana_light", "value": "Blue"})["action"] == "added"
    assert run("memory_add", {"key": "Dana_light", "value": "green"})["action"] == "updated"
    run("memory_add", {"key": "Eli_seat", "value": "44"})
    assert run("memory_search", {"key": "Dana_light"})["results"] == {"Dana_light": "green"}
    assert run("memory_search", {"key": "GREEN"})["results"] == {"Dana_light": "green"}  # in a value
    assert run("memory_search", {"key": "_"})["results"] == {"Dana_light": "green", "Eli_seat": "44"}
    assert run("memory_search", {"key": "mirror"}) == {
        "success": True,
        "results": {},
        "message": "No matching entries found",
    }
    assert run("memory_remove", {"key": "nope"}) == {"success": False, "error": "Key 'nope' not found"}
    assert run("memory_list", {}) == {"success": True, "keys": ["Dana_light", "Eli_seat"], "count": 2}
    assert run("memory_remove", {"key": "Eli_seat"})["action"] == "removed"
    reader = store.read_only()
    assert [s["name"] for s in reader.schemas()] == ["memory_search", "memory_list"]
    assert reader.run("memory_add", {"key": "k", "value": "v"})["success"] is False
    assert json.loads(asyncio.run(reader.call("memory_list", {})))["keys"] == ["Dana_light"]


def build_requests(server, tool: str) -> list[dict]:
    return [r for r in server.requests if tool in json.dumps(r.get("tools", []))]


def test_release_summary_changes_memory_only_on_update_days(tmp_path, oracle, vehicle_data):
    days = [day for day, _ in by_day(load_history(vehicle_data, 1))]
    with FakeServer(ReleaseBuilders(oracle, every=2)) as server:
        metrics = run_vehicle(
            tmp_path / "s",
            server.base_url,
            vehicle_data,
            memory="summary",
            memory_style="release",
            scenarios=[1],
        )
        requests = build_requests(server, "memory_update")
    assert len(requests) == len(days) == metrics["memory_build"]["llm_calls"]
    record = json.loads((tmp_path / "s" / "memory" / "scenario-1.json").read_text())
    updated = [d for d in days if date.fromisoformat(d).toordinal() % 2 == 0]
    assert record["text"] == "\n".join(f"- noted on {d}" for d in updated) and record["updates"] == len(
        updated
    )
    # The prompt shows the memory so far; before the first update it is empty.
    first = requests[0]["messages"][1]["content"]
    assert "(nothing yet)" in first and NOTHING_RECORDED not in record["text"]
    config = json.loads((tmp_path / "s" / "config.json").read_text())
    assert config["identity"]["memory_style"] == "release"
    assert config["components"]["memory"]["style"] == "release"
    assert config["components"]["memory"]["limit_chars"] == 8192


def test_release_key_value_uses_the_release_tools_and_rounds(tmp_path, oracle, vehicle_data):
    days = [day for day, _ in by_day(load_history(vehicle_data, 2))]
    with FakeServer(ReleaseBuilders(oracle)) as server:
        metrics = run_vehicle(
            tmp_path / "kv",
            server.base_url,
            vehicle_data,
            memory="key-value",
            memory_style="release",
            scenarios=[2],
        )
        builds = [r for r in server.requests if "memory_add" in json.dumps(r.get("tools", []))]
        agent = [r for r in server.requests if "list_module_tools" in json.dumps(r.get("tools", []))]
    record = json.loads((tmp_path / "kv" / "memory" / "scenario-2.json").read_text())
    assert record["entries"] == {f"note_{d}": f"panel green on {d}" for d in days}
    assert metrics["memory_build"]["llm_calls"] == 3 * len(days)  # store, remove, done
    offered = {t["function"]["name"] for t in builds[0]["tools"]}
    assert offered == {"memory_add", "memory_remove", "memory_search"}
    assert (
        f"Keys stored so far:\nnote_{days[0]}" in builds[3]["messages"][1]["content"]
    )  # day 2 shows day 1's key
    results = [json.loads(m["content"]) for m in builds[1]["messages"] if m["role"] == "tool"]
    assert results[0]["action"] == "added" and results[2] == {
        "success": True,
        "keys": [f"note_{days[0]}"],
        "count": 1,
    }
    assert {t["function"]["name"] for t in agent[0]["tools"]} >= {"memory_search", "memory_list"}
    assert "memory_add" not in {t["function"]["name"] for t in agent[0]["tools"]}


def test_release_key_value_stops_each_day_at_the_round_limit(tmp_path, oracle, vehicle_data):
    days = len(by_day(load_history(vehicle_data, 3)))
    with FakeServer(ReleaseBuilders(oracle, endless=True)) as server:
        metrics = run_vehicle(
            tmp_path / "kv",
            server.base_url,
            vehicle_data,
            memory="key-value",
            memory_style="release",
            scenarios=[3],
            max_steps=3,
        )
    assert metrics["memory_build"]["llm_calls"] == 3 * days
    config = json.loads((tmp_path / "kv" / "config.json").read_text())
    assert config["components"]["memory"]["rounds_per_day"] == 3


def test_the_default_style_keeps_the_identity_of_earlier_runs_and_a_style_change_is_refused(
    tmp_path, oracle, vehicle_data
):
    with FakeServer(oracle) as server:
        run_vehicle(tmp_path / "r", server.base_url, vehicle_data, memory="summary", scenarios=[1])
        config = json.loads((tmp_path / "r" / "config.json").read_text())
        assert "memory_style" not in config["identity"] and config["invocation"]["memory_style"] == "execmem"
        with pytest.raises(RunFolderError, match="memory_style"):
            run_vehicle(
                tmp_path / "r",
                server.base_url,
                vehicle_data,
                memory="summary",
                memory_style="release",
                scenarios=[1],
            )
    assert len(read_jsonl(tmp_path / "r" / "episodes.jsonl")) == 10


def test_a_style_for_another_memory_is_refused(tmp_path):
    result = invoke(
        "vehicle",
        "run",
        "--model",
        "m",
        "--memory",
        "bm25",
        "--memory-style",
        "release",
        "--out",
        tmp_path / "r",
    )
    assert_one_line_error(result, "--memory-style", "summary and key-value")
