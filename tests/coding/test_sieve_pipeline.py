"""SIEVE end to end on planted history: the funnel keeps exactly the targets whose planted experience
helps, every stage leaves its artifact with provenance, nothing of a target leaks, re-running spends
nothing, and the frozen file drives a Layer A comparison that recovers the planted uplift."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import execmem.cli.coding_run  # noqa: F401 - adds run/compare to the coding app
import execmem.cli.coding_sieve  # noqa: F401 - adds sieve to the coding app
from execmem.agents.coding.prompts import memory_slot_text
from execmem.cli.coding import app
from execmem.core.files import complete_records, read_json_document
from execmem.runs.coding.sieve.history_items import eligible_history, history_folder, load_history
from execmem.suites.coding.frozen import load_frozen
from execmem.suites.coding.history import HistoryItem
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.coding_policies import issue_of
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import PlantedSolver
from tests.coding.conftest import needs_bwrap
from tests.coding.sieve_support import (
    EXPECTED_DROPS,
    EXPECTED_KEPT,
    PLANTS,
    make_sieve_tasks,
    run_sieve,
    sieve_config,
)

pytestmark = needs_bwrap
STAGES = ("1-validate", "2-screen", "3-history", "3-distill", "4-verify")


@pytest.fixture(scope="module")
def sieved(tmp_path_factory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("sieve")
    tasks_file = make_sieve_tasks(root)
    tasks = load_tasks(tasks_file)
    solver = PlantedSolver(tasks, PLANTS, ceiling=0.0)
    with FakeServer(solver) as server:
        config = sieve_config(tasks_file, root / "out", server.base_url)
        document = run_sieve(config)
        requests = list(server.requests)
    return SimpleNamespace(root=root, tasks_file=tasks_file, tasks=tasks, solver=solver, config=config,
                           document=document, requests=requests)  # fmt: skip


def rows(document: dict, table_id: str) -> list[dict]:
    table = next(t for t in document["tables"] if t["id"] == table_id)
    return [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]


def test_the_funnel_keeps_exactly_the_targets_with_a_helpful_planted_history(sieved):
    assert sieved.document["kept"] == EXPECTED_KEPT
    fates = {row["target"]: row for row in rows(sieved.document, "sieve-targets")}
    stages = [row["stage"] for row in rows(sieved.document, "sieve-funnel")]
    for target, (stage, reason) in EXPECTED_DROPS.items():
        assert fates[target]["left at"] == stages[stage] and fates[target]["reason"].startswith(reason), (
            target
        )
    assert fates["alpha__double-3"]["left at"] == "kept" and fates["alpha__double-3"]["best uplift"] == 1.0
    funnel = rows(sieved.document, "sieve-funnel")
    assert [(r["targets in"], r["kept"], r["dropped"]) for r in funnel] == [
        (7, 6, 1),
        (6, 4, 2),
        (4, 3, 1),
        (3, 1, 2),
    ]
    assert (
        "at ceiling (off 4/4): 1" in funnel[3]["reasons dropped"]
        and "no uplift: 1" in funnel[3]["reasons dropped"]
    )
    assert read_json_document(sieved.config.out / "funnel.json") == sieved.document


def test_the_frozen_file_holds_the_verified_experience_and_its_provenance(sieved):
    frozen = load_frozen(sieved.config.out / "frozen.jsonl")
    assert list(frozen) == EXPECTED_KEPT
    record = frozen["alpha__double-3"]
    assert (
        "alpha/core.py" in record.text
        and "`double`" in record.text
        and record.text == record.experience.render()
    )
    provenance = record.provenance
    assert provenance["history_ids"] == ["alpha__double-1"] and provenance["candidate_rank"] == 1
    assert (
        provenance["outcomes"] == {"off": [0, 0, 0, 0], "frozen": [1, 1, 1, 1]}
        and provenance["uplift"] == 1.0
    )
    assert (
        provenance["distiller"]["kind"] == "extractive"
        and provenance["solver"]["model"]["model"] == "planted"
    )
    assert provenance["seeds"] == [0, 1, 2, 3] and provenance["anchoring"]["anchored"]
    # the planted truth agrees: the record names the fix's file and function
    target = next(t for t in sieved.tasks if t.instance_id == "alpha__double-3")
    assert (
        sieved.solver.probability(target, record.text) > 0.95 and sieved.solver.probability(target, None) == 0
    )


def test_every_stage_leaves_its_artifact_with_provenance(sieved):
    document = read_json_document(sieved.config.out / "sieve.json")
    assert list(document["stages"]) == list(STAGES) and document["finished_at"]
    for name in STAGES:
        stage = read_json_document(sieved.config.out / document["stages"][name] / "stage.json")
        assert (
            stage["stage"] == name
            and stage["finished_at"]
            and stage["key"].startswith(document["stages"][name].rsplit("/", 1)[1])
        )
        assert stage["inputs"] and stage["version"]
    screen = read_json_document(sieved.config.out / document["stages"]["2-screen"] / "screen.json")
    assert screen["alpha__double-3"]["pool"] == ["alpha__double-1", "alpha__inc-2"]
    top = screen["alpha__double-3"]["scores"][0]
    assert top["history"] == "alpha__double-1" and top["shared_files"] == ["alpha/core.py"]


def test_eligible_history_is_loadable_and_carries_only_what_the_solver_made(sieved):
    items = eligible_history(sieved.config.out, "alpha__double-3")
    assert [item.instance_id for item in items] == ["alpha__double-1", "alpha__inc-2"]
    assert all(isinstance(item, HistoryItem) and item.end_reason == "submitted" for item in items)
    assert "grep -n 'def double' alpha/core.py" in items[0].trajectory
    assert "execmem-scripted: double reviewed here" in items[0].model_patch and not items[0].resolved
    assert eligible_history(sieved.config.out, "beta__neg-2") == []  # its only history stalled
    assert eligible_history(sieved.config.out, "alpha__double-1") == []  # never reached stage 3
    all_items, pools = load_history(history_folder(sieved.config.out))
    assert "beta__neg-1" not in all_items and pools["beta__neg-2"]["executed"] == ["beta__neg-1"]


def test_no_target_leaks_into_history_experiences_or_the_memory_slot(sieved):
    by_id = {task.instance_id: task for task in sieved.tasks}
    items, pools = load_history(history_folder(sieved.config.out))
    for target, pool in pools.items():
        task = by_id[target]
        for history in pool["eligible"]:
            text = items[history].model_dump_json()
            assert target not in text and task.patch not in text and task.problem_statement not in text
    distill = sieved.config.out / read_json_document(sieved.config.out / "sieve.json")["stages"]["3-distill"]
    for line in (distill / "experiences.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert record["target"] not in record["text"] and by_id[record["target"]].patch not in record["text"]
    by_issue = {task.problem_statement: task for task in sieved.tasks}
    for body in sieved.requests:
        first = body["messages"][1]["content"]
        task, slot = by_issue[issue_of(first)], memory_slot_text(first) or ""
        assert task.instance_id not in slot and task.patch not in slot
        assert not any(other.instance_id in slot for other in sieved.tasks)  # history ids never reach it


def test_rerunning_spends_nothing_and_a_new_distiller_setting_reruns_no_episode(sieved):
    with FakeServer(sieved.solver) as server:
        model = sieved.config.model.model_copy(
            update={"base_url": server.base_url}
        )  # another port, same model
        config = sieved.config.model_copy(update={"model": model})
        again = run_sieve(config)
        assert server.requests == [] and again["kept"] == EXPECTED_KEPT and len(server.probes) == 1
        changed = run_sieve(config.model_copy(update={"drop_unanchored": True}))
        assert server.requests == [] and changed["kept"] == EXPECTED_KEPT
    document = read_json_document(sieved.config.out / "sieve.json")
    assert len(list((sieved.config.out / "stages" / "3-distill").iterdir())) == 2
    assert document["invocation"]["drop_unanchored"]


def test_the_dry_run_plans_without_running(sieved, tmp_path):
    base = [
        "sieve",
        "--tasks",
        str(sieved.tasks_file),
        "--model",
        "planted",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    fresh = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "new"), "--dry-run"])
    assert fresh.exit_code == 0, fresh.output
    assert "SIEVE dry run: nothing is run" in fresh.output and not (tmp_path / "new").exists()
    plan = json.loads(
        CliRunner().invoke(app, [*base, "--out", str(tmp_path / "new"), "--dry-run", "--json"]).stdout
    )
    work = {row["stage"]: row for row in plan["plan"]}
    assert work["1 source validation"]["work"] == "7 of 7 tasks to validate (2 test runs each)"
    assert "upper bounds" in work["2 patch-pattern screen"]["work"]
    assert work["3 history execution"]["episodes_at_most"] == 5  # every task but the last of each repo
    assert work["3 history execution"]["model_calls_at_most"] == 5 * 30
    done = CliRunner().invoke(
        app, [*base, "--out", str(sieved.config.out), "--max-steps", "4", "--dry-run", "--json"]
    )
    work = {row["stage"]: row for row in json.loads(done.stdout)["plan"]}
    assert work["1 source validation"]["work"].startswith("0 of 7")
    assert work["3 history execution"]["work"] == "4 history tasks x 1 seeds"
    assert work["3 history execution"]["episodes_at_most"] == 0
    # an upper bound: the plan does not know that stage 3 dropped beta__neg-2 (whose off runs never ran)
    assert work["4 verify: off"]["episodes_at_most"] == 4


def test_layer_a_on_the_frozen_file_recovers_the_planted_uplift(sieved, tmp_path):
    frozen = sieved.config.out / "frozen.jsonl"
    runs = {}
    with FakeServer(sieved.solver) as server:
        for memory in ("off", "frozen", "irrelevant"):
            runs[memory] = tmp_path / memory
            result = CliRunner().invoke(app, [
                "run", "--tasks", str(sieved.tasks_file), "--frozen", str(frozen), "--memory", memory,
                "--model", "planted", "--base-url", server.base_url, "--max-steps", "4",
                "--out", str(runs[memory]),
            ])  # fmt: skip
            assert result.exit_code == 0, result.output
    report = json.loads(CliRunner().invoke(app, ["compare", *map(str, runs.values()), "--json"]).stdout)
    assert report["n_targets"] == 1 and report["treatment"] == "frozen"
    effects = {e["comparison"]: e for e in report["effects"]}
    assert effects["frozen - off"]["estimate"] == 1.0 and effects["frozen - off"]["low"] > 0
    assert effects["irrelevant - off"]["estimate"] == 0 and effects["irrelevant - off"]["gained_full"] == 0
    memories = {m: json.loads((runs[m] / "memory.json").read_text()) for m in runs}
    assert (
        memories["irrelevant"]["alpha__double-3"]["chars"] == memories["frozen"]["alpha__double-3"]["chars"]
    )


def test_identical_diffs_share_one_evaluation_and_agree(sieved):
    episodes = [
        e for path in (sieved.config.out / "episodes").rglob("episodes.jsonl") for e in complete_records(path)
    ]
    reused = [e for e in episodes if e["eval_reused"]]
    assert reused and all(e["test_s"] == 0.0 and e["eval_s"] == 0.0 for e in reused)
    scored = {(e["instance_id"], e["model_patch"]): e["resolved"] for e in episodes if not e["eval_reused"]}
    assert all(scored[e["instance_id"], e["model_patch"]] == e["resolved"] for e in reused)
    manifest = read_json_document(next((sieved.config.out / "episodes").rglob("manifest.json")))
    assert "reuses that evaluation" in manifest["evaluation"]["reuse"]
