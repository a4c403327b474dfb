"""Protocol B with ``fusion``: the run gives it the car's lexicon, and its items reach the model."""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint

from execmem.memory import registry
from execmem.memory.terms import Lexicon
from execmem.suites.vehicle.lexicon import car_lexicon
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_oracle import request_query
from tests.memory.test_registry import with_entry_points
from tests.runs.conftest import run_vehicle
from tests.runs.test_protocol_b import search_first

# As pyproject.toml registers it; given here too, since an editable install made before fusion
# existed does not list it until execmem is installed again.
FUSION = EntryPoint("fusion", "execmem.memory.fusion:FusionMemory [dense]", registry.GROUP)


def test_a_fusion_run_gets_the_car_lexicon_and_returns_statements(
    tmp_path, oracle, vehicle_data, monkeypatch
):
    with_entry_points(monkeypatch, FUSION)
    folder = tmp_path / "run"
    options = {"embedder": "hashing"}  # no model download or torch needed for the run's path
    with FakeServer(search_first(oracle)) as server:
        metrics = run_vehicle(
            folder, server.base_url, vehicle_data, memory="fusion", memory_options=options, scenarios=[1]
        )
        requests = list(server.requests)
    assert metrics["episodes"]["finished"] == 10
    results = [r["messages"][3]["content"] for r in requests if len(r["messages"]) == 4]
    assert len(results) == 10 and all(result.startswith("(1) [2025-") for result in results)
    assert all(request_query(r) for r in requests if len(r["messages"]) == 4)
    system = json.loads((folder / "config.json").read_text())["components"]["memory"]["system"]
    assert system["system"] == "fusion" and system["windowing"] == {"mode": "turn"}
    assert system["lexicon"] == Lexicon(car_lexicon()).describe()
