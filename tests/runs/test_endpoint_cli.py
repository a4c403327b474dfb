"""What `execmem vehicle run` says about an endpoint: one-line errors that stop it, warnings after it."""

from __future__ import annotations

import socket
import time

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.testing.fake_llamacpp import LlamaCppLike
from execmem.testing.fake_server import FakeServer, Fault, Reply

runner = CliRunner()


def _run(base_url: str, folder, data, *extra: str):
    args = ["vehicle", "run", "--model", "m", "--memory", "gold", "--base-url", base_url, "--scenarios", "1",
            "--out", str(folder), "--data", str(data), "--quiet", "--max-retries", "1", *extra]  # fmt: skip
    return runner.invoke(app, args)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_nothing_listening_is_a_one_line_error_within_seconds(tmp_path, vehicle_data):
    started = time.perf_counter()
    result = _run(f"http://127.0.0.1:{_free_port()}/v1", tmp_path / "run", vehicle_data)
    assert time.perf_counter() - started < 5
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: nothing answers at http://127.0.0.1")


@pytest.mark.parametrize(
    ("server_options", "message"),
    [({"api_key": "the-right-key-1234"}, "refused the API key"), ({"serves": ["other"]}, "model `m`")],
)
def test_a_wrong_key_or_model_is_a_one_line_error(tmp_path, oracle, vehicle_data, server_options, message):
    with FakeServer(oracle, **server_options) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data)
    assert result.exit_code != 0 and server.requests == []
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_run_with_nothing_scored_says_so(tmp_path, vehicle_data):
    with FakeServer(lambda body: Fault(503)) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data, "--no-probe")
    assert "nothing scored" in result.stderr and "ESM" not in result.stderr
    assert "10 episodes hit infrastructure errors (10 x HTTP 503)" in result.stderr


def test_a_model_that_never_calls_a_tool_is_warned_about(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle)) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data, "--tool-choice", "omit")
    assert result.exit_code == 0 and "the model called no tool in any episode" in result.stderr
    assert all("tool_choice" not in r for r in server.requests)


def test_max_output_tokens_caps_every_reply_and_cut_replies_are_reported(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle, runaway=True)) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data, "--max-output-tokens", "48")
    assert {r["max_tokens"] for r in server.requests} == {48}
    assert "10 replies were cut at --max-output-tokens" in result.stderr


def test_the_tokenizer_option_names_a_bad_spec(tmp_path, oracle, vehicle_data):
    result = runner.invoke(
        app, ["vehicle", "run", "--model", "m", "--memory", "full-history", "--base-url", "http://x/v1",
              "--tokenizer", "tiktoken:nope", "--out", str(tmp_path / "r"), "--data", str(vehicle_data)],
    )  # fmt: skip
    assert result.exit_code == 2 and "cannot load the nope encoding" in result.stderr


def test_replies_are_read_for_every_episode(tmp_path, vehicle_data):
    with FakeServer(lambda body: Reply(content="I cannot help.")) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data)
    assert (
        result.exit_code == 0 and "the model called no tool" in result.stderr and len(server.requests) == 10
    )


def test_a_run_over_the_window_warns_about_the_window_not_about_tools(tmp_path, oracle, vehicle_data):
    with FakeServer(LlamaCppLike(oracle, window=4096)) as server:
        result = _run(server.base_url, tmp_path / "run", vehicle_data, "--memory", "full-history")
    assert "10 episodes ended at the model's context window" in result.stderr
    assert "called no tool" not in result.stderr and result.exit_code == 0
