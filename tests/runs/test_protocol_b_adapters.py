"""Protocol B with the MemoryOS and LightMem adapters (over in-process fakes of their libraries):
``vehicle run --memory NAME`` ingests each scenario's history into them and their items reach the model."""

from __future__ import annotations

import json
import sys

import pytest

from execmem.testing import fake_lightmem, fake_memoryos
from execmem.testing.fake_server import FakeServer
from tests.runs.conftest import run_vehicle
from tests.runs.test_protocol_b import search_first


@pytest.mark.parametrize(
    ("name", "fake", "options"),
    [
        ("memoryos", fake_memoryos, {"embedder": "openai", "short_term_capacity": 2}),
        ("lightmem", fake_lightmem, {"embedding_dims": 64}),
    ],
)
def test_a_vehicle_run_searches_the_adapter_s_memory(
    name, fake, options, tmp_path, oracle, vehicle_data, monkeypatch
):
    for module_name, module in fake.fake_modules().items():
        monkeypatch.setitem(sys.modules, module_name, module)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    folder = tmp_path / "run"
    with FakeServer(search_first(oracle), embedding_dim=64) as server:
        memory_options = {"base_url": server.base_url, **options}
        metrics = run_vehicle(
            folder, server.base_url, vehicle_data, memory=name, memory_options=memory_options, scenarios=[1]
        )
        requests = list(server.requests)
    assert metrics["episodes"]["finished"] == 10 and metrics["episodes"]["infra_errors"] == 0
    results = [r["messages"][3]["content"] for r in requests if len(r["messages"]) == 4]
    assert len(results) == 10 and all(result.startswith("(1) ") for result in results)
    system = json.loads((folder / "config.json").read_text())["components"]["memory"]["system"]
    assert system["system"] == name
    assert (folder / "memory-system" / "memory.sqlite").is_dir()  # the run's state path, as a folder
