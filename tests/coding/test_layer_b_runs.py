"""Layer B end to end on planted history: SIEVE runs every pool task (``history_scope=pool``), then
bm25, dense and fusion runs and a planted-record run fill the slot from that history; the planted
solver's outcome follows the injected text, the runs pair with the Layer A off run, nothing of a
target reaches the system or the slot, and a finished run resumes without touching the system."""

from __future__ import annotations

import asyncio
import pickle
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from execmem.agents.coding.prompts import memory_slot_text
from execmem.cli.main import app
from execmem.core.files import read_json_document
from execmem.runs.coding.compare import compare_runs, load_coding_run
from execmem.runs.coding.layer_b.ingest import user_space
from execmem.runs.coding.sieve.history_items import eligible_history
from execmem.runs.episode_log import RunFolderError
from execmem.runs.identity import CompareError
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.coding_policies import issue_of
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import PlantedSolver
from tests.coding.conftest import needs_bwrap
from tests.coding.layer_b_support import run_system, system_run
from tests.coding.paired_support import run_condition
from tests.coding.sieve_support import PLANTS, make_sieve_tasks, run_sieve, sieve_config
from tests.conftest import comparable_lines

pytestmark = needs_bwrap
TARGET = "alpha__double-3"  # the one target SIEVE keeps; its eligible history: alpha__double-1, alpha__inc-2
TIMING = ("agent_s", "model_latency_s", "prepare_s", "eval_s", "test_s", "episode_s", "finished_at")
SYSTEMS = {  # run name: (system, settings)
    "bm25": ("bm25", {}),
    "bm25-top3": ("bm25", {"top_k": 3}),
    "dense": ("dense", {}),
    "fusion": ("fusion", {"top_k": 2}),
}


@pytest.fixture(scope="module")
def layer_b(tmp_path_factory, planted_memory_site) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("layer-b")
    tasks_file = make_sieve_tasks(root)
    tasks = load_tasks(tasks_file)
    solver = PlantedSolver(tasks, PLANTS, ceiling=0.0)
    runs, systems = {}, {}
    with FakeServer(solver) as server, pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(planted_memory_site))
        sieve = root / "sieve"
        run_sieve(sieve_config(tasks_file, sieve, server.base_url, history_scope="pool"))
        frozen = sieve / "frozen.jsonl"
        runs["off"] = root / "off"
        options = {"frozen_file": frozen, "solver": {"max_steps": 4}, "model_options": {"model": "planted"}}
        run_condition(runs["off"], tasks_file, server.base_url, "off", seeds=4, **options)
        plan = {user_space(TARGET): "clean"}
        for name, (system, settings) in {**SYSTEMS, "planted": ("planted-records", {})}.items():
            settings = {**settings, "options": {"plan": plan}} if name == "planted" else settings
            runs[name] = root / name
            done = run_system(runs[name], tasks_file, server.base_url, system, sieve, system=settings,
                              frozen_file=frozen)  # fmt: skip
            systems[name] = done.memories.system
        requests = list(server.requests)
    by_id = {t.instance_id: t for t in tasks}
    return SimpleNamespace(root=root, tasks_file=tasks_file, tasks=by_id, sieve=sieve, frozen=frozen,
                           solver=solver, runs=runs, systems=systems, requests=requests)  # fmt: skip


def memory_of(folder) -> dict:
    return read_json_document(folder / "memory.json")


def test_every_outcome_is_the_planted_one_for_the_injected_text(layer_b):
    slots = {memory_slot_text(b["messages"][1]["content"]) for b in layer_b.requests}
    for name in (*SYSTEMS, "planted"):
        run, entry = load_coding_run(layer_b.runs[name]), memory_of(layer_b.runs[name])[TARGET]
        assert len(run.episodes) == 4 and entry["text"] in slots, name  # the slot sent is memory.json's
        for episode in run.episodes.values():
            expected = layer_b.solver.resolves(layer_b.tasks[TARGET], entry["text"], episode["seed"])
            assert episode["resolved"] == expected, (name, episode["id"])
            assert episode["memory_chars"] == entry["chars"] and episode["memory_sources"] == entry["sources"]
    clean = memory_of(layer_b.runs["planted"])[TARGET]
    assert "alpha/core.py, function double" in clean["text"]  # the planted clean record names the fix
    assert all(e["resolved"] for e in load_coding_run(layer_b.runs["planted"]).episodes.values())


def test_memory_json_keeps_the_ranking_with_its_history_and_sizes(layer_b):
    eligible = [item.instance_id for item in eligible_history(layer_b.sieve, TARGET)]
    assert eligible == ["alpha__double-1", "alpha__inc-2"]
    for name, (_, settings) in SYSTEMS.items():
        entry = memory_of(layer_b.runs[name])[TARGET]
        top_k = settings.get("top_k", 1)
        assert entry["ingested"] == eligible and entry["query"] == layer_b.tasks[TARGET].problem_statement
        ranked = entry["ranking"]
        assert [r["injected"] for r in ranked][:top_k] == [True] * top_k and sum(
            r["injected"] for r in ranked
        ) == top_k
        assert all(set(r["history_ids"]) <= set(eligible) and r["history_ids"] for r in ranked), name
        assert {"rank", "text", "lines", "tokens", "score", "history_ids", "injected"} <= set(ranked[0])
        assert entry["lines"] == len(entry["text"].splitlines()) and entry["ingest"]["seconds"] >= 0
    planted = memory_of(layer_b.runs["planted"])[TARGET]["ranking"]
    assert planted[0]["metadata"] == {"planted_form": "clean", "planted_role": "planted"}
    assert planted[0]["history_ids"] == ["alpha__double-1"]


def test_the_manifest_declares_the_layer_b_policy(layer_b):
    off = read_json_document(layer_b.runs["off"] / "manifest.json")
    for name, (system, settings) in SYSTEMS.items():
        manifest = read_json_document(layer_b.runs[name] / "manifest.json")
        block = manifest["memory"]
        assert block["condition"] == "system" and block["system"] == system
        assert block["top_k"] == settings.get("top_k", 1) and block["query"] == "problem"
        assert {"write_policy", "retrieval_trigger", "insertion_rule", "truncation_rule", "describe"} <= set(
            block
        )
        stage = read_json_document(layer_b.sieve / "sieve.json")["stages"]["3-history"]
        assert (
            stage.endswith("/" + block["history"]["history_stage_key"]) and block["history"]["sieve_dir_sha"]
        )
        assert manifest["tasks"] == off["tasks"]  # the frozen file fixes the targets, as in Layer A


def test_layer_b_runs_pair_with_the_layer_a_off_run(layer_b):
    off = load_coding_run(layer_b.runs["off"])
    for name, (system, _) in SYSTEMS.items():
        (report,) = compare_runs([off, load_coding_run(layer_b.runs[name])], n_resamples=200)
        assert report["treatment"] == "system" and report["conditions"]["system"]["system"] == system
        assert [e["comparison"] for e in report["effects"]] == ["system - off"]
    with pytest.raises(CompareError, match="both have memory 'system'"):
        compare_runs([off, load_coding_run(layer_b.runs["bm25"]), load_coding_run(layer_b.runs["dense"])])


def test_the_system_sees_only_history_items_and_the_target_view(layer_b):
    received = layer_b.systems["planted"].received
    adds = [call for call in received if call["call"] == "add"]
    searches = [call for call in received if call["call"] == "search"]
    target = layer_b.tasks[TARGET]
    assert len(adds) == 2 and {call["user_id"] for call in received} == {user_space(TARGET)}
    for call in adds:
        for message in call["messages"]:
            assert message.timestamp < target.created_at
            for task in layer_b.tasks.values():  # no task id, no gold or test patch of the target
                assert task.instance_id not in message.text
            assert target.patch not in message.text and target.problem_statement not in message.text
    assert [(s["query"], s["before"]) for s in searches] == [(target.problem_statement, target.created_at)]
    for body in layer_b.requests:  # what the solver was sent: no task id in any slot
        slot = memory_slot_text(body["messages"][1]["content"]) or ""
        assert not any(task.instance_id in slot for task in layer_b.tasks.values())
        assert layer_b.tasks[TARGET].patch not in slot and issue_of(body["messages"][1]["content"])


def test_a_finished_run_resumes_without_touching_the_system(layer_b, monkeypatch):
    folder = layer_b.runs["bm25"]
    before = (folder / "memory.json").read_text()
    markers = {p: p.stat().st_mtime_ns for p in (folder / "memory-system" / "ingested").iterdir()}
    with FakeServer(layer_b.solver) as server:
        run = run_system(folder, layer_b.tasks_file, server.base_url, "bm25", layer_b.sieve,
                         frozen_file=layer_b.frozen)  # fmt: skip
        assert list(server.requests) == [] and run.pending() == []
    assert (folder / "memory.json").read_text() == before
    assert {p: p.stat().st_mtime_ns for p in markers} == markers


def test_another_setting_is_refused_before_the_system_touches_the_folder(layer_b):
    folder = layer_b.runs["bm25"]
    state = folder / "memory-system" / "memory.sqlite"
    stamp = state.stat().st_mtime_ns
    with pytest.raises(RunFolderError, match=r"memory\.top_k"):
        _refused(layer_b, folder, {"top_k": 2})
    assert state.stat().st_mtime_ns == stamp
    with pytest.raises(RunFolderError, match="memory.condition"):
        _refused(layer_b, layer_b.runs["off"], {})
    assert not (layer_b.runs["off"] / "memory-system").exists()  # the off run's folder stays as it was


def _refused(layer_b, folder, settings) -> None:
    run_system(folder, layer_b.tasks_file, "http://127.0.0.1:9", "bm25", layer_b.sieve, system=settings,
               frozen_file=layer_b.frozen)  # fmt: skip


def test_the_command_line_runs_a_memory_system_with_its_options(layer_b, tmp_path):
    out = tmp_path / "cli"
    with FakeServer(layer_b.solver) as server:
        args = ["coding", "run", "--tasks", layer_b.tasks_file, "--frozen", layer_b.frozen,
                "--memory", "bm25", "--history", layer_b.sieve, "--top-k", "2", "--query", "title",
                "--truncate-chars", "100", "--memory-option", "collection=layerb", "--seeds", "1",
                "--max-steps", "4", "--model", "planted", "--base-url", server.base_url, "--out", out,
                "--quiet"]  # fmt: skip
        result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    block = read_json_document(out / "manifest.json")["memory"]
    assert (block["system"], block["top_k"], block["query"], block["truncate_chars"]) == (
        "bm25",
        2,
        "title",
        100,
    )
    assert block["options"] == {"collection": "layerb"} and block["describe"]["collection"] == "layerb"
    entry = memory_of(out)[TARGET]
    assert entry["query"] == layer_b.tasks[TARGET].problem_statement.splitlines()[0] and entry["chars"] <= 100


def without_timings(entry: dict) -> dict:
    """A memory.json entry less what the clock decides."""
    return {
        **entry,
        "ingest": {**entry["ingest"], "seconds": None},
        "search": {**entry["search"], "seconds": None},
    }


def test_a_system_runs_workers_prepare_targets_in_stores_of_their_own(layer_b, tmp_path):
    run = system_run(tmp_path / "ray", layer_b.tasks_file, "http://127.0.0.1:9", "bm25", layer_b.sieve,
                     frozen_file=layer_b.frozen)  # fmt: skip
    twin = pickle.loads(pickle.dumps(run.worker_copy()))  # what an executor with workers elsewhere sends
    assert not hasattr(twin.memories, "system")  # the driver's system and memory.json stay there
    twin.memories.scratch = tmp_path / "worker" / "layer-b"
    local = memory_of(layer_b.runs["bm25"])
    for task in run.tasks:
        target = task.instance_id
        inputs = pickle.loads(pickle.dumps(run.memories.inputs(target)))  # sent along with the task
        shipment = asyncio.run(twin.memories.remote(target, inputs))
        assert without_timings(shipment.value) == without_timings(local[target])  # as one process makes it
        twin.memories.install(target, shipment.value, {})
        slot = asyncio.run(twin.memories.memory(task))
        assert (slot.text, list(slot.sources)) == (local[target]["text"], local[target]["sources"])
        run.memories.adopt(target, shipment)
    run.memories.close()
    assert list((tmp_path / "worker" / "layer-b").iterdir()) == []  # the worker's stores are removed
    assert {t: without_timings(e) for t, e in memory_of(tmp_path / "ray").items()} == {
        t: without_timings(e) for t, e in local.items()
    }


def test_a_system_run_on_ray_writes_the_same_run(layer_b, ray_cluster, tmp_path):
    from execmem.runs.executors.ray_executor import RayExecutor

    with FakeServer(layer_b.solver) as server:
        run = system_run(tmp_path / "ray", layer_b.tasks_file, server.base_url, "bm25", layer_b.sieve,
                         frozen_file=layer_b.frozen)  # fmt: skip
        metrics = asyncio.run(run.run(None, RayExecutor()))
    local = layer_b.runs["bm25"]
    assert metrics["episodes"]["complete"]
    assert comparable_lines(tmp_path / "ray" / "episodes.jsonl", TIMING) == comparable_lines(
        local / "episodes.jsonl", TIMING
    )
    entries = {target: without_timings(entry) for target, entry in memory_of(tmp_path / "ray").items()}
    assert entries == {target: without_timings(entry) for target, entry in memory_of(local).items()}
    assert not (tmp_path / "ray" / "memory-system" / "ingested").exists()  # ingested by the workers
    assert read_json_document(tmp_path / "ray" / "manifest.json")["executors"][0]["name"] == "ray"
