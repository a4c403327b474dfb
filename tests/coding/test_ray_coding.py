"""Coding runs on a local Ray instance (2 CPUs), on a slice of the shipped task set with a scripted
solver: the same run folder as in one process, a killed worker losing and repeating nothing, and
runs resumed from one executor on the other."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
from pathlib import Path

import pytest

from execmem.core.files import complete_records
from execmem.llm.config import ModelConfig
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.run import CodingRun
from execmem.runs.executors.ray_executor import Pool, RayExecutor
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.coding_policies import GoldPatcher, issue_of
from execmem.testing.fake_server import FakeServer, Fault
from tests.coding.conftest import needs_bwrap
from tests.conftest import comparable_lines

pytest.importorskip("ray")
pytestmark = [needs_bwrap, pytest.mark.network]
TASKS = load_tasks(builtin_tasks_path())
SLICE = [task.instance_id for task in TASKS if task.repo == "pypi/parse"][:2]  # 2 tasks x 2 seeds
TIMING = ("agent_s", "model_latency_s", "prepare_s", "eval_s", "test_s", "episode_s", "finished_at")
SCRATCH = Path(tempfile.gettempdir()) / "execmem-ray"


def run_slice(folder: Path, base_url: str, executor=None, on_episode=None, **model) -> dict:
    config = CodingRunConfig(
        model=ModelConfig(model="fake", base_url=base_url, backoff_base_s=0.01, **model),
        tasks_file=builtin_tasks_path(), only=SLICE, seeds=2, memory="record",
    )  # fmt: skip
    return asyncio.run(CodingRun(config, folder).run(on_episode, executor))


def same_runs(local: Path, remote: Path, local_metrics: dict, remote_metrics: dict) -> None:
    assert comparable_lines(remote / "episodes.jsonl", TIMING) == comparable_lines(
        local / "episodes.jsonl", TIMING
    )
    timing = ("mean_agent_s",)
    assert {k: v for k, v in remote_metrics.items() if k not in timing} == {
        k: v for k, v in local_metrics.items() if k not in timing
    }
    for trajectory in (local / "trajectories").iterdir():  # the same steps, written by the driver
        theirs = complete_records(remote / "trajectories" / trajectory.name)
        assert [line.keys() for line in theirs] == [line.keys() for line in complete_records(trajectory)]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The slice run in one process: 2 of 4 episodes resolved (the solver patches even seeds)."""
    folder = tmp_path_factory.mktemp("reference") / "run"
    with FakeServer(GoldPatcher(TASKS)) as server:
        metrics = run_slice(folder, server.base_url)
    assert metrics["resolved"] == 2 and metrics["episodes"]["complete"]
    return folder, metrics


def test_both_executors_write_the_same_run(ray_cluster, tmp_path, reference):
    before = set(SCRATCH.glob("*")) if SCRATCH.exists() else set()
    with FakeServer(GoldPatcher(TASKS)) as server:
        metrics = run_slice(tmp_path / "run", server.base_url, RayExecutor())
    same_runs(reference[0], tmp_path / "run", reference[1], metrics)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["executors"][0]["name"] == "ray" and not (tmp_path / "run" / "workspaces").exists()
    assert (set(SCRATCH.glob("*")) if SCRATCH.exists() else set()) == before  # workers cleaned up


def test_a_worker_killed_mid_episode_loses_and_repeats_nothing(ray_cluster, tmp_path, reference):
    executor, finished, under_way = RayExecutor(), [], []

    def kill_a_worker(record):  # the 4 episodes went 2 to each worker: worker 0 still has one under way
        finished.append(record)
        if len(finished) == 1:
            under_way.append(executor.pool.busy[0])
            os.kill(ray_cluster.get(executor.pool.workers[0].start.remote()), signal.SIGKILL)

    with FakeServer(GoldPatcher(TASKS)) as server:
        metrics = run_slice(tmp_path / "run", server.base_url, executor, kill_a_worker)
    assert under_way[0] >= 1  # the kill hit an episode, which ran again on the restarted worker
    ids = [e["id"] for e in complete_records(tmp_path / "run" / "episodes.jsonl")]
    assert len(ids) == len(set(ids)) == 4 and None not in finished
    assert not (tmp_path / "run" / "infra_errors.jsonl").read_text()
    same_runs(reference[0], tmp_path / "run", reference[1], metrics)


def refusing(instance: str, policy):
    """``policy``, except that every request about ``instance`` gets a 500."""
    by_issue = {task.problem_statement: task.instance_id for task in TASKS}

    def answer(body: dict):
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return Fault(500) if by_issue[issue_of(first_user)] == instance else policy(body)

    return answer


@pytest.mark.parametrize("first", ["local", "ray"])
def test_a_run_begun_on_one_executor_is_finished_on_the_other(ray_cluster, tmp_path, reference, first):
    executors = {"local": lambda: None, "ray": RayExecutor}
    folder = tmp_path / "run"
    with FakeServer(refusing(SLICE[1], GoldPatcher(TASKS))) as server:
        broken = run_slice(folder, server.base_url, executors[first](), max_retries=0)
    assert broken["episodes"] == {"expected": 4, "finished": 2, "infra_errors": 2, "complete": False}
    kept = (folder / "episodes.jsonl").read_text()
    then = "ray" if first == "local" else "local"
    with FakeServer(GoldPatcher(TASKS)) as server:
        resumed = run_slice(folder, server.base_url, executors[then]())
        asked = {issue_of(body["messages"][1]["content"]) for body in server.requests}
    assert asked == {TASKS[[t.instance_id for t in TASKS].index(SLICE[1])].problem_statement}  # only those
    assert (folder / "episodes.jsonl").read_text().startswith(kept)
    same_runs(reference[0], folder, reference[1], resumed)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [e["name"] for e in manifest["executors"]] == [first, then]


def test_sieve_on_ray_keeps_what_it_keeps_in_one_process_with_one_pool(ray_cluster, tmp_path, monkeypatch):
    from execmem.runs.coding.sieve.pipeline import SievePipeline
    from execmem.runs.executors import ray_executor
    from execmem.testing.planted_coding_solver import PlantedSolver
    from tests.coding.sieve_support import EXPECTED_KEPT, PLANTS, make_sieve_tasks, sieve_config

    tasks_file = make_sieve_tasks(tmp_path)
    pools = []
    monkeypatch.setattr(ray_executor, "Pool", lambda *args: pools.append(args) or Pool(*args))

    def sieve(out: Path, executor=None) -> dict:
        with FakeServer(PlantedSolver(load_tasks(tasks_file), PLANTS, ceiling=0.0)) as server:
            config = sieve_config(tasks_file, out, server.base_url)
            return asyncio.run(SievePipeline(config, lambda message: None, executor=executor).run())

    local, remote = sieve(tmp_path / "local"), sieve(tmp_path / "ray", RayExecutor())
    assert remote["kept"] == local["kept"] == EXPECTED_KEPT
    assert remote["tables"] == local["tables"] and remote["counts"] == local["counts"]
    frozen = [(tmp_path / side / "frozen.jsonl").read_text() for side in ("local", "ray")]
    assert frozen[0] == frozen[1]
    manifests = list((tmp_path / "ray" / "episodes").rglob("manifest.json"))
    assert manifests and all(
        json.loads(m.read_text())["executors"][0]["name"] == "ray" for m in manifests
    )  # every history and verification run went to the cluster ...
    assert len(pools) == 1  # ... on the one pool started for the whole pipeline
