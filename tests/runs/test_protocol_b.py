"""Protocol B: a registered memory system holds each scenario's history; the agent searches it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import datetime
from typing import ClassVar

import pytest
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from execmem.agents.vehicle.conditions.ingest import by_hour
from execmem.agents.vehicle.conditions.memory_search import (
    SearchMemoryTool,
    clamp_k,
    format_item,
    format_results,
)
from execmem.agents.vehicle.conditions.memory_system import MemorySystemCondition, open_system
from execmem.cli.main import app
from execmem.core.files import complete_records
from execmem.core.protocols import MemoryItem
from execmem.core.tokens import estimate_tokens
from execmem.memory import MemorySetupError, registry
from execmem.memory.bm25 import Bm25Memory
from execmem.suites.vehicle.dataset import HistoryLine, load_history
from execmem.testing.fake_server import FakeServer, Reply, ToolCallSpec
from execmem.testing.vehicle_oracle import request_query
from tests.runs.conftest import run_vehicle


def search_first(oracle, top_k: int = 2):
    """Searches memory with the request text first, then plays the oracle (which ignores memory)."""

    def policy(body):
        query = request_query(body)
        messages = body["messages"]
        if query is None:
            return oracle(body)
        if len(messages) == 2:
            return Reply(tool_calls=[ToolCallSpec("search_memory", {"query": query, "top_k": top_k})])
        return oracle({**body, "messages": messages[:2] + messages[4:]})

    return policy


def test_bm25_run_ingests_history_and_the_search_result_reaches_the_model(
    tmp_path, oracle, questions, vehicle_data
):
    folder = tmp_path / "run"
    with FakeServer(search_first(oracle)) as server:
        metrics = run_vehicle(folder, server.base_url, vehicle_data, memory="bm25", scenarios=[1])
        requests = list(server.requests)
    assert metrics["episodes"]["finished"] == 10 and metrics["overall"]["exact_match"] == 1.0
    second_steps = [r for r in requests if len(r["messages"]) == 4]
    assert len(second_steps) == 10
    for request in second_steps:
        assert "search_memory" in {t["function"]["name"] for t in request["tools"]}
        assert request["messages"][3]["role"] == "tool"
        assert request["messages"][3]["content"].startswith("(1) [2025-")
    results = {request_query(r): r["messages"][3]["content"] for r in second_steps}
    query_of = {q.id: q.query for q in questions}
    for episode in complete_records(folder / "episodes.jsonl"):
        assert episode["memory_tool_calls"] == 1
        assert episode["memory_tokens"] == estimate_tokens(results[query_of[episode["id"]]]) > 0
    history = load_history(vehicle_data, 1)
    record = json.loads((folder / "memory" / "scenario-1.json").read_text())
    assert record["user_id"] == "run-1"
    assert (record["lines"], record["hours"]) == (len(history), len(by_hour(history)))
    assert record["cost"]["seconds"] > 0 and record["cost"]["llm_calls"] == 0
    assert metrics["memory_build"]["seconds"] == record["cost"]["seconds"]
    memory = json.loads((folder / "config.json").read_text())["components"]["memory"]
    assert memory["protocol"] == "B" and memory["system"]["windowing"] == {"mode": "hour"}


def _units(folder, user_id: str) -> int:
    with sqlite3.connect(folder / "memory-system" / "memory.sqlite") as conn:
        return conn.execute("SELECT COUNT(*) FROM bm25_units WHERE user_id = ?", (user_id,)).fetchone()[0]


def test_resume_reuses_the_ingested_history_and_a_cut_ingest_is_redone(tmp_path, oracle, vehicle_data):
    folder = tmp_path / "run"
    hours = len(by_hour(load_history(vehicle_data, 2)))
    with FakeServer(search_first(oracle)) as server:
        run_vehicle(folder, server.base_url, vehicle_data, memory="bm25", scenarios=[2])
        first = json.loads((folder / "memory" / "scenario-2.json").read_text())
        (folder / "episodes.jsonl").write_text("")  # forget the episodes: every one runs again
        run_vehicle(folder, server.base_url, vehicle_data, memory="bm25", scenarios=[2])
        assert json.loads((folder / "memory" / "scenario-2.json").read_text()) == first
        assert _units(folder, "run-2") == hours
        (folder / "memory-system" / "scenario-2.ingested.json").unlink()  # as if killed mid-ingest
        (folder / "episodes.jsonl").write_text("")
        metrics = run_vehicle(folder, server.base_url, vehicle_data, memory="bm25", scenarios=[2])
    assert _units(folder, "run-2") == hours  # written again into a clean space, not twice
    assert metrics["overall"]["exact_match"] == 1.0


def test_each_scenario_searches_only_its_own_space(tmp_path):
    lines = {
        1: "Set the ambient light to green, please.",
        2: "My xylophone lessons start on Tuesday.",
    }

    def history(scenario):
        return [HistoryLine(scenario, 1, datetime(2025, 3, scenario, 9, 0), "Ann Lee", lines[scenario])]

    memory = Bm25Memory(path=str(tmp_path / "m.sqlite"), windowing="turn")
    condition = MemorySystemCondition("bm25", memory, history, tmp_path / "state", "iso", top_k=5)

    async def search(scenario, query):
        prepared = await condition.prepare(scenario)
        return await prepared.tools().call("search_memory", {"query": query})

    assert asyncio.run(search(1, "xylophone lessons")) == format_results([])
    assert "xylophone" in asyncio.run(search(2, "xylophone lessons"))
    assert "green" in asyncio.run(search(1, "ambient light green"))


def test_search_results_are_formatted_with_their_times():
    stamped = MemoryItem("[2025-04-15 09:00] Justin Martinez: blue panel", 1.0, (datetime(2025, 4, 15, 9),))
    bare = MemoryItem("Justin likes a blue panel", 1.0, (datetime(2025, 4, 15, 9), datetime(2025, 4, 15, 10)))
    assert format_item(stamped) == stamped.text
    assert format_item(bare) == "[2025-04-15 09:00 - 2025-04-15 10:00] Justin likes a blue panel"
    assert format_item(MemoryItem("no time", 1.0)) == "no time"
    assert format_results([stamped, bare]).split("\n\n")[1].startswith("(2) [2025-04-15 09:00 - ")
    assert [clamp_k(None, 5, 20), clamp_k("3", 5, 20), clamp_k(0, 5, 20), clamp_k(99, 5, 20)] == [5, 3, 1, 20]


def test_bad_tool_arguments_get_an_error_back(tmp_path):
    tool = SearchMemoryTool(Bm25Memory(), "nobody", 5, 20)
    for arguments in ({}, {"query": "  "}, {"query": 3}):
        assert "non-empty string" in asyncio.run(tool.call("search_memory", arguments))
    assert tool.schemas()[0]["parameters"]["properties"]["top_k"]["maximum"] == 20


runner = CliRunner()


@pytest.fixture
def _data_env(vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(vehicle_data))


@pytest.mark.usefixtures("_data_env")
def test_unknown_memory_lists_protocol_a_conditions_and_registered_systems(tmp_path):
    result = runner.invoke(
        app, ["vehicle", "run", "--model", "m", "--memory", "nope", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "'nope'" in text and "key-value" in text and "bm25" in text


@pytest.mark.usefixtures("_data_env")
def test_window_option_is_refused_for_protocol_a(tmp_path):
    args = ["vehicle", "run", "--model", "m", "--memory", "gold", "--window", "turn", "--out", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "memory systems" in result.output


@pytest.mark.usefixtures("_data_env")
def test_bad_memory_option_is_a_clear_error(tmp_path):
    args = ["vehicle", "run", "--model", "m", "--memory", "bm25", "--memory-option", "rrf_k=3"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "rrf_k" in result.output


class PathOnlyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    accepts: ClassVar[frozenset[str]] = frozenset({"path"})
    path: str


class LabelOnly:
    """A system that declares nothing: its constructor takes nothing execmem offers."""

    def __init__(self, label: str = "x"):
        self.label = label


class TakesAnything:
    """A system that declares nothing but would swallow any keyword: it must be offered nothing."""

    def __init__(self, **config):
        self.config = config


FACTORIES = {"path-only": PathOnlyConfig, "label-only": LabelOnly, "anything": TakesAnything}


def test_offered_settings_go_only_to_systems_that_declare_them(monkeypatch):
    monkeypatch.setattr(registry, "memory_factory", FACTORIES.__getitem__)
    monkeypatch.setattr(registry, "create_memory", lambda name, **config: FACTORIES[name](**config))
    assert open_system("path-only", "/tmp/state.sqlite", {}) == PathOnlyConfig(path="/tmp/state.sqlite")
    assert open_system("label-only", "/tmp/state.sqlite", {"label": "y"}).label == "y"
    assert open_system("anything", "/tmp/state.sqlite", {"k": 1}).config == {"k": 1}
    with pytest.raises(MemorySetupError, match="windowing"):  # asked for explicitly: an error
        open_system("path-only", "/tmp/state.sqlite", {"windowing": "turn"})
    with pytest.raises(MemorySetupError, match="colour"):
        open_system("label-only", "/tmp/state.sqlite", {"colour": "red"})


def test_embedded_systems_get_the_run_file_and_hour_windowing(tmp_path):
    memory = open_system("bm25", str(tmp_path / "state.sqlite"), {})
    assert memory.describe()["path"] == str(tmp_path / "state.sqlite")
    assert memory.describe()["windowing"] == {"mode": "hour"}
    assert open_system("bm25", str(tmp_path / "s.sqlite"), {"windowing": "turn"}).describe()["windowing"] == {
        "mode": "turn"
    }
