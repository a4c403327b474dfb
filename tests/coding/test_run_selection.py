"""Choosing what a coding run covers: the shipped set by name, ``--only`` and ``--limit``; and the
compare report's small-sample warning."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import execmem.cli.coding_run  # noqa: F401 - adds run/compare to the coding app
from execmem.cli.coding import app
from execmem.core.hashing import file_sha256
from execmem.llm.config import ModelConfig
from execmem.runs.coding.compare import CodingRunData, paired_report
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.metrics import compute_metrics
from execmem.runs.coding.run import CodingRun
from execmem.runs.episode_log import RunFolderError
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import load_tasks
from tests.coding.conftest import needs_bwrap

BUILTIN_IDS = [task.instance_id for task in load_tasks(builtin_tasks_path())]


def config(**options) -> CodingRunConfig:
    model = ModelConfig(model="fake", base_url="http://127.0.0.1:9/v1")
    return CodingRunConfig(model=model, tasks_file=builtin_tasks_path(), seeds=1, **options)


@needs_bwrap
def test_the_shipped_set_with_a_subset_is_declared_and_pinned(tmp_path):
    chosen = [BUILTIN_IDS[5], BUILTIN_IDS[2], BUILTIN_IDS[9]]
    run = CodingRun(config(only=chosen, limit=2), tmp_path / "run")
    assert [task.instance_id for task in run.tasks] == [BUILTIN_IDS[2], BUILTIN_IDS[5]]  # file order
    tasks = json.loads((tmp_path / "run" / "manifest.json").read_text())["tasks"]
    assert tasks == {
        "file_sha256": file_sha256(builtin_tasks_path()), "only": sorted(chosen), "limit": 2,
        "order": [BUILTIN_IDS[2], BUILTIN_IDS[5]], "frozen_file_sha256": None,
    }  # fmt: skip
    run.store.close()
    with pytest.raises(RunFolderError, match="tasks"):
        CodingRun(config(only=chosen, limit=3), tmp_path / "run")


@needs_bwrap
def test_memory_records_come_from_the_whole_file_not_the_subset(tmp_path):
    later = next(t for t in load_tasks(builtin_tasks_path()) if t.instance_id.endswith("__bug-06"))
    run = CodingRun(config(only=[later.instance_id], memory="record"), tmp_path / "run")
    assert len(run.memories.by_target[later.instance_id].sources) == 3  # earlier same-repo tasks only
    run.store.close()


def test_run_options_are_checked_before_anything_runs(tmp_path):
    base = ["run", "--model", "fake", "--out", str(tmp_path / "out"), "--base-url", "http://127.0.0.1:9/v1"]
    unknown = CliRunner().invoke(app, [*base, "--tasks", "builtin", "--only", f"{BUILTIN_IDS[0]},nope__1"])
    assert unknown.exit_code == 2 and "unknown task id(s) nope__1" in unknown.output
    assert "Traceback" not in unknown.output and not (tmp_path / "out").exists()
    missing = CliRunner().invoke(app, [*base, "--tasks", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2 and "--tasks" in missing.output and "not a file" in missing.output
    zero = CliRunner().invoke(app, [*base, "--tasks", "builtin", "--limit", "0"])
    assert zero.exit_code == 2 and "--limit" in zero.output
    nothing = CliRunner().invoke(app, [*base, "--tasks", "builtin", "--only", ","])  # ran all 48
    assert nothing.exit_code == 2 and "'--only': ',' names nothing" in nothing.output
    (tmp_path / "empty.jsonl").write_text("\n\n")
    empty = CliRunner().invoke(app, [*base, "--tasks", str(tmp_path / "empty.jsonl")])  # ran 0 of 0
    assert empty.exit_code == 2 and "empty.jsonl: holds no task" in empty.output
    (tmp_path / "a-file").write_text("keep")
    cache = CliRunner().invoke(app, [*base, "--tasks", "builtin", "--cache-dir", str(tmp_path / "a-file")])
    assert cache.exit_code == 2 and f"--cache-dir {tmp_path / 'a-file'} is a file" in cache.output
    assert not (tmp_path / "out").exists()


def fake_run(role: str, n_targets: int, resolved: np.ndarray) -> CodingRunData:
    targets = [f"t{i}" for i in range(n_targets)]
    manifest = {"memory": {"condition": role}, "seeds": [0], "tasks": {"order": targets}}
    episodes = {
        f"{t}@0": {"id": f"{t}@0", "resolved": bool(resolved[i]), "input_tokens": 1, "output_tokens": 1,
                   "steps": 1}
        for i, t in enumerate(targets)
    }  # fmt: skip
    return CodingRunData(Path(f"/runs/{role}"), manifest, episodes)


@pytest.mark.parametrize(("n_targets", "warned"), [(19, True), (20, False)])
def test_compare_warns_when_the_interval_rests_on_few_targets(n_targets, warned):
    rng = np.random.default_rng(0)
    runs = [fake_run(role, n_targets, rng.random(n_targets) < 0.5) for role in ("off", "record")]
    report = paired_report(runs, n_resamples=200)
    assert report["small_sample"] is warned
    assert bool(report["warnings"]) is warned
    if warned:
        assert f"rest on {n_targets} targets (fewer than 20)" in report["warnings"][0]


def test_suspect_episodes_never_count_as_resolved_and_are_counted_apart():
    honest = {"resolved": True, "end_reason": "submitted", "model_errors": {}}
    costs = ("steps", "input_tokens", "output_tokens", "commands", "agent_s", "memory_chars")
    honest |= dict.fromkeys(costs, 1)
    suspect = honest | {"evaluation_suspect": True, "suspect_reasons": ["forged"]}
    metrics = compute_metrics([honest, suspect], [], 2)
    assert (metrics["resolved"], metrics["resolved_rate"], metrics["evaluation_suspect"]) == (1, 0.5, 1)
    runs = [fake_run(role, 20, np.ones(20, dtype=bool)) for role in ("off", "record")]
    runs[1].episodes["t0@0"]["evaluation_suspect"] = True
    report = paired_report(runs, n_resamples=200)
    assert report["conditions"]["record"]["evaluation_suspect"] == 1
    assert report["conditions"]["record"]["resolved_rate"] == pytest.approx(19 / 20)
    assert report["effects"][0]["lost"] == 1


@needs_bwrap
def test_a_run_where_no_episode_finished_says_nothing_scored(tmp_path):
    from execmem.testing.fake_server import FakeServer, Fault
    from tests.coding.paired_support import make_tasks

    tasks = make_tasks(tmp_path, pkgs=("alpha",))
    with FakeServer(lambda body: Fault(500)) as server:
        args = ["run", "--tasks", str(tasks), "--only", "alpha__double", "--model", "fake", "--seeds", "1"]
        args += [
            "--base-url",
            server.base_url,
            "--out",
            str(tmp_path / "run"),
            "--quiet",
            "--max-retries",
            "0",
        ]
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 1, done.output
    assert f"{tmp_path / 'run'}: 0/1 episodes: nothing scored" in done.output and "0.000" not in done.output
