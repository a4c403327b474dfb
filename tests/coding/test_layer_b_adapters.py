"""Layer B with the outside memory libraries: mem0 for real (local mode, its model and embedder the
fake server), MemoryOS and LightMem through their in-process fakes; each ingests a target's history
and its records reach the slot, with the history they came from."""

from __future__ import annotations

import json
import re
import sys
from importlib.util import find_spec

import pytest

from execmem.agents.coding.prompts import memory_slot_text
from execmem.core.files import read_json_document
from execmem.suites.coding.tasks import load_tasks
from execmem.testing import fake_lightmem, fake_memoryos
from execmem.testing.fake_server import FakeServer, Reply
from execmem.testing.planted_coding_solver import PlantedSolver
from tests.coding.conftest import needs_bwrap
from tests.coding.layer_b_support import run_system, write_sieve_history
from tests.coding.sieve_support import make_sieve_tasks

pytestmark = needs_bwrap
TARGET = "alpha__double-3"
HISTORY = ["alpha__double-1", "alpha__inc-2"]
KEY_ENV = "EXECMEM_TEST_LAYER_B_KEY"
_NEW_MESSAGE = re.compile(r"^(?:user|assistant): \[[^\]]+\] \w+: ")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("layer-b-adapters")
    tasks_file = make_sieve_tasks(root)
    tasks = load_tasks(tasks_file)
    return tasks_file, tasks, write_sieve_history(root / "sieve", tasks)


def facts_of(body: dict) -> Reply:
    """mem0's extraction, scripted: one fact per new message (its text on one line)."""
    prompt = body["messages"][-1]["content"]
    new = prompt.split("## New Messages\n", 1)[1].split("\n\n## ", 1)[0]
    facts: list[str] = []
    for line in new.splitlines():
        if _NEW_MESSAGE.match(line):
            facts.append(_NEW_MESSAGE.sub("", line))
        elif facts:
            facts[-1] += " " + line.strip()
    memory = [{"id": str(i), "text": text, "attributed_to": "user"} for i, text in enumerate(facts)]
    return Reply(content=json.dumps({"memory": memory}))


def check_run(folder, requests) -> dict:
    """The run's one target: history ingested, records traced to it, the first one in the slot."""
    entry = read_json_document(folder / "memory.json")[TARGET]
    assert entry["ingested"] == HISTORY and entry["ranking"] and entry["text"]
    assert entry["ranking"][0]["injected"] and set(entry["ranking"][0]["history_ids"]) <= set(HISTORY)
    assert entry["ranking"][0]["history_ids"] and entry["sources"] == entry["ranking"][0]["history_ids"]
    slots = [memory_slot_text(b["messages"][1]["content"]) for b in requests if b["model"] == "planted"]
    assert entry["text"].strip() in slots
    episodes = (folder / "episodes.jsonl").read_text().splitlines()
    assert len(episodes) == 1 and json.loads(episodes[0])["memory_chars"] == entry["chars"]
    return entry


@pytest.mark.skipif(find_spec("mem0") is None, reason='mem0ai missing: pip install -e ".[mem0]"')
def test_mem0_in_local_mode_runs_a_target(world, tmp_path, monkeypatch):
    tasks_file, tasks, sieve = world
    solver = PlantedSolver(tasks, ceiling=0.0)
    monkeypatch.setenv(KEY_ENV, "test-key")
    options = {"api_key_env": KEY_ENV, "model": "fake-llm", "embedding_model": "fake-embed",
               "embedding_dims": 64, "infer": True, "threshold": 0.0}  # fmt: skip
    with FakeServer(
        lambda body: solver(body) if body["model"] == "planted" else facts_of(body), embedding_dim=64
    ) as server:
        options["base_url"] = server.base_url
        run = run_system(tmp_path / "mem0", tasks_file, server.base_url, "mem0", sieve, seeds=1,
                         only=[TARGET], system={"options": options})  # fmt: skip
        requests = list(server.requests)
    entry = check_run(tmp_path / "mem0", requests)
    extraction = [body for body in requests if body["model"] == "fake-llm"]
    assert entry["ingest"]["llm_calls"] == len(extraction) == 2  # one extraction per history item
    for body in extraction:  # mem0's model never sees the target
        assert TARGET not in json.dumps(body) and tasks[2].patch not in json.dumps(body)
    block = read_json_document(tmp_path / "mem0" / "manifest.json")["memory"]
    assert block["describe"]["system"] == "mem0" and block["describe"]["infer"] is True
    run.memories.close()


@pytest.mark.parametrize(
    ("name", "fake", "options"),
    [
        ("memoryos", fake_memoryos, {"embedder": "openai", "short_term_capacity": 2}),
        ("lightmem", fake_lightmem, {"embedding_dims": 64}),
    ],
)
def test_the_seeds_adapters_serve_a_coding_run(name, fake, options, world, tmp_path, monkeypatch):
    tasks_file, tasks, sieve = world
    for module_name, module in fake.fake_modules().items():
        monkeypatch.setitem(sys.modules, module_name, module)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    solver = PlantedSolver(tasks, ceiling=0.0)
    with FakeServer(solver, embedding_dim=64) as server:
        run_system(tmp_path / name, tasks_file, server.base_url, name, sieve, seeds=1, only=[TARGET],
                   system={"options": {"base_url": server.base_url, **options}})  # fmt: skip
        requests = list(server.requests)
    check_run(tmp_path / name, requests)
    block = read_json_document(tmp_path / name / "manifest.json")["memory"]
    assert block["describe"]["system"] == name
    assert (tmp_path / name / "memory-system" / "memory.sqlite").is_dir()  # the run's state path, a folder
