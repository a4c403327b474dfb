"""A run killed with SIGKILL at random moments resumes to exactly the uninterrupted result."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

from execmem.core.files import complete_records
from execmem.testing.fake_server import FakeServer, with_latency
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


def _kill_after(process: subprocess.Popen, folder, launched: float, rng: random.Random) -> float:
    """Seconds to wait before the kill: from the start one time in four (a kill during start-up or
    while config.json is written), else a moment into the episodes, counted from when this process
    rewrote config.json, so that a slow start on a busy machine does not get every attempt killed
    before its first episode."""
    if rng.random() < 0.25:
        return rng.uniform(0.3, 2.0)
    config = folder / "config.json"
    while process.poll() is None and time.time() - launched < 60:
        if config.exists() and config.stat().st_mtime >= launched:
            break
        time.sleep(0.02)
    return rng.uniform(0.1, 1.0)


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
        for _ in range(40):
            launched = time.time()
            process = subprocess.Popen(
                _command(server.base_url, folder, vehicle_data), stderr=subprocess.PIPE
            )
            # Three kills at random moments, then the run may finish however slow the machine is.
            limit = _kill_after(process, folder, launched, rng) if kills < 3 else 300
            try:
                process.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, 9)
                process.wait()
                kills += 1
                continue
            assert process.returncode == 0, process.stderr.read().decode()
            break
    assert kills >= 2 and process.returncode == 0
    episodes = complete_records(folder / "episodes.jsonl")
    ids = [e["id"] for e in episodes]
    assert len(ids) == 80 and len(set(ids)) == 80
    import json

    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["episodes"]["complete"]
    same = ("exact_match", "field", "value", "tool", "n")
    assert {k: metrics["overall"][k] for k in same} == {k: reference["overall"][k] for k in same}
    assert scores(metrics)["by_reasoning_type"].keys() == scores(reference)["by_reasoning_type"].keys()
