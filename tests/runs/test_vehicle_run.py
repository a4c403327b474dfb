"""Vehicle runs end to end: agent -> real HTTP -> fake model -> car -> score -> run folder."""

from __future__ import annotations

import json

from execmem.core.files import complete_records
from execmem.runs.vehicle.compare import compare_rows, load_run
from execmem.testing.fake_server import FakeServer, with_faults
from tests.runs.conftest import run_vehicle, scores

DUPLICATED = {"38-3", "44-5"}  # same query text as 38-2 / 44-4, different answers


def test_gold_run_reaches_the_ceiling(tmp_path, oracle, vehicle_data):
    with FakeServer(oracle) as server:
        metrics = run_vehicle(tmp_path / "gold", server.base_url, vehicle_data, memory="gold")
    episodes = complete_records(tmp_path / "gold" / "episodes.jsonl")
    assert len(episodes) == 500 and len({e["id"] for e in episodes}) == 500
    assert {e["id"] for e in episodes if not e["exact_match"]} == DUPLICATED
    assert metrics["overall"]["exact_match"] == 498 / 500
    assert metrics["episodes"] == {"expected": 500, "finished": 500, "infra_errors": 0, "complete": True}
    first = episodes[0]
    assert first["steps"] == 3 and first["memory_tokens"] > 0 and first["input_tokens"] > 0
    trajectory = complete_records(tmp_path / "gold" / "trajectories.jsonl")[0]
    assert trajectory["id"] in {e["id"] for e in episodes}
    per_call = trajectory["model_calls"]
    episode = next(e for e in episodes if e["id"] == trajectory["id"])
    assert len(per_call) == episode["steps"] == 3
    assert sum(c["input_tokens"] for c in per_call) == episode["input_tokens"]
    assert all(c["latency_s"] > 0 and not c["cached"] for c in per_call)
    assert [m["role"] for m in trajectory["messages"]][:3] == ["system", "user", "assistant"]


def test_injected_faults_are_retried_to_the_same_metrics(tmp_path, oracle, vehicle_data):
    options = {"memory": "gold", "scenarios": list(range(1, 11))}
    with FakeServer(oracle) as server:
        clean = run_vehicle(tmp_path / "clean", server.base_url, vehicle_data, **options)
    faulty = with_faults(oracle, rate=0.2, seed=7, timeout_s=1.5)
    with FakeServer(faulty) as server:
        model_options = {"timeout_s": 0.5}
        metrics = run_vehicle(
            tmp_path / "faulty", server.base_url, vehicle_data, model_options=model_options, **options
        )
    assert sum(faulty.injected.values()) > 30 and set(faulty.injected) >= {"429", "500", "timeout", "drop"}
    assert metrics["episodes"]["infra_errors"] == 0 and metrics["episodes"]["complete"]
    assert scores(metrics) == scores(clean)


def test_exhausted_retries_are_infra_errors_rerun_on_resume(tmp_path, oracle, vehicle_data):
    options = {"memory": "gold", "scenarios": [1, 2, 3]}
    with FakeServer(oracle) as server:
        clean = run_vehicle(tmp_path / "clean", server.base_url, vehicle_data, **options)
    folder = tmp_path / "run"
    faulty = with_faults(oracle, rate=0.3, seed=3, kinds=("500", "429"), faulty_attempts=5)
    with FakeServer(faulty) as server:
        first = run_vehicle(
            folder, server.base_url, vehicle_data, model_options={"max_retries": 1}, **options
        )
    failed = first["episodes"]["infra_errors"]
    assert (
        failed > 0 and first["episodes"]["finished"] == 30 - failed and first["overall"]["n"] == 30 - failed
    )
    reasons = complete_records(folder / "infra_errors.jsonl")
    assert all(r["error_kind"] == "infra" and ("500" in r["reason"] or "429" in r["reason"]) for r in reasons)
    with FakeServer(oracle) as server:
        resumed = run_vehicle(folder, server.base_url, vehicle_data, **options)
    assert resumed["episodes"]["infra_errors"] == 0 and resumed["episodes"]["finished"] == 30
    assert scores(resumed) == scores(clean)
    assert len(complete_records(folder / "episodes.jsonl")) == 30


def test_mistakes_are_scored_and_counted_as_model_errors(tmp_path, questions, vehicle_data):
    from execmem.testing.vehicle_oracle import OraclePolicy

    policy = OraclePolicy(questions, mistakes=0.6, seed=1)
    with FakeServer(policy) as server:
        metrics = run_vehicle(
            tmp_path / "run", server.base_url, vehicle_data, memory="none", scenarios=[1, 2, 3, 4]
        )
    assert 0.2 < metrics["overall"]["exact_match"] < 0.8
    errors = metrics["model_errors"]
    assert (
        errors.get("malformed_arguments", 0)
        + errors.get("unknown_tool", 0)
        + errors.get("unlisted_module", 0)
        > 0
    )
    episodes = {e["id"]: e for e in complete_records(tmp_path / "run" / "episodes.jsonl")}
    trajectories = {t["id"]: t for t in complete_records(tmp_path / "run" / "trajectories.jsonl")}
    checked = 0
    for question in questions[:40]:
        if policy.mistake(question) == "unlisted_module":
            tool_reply = next(m for m in trajectories[question.id]["messages"] if m["role"] == "tool")
            assert "list_module_tools" in tool_reply["content"]
            assert episodes[question.id]["model_errors"]["unlisted_module"] == 1
            checked += 1
    assert checked > 0


def test_compare_gives_memory_score_against_gold(tmp_path, oracle, vehicle_data, questions):
    from execmem.testing.vehicle_oracle import OraclePolicy

    with FakeServer(oracle) as server:
        run_vehicle(tmp_path / "gold", server.base_url, vehicle_data, memory="gold", scenarios=[38, 44])
    with FakeServer(OraclePolicy(questions, mistakes=0.5, seed=2)) as server:
        run_vehicle(tmp_path / "none", server.base_url, vehicle_data, memory="none", scenarios=[38, 44])
    rows = compare_rows([load_run(tmp_path / "gold"), load_run(tmp_path / "none")])
    gold, none = rows
    assert gold["esm"] == 18 / 20 and gold["memory_score"] == 1.0
    assert none["memory_score"] == none["esm"] / gold["esm"] and none["memtoken"] == 0
    assert gold["memtoken"] > 0


def test_api_key_is_never_written(tmp_path, oracle, vehicle_data, monkeypatch):
    monkeypatch.setenv("SECRET_KEY_VAR", "sk-very-secret-value")
    with FakeServer(oracle) as server:
        run_vehicle(
            tmp_path / "run",
            server.base_url,
            vehicle_data,
            memory="gold",
            scenarios=[1],
            model_options={"api_key_env": "SECRET_KEY_VAR"},
        )
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"sk-very-secret-value" not in data, path
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["components"]["model"]["api_key_env"] == "SECRET_KEY_VAR"


def test_cli_run_and_compare(tmp_path, oracle, vehicle_data):
    from typer.testing import CliRunner

    from execmem.cli.main import app

    runner = CliRunner()
    with FakeServer(oracle) as server:
        for memory in ("gold", "none"):
            args = [
                "vehicle",
                "run",
                "--model",
                "fake",
                "--memory",
                memory,
                "--base-url",
                server.base_url,
                "--scenarios",
                "38",
                "--out",
                str(tmp_path / memory),
                "--data",
                str(vehicle_data),
                "--quiet",
            ]
            result = runner.invoke(app, args)
            assert result.exit_code == 0, result.output
        again = runner.invoke(app, args)  # resume: nothing left to do, same folder
        assert again.exit_code == 0
        other = runner.invoke(app, [*args[:3], "other-model", *args[4:]])
        assert other.exit_code == 2 and "holds a different run" in other.stderr
    assert len(complete_records(tmp_path / "none" / "episodes.jsonl")) == 10
    result = runner.invoke(
        app, ["vehicle", "compare", str(tmp_path / "gold"), str(tmp_path / "none"), "--json"]
    )
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["memory"] for r in rows] == ["gold", "none"]
    assert rows[0]["esm"] == 0.9 and rows[1]["memory_score"] == rows[1]["esm"] / 0.9
    missing = runner.invoke(app, ["vehicle", "compare", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "is not a vehicle run folder: config.json is missing" in missing.stderr


def test_a_different_runs_folder_is_refused_untouched(tmp_path, oracle, vehicle_data):
    import pytest

    from execmem.runs.episode_log import RunFolderError

    with FakeServer(oracle) as server:
        run_vehicle(tmp_path / "run", server.base_url, vehicle_data, memory="gold", scenarios=[1])
        before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "run").rglob("*"))
        with pytest.raises(RunFolderError, match="memory: run has 'gold', command gives 'bm25'"):
            run_vehicle(tmp_path / "run", server.base_url, vehicle_data, memory="bm25", scenarios=[1])
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "run").rglob("*")) == before
