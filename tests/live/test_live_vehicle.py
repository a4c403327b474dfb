"""Opt-in: one scenario against a real OpenAI-compatible endpoint.

Set EXECMEM_LIVE_MODEL (and EXECMEM_LIVE_BASE_URL, and the key in OPENAI_API_KEY or the
variable named by EXECMEM_LIVE_KEY_ENV) to run it; it is skipped otherwise. For a local
single-slot server (llama.cpp) also set EXECMEM_LIVE_CONNECTIONS=1; replies are capped at
EXECMEM_LIVE_MAX_OUTPUT_TOKENS (default 256). Recipes: docs/endpoints.md.
"""

from __future__ import annotations

import os

import pytest

from tests.runs.conftest import run_vehicle

MODEL = os.environ.get("EXECMEM_LIVE_MODEL")


@pytest.mark.skipif(not MODEL, reason="set EXECMEM_LIVE_MODEL (and EXECMEM_LIVE_BASE_URL) to run live tests")
def test_gold_scenario_on_a_live_model(tmp_path, vehicle_data):
    model_options = {
        "model": MODEL,
        "api_key_env": os.environ.get("EXECMEM_LIVE_KEY_ENV", "OPENAI_API_KEY"),
        "timeout_s": float(os.environ.get("EXECMEM_LIVE_TIMEOUT", "300")),
        "max_connections": int(os.environ.get("EXECMEM_LIVE_CONNECTIONS", "4")),
        "max_tokens": int(os.environ.get("EXECMEM_LIVE_MAX_OUTPUT_TOKENS", "256")),
    }
    metrics = run_vehicle(
        tmp_path / "live",
        os.environ.get("EXECMEM_LIVE_BASE_URL"),
        vehicle_data,
        memory="gold",
        scenarios=[1],
        model_options=model_options,
    )
    assert metrics["episodes"]["finished"] + metrics["episodes"]["infra_errors"] == 10
    assert metrics["episodes"]["infra_errors"] == 0, metrics["infra_error_reasons"]
    assert metrics["overall"]["mean_input_tokens"] > 0
    assert metrics["endpoint"]["episodes_without_tool_calls"] < 10, "no tool call reached the model"
