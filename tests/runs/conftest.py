"""Fixtures for vehicle runs against the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from execmem.llm.config import ModelConfig
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.runs.vehicle.run import VehicleRun
from execmem.suites.vehicle.dataset import load_questions
from execmem.testing.vehicle_oracle import OraclePolicy


@pytest.fixture(scope="session")
def questions(vehicle_data):
    return load_questions(vehicle_data)


@pytest.fixture
def oracle(questions):
    return OraclePolicy(questions)


def run_vehicle(folder: Path, base_url: str, data: Path, executor=None, on_episode=None, **options) -> dict:
    """Run (or resume) a vehicle run in-process (on ``executor``, default this process) and return
    its metrics."""
    model_options = {"model": "fake", "base_url": base_url, "backoff_base_s": 0.01, "timeout_s": 2.0}
    model_options |= options.pop("model_options", {})
    config = VehicleRunConfig(model=ModelConfig(**model_options), data_dir=data, **options)
    return asyncio.run(VehicleRun(config, folder).run(on_episode, executor))


def scores(metrics: dict) -> dict:
    """The parts of the metrics that must not depend on timing or faults."""
    keep = ("overall", "by_reasoning_type", "model_errors", "end_reasons")
    return {key: metrics[key] for key in keep}
