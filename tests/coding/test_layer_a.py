"""Layer A with two planted solvers (a strong effect and none) on a hand-written frozen file.

Every episode's outcome must be the one the planted formula gives (the loop, sandbox and evaluator
carry the plant faithfully); the Layer A table must then recover the sign: frozen - off with an
interval above 0 for the strong solver and around 0 for the other, the irrelevant control no gain.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from execmem.agents.coding.prompts import memory_slot_text
from execmem.runs.coding.compare import compare_runs, load_coding_run
from execmem.runs.coding.layer_a import layer_a_tables
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.frozen import dump_frozen, frozen_record
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import PlantedSolver, fix_location
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_tasks, run_condition

pytestmark = needs_bwrap
CONDITIONS = ("off", "frozen", "irrelevant")


def experience_for(task) -> Experience:
    path, functions = fix_location(task)
    return Experience(
        bug_class="wrong arithmetic",
        root_cause=f"`{functions[0]}` in {path} computes the wrong value",
        fix_pattern="restore the original operator",
        reusable_lesson=f"look at `{functions[0]}` first",
    )


@pytest.fixture(scope="module")
def layer_a(tmp_path_factory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("layer-a")
    tasks_file = make_tasks(root)
    tasks = load_tasks(tasks_file)
    frozen = root / "frozen.jsonl"
    dump_frozen(
        [frozen_record(t.instance_id, t.repo, experience_for(t), {"history_ids": []}) for t in tasks], frozen
    )
    solvers = {
        "strong": PlantedSolver(tasks, ceiling=0.0, base=0.25, effect=1.0),
        "none": PlantedSolver(tasks, ceiling=0.0, base=0.25, effect=0.0),
    }
    runs = {}
    with FakeServer(lambda body: solvers[body["model"]](body)) as server:
        for name in solvers:
            for memory in CONDITIONS if name == "strong" else CONDITIONS[:2]:
                runs[name, memory] = root / name / memory
                run_condition(
                    runs[name, memory],
                    tasks_file,
                    server.base_url,
                    memory,
                    seeds=4,
                    frozen_file=frozen,
                    model_options={"model": name},
                    solver={"max_steps": 4},
                )
        requests = list(server.requests)
    return SimpleNamespace(tasks=tasks, solvers=solvers, runs=runs, requests=requests)


def test_every_outcome_is_the_planted_one(layer_a):
    by_id = {task.instance_id: task for task in layer_a.tasks}
    for (name, memory), folder in layer_a.runs.items():
        run = load_coding_run(folder)
        injected = json.loads((folder / "memory.json").read_text())
        assert len(run.episodes) == 24
        for episode in run.episodes.values():
            task, text = by_id[episode["instance_id"]], injected[episode["instance_id"]]["text"]
            expected = layer_a.solvers[name].resolves(task, text, episode["seed"])
            assert episode["resolved"] == expected, (name, memory, episode["id"])
    prompts = {
        b["messages"][1]["content"] for b in layer_a.requests if memory_slot_text(b["messages"][1]["content"])
    }
    assert any("Bug class: wrong arithmetic" in p for p in prompts)


def test_the_layer_a_table_recovers_the_planted_sign(layer_a):
    loaded = [load_coding_run(folder) for folder in layer_a.runs.values()]
    reports = compare_runs(loaded, n_resamples=2000)
    assert [r["solver"].split(" ")[0] for r in reports] == ["strong", "none"]
    effects = {r["solver"].split(" ")[0]: {e["comparison"]: e for e in r["effects"]} for r in reports}
    strong, none = effects["strong"]["frozen - off"], effects["none"]["frozen - off"]
    assert strong["estimate"] > 0.5 and strong["low"] > 0
    assert none["low"] <= 0 <= none["high"]
    control = effects["strong"]["irrelevant - off"]
    assert control["estimate"] <= 0 and control["gained_full"] == 0 and control["low"] <= 0
    table = layer_a_tables(reports)[0].to_dict()
    rows = [dict(zip(table["columns"], row, strict=True)) for row in table["rows"]]
    assert [row["targets"] for row in rows] == [6, 6] and rows[0]["gained at 4/4"] == strong[
        "gained_full"
    ] > 0
    assert rows[0]["Δ treatment - off"] == round(strong["estimate"], 4) and rows[1]["lost at 4/4"] == 0
    assert set(table["columns"]) >= {
        "resolved off",
        "resolved frozen",
        "resolved irrelevant",
        "Δ irrelevant - off",
    }
    cost = layer_a_tables(reports)[1].to_dict()
    assert len(cost["rows"]) == 5 and cost["columns"][3] == "mean input tokens"
    assert rows[1]["resolved irrelevant"] is None  # the second solver ran no control


def test_runs_of_different_frozen_files_do_not_pair(layer_a, tmp_path):
    import shutil

    from execmem.core.files import read_json_document, write_json_atomic
    from execmem.runs.identity import CompareError

    copy = tmp_path / "frozen"
    shutil.copytree(layer_a.runs["strong", "frozen"], copy)
    manifest = read_json_document(copy / "manifest.json")
    manifest["tasks"]["frozen_file_sha256"] = "other"
    write_json_atomic(copy / "manifest.json", manifest)
    with pytest.raises(CompareError, match="tasks.frozen_file_sha256"):
        compare_runs([load_coding_run(layer_a.runs["strong", "off"]), load_coding_run(copy)])
