"""The scripted reader: it uses a preference only when memory delivered it, so offline runs tell
memories apart (none < bm25 < gold; full-history within the context limit at least bm25)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from execmem.runs.vehicle.diagnose import diagnose
from execmem.suites.vehicle.calls import ToolCall, parse_call_string
from execmem.suites.vehicle.dataset import Question
from execmem.suites.vehicle.evidence import memory_values
from execmem.suites.vehicle.world import initial_module_flat
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_reader import NOTHING_TO_DO, ReaderPolicy, read_calls
from tests.cli.conftest import invoke
from tests.conftest import REPO
from tests.runs.conftest import questions, run_vehicle  # noqa: F401 - questions: a fixture


def question(
    query: str, *answers: str, memory: str = "[March 1, 2025] At 9:00 AM, Gary said so."
) -> Question:
    calls = tuple(parse_call_string(a) for a in answers)
    return Question(1, 0, "preference_conflict", query, memory, answers, calls)


PANEL = 'carcontrol_instrumentPanel_set_color(color="green")'
HEADREST = 'carcontrol_seat_set_headrest_height(seat="driver", value=44)'


def test_a_value_the_memory_shows_is_used():
    q = question("Gary wants his usual panel colour.", PANEL)
    assert memory_values(q) == ("green",)
    assert read_calls(q, "Gary: I love a GREEN panel.") == [
        ToolCall(q.gold_calls[0].name, {"color": "green"})
    ]


def test_without_the_value_it_keeps_the_setting_the_car_has():
    q = question("Gary wants his usual panel colour.", PANEL)
    kept = initial_module_flat("instrumentPanel")["instrumentPanel.color"]
    assert kept != "green"
    assert read_calls(q, "Gary: I like my panel bright.") == [ToolCall(q.gold_calls[0].name, {"color": kept})]


def test_values_the_request_states_need_no_memory():
    q = question("Set my headrest to 44, please.", HEADREST)
    assert memory_values(q) == ()
    assert read_calls(q, "") == list(q.gold_calls)


def test_stamps_and_event_dates_are_not_values():
    q = question("Patricia adjusts her headrest.", HEADREST)
    memory = "[2025-04-44 09:00] ... (1) [2025-03-01 09:00 - 2025-03-01 09:44] [March 44, 2025]"
    assert read_calls(q, memory)[0].args["value"] != 44
    assert read_calls(q, memory + " headrest at 44.")[0].args["value"] == 44


def test_a_setting_without_a_value_on_a_fresh_car_is_left_out():
    q = question(
        "Take us to the usual place with detailed guidance.",
        'carcontrol_navigation_navigate_to(destination="Harbor Gym")',
        'carcontrol_navigation_set_voice_mode(mode="detailed")',
    )
    assert read_calls(q, "") == [q.gold_calls[1]]  # the destination had no value before: no guess


def test_the_policy_searches_first_then_reads_the_results():
    q = question("Gary wants his usual panel colour.", PANEL)
    policy = ReaderPolicy([q])
    search = {
        "type": "function",
        "function": {"name": "search_memory", "parameters": {"properties": {"query": {}}}},
    }
    body = {"messages": [{"role": "user", "content": f"Request: {q.query}"}], "tools": [search]}
    first = policy(body)
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("search_memory", {"query": q.query})]
    call = {"id": "c1", "type": "function", "function": {"name": "search_memory", "arguments": "{}"}}
    body["messages"] += [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "(1) [2025-03-01 09:00] Gary: green panel"},
    ]
    assert [c.arguments for c in policy(body).tool_calls] == [{"module_name": "instrumentPanel"}]
    body["messages"].append({"role": "assistant", "content": "", "tool_calls": []})
    assert json.loads(policy(body).tool_calls[0].arguments) == {"color": "green"}
    # A key-value memory's memory_search takes its own argument name.
    kv = {
        "type": "function",
        "function": {"name": "memory_search", "parameters": {"properties": {"key": {}}}},
    }
    asked = policy({"messages": body["messages"][:1], "tools": [kv]}).tool_calls[0]
    assert (asked.name, asked.arguments) == ("memory_search", {"key": q.query})


def test_with_nothing_to_do_it_answers_in_words():
    q = question("Take me to my usual gym.", 'carcontrol_navigation_navigate_to(destination="Harbor Gym")')
    reply = ReaderPolicy([q])({"messages": [{"role": "user", "content": f"Request: {q.query}"}]})
    assert reply.tool_calls == [] and reply.content == NOTHING_TO_DO


SCENARIOS = [1, 2, 3]


@pytest.fixture(scope="module")
def reader_runs(tmp_path_factory, vehicle_data, questions) -> Path:  # noqa: F811
    """The reader over the real HTTP client path, one run folder per memory."""
    root = tmp_path_factory.mktemp("reader")
    with FakeServer(ReaderPolicy(questions)) as server:
        for memory in MEMORIES:
            run_vehicle(root / memory, server.base_url, vehicle_data, memory=memory, scenarios=SCENARIOS)
    return root


MEMORIES = ("none", "bm25", "gold", "full-history")


@pytest.fixture(scope="module")
def esm(reader_runs) -> dict[str, float]:
    metrics = {m: json.loads((reader_runs / m / "metrics.json").read_text()) for m in MEMORIES}
    return {memory: found["overall"]["exact_match"] for memory, found in metrics.items()}


def test_offline_runs_order_none_below_bm25_below_gold(esm):
    assert esm["none"] < esm["bm25"] < esm["gold"]


def test_full_history_within_the_context_limit_scores_at_least_bm25(esm):
    assert esm["full-history"] >= esm["bm25"]


def test_diagnosis_of_reader_runs_blames_the_memory_link_each_memory_breaks(reader_runs):
    labels = {}
    for memory in MEMORIES:
        report = diagnose(reader_runs / memory)
        episodes = [
            json.loads(line) for line in (reader_runs / memory / "episodes.jsonl").read_text().splitlines()
        ]
        assert report.overall.failures == sum(not e["exact_match"] for e in episodes)
        labels[memory] = {label for label, count in report.overall.counts.items() if count}
    # The reader never misuses what it is shown: what breaks is what memory held or returned.
    assert labels["none"] <= {"no_action", "not_stored"} and "not_stored" in labels["none"]
    assert "not_retrieved" in labels["bm25"] and "not_stored" not in labels["bm25"]  # bm25 keeps every line
    assert not {"not_stored", "not_retrieved", "retrieved_not_used"} & labels["gold"]
    assert all("retrieved_not_used" not in found for found in labels.values())


def test_the_reader_serves_from_the_command_line(vehicle_data, tmp_path):
    command = [
        sys.executable,
        "-m",
        "execmem.testing.fake_server",
        "--policy",
        "reader",
        "--data",
        str(vehicle_data),
    ]
    process = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    try:
        url = process.stdout.readline().split()[1]
        runs = {}
        for memory in ("none", "gold"):
            args = ["--model", "scripted-reader", "--base-url", url, "--memory", memory, "--scenarios", "1"]
            result = invoke("vehicle", "run", *args, "--out", tmp_path / memory, "--quiet")
            assert result.exit_code == 0, result.output
            runs[memory] = json.loads((tmp_path / memory / "metrics.json").read_text())["overall"][
                "exact_match"
            ]
        assert runs["none"] < runs["gold"]
    finally:
        watchdog.cancel()
        process.kill()
        process.stdout.close()
