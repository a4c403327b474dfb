"""Vehicle runs on a local Ray instance (2 CPUs): the same run folder as in one process, the
endpoint's limits held across workers, a killed worker losing and repeating nothing, and runs
resumed from one executor on the other."""

from __future__ import annotations

import json
import os
import shlex
import signal
import threading
import time

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.core.files import complete_records
from execmem.runs.executors.ray_executor import RayExecutor
from execmem.testing.fake_server import FakeServer, Fault, with_faults, with_latency
from execmem.testing.vehicle_reader import ReaderPolicy
from tests.conftest import comparable_lines
from tests.runs.conftest import run_vehicle, scores

pytest.importorskip("ray")
TIMING = ("latency_s", "model_latency_s", "queue_s", "retry_wait_s")


@pytest.fixture(scope="module")
def reader(questions):
    return ReaderPolicy(questions)


def same_runs(local, remote, local_metrics, remote_metrics) -> None:
    """Two run folders holding the same episodes, scores and built memories."""
    assert comparable_lines(remote / "episodes.jsonl", TIMING) == comparable_lines(
        local / "episodes.jsonl", TIMING
    )
    assert scores(remote_metrics) == scores(local_metrics)
    assert remote_metrics["episodes"] == local_metrics["episodes"]
    for record in (local / "memory").glob("scenario-*.json"):
        mine, theirs = (
            json.loads(record.read_text()),
            json.loads((remote / "memory" / record.name).read_text()),
        )
        assert {**mine, "cost": None} == {**theirs, "cost": None}
        assert mine["cost"]["llm_calls"] == theirs["cost"]["llm_calls"]


@pytest.mark.parametrize(
    ("memory", "policy"), [("gold", "oracle"), ("bm25", "reader"), ("summary", "oracle")]
)
def test_both_executors_write_the_same_run(ray_cluster, tmp_path, vehicle_data, memory, policy, request):
    options = {"memory": memory, "scenarios": [1, 2, 3], "model_options": {"max_connections": 4}}
    here, there = tmp_path / "local" / "run", tmp_path / "ray" / "run"  # one name: one memory space name
    with FakeServer(request.getfixturevalue(policy)) as server:
        local = run_vehicle(here, server.base_url, vehicle_data, **options)
        remote = run_vehicle(there, server.base_url, vehicle_data, executor=RayExecutor(), **options)
    same_runs(here, there, local, remote)
    assert local["episodes"]["complete"]
    config = json.loads((there / "config.json").read_text())
    assert [e["name"] for e in config["executors"]] == ["ray"] and config["executors"][0]["workers"] == 2
    if memory == "bm25":  # each scenario ingested once, by a worker, kept as its own store
        markers = sorted((there / "memory-system").glob("scenario-*.ingested.json"))
        assert [json.loads(m.read_text())["store"] for m in markers] == [
            "scenario-1",
            "scenario-2",
            "scenario-3",
        ]
        assert all((there / "memory-system" / f"scenario-{n}" / "memory.sqlite").is_file() for n in (1, 2, 3))
        assert local["overall"]["exact_match"] < 1.0  # the reader saw what the shipped stores returned
    if memory == "summary":  # built by workers, kept in the run's build cache as a local run keeps it
        built = sorted(p.name for p in (there / "memory-builds").rglob("scenario-*.json"))
        assert built == ["scenario-1.json", "scenario-2.json", "scenario-3.json"]


def test_the_connection_limit_holds_across_workers(ray_cluster, tmp_path, vehicle_data, oracle):
    options = {"memory": "gold", "scenarios": [1, 2], "model_options": {"max_connections": 3}}
    with FakeServer(with_latency(oracle, 0.05)) as server:
        metrics = run_vehicle(
            tmp_path / "ray", server.base_url, vehicle_data, executor=RayExecutor(), **options
        )
        assert server.max_in_flight == 3  # 2 workers with 6 episodes each in flight: one limit for all
    assert metrics["episodes"]["complete"]


class QuietAfter:
    """The oracle, answering request ``n`` with a 429 asking for ``seconds`` of quiet; when each
    request arrived."""

    def __init__(self, policy, n: int, seconds: float) -> None:
        self.policy, self.n, self.seconds = policy, n, seconds
        self.arrivals: list[float] = []
        self.refused_at: float | None = None
        self._lock = threading.Lock()

    def __call__(self, body: dict):
        with self._lock:
            self.arrivals.append(time.monotonic())
            if len(self.arrivals) == self.n:
                self.refused_at = self.arrivals[-1]
                return Fault(429, headers={"retry-after": str(self.seconds)})
        return self.policy(body)


def test_a_retry_after_answer_quiets_every_worker(ray_cluster, tmp_path, vehicle_data, oracle):
    quiet = QuietAfter(with_latency(oracle, 0.02), n=15, seconds=1.0)
    options = {"memory": "gold", "scenarios": list(range(1, 7)), "model_options": {"max_connections": 3}}
    with FakeServer(quiet) as server:
        metrics = run_vehicle(
            tmp_path / "ray", server.base_url, vehicle_data, executor=RayExecutor(), **options
        )
    assert metrics["episodes"]["complete"] and quiet.refused_at is not None
    later = [t - quiet.refused_at for t in quiet.arrivals if t > quiet.refused_at]
    assert len(later) > 100  # work was left that the workers would have sent at once
    assert not [t for t in later if 0.3 < t < 0.9], later[:20]  # none while the server asked for quiet
    assert later[-1] > 1.0


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(ray_cluster, tmp_path, vehicle_data, oracle):
    options = {"memory": "gold", "scenarios": list(range(1, 7)), "model_options": {"max_connections": 4}}
    with FakeServer(oracle) as server:
        reference = run_vehicle(tmp_path / "local", server.base_url, vehicle_data, **options)
    executor, finished, pid, under_way = RayExecutor(), [], [], []

    def kill_a_worker(record):  # the pid asked early; the kill at once, with episodes under way
        finished.append(record)
        if len(finished) == 1:
            pid.append(ray_cluster.get(executor.pool.workers[0].start.remote()))
        if len(finished) == 10:
            under_way.append(executor.pool.busy[0])
            os.kill(pid[0], signal.SIGKILL)

    with FakeServer(with_latency(oracle, 0.05)) as server:
        metrics = run_vehicle(
            tmp_path / "ray", server.base_url, vehicle_data, executor, kill_a_worker, **options
        )
    # The dead worker's tasks ran again on its successor; a retried episode may find some of its
    # answers in the run's cache already (another episode's outcome carried them), so the server
    # need not see them twice: what must hold is that every episode is there exactly once.
    assert under_way[0] >= 1
    assert not (tmp_path / "ray" / "infra_errors.jsonl").read_text()
    ids = [e["id"] for e in complete_records(tmp_path / "ray" / "episodes.jsonl")]
    assert len(ids) == len(set(ids)) == 60 and len(finished) == 60 and None not in finished
    same_runs(tmp_path / "local", tmp_path / "ray", reference, metrics)


def cli_run(base_url, folder, data, *extra):
    args = shlex.split("vehicle run --model fake --memory bm25 --scenarios 1-3 --quiet --max-connections 4")
    args += ["--base-url", base_url, "--out", str(folder), "--data", str(data), *extra]
    return CliRunner().invoke(app, args)


@pytest.mark.parametrize("first", ["local", "ray"])
def test_a_run_begun_on_one_executor_is_finished_on_the_other(
    ray_cluster, tmp_path, vehicle_data, questions, reader, first
):
    with FakeServer(reader) as server:
        reference = run_vehicle(
            tmp_path / "reference" / "run", server.base_url, vehicle_data, memory="bm25", scenarios=[1, 2, 3],
            model_options={"max_connections": 4},
        )  # fmt: skip
    folder, executors = tmp_path / "resumed" / "run", {"local": (), "ray": ("--executor", "ray")}
    faulty = with_faults(reader, rate=0.3, seed=3, kinds=("500",), faulty_attempts=5)
    with FakeServer(faulty) as server:
        broken = cli_run(server.base_url, folder, vehicle_data, "--max-retries", "1", *executors[first])
    assert broken.exit_code == 1, broken.output
    kept = (folder / "episodes.jsonl").read_text()
    done = {e["id"] for e in complete_records(folder / "episodes.jsonl")}
    assert 0 < len(done) < 30
    queries = {q.query for q in questions if q.scenario <= 3 and q.id not in done}
    then = "ray" if first == "local" else "local"
    with FakeServer(reader) as server:
        resumed = cli_run(server.base_url, folder, vehicle_data, *executors[then])
        # finished episodes are never redone: every request is one of a missing episode
        assert server.requests and all(
            any(q in b["messages"][1]["content"] for q in queries) for b in server.requests
        )
    assert resumed.exit_code == 0, resumed.output
    assert f"{len(done)} of 30 episodes kept, {30 - len(done)} to run" in resumed.output
    assert (folder / "episodes.jsonl").read_text().startswith(kept)
    metrics = json.loads((folder / "metrics.json").read_text())
    same_runs(tmp_path / "reference" / "run", folder, reference, metrics)
    config = json.loads((folder / "config.json").read_text())
    assert [e["name"] for e in config["executors"]] == [first, then]
