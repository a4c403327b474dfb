"""A run killed with SIGKILL at random moments resumes to exactly the uninterrupted result."""

from __future__ import annotations

import os
import random
import subprocess
import sys

from execmem.llm.fake_server import FakeServer, with_latency
from execmem.runs.files import read_jsonl
from tests.runs.conftest import run_vehicle, scores

SCENARIOS = "1-8"


def _command(base_url: str, folder, data) -> list[str]:
    return [
        sys.executable,
        "-m",
        "execmem",
        "vehicle",
        "run",
        "--model",
        "fake",
        "--memory",
        "gold",
        "--base-url",
        base_url,
        "--scenarios",
        SCENARIOS,
        "--out",
        str(folder),
        "--data",
        str(data),
        "--quiet",
        "--max-connections",
        "4",
    ]


def test_sigkill_at_random_moments_then_resume(tmp_path, oracle, vehicle_data):
    with FakeServer(oracle) as server:
        reference = run_vehicle(
            tmp_path / "reference",
            server.base_url,
            vehicle_data,
            memory="gold",
            scenarios=list(range(1, 9)),
            model_options={"max_connections": 4},
        )
    folder = tmp_path / "killed"
    rng = random.Random(11)
    kills = 0
    with FakeServer(with_latency(oracle, 0.04)) as server:
        for attempt in range(8):  # killed at a random moment each time, then left to finish
            process = subprocess.Popen(
                _command(server.base_url, folder, vehicle_data), stderr=subprocess.PIPE
            )
            try:
                process.wait(timeout=rng.uniform(0.8, 1.8) if attempt < 7 else 300)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, 9)
                process.wait()
                kills += 1
                continue
            assert process.returncode == 0, process.stderr.read().decode()
            break
    assert kills >= 2 and process.returncode == 0
    episodes = read_jsonl(folder / "episodes.jsonl")
    ids = [e["id"] for e in episodes]
    assert len(ids) == 80 and len(set(ids)) == 80
    import json

    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["episodes"]["complete"]
    same = ("exact_match", "field", "value", "tool", "n")
    assert {k: metrics["overall"][k] for k in same} == {k: reference["overall"][k] for k in same}
    assert scores(metrics)["by_reasoning_type"].keys() == scores(reference)["by_reasoning_type"].keys()
