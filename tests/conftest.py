"""Shared fixtures: where the VehicleMemBench release and conformance data live."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def vehicle_data_dir() -> Path | None:
    configured = os.environ.get("EXECMEM_VEHICLE_DATA")
    if configured:
        path = Path(configured).resolve()
        if not path.is_dir():
            raise RuntimeError(f"EXECMEM_VEHICLE_DATA={configured} is not a directory")
        return path
    default = REPO.parent / "shared" / "vehiclemembench"
    return default if default.is_dir() else None


@pytest.fixture(scope="session")
def vehicle_data() -> Path:
    path = vehicle_data_dir()
    if path is None:
        pytest.skip("VehicleMemBench data not found: set EXECMEM_VEHICLE_DATA")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
