"""Repeated trials (--trials): seeded requests, every trial kept, pass^k and the spread in metrics;
prices turn tokens into money in metrics and compare."""

from __future__ import annotations

import json
from math import comb

import pytest

from execmem.runs.vehicle.trials import episode_id, split_episode_id, trial_seed
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_oracle import OraclePolicy
from tests.cli.conftest import assert_one_line_error, invoke
from tests.conftest import read_jsonl
from tests.runs.conftest import run_vehicle

SCENARIOS = [1, 2]


def test_trial_ids_and_seeds():
    assert [episode_id("3-4", t) for t in (1, 2)] == ["3-4", "3-4~t2"]
    assert split_episode_id("3-4~t12") == ("3-4", 12) and split_episode_id("3-4") == ("3-4", 1)
    assert [trial_seed(None, t) for t in (1, 2, 3)] == [None, 1, 2]
    assert [trial_seed(7, t) for t in (1, 2, 3)] == [7, 8, 9]


@pytest.fixture(scope="module")
def trial_run(tmp_path_factory, vehicle_data, questions):
    folder = tmp_path_factory.mktemp("trials") / "run"
    with FakeServer(OraclePolicy(questions, mistakes=0.4)) as server:
        metrics = run_vehicle(folder, server.base_url, vehicle_data, scenarios=SCENARIOS, trials=3)
        seeds = {request.get("seed") for request in server.requests}
    return folder, metrics, seeds


def test_every_trial_is_kept_with_its_own_id_and_seed(trial_run):
    folder, metrics, seeds = trial_run
    episodes = read_jsonl(folder / "episodes.jsonl")
    assert len(episodes) == 60 and metrics["episodes"]["expected"] == 60
    assert {split_episode_id(e["id"])[1] for e in episodes} == {1, 2, 3}
    assert all(e["trial"] == split_episode_id(e["id"])[1] for e in episodes)
    assert seeds == {None, 1, 2}  # trial 1 sends none, as a run without --trials
    assert len(read_jsonl(folder / "trajectories.jsonl")) == 60


def test_pass_k_and_spread_are_computed_from_the_trials(trial_run):
    folder, metrics, _ = trial_run
    by_question: dict[str, list[bool]] = {}
    for episode in read_jsonl(folder / "episodes.jsonl"):
        by_question.setdefault(split_episode_id(episode["id"])[0], []).append(episode["exact_match"])
    block = metrics["trials"]
    for k in (1, 2, 3):
        expected = sum(comb(sum(found), k) / comb(3, k) for found in by_question.values()) / len(by_question)
        assert block["pass_k"][str(k)] == pytest.approx(expected, abs=1e-4)
    assert block["pass_k"]["3"] == pytest.approx(sum(all(f) for f in by_question.values()) / 20, abs=1e-4)
    assert block["pass_k"]["1"] == pytest.approx(metrics["overall"]["exact_match"], abs=1e-4)
    esms = [t["exact_match"] for t in block["per_trial"]]
    assert len(set(esms)) > 1 and block["exact_match_sd"] > 0  # the seed changes the oracle's mistakes
    assert (block["exact_match_min"], block["exact_match_max"]) == (min(esms), max(esms))
    assert set(metrics["by_reasoning_type"]["state_shift"]["pass_k"]) == {"1", "2", "3"}


def test_more_trials_on_a_finished_run_adds_trials(trial_run, tmp_path, vehicle_data, questions):
    import shutil

    folder = tmp_path / "more"
    shutil.copytree(trial_run[0], folder)
    with FakeServer(OraclePolicy(questions, mistakes=0.4)) as server:
        metrics = run_vehicle(folder, server.base_url, vehicle_data, scenarios=SCENARIOS, trials=4)
        assert {r.get("seed") for r in server.requests} == {3}  # only trial 4 ran
    assert metrics["episodes"]["finished"] == 80 and len(metrics["trials"]["per_trial"]) == 4


def test_compare_warns_when_a_difference_is_within_the_trials_noise(
    trial_run, tmp_path, vehicle_data, questions
):
    with FakeServer(OraclePolicy(questions, mistakes=0.4, seed=1)) as server:
        run_vehicle(tmp_path / "other", server.base_url, vehicle_data, scenarios=SCENARIOS, trials=3)
    result = invoke("vehicle", "compare", trial_run[0], tmp_path / "other", "--json", "--resamples", "500")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows[1]["noise_floor"] > 0 and rows[1]["trials"] == 3
    assert rows[1]["within_noise"] == (abs(rows[1]["delta_esm"]) <= rows[1]["noise_floor"])
    if rows[1]["within_noise"]:
        assert "within the noise floor" in result.stderr


def test_prices_turn_tokens_into_cost_in_metrics_and_compare(tmp_path, oracle, vehicle_data):
    with FakeServer(oracle) as server:
        args = ["--model", "m", "--base-url", server.base_url, "--scenarios", "1", "--quiet"]
        result = invoke(
            "vehicle", "run", *args, "--out", tmp_path / "r", "--price-in", "2", "--price-out", "8"
        )
    assert result.exit_code == 0, result.output
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())
    cost = metrics["cost"]
    episodes = read_jsonl(tmp_path / "r" / "episodes.jsonl")
    tokens_in, tokens_out = (
        sum(e["input_tokens"] for e in episodes),
        sum(e["output_tokens"] for e in episodes),
    )
    assert cost["answer"] == pytest.approx((2 * tokens_in + 8 * tokens_out) / 1e6)
    assert (
        cost["memory_build"] == 0
        and cost["total"] == cost["answer"]
        and cost["price"] == {"input": 2, "output": 8}
    )
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"input": 1, "output": 1}, "*": {"input": 0, "output": 0}}))
    shown = invoke("vehicle", "compare", tmp_path / "r", "--prices", prices, "--json")
    row = json.loads(shown.stdout)
    assert row["cost_answer"] == pytest.approx((tokens_in + tokens_out) / 1e6) and row["cost_build"] == 0
    table = invoke("vehicle", "compare", tmp_path / "r", "--prices", prices)
    assert "per question" in table.stdout and max(map(len, table.stdout.splitlines())) <= 80


@pytest.mark.parametrize(
    ("content", "args", "fragment"),
    [
        ('{"m": {"input": -1, "output": 1}}', ["--prices", "{file}"], "field m.input"),
        ('{"m": {"input": 1}}', ["--prices", "{file}"], "field m.output"),
        ("[1, 2", ["--prices", "{file}"], "invalid JSON"),
        (None, ["--price-in", "1"], "--price-in and --price-out go together"),
        ("{}", ["--prices", "{file}", "--price-in", "1"], "exclude each other"),
    ],
)
def test_bad_prices_are_one_line_errors(tmp_path, content, args, fragment):
    file = tmp_path / "prices.json"
    if content is not None:
        file.write_text(content)
    args = [str(file) if a == "{file}" else a for a in args]
    result = invoke("vehicle", "run", "--model", "m", "--out", tmp_path / "r", *args)
    line = assert_one_line_error(result, fragment)
    assert not (tmp_path / "r").exists(), line


def test_trials_share_one_connection_limit(tmp_path, vehicle_data):
    from execmem.llm.config import ModelConfig
    from execmem.runs.vehicle.config import VehicleRunConfig
    from execmem.runs.vehicle.run import VehicleRun

    config = VehicleRunConfig(
        model=ModelConfig(model="m", base_url="http://127.0.0.1:9/v1", max_connections=2),
        data_dir=vehicle_data,
        scenarios=[1],
        trials=3,
    )
    run = VehicleRun(config, tmp_path / "r")
    try:
        models = list(run.trial_models.values())
        assert [m.config.seed for m in models] == [None, 1, 2]
        assert all(m._limit is run.model._limit and m._transport is run.model._transport for m in models)
    finally:
        run.store.close()
        run.cache.close()


def test_trials_and_seed_from_the_command_line(tmp_path, questions):
    with FakeServer(OraclePolicy(questions)) as server:
        args = ["--model", "m", "--base-url", server.base_url, "--scenarios", "1", "--quiet"]
        result = invoke("vehicle", "run", *args, "--out", tmp_path / "r", "--trials", "2", "--seed", "5")
        assert result.exit_code == 0, result.output
        assert {r.get("seed") for r in server.requests} == {5, 6}
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["identity"]["model"]["seed"] == 5 and "trials" not in config["identity"]
    assert config["invocation"]["trials"] == 2
    assert json.loads((tmp_path / "r" / "metrics.json").read_text())["trials"]["pass_k"]["2"] == 1.0
