"""`vehicle diagnose` on hand-made run folders: one per label of docs/diagnosis.md, each built so
that exactly the rule under test is the first that holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execmem.runs.vehicle.diagnose import diagnose
from execmem.runs.vehicle.diagnosis_report import DiagnosisReport
from execmem.suites.vehicle.diagnosis import LABELS
from tests.cli.conftest import assert_one_line_error, invoke
from tests.runs.test_vehicle_audit import HISTORY_1, write_release

# Question 1-0 of the hand-made release: "set things the way they like" for Ann (ambient green,
# event 0: lines 1-2) and Bob (headrest 44, event 1: lines 5-6). Memory values: green, 44.
LINE = {n: text for n, text in enumerate(HISTORY_1.splitlines(), start=1)}
GREEN = {"name": "carcontrol_light_set_ambient_color", "args": {"color": "green"}}
BLUE = {"name": "carcontrol_light_set_ambient_color", "args": {"color": "blue"}}
HEADREST = {"name": "carcontrol_seat_set_headrest_height", "args": {"seat": "driver", "value": 44}}
PASSENGER = {"name": "carcontrol_seat_set_headrest_height", "args": {"seat": "passenger", "value": 44}}
HEATING = {"name": "carcontrol_seat_set_heating_level", "args": {"seat": "driver", "level": 2}}
VERTICAL = {"name": "carcontrol_seat_set_vertical_position", "args": {"seat": "driver", "value": 44}}
BLUETOOTH = {"name": "carcontrol_bluetooth_set_connection", "args": {"connected": True}}
GOLD = [GREEN, HEADREST]
EVIDENCE = "\n".join(LINE[n] for n in (1, 2, 5, 6))  # every event's lines, as a search returns them
NOISE = LINE[7]  # the football line: no event, no value
GOLD_MEMORY = (
    "[March 1, 2025] At 9:00 AM, Ann asked for a green ambient light.\n"
    "[March 2, 2025] At 8:00 PM, Bob needs his headrest at 44."
)


@pytest.fixture
def release(tmp_path) -> Path:
    return write_release(tmp_path / "release")


def messages(prompt_memory: str | None = None, results: tuple[str, ...] = (), query: str = "q") -> list:
    """An episode's messages: the prompt (with a memory block), then one search per result."""
    block = (
        f"What you remember:\n<memory>\n{prompt_memory}\n</memory>\n\n" if prompt_memory is not None else ""
    )
    shown = [{"role": "system", "content": "You are the in-car assistant."}]
    shown.append({"role": "user", "content": f"{block}Request: {query}"})
    for n, result in enumerate(results):
        call = {"id": f"s{n}", "type": "function", "function": {"name": "search_memory", "arguments": "{}"}}
        shown += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"s{n}", "content": result},
        ]
    return shown


def episode(calls: list, index: int = 0, exact: bool = False, episode_id: str | None = None) -> dict:
    return {
        "id": episode_id or f"1-{index}",
        "scenario": 1,
        "index": index,
        "reasoning_type": "preference_conflict" if index == 0 else "state_shift",
        "exact_match": exact,
        "calls": calls,
        "end_reason": "answered",
        "steps": 3,
    }


def make_run(root: Path, release: Path, memory: str, episodes=(), trajectories=None, infra=(), memories=None):
    root.mkdir(parents=True)
    identity = {"model": {"model": "m"}, "memory": memory, "scenarios": [1]}
    config = {"identity": identity, "invocation": {"data_dir": str(release)}}
    (root / "config.json").write_text(json.dumps(config))
    (root / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes))
    (root / "infra_errors.jsonl").write_text("".join(json.dumps(r) + "\n" for r in infra))
    lines = [{"id": key, "messages": shown} for key, shown in (trajectories or {}).items()]
    (root / "trajectories.jsonl").write_text("".join(json.dumps(t) + "\n" for t in lines))
    for scenario, record in (memories or {}).items():
        (root / "memory").mkdir(exist_ok=True)
        (root / "memory" / f"scenario-{scenario}.json").write_text(json.dumps(record))
    return root


def label_of(run: Path, episode_id: str = "1-0") -> str:
    report = diagnose(run)
    found = {e.id: e.label for e in report.episodes}
    return found.get(episode_id)


def test_an_infrastructure_error(release, tmp_path):
    infra = [{"id": "1-0", "scenario": 1, "index": 0, "error_kind": "infra", "reason": "HTTP 500: boom"}]
    run = make_run(tmp_path / "r", release, "bm25", infra=infra)
    report = diagnose(run)
    (only,) = report.episodes
    assert (only.label, only.error_kind, only.error, only.stored) == (
        "infrastructure_error",
        "infra",
        "HTTP 500: boom",
        None,
    )
    assert report.overall.episodes == 1 and report.overall.failures == 1


def test_no_action_comes_before_the_memory(release, tmp_path):
    run = make_run(tmp_path / "r", release, "none", [episode([])], {"1-0": messages()})
    assert label_of(run) == "no_action"


def test_calls_of_tools_the_car_does_not_have_are_no_action(release, tmp_path):
    """A hand-made line may list a call of an unknown tool: it never reached the car."""
    unknown = {"name": "carcontrol_light_set_disco_mode", "args": {"color": "green"}}
    run = make_run(
        tmp_path / "r", release, "bm25", [episode([unknown])], {"1-0": messages(None, (EVIDENCE,))}
    )
    assert label_of(run) == "no_action"


@pytest.mark.parametrize(
    ("memory", "prompt", "memories"),
    [
        ("none", None, None),
        ("summary", "Ann likes calm colours. Bob talks about football.", None),
        ("full-history", "<memory: memory/scenario-1.json#text>", {1: {"text": NOISE}}),
        ("key-value", None, {1: {"entries": {"Ann / ambient": "calm colour"}}}),
    ],
)
def test_not_stored(release, tmp_path, memory, prompt, memories):
    trajectories = {"1-0": messages(prompt)}
    run = make_run(
        tmp_path / "r", release, memory, [episode([BLUE, HEADREST])], trajectories, memories=memories
    )
    assert label_of(run) == "not_stored"


@pytest.mark.parametrize(
    ("memory", "memories"),
    [("bm25", None), ("key-value", {1: {"entries": {"Ann / ambient": "green", "Bob / headrest": "44"}}})],
)
def test_not_retrieved(release, tmp_path, memory, memories):
    trajectories = {"1-0": messages(results=(NOISE,))}
    run = make_run(
        tmp_path / "r", release, memory, [episode([BLUE, HEADREST])], trajectories, memories=memories
    )
    assert label_of(run) == "not_retrieved"


def test_a_prompt_memory_by_reference_is_read_from_the_memory_record(release, tmp_path):
    trajectories = {"1-0": messages("<memory: memory/scenario-1.json#text>")}
    memories = {1: {"text": EVIDENCE}}
    run = make_run(
        tmp_path / "r", release, "full-history", [episode([BLUE, HEADREST])], trajectories, memories=memories
    )
    (only,) = diagnose(run).episodes
    assert only.label == "retrieved_not_used" and only.delivered and only.stored
    assert only.memory.prompt_ref == "memory/scenario-1.json#text" and only.memory.prompt_chars == len(
        EVIDENCE
    )
    assert only.memory.prompt_lines == [LINE[n] for n in (1, 2, 5, 6)]


def test_retrieved_but_not_used(release, tmp_path):
    trajectories = {"1-0": messages(results=(EVIDENCE,))}
    run = make_run(tmp_path / "r", release, "bm25", [episode([BLUE, HEADREST])], trajectories)
    (only,) = diagnose(run).episodes
    assert only.label == "retrieved_not_used"
    assert only.values_shown == ["green", 44] and only.events_shown == [0, 1]


def test_values_alone_deliver_and_so_do_events_alone(release, tmp_path):
    values_only = "Ann: green. Bob: 44."  # quotes no line, holds both values
    events_only = "\n".join(LINE[n] for n in (1, 5)).replace("44", "forty-four")
    trajectories = {"1-0": messages(results=(values_only,)), "1-0~t2": messages(results=(events_only,))}
    episodes = [episode([BLUE, HEADREST]), episode([BLUE, HEADREST], episode_id="1-0~t2")]
    report = diagnose(make_run(tmp_path / "r", release, "bm25", episodes, trajectories))
    by_id = {e.id: e for e in report.episodes}
    assert by_id["1-0"].delivered and by_id["1-0"].events_shown == []
    assert (
        by_id["1-0~t2"].delivered and by_id["1-0~t2"].values_shown == ["green"] and by_id["1-0~t2"].trial == 2
    )


def test_wrong_tool_or_module(release, tmp_path):
    trajectories = {"1-0": messages(GOLD_MEMORY)}
    # The memory's 44 used, on another tool: the headrest is left alone.
    run = make_run(tmp_path / "r", release, "gold", [episode([GREEN, VERTICAL])], trajectories)
    assert label_of(run) == "wrong_tool_or_module"


def test_a_shown_value_the_agent_never_uses_comes_before_the_wrong_tool(release, tmp_path):
    trajectories = {"1-0": messages(GOLD_MEMORY)}
    run = make_run(tmp_path / "r", release, "gold", [episode([GREEN, HEATING])], trajectories)
    assert label_of(run) == "retrieved_not_used"


def test_wrong_value_with_the_right_tools_and_values(release, tmp_path):
    trajectories = {"1-0": messages(GOLD_MEMORY)}
    run = make_run(tmp_path / "r", release, "gold", [episode([GREEN, PASSENGER])], trajectories)
    (only,) = diagnose(run).episodes
    assert only.label == "wrong_value"
    assert only.state_diff["seat.driver.headrest_height"].status == "missed"
    assert only.state_diff["seat.passenger.headrest_height"].model_dump() == {
        "initial": 50,
        "gold": None,
        "agent": 44,
        "status": "extra",
    }


def test_extra_action(release, tmp_path):
    trajectories = {"1-0": messages(GOLD_MEMORY)}
    run = make_run(tmp_path / "r", release, "gold", [episode([GREEN, HEADREST, BLUETOOTH])], trajectories)
    (only,) = diagnose(run).episodes
    assert only.label == "extra_action"
    assert [c.name for c in only.calls] == [c["name"] for c in (GREEN, HEADREST, BLUETOOTH)]
    assert all(c.success for c in only.calls)


def test_an_adapter_is_stored_when_any_search_of_the_scenario_returned_the_evidence(release, tmp_path):
    trajectories = {"1-0": messages(results=(NOISE,)), "1-1": messages(results=(EVIDENCE,), query="x")}
    episodes = [episode([BLUE, HEADREST]), episode([VERTICAL], index=1)]
    report = diagnose(make_run(tmp_path / "r", release, "mem0", episodes, trajectories))
    assert report.memory_kind == "system" and report.stored_basis == "estimated"
    by_id = {e.id: e.label for e in report.episodes}
    assert by_id == {"1-0": "not_retrieved", "1-1": "wrong_tool_or_module"}
    alone = make_run(tmp_path / "s", release, "mem0", episodes[:1], {"1-0": messages(results=(NOISE,))})
    assert label_of(alone) == "not_stored"


def test_exact_episodes_are_not_failures_and_shares_sum_to_the_failures(release, tmp_path):
    trajectories = {"1-0": messages(GOLD_MEMORY), "1-1": messages(GOLD_MEMORY)}
    episodes = [episode(GOLD, exact=True), episode([], index=1)]
    infra = [{"id": "1-0~t2", "scenario": 1, "index": 0, "error_kind": "crash", "reason": "KeyError: x"}]
    report = diagnose(make_run(tmp_path / "r", release, "gold", episodes, trajectories, infra))
    assert [e.id for e in report.episodes] == ["1-0~t2", "1-1"]
    assert report.overall.episodes == 3 and report.overall.failures == 2
    assert sum(report.overall.counts.values()) == report.overall.failures
    assert sum(report.overall.shares.values()) == pytest.approx(1.0)
    assert report.by_reasoning_type["state_shift"].counts["no_action"] == 1
    assert report.by_reasoning_type["preference_conflict"].counts["infrastructure_error"] == 1
    assert list(report.overall.counts) == list(LABELS)


def test_shares_in_thirds_sum_to_one_in_diagnosis_json(release, tmp_path):
    """Shares are kept whole in the report (the table rounds them): 3 x 1/3 sums to 1, not 0.9999."""
    episodes = [episode([]), episode([BLUETOOTH], episode_id="1-0~t2")]
    infra = [{"id": "1-0~t3", "scenario": 1, "index": 0, "error_kind": "infra", "reason": "HTTP 500"}]
    run = make_run(tmp_path / "r", release, "bm25", episodes, {}, infra)
    diagnose(run)
    shares = json.loads((run / "diagnosis.json").read_text())["overall"]["shares"]
    assert sorted(v for v in shares.values() if v) == [1 / 3] * 3
    assert abs(sum(shares.values()) - 1.0) < 1e-12


def test_the_command_writes_diagnosis_json_and_prints_the_table(release, tmp_path):
    trajectories = {"1-0": messages(results=(NOISE,))}
    run = make_run(tmp_path / "r", release, "bm25", [episode([BLUE, HEADREST])], trajectories)
    result = invoke("vehicle", "diagnose", run)
    assert result.exit_code == 0, result.output
    assert "not_retrieved" in result.stdout and max(map(len, result.stdout.splitlines())) <= 80
    report = DiagnosisReport.model_validate_json((run / "diagnosis.json").read_text())
    assert report.format == "execmem-vehicle-diagnosis/1" and report.episodes[0].label == "not_retrieved"
    summary = json.loads(invoke("vehicle", "diagnose", run, "--json").stdout)
    assert summary["overall"]["counts"]["not_retrieved"] == 1 and "episodes" not in summary


def test_a_folder_that_is_no_run_is_one_line_and_exit_2(tmp_path):
    assert_one_line_error(invoke("vehicle", "diagnose", tmp_path), "config.json is missing")
