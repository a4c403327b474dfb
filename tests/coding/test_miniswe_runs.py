"""``--solver miniswe`` end to end: paired coding runs through bubblewrap, driven by a scripted model.

The scripted model fixes a task only when the memory slot names the file of its fix, and submits
with mini-swe-agent's command; the runs must find the same uplift as with the built-in solver,
record mini-swe-agent in their manifests and refuse to pair with runs of the built-in solver.
"""

from __future__ import annotations

from importlib.util import find_spec
from types import SimpleNamespace

import pytest

from execmem.core.files import complete_records, read_json_document
from execmem.runs.coding.compare import load_coding_run, paired_report, pairing_problems
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.coding_policies import MemoryOracle
from execmem.testing.fake_server import FakeServer
from tests.cli.conftest import assert_one_line_error, invoke
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import GOOD, make_tasks, run_condition

pytestmark = [
    needs_bwrap,
    pytest.mark.skipif(
        find_spec("minisweagent") is None, reason='mini-swe-agent missing: pip install -e ".[miniswe]"'
    ),
]
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("miniswe")
    tasks_file = make_tasks(root)
    folders = {name: root / name for name in ("mini-off", "mini-record", "bash-off")}
    with FakeServer(MemoryOracle(load_tasks(tasks_file), GOOD, submit=SUBMIT)) as server:
        metrics = {
            "mini-off": run_condition(
                folders["mini-off"], tasks_file, server.base_url, "off", solver_kind="miniswe"
            ),
            "mini-record": run_condition(
                folders["mini-record"], tasks_file, server.base_url, "record", solver_kind="miniswe"
            ),
            "bash-off": run_condition(folders["bash-off"], tasks_file, server.base_url, "off", seeds=1),
        }
        requests = list(server.requests)
    return SimpleNamespace(tasks_file=tasks_file, folders=folders, metrics=metrics, requests=requests)


def test_every_episode_submits_and_only_records_resolve(runs):
    for name in ("mini-off", "mini-record"):
        assert runs.metrics[name]["episodes"]["complete"] and runs.metrics[name]["end_reasons"] == {
            "submitted": 12
        }
    assert (runs.metrics["mini-off"]["resolved"], runs.metrics["mini-record"]["resolved"]) == (0, 8)
    report = paired_report(
        [load_coding_run(runs.folders["mini-off"]), load_coding_run(runs.folders["mini-record"])]
    )
    (uplift,) = report["effects"]
    assert uplift["estimate"] == pytest.approx(4 / 6) and uplift["low"] > 0


def test_the_manifest_names_mini_swe_agent_and_runs_of_two_solvers_never_pair(runs):
    import minisweagent

    manifest = read_json_document(runs.folders["mini-off"] / "manifest.json")
    assert (
        manifest["solver"]["kind"] == "mini-swe-agent"
        and manifest["solver"]["version"] == minisweagent.__version__
    )
    assert manifest["solver"]["budgets"]["max_steps"] == 30 and manifest["tools"][0]["name"] == "bash"
    assert manifest["invocation"]["solver_kind"] == "miniswe"
    problems = pairing_problems(
        [load_coding_run(runs.folders["bash-off"]), load_coding_run(runs.folders["mini-record"])]
    )
    assert any(problem.startswith("solver.kind:") for problem in problems)
    assert any(problem.startswith("tools:") for problem in problems)  # mini-swe-agent's own bash schema


def test_episodes_send_their_seed_and_keep_mini_s_trajectory(runs):
    mini = [
        r for r in runs.requests if r["messages"][1]["content"].startswith(("Please solve", "Notes from"))
    ]
    assert {r["seed"] for r in mini} == {0, 1} and len(mini) == 12 + 8 * 2 + 4
    # off: one step (submit) per episode; record: fix and submit where a record names the file
    episode = next(
        e for e in complete_records(runs.folders["mini-record"] / "episodes.jsonl") if e["resolved"]
    )
    lines = complete_records(runs.folders["mini-record"] / "trajectories" / f"{episode['id']}.jsonl")
    assert "<memory>" in lines[0]["messages"][1]["content"] and [line.get("step") for line in lines[1:3]] == [
        1,
        2,
    ]
    assert lines[2]["tool_results"][0]["submitted"] and lines[-1]["end_reason"] == "submitted"
    assert episode["steps"] == 2 and episode["commands"] == 2 and episode["input_tokens"] > 0


def test_the_cli_takes_solver_miniswe_and_names_the_extra_when_it_is_missing(runs, tmp_path, monkeypatch):
    from execmem.agents.coding.miniswe import library

    monkeypatch.setitem(__import__("sys").modules, "minisweagent", None)
    library.library.cache_clear()
    library.templates.cache_clear()
    try:
        result = invoke(
            "coding", "run", "--tasks", runs.tasks_file, "--model", "m", "--out", tmp_path / "r",
            "--solver", "miniswe", "--base-url", "http://127.0.0.1:9/v1", "--no-probe",
        )  # fmt: skip
    finally:
        library.library.cache_clear()
        library.templates.cache_clear()
    assert_one_line_error(
        result, "the mini-swe-agent solver needs optional", 'pip install "execmem[miniswe]"'
    )
    assert not (tmp_path / "r" / "manifest.json").exists()
