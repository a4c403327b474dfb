"""Shared fixtures: where the VehicleMemBench release and our conformance vectors live.

The conformance vectors and schemas are ours and small: they ship in ``tests/data/vehicle`` so the tests pass
in any clone. The release itself (history/, qa_data/) is never committed: the tests read it from
``$EXECMEM_VEHICLE_DATA`` or from the copy ``execmem data fetch vehicle`` installed, and skip without it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from execmem.suites.vehicle.release import DataNotFound, resolve_data_dir
from tests.plugin_sites import install_plugin

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO / "tests" / "data" / "vehicle"


def vehicle_data_dir() -> Path | None:
    """The release folder: ``$EXECMEM_VEHICLE_DATA`` (must exist), else the fetched copy, else None."""
    configured = os.environ.get("EXECMEM_VEHICLE_DATA")
    if configured and not Path(configured).is_dir():
        raise RuntimeError(f"EXECMEM_VEHICLE_DATA={configured} is not a directory")
    try:
        return resolve_data_dir()
    except DataNotFound:
        return None


@pytest.fixture(scope="session")
def vehicle_data() -> Path:
    path = vehicle_data_dir()
    if path is None:
        pytest.skip(
            "VehicleMemBench release not found: `execmem data fetch vehicle`, or set EXECMEM_VEHICLE_DATA"
        )
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def planted_memory_site(tmp_path_factory) -> Path:
    """The planted-record memory (``execmem.testing.planted_record_memory``) registered by its test plugin."""
    return install_plugin("execmem_planted_memory", tmp_path_factory.mktemp("planted-memory"))


@pytest.fixture
def planted_memory(planted_memory_site, monkeypatch) -> str:
    """``--memory planted-records`` selectable for the test; the name to select it by."""
    monkeypatch.syspath_prepend(str(planted_memory_site))
    return "planted-records"


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray instance with 2 CPUs, shared by one test module (starting one takes seconds)."""
    ray = pytest.importorskip(
        "ray", reason='the Ray executor\'s tests need its extra: pip install "execmem[ray]"'
    )
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def comparable_lines(path: Path, timing: tuple[str, ...]) -> list[str]:
    """A run file's lines without the fields that measure time, sorted: what two runs of the same
    episodes must agree on whatever order they finished in."""
    return sorted(
        json.dumps({k: v for k, v in r.items() if k not in timing}, sort_keys=True) for r in read_jsonl(path)
    )
