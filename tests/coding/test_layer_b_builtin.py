"""Layer B's retrieval on the built-in task set, offline: bm25 and dense (its hashing embedder)
ingest every target's earlier same-repository tasks (a hand-made SIEVE history stage) and fill the
slot from that history only, each injected record saved with its lines and tokens; bm25 at --top-k
1..5 gives the dose curve, the records joined in rank order. (Episodes: benchmarks/layer_b.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from execmem.core.tokens import estimate_tokens
from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.layer_b.history import SieveHistory
from execmem.runs.coding.layer_b.memories import SystemMemories
from execmem.runs.coding.layer_b.slot import SEPARATOR
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import CodingTask, load_tasks
from tests.coding.layer_b_support import write_sieve_history


@pytest.fixture(scope="module")
def builtin(tmp_path_factory) -> tuple[Path, list[CodingTask], SieveHistory]:
    tasks = load_tasks(builtin_tasks_path())
    sieve = write_sieve_history(tmp_path_factory.mktemp("layer-b-builtin") / "sieve", tasks)
    return sieve, tasks, SieveHistory(sieve)


def entries_of(sieve: Path, history: SieveHistory, folder: Path, targets, name: str, **settings) -> dict:
    """Every target's memory.json entry under one system and setting."""
    config = SystemMemoryConfig(name=name, history_dir=sieve, **settings)
    memories = SystemMemories(config, folder, history, list(targets))
    memories.resume({}, [t.instance_id for t in targets], lambda entries: None)

    async def prepare() -> None:
        for task in targets:
            await memories.memory(task)

    asyncio.run(prepare())
    memories.close()
    return memories.entries


def last_of_each_repo(tasks: list[CodingTask]) -> list[CodingTask]:
    latest: dict[str, CodingTask] = {}
    for task in tasks:
        if task.repo not in latest or task.created_at > latest[task.repo].created_at:
            latest[task.repo] = task
    return list(latest.values())


@pytest.mark.parametrize("name", ["bm25", "dense"])
def test_every_target_with_history_gets_a_record_of_its_own_history(builtin, tmp_path, name):
    sieve, tasks, history = builtin
    options = {"embedder": "hashing"} if name == "dense" else {}  # MiniLM: test_layer_b_runs, the benchmark
    entries = entries_of(sieve, history, tmp_path / name, tasks, name, options=options)
    assert sum(bool(history.eligible(t.instance_id)) for t in tasks) >= 40
    for task in tasks:
        entry, eligible = (
            entries[task.instance_id],
            [i.instance_id for i in history.eligible(task.instance_id)],
        )
        assert entry["ingested"] == eligible
        if not eligible:
            assert entry["text"] is None and entry["ranking"] == []
            continue
        assert entry["text"] and entry["sources"] and set(entry["sources"]) <= set(eligible)
        assert entry["lines"] == len(entry["text"].splitlines()) and entry["tokens"] == estimate_tokens(
            entry["text"]
        )
        assert task.instance_id not in entry["text"] and task.patch not in entry["text"]
        for record in entry["ranking"]:
            assert record["tokens"] == estimate_tokens(record["text"]) and set(record["history_ids"]) <= set(
                eligible
            )
        (injected,) = [r for r in entry["ranking"] if r["injected"]]
        assert entry["text"] == injected["text"].strip() and "leaks" not in injected


def test_the_dose_curve_joins_the_next_record_at_each_k(builtin, tmp_path):
    sieve, tasks, history = builtin
    targets = [t for t in last_of_each_repo(tasks) if len(history.eligible(t.instance_id)) >= 3]
    curve = {k: entries_of(sieve, history, tmp_path / f"k{k}", targets, "bm25", top_k=k) for k in range(1, 6)}
    for task in targets:
        doses = [curve[k][task.instance_id] for k in range(1, 6)]
        ranked = doses[0]["ranking"]
        assert all(dose["ranking"][0]["text"] == ranked[0]["text"] for dose in doses)  # one ranking
        usable = [r["text"].strip() for r in ranked if r["text"].strip() and "leaks" not in r]
        assert len(usable) >= 5
        for k, dose in enumerate(doses, start=1):
            assert dose["text"] == SEPARATOR.join(usable[:k])
            assert sum(r["injected"] for r in dose["ranking"]) == k
        assert [d["lines"] for d in doses] == sorted(d["lines"] for d in doses) and doses[4]["lines"] > doses[
            0
        ]["lines"]
        assert [d["tokens"] for d in doses] == sorted(d["tokens"] for d in doses)
