"""Fixtures of the coding suite: a minimal valid task record, bubblewrap detection, shared caches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from execmem.suites.coding.paths import cache_root

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
)


def task_record(**overrides) -> dict:
    """A valid task as a JSON-able dict; keyword arguments replace fields."""
    record = {
        "instance_id": "demo__bug-01",
        "repo": "local/demo",
        "base_commit": "",
        "problem_statement": "add() returns the wrong sum",
        "patch": "",
        "test_patch": "",
        "FAIL_TO_PASS": ["tests/test_calc.py::test_add"],
        "PASS_TO_PASS": ["tests/test_calc.py::test_sub"],
        "created_at": "2024-01-02T03:04:05Z",
        "version": "1.0",
        "install": [],
        "test_cmd": "python -m pytest --junitxml={junit} tests",
    }
    record.update(overrides)
    return record


@pytest.fixture(scope="session")
def shared_cache() -> Path:
    """The real coding cache (sdists are hash-checked and venvs keyed by recipe, so sharing is safe)."""
    return cache_root()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "network: downloads from PyPI when the coding cache lacks a file")
