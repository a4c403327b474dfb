"""--sandbox docker: the command line the engine gets, and coding runs through it end to end.

Without an engine the tests use ``execmem.testing.fake_engine`` on PATH (it runs the container's
command on the host): they check the wiring, what reaches the engine and what comes back. With a
working docker or podman and the image ``$EXECMEM_DOCKER_IMAGE`` (default python:3.11-slim)
present, ``test_a_real_engine_runs_the_command_in_the_image`` runs a container.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from execmem.cli.main import app
from execmem.suites.coding.sandbox import docker as docker_module
from execmem.suites.coding.sandbox.base import make_sandbox
from execmem.suites.coding.sandbox.config import SandboxConfig, SandboxLimits, SandboxUnavailable
from execmem.suites.coding.sandbox.docker import DockerSandbox
from execmem.testing import fake_engine
from execmem.testing.coding_policies import bash
from execmem.testing.fake_server import FakeServer, scripted
from tests.cli.conftest import assert_one_line_error, runner
from tests.coding.paired_support import GOOD, make_tasks

IMAGE = "example/task-image:1"


@pytest.fixture
def engine(tmp_path, monkeypatch):
    """A fake docker on PATH (and nothing else called docker or podman); its calls, as argv lists."""
    log = tmp_path / "engine.log"
    folder = tmp_path / "engine-bin"
    fake_engine.install(folder, [IMAGE], log)
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    monkeypatch.setattr(docker_module, "_CHECKED", set())
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def value_of(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == flag]


def test_the_command_line_mounts_paths_where_they_are_without_network(engine, tmp_path):
    workdir, venv, reports = tmp_path / "ep" / "repo", tmp_path / "venv", tmp_path / "reports"
    for folder in (workdir / ".git", venv, reports):
        folder.mkdir(parents=True)
    limits = SandboxLimits(processes=64, open_files=128, cpu_s=60, file_size_mib=2, address_space_mib=512)
    box = DockerSandbox(IMAGE, SandboxConfig(readonly_paths=[venv], limits=limits))
    argv = box.argv("pytest -x", workdir, {"A": "1"}, "execmem-abc", writable=[reports])
    assert argv[:7] == ["docker", "run", "--rm", "--name", "execmem-abc", "--network", "none"]
    assert value_of(argv, "-w") == [str(workdir)]
    assert value_of(argv, "-v") == [
        f"{workdir}:{workdir}", f"{workdir / '.git'}:{workdir / '.git'}:ro", f"{reports}:{reports}",
        f"{venv}:{venv}:ro",
    ]  # fmt: skip
    assert value_of(argv, "-e") == ["A=1"]
    assert value_of(argv, "--user") == [f"{box.who.uid}:{box.who.gid}"]
    assert value_of(argv, "--pids-limit") == ["64"]
    assert value_of(argv, "--ulimit") == [f"fsize={2 * 1024 * 1024}", "nofile=128", "cpu=60", "core=0"]
    assert argv[argv.index(IMAGE) + 1 :] == ["bash", "-c", 'ulimit -v "$1" && exec bash -c "$2"', "bash",
                                            str(512 * 1024), "pytest -x"]  # fmt: skip
    assert make_sandbox(image=IMAGE).describe() == {"kind": "docker", "image": IMAGE, "network": "none"}


def test_a_command_runs_through_the_engine_with_only_its_variables(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "sk-do-not-leak")
    workdir = tmp_path / "work"
    workdir.mkdir()
    result = DockerSandbox(IMAGE).run("pwd; echo A=$A S=$SECRET_KEY; touch made", workdir, 30, {"A": "1"})
    assert result.ok and result.stdout.split() == [str(workdir), "A=1", "S="]
    assert (workdir / "made").exists()
    assert [call[0] for call in engine()] == ["image", "run"]


def test_podman_is_the_engine_where_docker_is_absent(tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    fake_engine.install(folder, [IMAGE], tmp_path / "log", name="podman")
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    monkeypatch.setattr(docker_module, "_CHECKED", set())
    assert DockerSandbox(IMAGE).argv("true", tmp_path, None, "n")[0] == "podman"


def test_no_engine_or_no_image_is_said_before_anything_runs(engine, tmp_path, monkeypatch):
    with pytest.raises(SandboxUnavailable, match="pull it first .docker pull example/missing"):
        DockerSandbox("example/missing")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(SandboxUnavailable, match="neither docker nor podman"):
        make_sandbox(image=IMAGE)


def run_cli(tmp_path: Path, base_url: str, *extra: str):
    tasks_file = make_tasks(tmp_path)
    out = tmp_path / "run"
    args = ["coding", "run", "--tasks", tasks_file, "--model", "fake", "--base-url", base_url, "--out", out]
    args += ["--only", "alpha__double", "--seeds", "1", "--quiet", *extra]
    return runner.invoke(app, [str(a) for a in args]), out


def test_a_coding_run_goes_through_docker_end_to_end(engine, tmp_path):
    fix = bash(f"printf %s '{GOOD}' > alpha/core.py")
    with FakeServer(scripted([fix, bash("echo EXECMEM_SUBMIT")])) as server:
        result, out = run_cli(tmp_path, server.base_url, "--sandbox", "docker", "--image", IMAGE)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sandbox"]["kind"] == "docker" and manifest["sandbox"]["image"] == IMAGE
    episode = json.loads((out / "episodes.jsonl").read_text())
    assert episode["resolved"] and not episode["evaluation_suspect"]
    runs = [call for call in engine() if call[0] == "run"]
    commands = [call[-1] for call in runs]
    assert commands[:2] == [fix.tool_calls[0].arguments["command"], "echo EXECMEM_SUBMIT"]
    assert any("--junitxml=" in command for command in commands[2:])  # the evaluation, in the image too
    assert all(value_of(call, "--network") == ["none"] and IMAGE in call for call in runs)


@pytest.mark.parametrize(
    ("options", "fragments"),
    [
        (["--sandbox", "docker"], ["--image", "needs the image"]),
        (["--image", IMAGE], ["--image", "only with --sandbox docker"]),
        (["--sandbox", "docker", "--image", IMAGE, "--unsafe-local"], ["--unsafe-local"]),
        (["--sandbox", "docker", "--image", "example/missing"], ["pull it first"]),
    ],
)
def test_docker_options_are_checked_before_any_episode(engine, tmp_path, options, fragments):
    with FakeServer(scripted([bash("echo EXECMEM_SUBMIT")])) as server:
        result, out = run_cli(tmp_path, server.base_url, *options)
        assert server.requests == []
    assert_one_line_error(result, *fragments)
    assert not (out / "episodes.jsonl").exists()


def _working_engine() -> str | None:
    for engine in ("docker", "podman"):
        if shutil.which(engine) and subprocess.run([engine, "info"], capture_output=True).returncode == 0:
            return engine
    return None


REAL_IMAGE = os.environ.get("EXECMEM_DOCKER_IMAGE", "python:3.11-slim")


def test_a_real_engine_runs_the_command_in_the_image(tmp_path):
    engine = _working_engine()
    if engine is None:
        pytest.skip("no container engine answers here (docker info / podman info fail or are not installed)")
    if subprocess.run([engine, "image", "inspect", REAL_IMAGE], capture_output=True).returncode != 0:
        pytest.skip(f"{engine} has no {REAL_IMAGE}: {engine} pull {REAL_IMAGE}, or set EXECMEM_DOCKER_IMAGE")
    workdir = tmp_path / "work"
    workdir.mkdir()
    box = DockerSandbox(REAL_IMAGE, engine=engine)
    result = box.run("pwd; echo A=$A; ls /sys/class/net; touch made", workdir, 120, {"A": "1"})
    assert result.ok, result.stderr
    assert result.stdout.split() == [str(workdir), "A=1", "lo"]  # no network but the loopback
    assert (workdir / "made").exists()
