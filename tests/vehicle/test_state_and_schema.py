"""The fresh car and its tool schemas match the benchmark's published ones."""

from __future__ import annotations

import json

from execmem.suites.vehicle.flatten import strip_value_segments
from execmem.suites.vehicle.world import MODULES, TOOLS, VehicleWorld
from tests.conftest import CONFORMANCE


def test_to_dict_equals_initial_state():
    expected = json.loads((CONFORMANCE / "initial_state.json").read_text())
    assert VehicleWorld().to_dict() == expected


def test_flat_state_equals_release_flattening():
    expected = json.loads((CONFORMANCE / "initial_state_flat.json").read_text())
    flat = VehicleWorld().flat()
    assert flat == {strip_value_segments(p): v for p, v in expected.items()}
    assert len(flat) == 341
    assert flat["light.reading_light.rear_left.brightness"] == 1
    assert "radio.current_station.name" not in flat


def test_tool_inventory():
    assert len(MODULES) == 23
    assert len(TOOLS) == 111
    assert all(name == f"carcontrol_{spec.module}_{spec.method}" for name, spec in TOOLS.items())


def test_generated_schemas_match_runtime_schema():
    runtime = json.loads((CONFORMANCE / "functions_schema_runtime.json").read_text())
    assert list(runtime) == list(MODULES)
    for module, schemas in runtime.items():
        generated = [spec.schema for spec in MODULES[module].tools.values()]
        assert generated == schemas, module


def test_schema_names_types_required_match_static_schema():
    static = json.loads((CONFORMANCE / "functions_schema.json").read_text())
    assert {f["name"] for f in static} == set(TOOLS)
    for function in static:
        ours = TOOLS[function["name"]].schema["parameters"]
        theirs = function["parameters"]
        assert {k: v["type"] for k, v in ours["properties"].items()} == {
            k: v["type"] for k, v in theirs["properties"].items()
        }
        assert ours["required"] == theirs["required"]
