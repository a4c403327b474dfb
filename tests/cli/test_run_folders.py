"""Run folders cannot be corrupted: one writer at a time, foreign or damaged folders are refused
with the file and line, a torn last line is still repaired."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from execmem.core.files import complete_records
from execmem.runs.coding.store import CodingRunStore
from execmem.runs.episode_log import LOCK_FILE, RunFolderError
from execmem.testing.fake_policies import HeldAfter
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_oracle import OraclePolicy
from tests.cli.conftest import assert_one_line_error, execmem, invoke
from tests.runs.conftest import run_vehicle


def _run_args(base_url: str, folder: Path, scenarios: str = "1") -> list[str]:
    return [
        "vehicle", "run", "--model", "fake", "--memory", "gold", "--base-url", base_url,
        "--scenarios", scenarios, "--out", folder, "--quiet", "--max-connections", "2",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def finished(tmp_path_factory, vehicle_data, questions) -> Path:
    """A finished one-scenario gold run (10 episodes) to copy and damage."""
    folder = tmp_path_factory.mktemp("runs") / "finished"
    with FakeServer(OraclePolicy(questions)) as server:
        run_vehicle(folder, server.base_url, vehicle_data, memory="gold", scenarios=[1])
    return folder


def _copy(finished: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(finished, tmp_path / "run"))


def test_second_run_on_a_busy_folder_refuses_and_pays_nothing(tmp_path, oracle):
    folder = tmp_path / "run"
    held = HeldAfter(oracle, 15)  # an episode or more finishes; the run waits until the refusal
    with FakeServer(held) as server:
        first = execmem(*_run_args(server.base_url, folder, "1-3"), stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (folder / "episodes.jsonl").exists() or not (folder / "episodes.jsonl").read_bytes():
            assert time.monotonic() < deadline and first.poll() is None, "the first run never started"
            time.sleep(0.05)
        second = invoke(*_run_args(server.base_url, folder, "1-3"))
        assert_one_line_error(second, f"{folder} is in use by another execmem run (pid {first.pid})")
        held.release()
        assert first.wait(timeout=120) == 0, first.stderr.read().decode()
        episodes = complete_records(folder / "episodes.jsonl")
        assert len(episodes) == 30 and len({e["id"] for e in episodes}) == 30
        assert len(server.requests) == sum(e["steps"] for e in episodes)  # no request paid twice
        config = json.loads((folder / "config.json").read_text())
        assert "resumed_at" not in config  # the refused run wrote nothing
        assert invoke(*_run_args(server.base_url, folder, "1-3")).exit_code == 0  # released at exit


_HOLDER = """
import sys, time
from pathlib import Path
from execmem.runs.episode_log import lock_folder
lock_folder(Path(sys.argv[1]))
print("LOCKED", flush=True)
time.sleep(600)
"""


def test_coding_store_refuses_a_locked_folder_until_the_holder_dies(tmp_path):
    folder = tmp_path / "coding-run"
    folder.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(folder)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"LOCKED"
        manifest = {"memory": {"condition": "off"}, "invocation": {}}
        with pytest.raises(RunFolderError, match=rf"in use by another execmem run \(pid {holder.pid}\)"):
            CodingRunStore(folder, manifest)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    store = CodingRunStore(folder, manifest)  # the OS released the lock of the killed process
    store.close()
    assert (folder / LOCK_FILE).exists() and (folder / "manifest.json").exists()


def test_non_empty_folder_without_config_is_refused_untouched(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes")
    result = invoke(*_run_args("http://127.0.0.1:9/v1", folder))
    assert_one_line_error(result, f"{folder} is not empty (notes.txt) but holds no config.json")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    with pytest.raises(RunFolderError, match="holds no manifest.json"):
        CodingRunStore(folder, {"memory": {}, "invocation": {}})


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"\xff\xfe{}", "config.json: not readable JSON (not UTF-8"),
        (b'{"identity": ', "config.json: not readable JSON (Expecting value"),
        (b"[]", "config.json: not a run document"),
        (
            b'{"invocation": {}, "identity": 3}',
            "holds a different run; use another --out. its config.json has no",
        ),
    ],
)
def test_unreadable_config_is_refused(finished, tmp_path, content, fragment):
    folder = _copy(finished, tmp_path)
    (folder / "config.json").write_bytes(content)
    before = (folder / "episodes.jsonl").read_bytes()
    assert_one_line_error(invoke(*_run_args("http://127.0.0.1:9/v1", folder)), fragment)
    assert (folder / "config.json").read_bytes() == content and (
        folder / "episodes.jsonl"
    ).read_bytes() == before


@pytest.mark.parametrize(
    ("file", "line", "fragment"),
    [
        ("episodes.jsonl", b"garbage{", "episodes.jsonl:4: damaged line (Expecting value"),
        ("episodes.jsonl", b'"a string"', "episodes.jsonl:4: damaged line (a JSON str, not an object)"),
        ("episodes.jsonl", b'{"id": "1-3"}', "episodes.jsonl:4: damaged line (field 'scenario': missing)"),
        ("episodes.jsonl", b"\xff", "episodes.jsonl:4: damaged line (not UTF-8"),
        ("infra_errors.jsonl", b'{"id": "1-3"}', "infra_errors.jsonl:4: damaged line (field 'error_kind'"),
    ],
)
def test_damaged_line_is_reported_with_its_number(finished, tmp_path, file, line, fragment):
    folder = _copy(finished, tmp_path)
    lines = (folder / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    if file == "infra_errors.jsonl":
        lines = [b'{"id": "x", "error_kind": "infra", "reason": "r"}\n'] * 3
    (folder / file).write_bytes(b"".join(lines[:3]) + line + b"\n" + b"".join(lines[3:]))
    result = invoke(*_run_args("http://127.0.0.1:9/v1", folder))
    assert_one_line_error(result, f"{folder}/{fragment}", "fix or delete that line")


def test_torn_last_line_is_still_repaired(finished, tmp_path, oracle):
    folder = _copy(finished, tmp_path)
    lines = (folder / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    (folder / "episodes.jsonl").write_bytes(b"".join(lines[:-1]) + lines[-1][:25])  # killed mid-write
    with FakeServer(oracle) as server:
        result = invoke(*_run_args(server.base_url, folder))
    assert result.exit_code == 0, result.output
    assert "resuming" in result.stderr and "9 of 10 episodes kept" in result.stderr
    episodes = complete_records(folder / "episodes.jsonl")
    assert len(episodes) == 10 and len({e["id"] for e in episodes}) == 10


def test_folder_a_run_was_killed_in_before_its_config_is_resumed(tmp_path, oracle):
    folder = tmp_path / "run"
    folder.mkdir()
    for name in ("responses.sqlite", "responses.sqlite-wal", "responses.sqlite-shm"):
        (folder / name).write_bytes(b"")  # what a run makes before config.json (killed right then)
    (folder / "memory-system").mkdir()
    with FakeServer(oracle) as server:
        result = invoke(*_run_args(server.base_url, folder))
    assert result.exit_code == 0, result.output
    assert len(complete_records(folder / "episodes.jsonl")) == 10


def test_a_damaged_response_cache_is_refused_with_what_to_do(finished, tmp_path):
    folder = _copy(finished, tmp_path)
    (folder / "responses.sqlite").write_bytes(b"not a database at all " * 200)
    before = (folder / "episodes.jsonl").read_bytes()
    result = invoke(*_run_args("http://127.0.0.1:9/v1", folder))
    assert_one_line_error(result, f"{folder}/responses.sqlite: not a readable response cache", "delete it")
    assert (folder / "episodes.jsonl").read_bytes() == before
