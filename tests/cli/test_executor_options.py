"""``--executor`` and ``--ray-address`` are checked before anything is created."""

from __future__ import annotations

import sys

import pytest

from tests.cli.conftest import assert_one_line_error, invoke

VEHICLE = ("vehicle", "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--scenarios", "1")
CODING = ("coding", "run", "--tasks", "builtin", "--model", "m", "--base-url", "http://127.0.0.1:9/v1")
SIEVE = ("coding", "sieve", "--tasks", "builtin", "--model", "m", "--base-url", "http://127.0.0.1:9/v1")


@pytest.mark.parametrize("command", [VEHICLE, CODING, SIEVE])
def test_an_address_without_the_ray_executor_is_refused(tmp_path, command):
    out = tmp_path / "out"
    result = invoke(*command, "--out", out, "--ray-address", "auto")
    assert result.exit_code == 2 and "--ray-address" in result.output and "--executor ray" in result.output
    assert not out.exists()


@pytest.mark.parametrize("command", [VEHICLE, CODING, SIEVE])
def test_the_ray_executor_without_ray_names_the_extra(tmp_path, monkeypatch, command):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    out = tmp_path / "out"
    result = invoke(*command, "--out", out, "--executor", "ray")
    assert_one_line_error(result, "--executor ray", 'pip install "execmem[ray]"')
    assert not out.exists()


def test_a_ray_client_address_is_refused(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "out"
    result = invoke(*VEHICLE, "--out", out, "--executor", "ray", "--ray-address", "ray://head:10001")
    assert_one_line_error(result, "--ray-address ray://head:10001", "ray job submit")
    assert not out.exists()
