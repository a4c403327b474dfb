"""The paired protocol end to end: off / record / irrelevant / other-repo runs on synthetic repos,
then compare.

The scripted solver fixes a task only when its memory slot names the right file,
so the protocol must find an uplift for records (CI excluding 0) and none for the
controls (CI covering 0).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import execmem.cli.coding_run  # noqa: F401 - adds run/compare to the coding app
from execmem.agents.coding.prompts import MEMORY_OPEN, PROMPT_VERSION
from execmem.cli.coding import app
from execmem.core.files import complete_records
from execmem.core.hashing import file_sha256
from execmem.runs.coding.compare import load_coding_run, paired_report
from execmem.runs.episode_log import RunFolderError
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_tasks, memory_oracle, run_condition

pytestmark = needs_bwrap
ROLES = ("off", "record", "irrelevant", "other-repo")
CONTROLS = ("irrelevant", "other-repo")


@pytest.fixture(scope="module")
def paired(tmp_path_factory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("paired")
    tasks_file = make_tasks(root)
    with FakeServer(memory_oracle(load_tasks(tasks_file))) as server:
        runs = {role: root / "runs" / role for role in ROLES}
        metrics = {role: run_condition(runs[role], tasks_file, server.base_url, role) for role in ROLES}
        requests = list(server.requests)
    return SimpleNamespace(root=root, tasks_file=tasks_file, runs=runs, metrics=metrics, requests=requests)


def report_of(paired, *roles, **options) -> dict:
    return paired_report([load_coding_run(paired.runs[role]) for role in roles], **options)


def effect(report: dict, comparison: str) -> dict:
    return next(e for e in report["effects"] if e["comparison"] == comparison)


def compare_cli(*args) -> object:
    return CliRunner().invoke(app, ["compare", *map(str, args)])


def test_every_episode_finishes_and_only_records_resolve(paired):
    for role in ROLES:
        assert paired.metrics[role]["episodes"] == {
            "expected": 12, "finished": 12, "infra_errors": 0, "complete": True
        }  # fmt: skip
        assert paired.metrics[role]["end_reasons"] == {"submitted": 12}
    assert [paired.metrics[role]["resolved"] for role in ROLES] == [0, 8, 0, 0]


def test_records_give_an_uplift_whose_interval_excludes_zero(paired):
    report = report_of(paired, *ROLES)
    uplift = effect(report, "record - off")
    assert uplift["estimate"] == pytest.approx(4 / 6) and uplift["low"] > 0
    assert (uplift["gained"], uplift["lost"]) == (4, 0)
    assert (uplift["n_targets"], uplift["n_resamples"], uplift["seed"]) == (6, 10_000, 0)
    assert effect(report, "record - irrelevant")["low"] > 0
    assert report["conditions"]["record"]["resolved_rate"] == pytest.approx(8 / 12)


def test_the_controls_show_no_effect(paired):
    report = report_of(paired, *ROLES)
    for name in CONTROLS:
        control = effect(report, f"{name} - off")
        assert control["low"] <= 0 <= control["high"] and control["estimate"] == 0
        assert (control["gained"], control["lost"]) == (0, 0)
        assert effect(report, f"record - {name}")["low"] > 0


def test_memory_is_only_in_the_slot_and_the_control_matches_its_size(paired):
    for body in paired.requests:
        slots = [MEMORY_OPEN in (m.get("content") or "") for m in body["messages"]]
        assert not any(slots[:1] + slots[2:])
    memories = {role: json.loads((paired.runs[role] / "memory.json").read_text()) for role in ROLES}
    assert all(m["text"] is None for m in memories["off"].values())
    for target, record in memories["record"].items():
        for name in CONTROLS:
            control = memories[name][target]
            assert control["chars"] == record["chars"]
            assert not set(control["sources"]) & set(record["sources"])
        if record["text"]:
            assert "core.py" not in memories["irrelevant"][target]["text"]
            assert "core.py" in memories["other-repo"][target]["text"]
    prompts = {body["messages"][1]["content"] for body in paired.requests}
    assert sum(memories["record"]["alpha__neg"]["text"] in p for p in prompts) == 1


def test_manifest_declares_what_the_protocol_fixes(paired):
    manifest = json.loads((paired.runs["record"] / "manifest.json").read_text())
    assert manifest["model"]["model"] == "fake" and manifest["model"]["temperature"] == 0.0
    assert manifest["solver"]["prompt_version"] == PROMPT_VERSION
    budgets = manifest["solver"]["budgets"]
    for key in ("max_steps", "max_total_tokens", "time_limit_s", "command_timeout_s", "context_tokens"):
        assert key in budgets
    assert [tool["name"] for tool in manifest["tools"]] == ["bash"]
    assert manifest["sandbox"]["kind"] == "bubblewrap" and manifest["sandbox"]["output_cap"] > 0
    assert manifest["tasks"]["file_sha256"] == file_sha256(paired.tasks_file)
    assert manifest["tasks"]["order"] == [t.instance_id for t in load_tasks(paired.tasks_file)]
    assert manifest["seeds"] == [0, 1]
    memory = manifest["memory"]
    assert memory["condition"] == "record" and memory["n_records"] == 3 and memory["max_chars"] == 2000
    assert {"write_policy", "retrieval_trigger", "insertion_rule", "truncation_rule"} <= memory.keys()


def test_episodes_keep_their_patch_and_a_per_step_trajectory(paired):
    records = {e["id"]: e for e in complete_records(paired.runs["record"] / "episodes.jsonl")}
    assert "+    return -x" in records["alpha__neg@0"]["model_patch"] and records["alpha__neg@0"]["resolved"]
    assert records["alpha__double@0"]["model_patch"] == "" and not records["alpha__double@0"]["resolved"]
    trajectory = complete_records(paired.runs["record"] / "trajectories" / "alpha__neg@0.jsonl")
    assert trajectory[0]["messages"][0]["role"] == "system" and trajectory[-1]["end_reason"] == "submitted"
    assert [line.get("step") for line in trajectory[1:-1]] == [1, 2]


def test_compare_cli_prints_the_table_and_the_json(paired):
    result = compare_cli(*(paired.runs[role] for role in ROLES))
    assert result.exit_code == 0, result.output
    assert "record - off" in result.output and "irrelevant - off" in result.output
    assert "Layer A: resolved rate per solver" in result.output
    as_json = compare_cli(*(paired.runs[role] for role in ROLES), "--json", "--bootstrap-seed", "3")
    report = json.loads(as_json.stdout)
    assert report["bootstrap"]["seed"] == 3 and report["n_targets"] == 6
    assert report["small_sample"] and "rest on 6 targets (fewer than 20)" in report["warnings"][0]
    assert "warning: the intervals rest on 6 targets" in as_json.stderr  # stdout stays one JSON document
    assert "warning: the intervals rest on 6 targets" in result.stderr
    assert effect(report, "record - off")["estimate"] == pytest.approx(4 / 6)
    assert [t["id"] for t in report["tables"]] == ["layer-a-resolved", "layer-a-cost"]
    resolved = report["tables"][0]
    row = dict(zip(resolved["columns"], resolved["rows"][0], strict=True))
    assert row["resolved off"] == 0 and row["resolved record"] == pytest.approx(4 / 6, abs=1e-4)
    assert row["Δ treatment - off"] == pytest.approx(4 / 6, abs=1e-4) and row["gained at 2/2"] == 4
    two_run = compare_cli(paired.runs["record"], paired.runs["off"], "--json")  # any order
    assert two_run.exit_code == 0, two_run.output
    two = json.loads(two_run.stdout)
    assert [e["comparison"] for e in two["effects"]] == ["record - off"]


def edited_copy(source: Path, target: Path, **changes) -> Path:
    shutil.copytree(source, target)
    manifest = json.loads((target / "manifest.json").read_text())
    for dotted, value in changes.items():
        node = manifest
        *parents, leaf = dotted.split("__")
        for key in parents:
            node = node[key]
        node[leaf] = value
    (target / "manifest.json").write_text(json.dumps(manifest))
    return target


def test_compare_refuses_runs_of_different_protocols_naming_the_fields(paired, tmp_path):
    hot = edited_copy(paired.runs["record"], tmp_path / "hot", model__temperature=0.7, seeds=[0, 1, 2])
    result = compare_cli(paired.runs["off"], hot)
    assert result.exit_code == 2
    assert "model.temperature" in result.output and "seeds" in result.output
    budget = edited_copy(paired.runs["record"], tmp_path / "budget", solver__budgets__max_steps=5)
    assert "solver.budgets.max_steps" in compare_cli(paired.runs["off"], budget).output
    other = edited_copy(paired.runs["irrelevant"], tmp_path / "n1", memory__n_records=1)
    output = compare_cli(paired.runs["off"], paired.runs["record"], other).output
    assert "memory.n_records" in output
    twice = compare_cli(paired.runs["off"], paired.runs["record"], paired.runs["record"])
    assert twice.exit_code == 2 and "both have memory 'record'" in twice.output
    no_off = compare_cli(paired.runs["record"], paired.runs["irrelevant"])
    assert no_off.exit_code == 2 and "no run with memory 'off'" in no_off.output


def test_compare_refuses_incomplete_runs_unless_asked(paired, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(paired.runs["record"], partial)
    lines = (partial / "episodes.jsonl").read_text().splitlines(keepends=True)
    (partial / "episodes.jsonl").write_text("".join(line for line in lines if '"alpha__inc@1"' not in line))
    refused = compare_cli(paired.runs["off"], partial)
    assert refused.exit_code == 2 and "--allow-incomplete" in refused.output
    paired_on_complete = compare_cli(paired.runs["off"], partial, "--json", "--allow-incomplete")
    report = json.loads(paired_on_complete.stdout)
    assert report["n_targets"] == 5 and report["dropped_targets"] == ["alpha__inc"]
    assert paired_on_complete.exit_code == 1  # a comparison on part of the targets is incomplete
    assert "incomplete: 1 targets left out; resume the runs" in paired_on_complete.stderr


def test_a_finished_run_resumes_without_any_model_call(paired, tmp_path):
    copy = tmp_path / "again"
    shutil.copytree(paired.runs["record"], copy)
    before = (copy / "episodes.jsonl").read_text()
    with FakeServer(memory_oracle([])) as server:
        metrics = run_condition(copy, paired.tasks_file, server.base_url, "record")
        assert server.requests == []
    assert (copy / "episodes.jsonl").read_text() == before and metrics["resolved"] == 8
    assert len(json.loads((copy / "manifest.json").read_text())["resumed_at"]) == 1


def test_resuming_with_another_protocol_is_refused(paired, tmp_path):
    copy = tmp_path / "again"
    shutil.copytree(paired.runs["record"], copy)
    with pytest.raises(RunFolderError, match="seeds"):
        run_condition(copy, paired.tasks_file, "http://127.0.0.1:9/v1", "record", seeds=3)
