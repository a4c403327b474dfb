"""Coding runs under failure: infra errors re-run on resume (and only they), crashes keep their
traceback, a command that never ends is stopped by the time limit, agent commands cannot read
the run folder, the task file or the fixed upstream source."""

from __future__ import annotations

import json
import time

from typer.testing import CliRunner

import execmem.cli.coding_run  # noqa: F401 - adds run/compare to the coding app
from execmem.cli.coding import app
from execmem.core.files import complete_records
from execmem.suites.coding.tasks import dump_tasks, load_tasks
from execmem.testing.coding_policies import MemoryOracle, bash, hang, issue_of
from execmem.testing.fake_server import FakeServer, Fault
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_tasks, memory_oracle, run_condition

pytestmark = needs_bwrap


def failing_for(instance: str, oracle: MemoryOracle):
    """The oracle, except that every request about ``instance`` gets a 500."""

    def policy(body: dict):
        first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if oracle.by_issue[issue_of(first_user)].instance_id == instance:
            return Fault(500)
        return oracle(body)

    return policy


def issues(requests: list[dict]) -> set[str]:
    return {issue_of(body["messages"][1]["content"]) for body in requests}


def test_infra_errors_are_recorded_and_only_they_rerun_on_resume(tmp_path):
    tasks_file = make_tasks(tmp_path)
    oracle = memory_oracle(load_tasks(tasks_file))
    folder = tmp_path / "run"
    with FakeServer(failing_for("alpha__inc", oracle)) as server:
        first = run_condition(folder, tasks_file, server.base_url, "record", model_options={"max_retries": 0})
    assert first["episodes"] == {"expected": 12, "finished": 10, "infra_errors": 2, "complete": False}
    errors = complete_records(folder / "infra_errors.jsonl")
    assert {e["id"] for e in errors} == {"alpha__inc@0", "alpha__inc@1"}
    assert all(e["error_kind"] == "infra" and "500" in e["reason"] for e in errors)
    finished_before = (folder / "episodes.jsonl").read_text()
    with FakeServer(oracle) as server:
        resumed = run_condition(folder, tasks_file, server.base_url, "record")
        assert issues(server.requests) == {"In alpha, inc(3) gives a wrong result."}
    assert resumed["episodes"] == {"expected": 12, "finished": 12, "infra_errors": 0, "complete": True}
    assert (folder / "episodes.jsonl").read_text().startswith(finished_before)
    assert resumed["resolved"] == 8


def test_a_crashing_episode_keeps_its_traceback_and_the_others_finish(tmp_path):
    tasks = load_tasks(make_tasks(tmp_path, pkgs=("alpha",)))
    broken = tasks[0].model_copy(update={"source": {"kind": "local", "path": str(tmp_path / "gone")}})
    tasks_file = tmp_path / "broken.jsonl"
    dump_tasks([broken, *tasks[1:]], tasks_file)
    with FakeServer(memory_oracle(tasks)) as server:
        metrics = run_condition(tmp_path / "run", tasks_file, server.base_url, "off", seeds=1)
    assert metrics["episodes"]["finished"] == 2 and metrics["infra_error_kinds"] == {"crash": 1}
    (crash,) = complete_records(tmp_path / "run" / "infra_errors.jsonl")
    assert crash["id"] == "alpha__double@0" and "Traceback (most recent call last)" in crash["traceback"]


def test_a_command_that_runs_forever_is_stopped_and_the_episode_is_scored(tmp_path):
    tasks_file = make_tasks(tmp_path, pkgs=("alpha",))
    solver = {"time_limit_s": 2.0, "command_timeout_s": 600.0}
    started = time.monotonic()
    with FakeServer(hang) as server:
        metrics = run_condition(tmp_path / "run", tasks_file, server.base_url, "off", seeds=1, solver=solver)
    assert time.monotonic() - started < 30
    assert metrics["episodes"]["finished"] == 3 and metrics["end_reasons"] == {"time_limit": 3}
    for record in complete_records(tmp_path / "run" / "episodes.jsonl"):
        assert not record["resolved"] and record["outcomes"] and record["agent_s"] < 10
    steps = complete_records(tmp_path / "run" / "trajectories" / "alpha__inc@0.jsonl")
    assert steps[1]["tool_results"][0]["timed_out"] and steps[-1]["end_reason"] == "time_limit"


def test_agent_commands_cannot_read_the_run_the_tasks_or_the_fixed_source(tmp_path):
    tasks_file = make_tasks(tmp_path, pkgs=("alpha",))
    run = tmp_path / "run"
    upstream = tmp_path / "upstream" / "alpha"
    probe = f"cat {tasks_file} | wc -c; cat {run}/memory.json | wc -c; ls {upstream} | wc -l; ls {run}"

    def snoop(body: dict):
        steps = sum(m["role"] == "assistant" for m in body["messages"])
        return bash(probe) if steps == 0 else bash("echo EXECMEM_SUBMIT")

    with FakeServer(snoop) as server:
        run_condition(run, tasks_file, server.base_url, "record", seeds=1)
    for line in (run / "trajectories").glob("*.jsonl"):
        output = complete_records(line)[1]["tool_results"][0]["output"]
        assert output.split()[:4] == ["0", "0", "0", "workspaces"], output  # only the mount point
    assert json.loads((run / "manifest.json").read_text())["sandbox"]["kind"] == "bubblewrap"


def test_run_command_runs_resumes_and_rejects_bad_options(tmp_path):
    tasks_file = make_tasks(tmp_path, pkgs=("alpha",))
    out = tmp_path / "cli-run"
    with FakeServer(memory_oracle(load_tasks(tasks_file))) as server:
        args = ["run", "--tasks", str(tasks_file), "--model", "fake", "--base-url", server.base_url]
        args += ["--out", str(out), "--memory", "record", "--seeds", "1", "--quiet"]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
        assert "3/3 episodes, resolved 2" in done.output
        again = CliRunner().invoke(app, args)
        assert again.exit_code == 0 and len(server.requests) == 5
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["memory"]["condition"] == "record" and manifest["seeds"] == [0]
    bad = CliRunner().invoke(app, [*args[:-3], "--seeds", "0"])
    assert bad.exit_code == 2 and "seeds" in bad.output
    changed = CliRunner().invoke(app, [*args, "--max-steps", "5"])
    assert changed.exit_code == 2 and "solver.budgets.max_steps" in changed.output
